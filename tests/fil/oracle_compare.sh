#!/usr/bin/env bash
# cuzk fil against fil-oracle (Filecoin's own Rust prover, tests/oracle), ctest fil.oracle:
#   oracle_compare.sh SOURCE_DIR BUILD_DIR [FIXTURES_DIR]
# Without FIXTURES_DIR the fixtures come from tests/oracle/fixtures.sh (cached under ~/.cache/cuzk);
# the test is skipped (exit 77, said why) when that script or the fil-oracle binary (cargo) is absent.
# For each sealed 2 KiB sector: inspect-c1 accepts the oracle's C1 output (parser, replica_id,
# challenges, comm_r = Poseidon(comm_c, comm_r_last)), our public inputs equal the oracle's, and, with
# the oracle's params and C2 proof, verify-seal accepts it and rejects a flipped bit in A, B or C,
# the other sector's proof, a wrong miner id and a changed seed. For window/winning PoSt fixtures:
# our public inputs equal the oracle's, verify-post accepts the proof and rejects other randomness.
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
FIX=${3:-}
if [[ -z $FIX ]]; then
  if [[ ! -x $SRC/tests/oracle/fixtures.sh ]]; then
    echo "SKIPPED: tests/oracle/fixtures.sh is not in this checkout (fil-oracle not landed)"
    exit 77
  fi
  FIX=$BUILD/tests/fil/oracle-fixtures
  rc=0
  bash "$SRC/tests/oracle/fixtures.sh" "$BUILD" "$FIX" || rc=$?
  ((rc == 77)) && { echo "SKIPPED: fil-oracle not built (cargo absent)"; exit 77; }
  ((rc == 0)) || { echo "FAIL - tests/oracle/fixtures.sh exit $rc"; exit 1; }
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
MINER=1000

# same_inputs OURS.json ORACLE.json PARTITION: our decimal vectors against the oracle's hex-be32 ones.
same_inputs() {
  python3 - "$@" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))
orc = json.load(open(sys.argv[2]))
k = int(sys.argv[3])
theirs = [int(h, 16) for h in orc["public_inputs"][k]["inputs"]]
mine = [int(x) for x in ours[k]]
sys.exit(0 if mine == theirs else 1)
PY
}
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$@"; }

for g in "$FIX"/graph-*.json; do
  [[ -f $g ]] || continue
  read -r size first count <<<"$(python3 -c "import json,sys; g=json.load(open(sys.argv[1])); print(g['sector_size'], g['first'], len(g['parents']))" "$g")"
  case $size in 2048) type=StackedDrg2KiBV1_1 ;; 8388608) type=StackedDrg8MiBV1_1 ;; *) continue ;; esac
  "$CUZK" fil graph --proof-type $type --first "$first" --count "$count" >"$T/graph.json"
  if python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a['parents']==b['parents'] and a['porep_id']==b['porep_id'] else 1)" "$T/graph.json" "$g"
  then ok "$(basename "$g"): parents equal the oracle's"; else not_ok "$(basename "$g"): parents differ from the oracle's"; fi
done

sectors=()
for d in "$FIX"/sector-*; do [[ -f $d/c1.json ]] && sectors+=("$d"); done
((${#sectors[@]} > 0)) || { echo "FAIL - no sector-*/c1.json in $FIX"; exit 1; }
for d in "${sectors[@]}"; do
  n=$(basename "$d")
  expect_exit 0 "$n: inspect-c1 of the oracle's C1 output" "$CUZK" fil inspect-c1 "$d/c1.json" --miner-id $MINER
  expect_exit 1 "$n: inspect-c1 with another miner id" "$CUZK" fil inspect-c1 "$d/c1.json" --miner-id $((MINER + 1))
  if [[ -f $d/public-inputs.json ]]; then
    "$CUZK" fil public-inputs --c1 "$d/c1.json" --miner-id $MINER >"$T/pi.json"
    if same_inputs "$T/pi.json" "$d/public-inputs.json" 0; then ok "$n: public inputs equal the oracle's"
    else not_ok "$n: public inputs differ from the oracle's"; fi
  fi
  if [[ -f $d/proof.bin && -d $FIX/params ]]; then
    seal() { "$CUZK" fil verify-seal --params-dir "$FIX/params" "$@"; }
    expect_exit 0 "$n: verify-seal accepts the oracle's proof" seal --c1 "$d/c1.json" --miner-id $MINER --proof "$d/proof.bin"
    for at in 20 100 170; do
      flip "$d/proof.bin" "$T/flip.bin" $at
      expect_reject "$n: verify-seal, bit flipped at byte $at" seal --c1 "$d/c1.json" --miner-id $MINER --proof "$T/flip.bin"
    done
    expect_exit 1 "$n: verify-seal, wrong miner id" seal --c1 "$d/c1.json" --miner-id $((MINER + 1)) --proof "$d/proof.bin"
    for o in "${sectors[@]}"; do
      [[ $o != "$d" && -f $o/proof.bin ]] || continue
      expect_exit 1 "$n: verify-seal, $(basename "$o")'s proof" seal --c1 "$d/c1.json" --miner-id $MINER --proof "$o/proof.bin"
    done
  fi
done

for kind in window winning; do
  P=$FIX/$kind
  [[ -f $P/post.json ]] || continue
  type=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['registered_proof'])" "$P/post.json")
  rnd=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['randomness'])" "$P/post.json")
  post() { "$CUZK" fil verify-post --proof-type "$type" --sectors "$P/post.json" --params-dir "$FIX/params" "$@"; }
  [[ -f $P/proof.bin ]] || continue
  expect_exit 0 "$kind: verify-post accepts the oracle's proof" post --randomness "$rnd" --proof "$P/proof.bin"
  expect_exit 1 "$kind: verify-post, other randomness" post --randomness "0${rnd:1:62}0" --proof "$P/proof.bin"
  flip "$P/proof.bin" "$T/flip.bin" 100
  expect_reject "$kind: verify-post, bit flipped in B" post --randomness "$rnd" --proof "$T/flip.bin"
done
finish
