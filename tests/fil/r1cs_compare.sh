#!/usr/bin/env bash
# ctest fil.r1cs: our recorded R1CS of the crates' PoSt test shapes against fil-oracle's dumps,
# constraint by constraint (tests/fil/r1cs_compare.cpp).   r1cs_compare.sh BUILD_DIR
# fil-oracle is $FIL_ORACLE or BUILD_DIR/bin/fil-oracle (tests/oracle); skipped (exit 77) without it.
set -u
BUILD=$1
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
if [[ ! -x $ORACLE ]]; then
  echo "SKIPPED: fil-oracle not found ($ORACLE; set FIL_ORACLE or build tests/oracle)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for shape in post-test-8 post-test-8-4 post-test-8-4-2; do
  "$ORACLE" r1cs --shape $shape --out "$T/$shape.r1cs" >/dev/null || { echo "FAIL - fil-oracle r1cs --shape $shape"; fail=1; continue; }
  if "$BUILD/bin/cuzk_r1cs_compare" $shape "$T/$shape.r1cs"; then echo "ok - $shape: R1CS equals the oracle's"
  else echo "not ok - $shape"; fail=1; fi
done
exit $fail
