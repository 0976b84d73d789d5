#!/usr/bin/env bash
# ctest fil.snap (label oracle): SnapDeals against fil-oracle.
#   snap_prove.sh SOURCE_DIR BUILD_DIR [FIXTURES_DIR] [BACKEND]
# With the 2 KiB fixtures of tests/oracle/snap_fixtures.sh (the oracle's update params, a
# committed-capacity sector and its SnapDeals update: update.json, the bincode PartitionProof, the
# oracle's proof):
#  - our update circuit's R1CS equals the oracle's, blank and for the real partition (every
#    constraint, and the witness): cuzk_r1cs_compare;
#  - our proof, made on BACKEND (default cpu) by `cuzk fil snap`, is accepted by `fil-oracle
#    verify-update` and by `cuzk fil verify-update`, and rejected by the oracle with a flipped bit;
#    cuzk accepts the oracle's proof and rejects it with a flipped bit and against another comm_d_new. Unusable input exits 2 with one line naming what is wrong (a commitment of 31 bytes,
# two partition proofs for a one-partition sector, a PartitionProof that does not parse, one whose
# paths do not open to comm_r_old, a missing params file) and no proof file is left behind.
# fil-oracle is $FIL_ORACLE, else BUILD_DIR/bin/fil-oracle; skipped (exit 77, said why) without one.
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
BACKEND=${4:-cpu}
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
[[ -x $ORACLE ]] || { echo "SKIPPED: no fil-oracle binary to judge the proofs ($ORACLE; set FIL_ORACLE)"; exit 77; }
FIX=${3:-$BUILD/tests/fil/snap-fixtures}
if [[ ! -f $FIX/update/update.json ]]; then
  rc=0
  bash "$SRC/tests/oracle/snap_fixtures.sh" "$BUILD" "$FIX" || rc=$?
  ((rc == 77)) && { echo "SKIPPED: fil-oracle not built (cargo absent)"; exit 77; }
  ((rc == 0)) || { echo "FAIL - tests/oracle/snap_fixtures.sh exit $rc"; exit 1; }
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
U=$FIX/update
CMP=$BUILD/bin/cuzk_r1cs_compare
if "$ORACLE" r1cs --shape update --sector-size 2KiB --out "$T/blank.r1cs" >/dev/null && "$CMP" update:2KiB "$T/blank.r1cs"; then
  ok "the blank 2 KiB update circuit's R1CS equals the oracle's"
else
  not_ok "the blank 2 KiB update circuit's R1CS"
fi
rm -f "$T/blank.r1cs"
if "$ORACLE" r1cs --update "$U/update.json" --partition 0 --out "$T/real.r1cs" >/dev/null && "$CMP" "$U/update.json#0" "$T/real.r1cs"; then
  ok "the 2 KiB update partition's R1CS and witness equal the oracle's"
else
  not_ok "the 2 KiB update partition's R1CS and witness"
fi
rm -f "$T/real.r1cs"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$@"; }
old=$(json "$U/update.json" 'd["comm_r_old"]')
new=$(json "$U/update.json" 'd["comm_r_new"]')
dnew=$(json "$U/update.json" 'd["comm_d_new"]')
mapfile -t vfiles < <(json "$U/update.json" '"\n".join("'"$U"'/" + v for v in d["vanilla"])')
ids=(--sector-size 2KiB --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew")

expect_exit 0 "cuzk fil snap ($BACKEND)" "$CUZK" fil snap "${ids[@]}" --vanilla "${vfiles[@]}" \
  --params-dir "$FIX/params" --backend "$BACKEND" --out "$T/snap.bin"
if [[ -f $T/snap.bin ]]; then
  size=$(stat -c %s "$T/snap.bin")
  ((size == 192)) && ok "$size bytes (one partition)" || not_ok "a proof of $size bytes"
  expect_exit 0 "fil-oracle verify-update accepts our proof" \
    "$ORACLE" verify-update --update "$U/update.json" --proof "$T/snap.bin" --cache "$FIX/params"
  expect_exit 0 "cuzk fil verify-update accepts our proof" \
    "$CUZK" fil verify-update "${ids[@]}" --params-dir "$FIX/params" --proof "$T/snap.bin"
  flip "$T/snap.bin" "$T/flip.bin" 30
  expect_exit 1 "fil-oracle rejects our proof with a flipped bit" \
    "$ORACLE" verify-update --update "$U/update.json" --proof "$T/flip.bin" --cache "$FIX/params"
fi
expect_exit 0 "cuzk fil verify-update accepts the oracle's proof" \
  "$CUZK" fil verify-update "${ids[@]}" --params-dir "$FIX/params" --proof "$U/proof.bin"
flip "$U/proof.bin" "$T/oflip.bin" 100
expect_reject "cuzk fil verify-update rejects the oracle's proof with a flipped bit" \
  "$CUZK" fil verify-update "${ids[@]}" --params-dir "$FIX/params" --proof "$T/oflip.bin"
expect_exit 1 "cuzk fil verify-update rejects the oracle's proof against another comm_d_new" \
  "$CUZK" fil verify-update --sector-size 2KiB --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$old" \
  --params-dir "$FIX/params" --proof "$U/proof.bin"

# Unusable input: exit 2, one line that names the problem, no proof written.
bad() {  # bad DESCRIPTION PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  rm -f "$T/bad.bin"
  expect_exit 2 "$what" "$CUZK" fil snap --sector-size 2KiB --backend cpu --out "$T/bad.bin" "$@"
  local msg
  msg=$("$CUZK" fil snap --sector-size 2KiB --backend cpu --out "$T/bad.bin" "$@" 2>&1 >/dev/null || true)
  [[ $msg =~ $pattern ]] && ok "$what: the line says '$pattern'" || not_ok "$what: '$msg' does not match '$pattern'"
  [[ ! -e $T/bad.bin ]] && ok "$what: no proof written" || not_ok "$what: a proof file was written"
}
P=(--params-dir "$FIX/params")
bad "comm_r_old of 31 bytes" "--comm-r-old: expected 64 hex digits" \
  --comm-r-old "${old:0:62}" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${vfiles[@]}" "${P[@]}"
bad "two partition proofs for a 2 KiB sector" "vanilla: 2 partition proofs, .* has 1 partitions" \
  --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${vfiles[0]}" "${vfiles[0]}" "${P[@]}"
head -c 1000 "${vfiles[0]}" >"$T/short.bin"
bad "a truncated PartitionProof" "short\\.bin: challenge_proofs.*truncated|short\\.bin: challenge_proofs: length" \
  --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "$T/short.bin" "${P[@]}"
other=$(python3 -c "print('%064x' % 5)")
bad "a PartitionProof of another sector (paths do not open to comm_r_old)" \
  "comm_r_old $other is not Poseidon\\(comm_c, TreeROld root" \
  --comm-r-old "$other" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${vfiles[@]}" "${P[@]}"
# Challenge 0's TreeROld leaf: comm_c 32, apex count 8 + 8 x 32, challenge count 8, the variant u32, the root 32.
flip "${vfiles[0]}" "$T/leaf.bin" $((32 + 8 + 256 + 8 + 4 + 32))
bad "a TreeROld leaf that does not match its path" "leaf\\.bin \\(partition 0\\): challenge 0 \\(node [0-9]+\\): proof_r_old: the path does not lead" \
  --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "$T/leaf.bin" "${P[@]}"
mkdir -p "$T/empty"
bad "a missing params file" "$T/empty/v28-empty-sector-update-[^ ]*\\.params: no such file" \
  --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${vfiles[@]}" --params-dir "$T/empty"
finish
