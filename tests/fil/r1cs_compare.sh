#!/usr/bin/env bash
# ctest fil.r1cs: our recorded R1CS against fil-oracle's dumps, constraint by constraint, and our
# witness against its witness (tests/fil/r1cs_compare.cpp).   r1cs_compare.sh SOURCE_DIR BUILD_DIR
#  - the crates' PoSt test shapes post-test-8, 8-4, 8-4-2 and the registered WindowPoSt (2 KiB, 8 MiB,
#    512 MiB) and WinningPoSt (all five sizes: trees 8-0-0, 8-8-0, 8-8-2) circuits, blank (structure);
#  - the crates' PoRep test shape porep-test-8 (StackedDrg, 2 layers, 1 challenge: SHA-256 labels and
#    comm_d path, Poseidon columns), blank;
#  - the real 2 KiB WindowPoSt and WinningPoSt partitions and the real 2 KiB PoRep partitions of
#    sectors 1 and 2 of tests/oracle/fixtures.sh (structure and witness), when that script is in the
#    checkout.
# Bigger PoRep shapes are a manual command (docs/benchmarks.md: porep-test-2/8-4/8-4-2, 8 MiB digest,
# 32 GiB counts).
# fil-oracle is $FIL_ORACLE or BUILD_DIR/bin/fil-oracle; skipped (exit 77, said why) without it.
set -u
SRC=$1 BUILD=$2
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
if [[ ! -x $ORACLE ]]; then
  echo "SKIPPED: fil-oracle not found ($ORACLE; set FIL_ORACLE or build it: scripts/build.sh BUILD_DIR fil-oracle)"
  exit 77
fi
CMP=$BUILD/bin/cuzk_r1cs_compare
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for shape in porep-test-8 post-test-8 post-test-8-4 post-test-8-4-2 window-post:2KiB window-post:8MiB window-post:512MiB \
  winning-post:2KiB winning-post:8MiB winning-post:512MiB winning-post:32GiB winning-post:64GiB; do
  args=(--shape "${shape%%:*}")
  [[ $shape == *:* ]] && args+=(--sector-size "${shape#*:}")
  "$ORACLE" r1cs "${args[@]}" --out "$T/dump.r1cs" >/dev/null || { echo "FAIL - fil-oracle r1cs ${args[*]}"; fail=1; continue; }
  if "$CMP" $shape "$T/dump.r1cs"; then echo "ok - $shape: R1CS equals the oracle's"
  else echo "not ok - $shape"; fail=1; fi
  rm -f "$T/dump.r1cs"
done
if [[ -x $SRC/tests/oracle/fixtures.sh && -x $BUILD/bin/fil-oracle ]]; then
  FIX=$BUILD/tests/fil/oracle-fixtures
  rc=0
  bash "$SRC/tests/oracle/fixtures.sh" "$BUILD" "$FIX" >/dev/null || rc=$?
  if ((rc != 0)); then echo "FAIL - tests/oracle/fixtures.sh exit $rc"; exit 1; fi
  for kind in window winning; do
    "$ORACLE" r1cs --post "$FIX/$kind/post.json" --partition 0 --out "$T/$kind.r1cs" >/dev/null ||
      { echo "FAIL - fil-oracle r1cs --post $kind"; fail=1; continue; }
    if "$CMP" "$FIX/$kind/post.json" "$T/$kind.r1cs"; then echo "ok - 2 KiB $kind PoSt: R1CS and witness equal the oracle's"
    else echo "not ok - 2 KiB $kind PoSt"; fail=1; fi
  done
  for n in 1 2; do
    "$ORACLE" r1cs --c1 "$FIX/sector-$n/c1.json" --partition 0 --out "$T/porep.r1cs" >/dev/null ||
      { echo "FAIL - fil-oracle r1cs --c1 sector-$n"; fail=1; continue; }
    if "$CMP" "$FIX/sector-$n/c1.json#0" "$T/porep.r1cs"; then echo "ok - 2 KiB PoRep sector $n partition 0: R1CS and witness equal the oracle's"
    else echo "not ok - 2 KiB PoRep sector $n"; fail=1; fi
    rm -f "$T/porep.r1cs"
  done
else
  echo "(real PoSt and PoRep partitions not compared: tests/oracle/fixtures.sh or BUILD_DIR/bin/fil-oracle absent)"
fi
exit $fail
