#!/usr/bin/env bash
# ctest fil.post (label oracle): `cuzk fil post` against fil-oracle (Filecoin's own verifier).
#   post_prove.sh SOURCE_DIR BUILD_DIR [FIXTURES_DIR] [BACKEND]
# With the 2 KiB fixtures of tests/oracle/fixtures.sh (the oracle's params, two sealed sectors and
# their WindowPoSt / WinningPoSt vanilla proofs): our Window and Winning proofs, made on BACKEND
# (default cpu), are accepted by `fil-oracle verify-post` and by `cuzk fil verify-post`; a proof
# with a flipped bit is not. Unusable input exits 2 with one line naming what is wrong: randomness
# of 31 bytes, a vanilla proof whose leaf does not hash to its root (the line names the sector,
# partition and challenge), a vanilla proof for other randomness, a missing params file (the line
# names the path looked for); no proof file is left behind.
# fil-oracle is $FIL_ORACLE, else BUILD_DIR/bin/fil-oracle (needs cargo), else FIXTURES_DIR/bin/fil-oracle;
# skipped (exit 77, said why) without one.
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
source "$(dirname "$0")/lib.sh"
BACKEND=${4:-cpu}
fil_fixtures "${3:-}" post-fixtures
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
MINER=1000
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$@"; }

for kind in window winning; do
  P=$FIX/$kind
  [[ -f $P/post.json ]] || { not_ok "$kind: no $P/post.json in the fixtures"; continue; }
  rnd=$(json "$P/post.json" 'd["randomness"]')
  type=$(json "$P/post.json" 'd["registered_proof"]')
  mapfile -t vanilla < <(json "$P/post.json" '"\n".join(s["vanilla"] for s in d["sectors"] if "vanilla" in s)')
  vfiles=()
  for v in "${vanilla[@]}"; do vfiles+=("$P/$v"); done
  prove() { "$CUZK" fil post --kind $kind --miner-id $MINER --params-dir "$FIX/params" --backend "$BACKEND" "$@"; }

  # Reversed order on purpose: the sectors are proved sorted by id whatever order they come in.
  rm -f "$T/$kind.bin"
  mapfile -t reversed < <(printf '%s\n' "${vfiles[@]}" | tac)
  expect_exit 0 "$kind: cuzk fil post ($BACKEND)" prove --vanilla "${reversed[@]}" --randomness "$rnd" --out "$T/$kind.bin"
  if [[ -f $T/$kind.bin ]]; then
    size=$(stat -c %s "$T/$kind.bin")
    ((size == 192 * $(json "$P/post.json" 'd["partitions"]'))) && ok "$kind: $size bytes (192 per partition)" ||
      not_ok "$kind: proof of $size bytes"
    expect_exit 0 "$kind: fil-oracle verify-post accepts our proof" \
      "$ORACLE" verify-post --post "$P/post.json" --proof "$T/$kind.bin" --cache "$FIX/params"
    expect_exit 0 "$kind: cuzk fil verify-post accepts our proof" "$CUZK" fil verify-post --proof-type "$type" \
      --sectors "$P/post.json" --params-dir "$FIX/params" --randomness "$rnd" --proof "$T/$kind.bin"
    flip "$T/$kind.bin" "$T/flip.bin" 30
    expect_exit 1 "$kind: fil-oracle rejects our proof with a flipped bit" \
      "$ORACLE" verify-post --post "$P/post.json" --proof "$T/flip.bin" --cache "$FIX/params"
  fi
done

# Unusable input: exit 2, one line that names the problem, no proof written.
P=$FIX/window
rnd=$(json "$P/post.json" 'd["randomness"]')
mapfile -t vfiles < <(json "$P/post.json" '"\n".join("'"$P"'/" + s["vanilla"] for s in d["sectors"])')
bad() {  # bad DESCRIPTION PATTERN ARGS...: exit 2, one line matching PATTERN, no output file
  local what=$1 pattern=$2
  shift 2
  rm -f "$T/bad.bin"
  expect_exit 2 "$what" "$CUZK" fil post --kind window --miner-id $MINER --backend cpu --out "$T/bad.bin" "$@"
  local msg
  msg=$("$CUZK" fil post --kind window --miner-id $MINER --backend cpu --out "$T/bad.bin" "$@" 2>&1 >/dev/null || true)
  [[ $msg =~ $pattern ]] && ok "$what: the line says '$pattern'" || not_ok "$what: '$msg' does not match '$pattern'"
  [[ ! -e $T/bad.bin ]] && ok "$what: no proof written" || not_ok "$what: a proof file was written"
}
bad "randomness of 31 bytes" "--randomness: expected 64 hex digits" \
  --vanilla "${vfiles[@]}" --randomness "${rnd:0:62}" --params-dir "$FIX/params"
# The first inclusion proof's leaf: sector_id 8, comm_r 32, two u64 counts, the variant u32, the root.
flip "${vfiles[1]}" "$T/leaf.bin" 92
bad "a vanilla proof whose leaf does not match its path" \
  "partition 0: .*leaf\\.bin \\(sector [0-9]+\\): challenge 0 \\(leaf [0-9]+\\).*does not lead from the leaf to comm_r_last" \
  --vanilla "${vfiles[0]}" "$T/leaf.bin" --randomness "$rnd" --params-dir "$FIX/params"
bad "vanilla proofs of other randomness" "proves leaf [0-9]+, the challenge is [0-9]+" \
  --vanilla "${vfiles[@]}" --randomness "0${rnd:1}" --params-dir "$FIX/params"
mkdir -p "$T/empty"
bad "a missing params file" "$T/empty/v28-proof-of-spacetime-fallback-[^ ]*\\.params: no such file" \
  --vanilla "${vfiles[@]}" --randomness "$rnd" --params-dir "$T/empty"
finish
