#!/usr/bin/env bash
# ctest fil.c2 (label oracle): `cuzk fil c2` against fil-oracle (Filecoin's own verifier).
#   c2_prove.sh SOURCE_DIR BUILD_DIR [FIXTURES_DIR] [BACKEND]
# With the 2 KiB fixtures of tests/oracle/fixtures.sh (the oracle's PoRep params and sealed
# sectors): our C2 proof of sector 1, made on BACKEND (default cpu), is accepted by `fil-oracle
# verify-seal` and by `cuzk fil verify-seal`, and rejected for sector 2's C1. Unusable input exits
# 2 with one line and writes nothing: another miner id (the replica id is not the miner's), a
# missing params file (the line names the path looked for), a truncated C1.
# fil-oracle is $FIL_ORACLE, else BUILD_DIR/bin/fil-oracle, else FIXTURES_DIR/bin/fil-oracle; skipped
# (exit 77, said why) without one. A 2 KiB C2 takes minutes on the CPU (2^22 domain).
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
source "$(dirname "$0")/lib.sh"
BACKEND=${4:-cpu}
fil_fixtures "${3:-}" c2-fixtures
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
MINER=1000
S1=$FIX/sector-1 S2=$FIX/sector-2

expect_exit 0 "sector 1: cuzk fil c2 ($BACKEND)" "$CUZK" fil c2 --c1 "$S1/c1.json" --miner-id $MINER \
  --params-dir "$FIX/params" --backend "$BACKEND" --out "$T/c2.bin"
if [[ -f $T/c2.bin ]]; then
  size=$(stat -c %s "$T/c2.bin")
  ((size == 192)) && ok "sector 1: 192 bytes (one partition)" || not_ok "sector 1: proof of $size bytes"
  expect_exit 0 "sector 1: fil-oracle verify-seal accepts our proof" \
    "$ORACLE" verify-seal --c1 "$S1/c1.json" --miner-id $MINER --proof "$T/c2.bin" --cache "$FIX/params"
  expect_exit 0 "sector 1: cuzk fil verify-seal accepts our proof" \
    "$CUZK" fil verify-seal --c1 "$S1/c1.json" --miner-id $MINER --proof "$T/c2.bin" --params-dir "$FIX/params"
  [[ -f $S2/c1.json ]] && expect_exit 1 "sector 1's proof is rejected for sector 2's C1" \
    "$ORACLE" verify-seal --c1 "$S2/c1.json" --miner-id $MINER --proof "$T/c2.bin" --cache "$FIX/params"
fi

bad() {  # bad DESCRIPTION PATTERN ARGS...: exit 2, one line matching PATTERN, no output file
  local what=$1 pattern=$2 msg
  shift 2
  rm -f "$T/bad.bin"
  expect_exit 2 "$what" "$CUZK" fil c2 --backend cpu --out "$T/bad.bin" "$@"
  msg=$("$CUZK" fil c2 --backend cpu --out "$T/bad.bin" "$@" 2>&1 >/dev/null || true)
  [[ $msg =~ $pattern ]] && ok "$what: the line says '$pattern'" || not_ok "$what: '$msg' does not match '$pattern'"
  [[ ! -e $T/bad.bin ]] && ok "$what: no proof written" || not_ok "$what: a proof file was written"
}
bad "another miner id" "replica_id of the C1 output is not that of miner 1001" \
  --c1 "$S1/c1.json" --miner-id 1001 --params-dir "$FIX/params"
mkdir -p "$T/empty"
bad "a missing params file" "$T/empty/v28-stacked-proof-of-replication-[^ ]*\\.params: no such file" \
  --c1 "$S1/c1.json" --miner-id $MINER --params-dir "$T/empty"
head -c 5000 "$S1/c1.json" >"$T/short.json"
bad "a truncated C1" "short\\.json" --c1 "$T/short.json" --miner-id $MINER --params-dir "$FIX/params"
finish
