#!/usr/bin/env bash
# ctest engine.filecoin: Filecoin PoSt jobs through the engine (tests/engine/filecoin_test.cpp, the
# hidden [filecoin] cases) with fil-oracle's 2 KiB fixtures, then the engine's proofs are handed to
# `fil-oracle verify-post` / `verify-seal`: the judge is Filecoin's own verifier.
#   filecoin_engine.sh SOURCE_DIR BUILD_DIR [porep|cluster]
# The [filecoin] cases include PoRep C2 of both sealed 2 KiB sectors (the compact evaluator recorded
# once for both jobs), their proofs handed to `fil-oracle verify-seal`. With `porep`: only that case;
# with `cluster`: [filecoin-cluster], the PoRep, PoSt and SnapDeals jobs proved by two worker engines
# of a coordinator_only one (one stopped mid-way), the proofs handed to the oracle the same way (the
# updates to `fil-oracle verify-update`, fixtures from tests/oracle/snap_fixtures.sh), sector 2's
# proof again after a node answered it with sector 1's proof and the coordinator refused that one
# (porep-2-refused), and a SnapDeals job refused at submit by a coordinator whose node lacks the
# update params.
# Fixtures: $CUZK_FIL_FIXTURES (a tests/oracle/fixtures.sh OUTDIR), else made by that script with
# BUILD_DIR/bin/fil-oracle (cached under ~/.cache/cuzk); fil-oracle: $FIL_ORACLE or
# BUILD_DIR/bin/fil-oracle. Skipped (exit 77, saying why) without them.
set -u
SRC=$1 BUILD=$2 MODE=${3:-post}
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
if [[ ! -x $ORACLE ]]; then
  echo "SKIPPED: fil-oracle not found ($ORACLE; set FIL_ORACLE or build it: scripts/build.sh BUILD_DIR fil-oracle)"
  exit 77
fi
FIX=${CUZK_FIL_FIXTURES:-}
if [[ -z $FIX ]]; then
  FIX=$BUILD/tests/engine/oracle-fixtures
  rc=0
  bash "$SRC/tests/oracle/fixtures.sh" "$BUILD" "$FIX" >/dev/null || rc=$?
  if ((rc == 77)); then echo "SKIPPED: tests/oracle/fixtures.sh could not make the fixtures"; exit 77; fi
  if ((rc != 0)); then echo "FAIL - tests/oracle/fixtures.sh exit $rc"; exit 1; fi
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fail=0
verify_porep() {  # verify_porep NAME...: the PoRep C2 proofs porep-NAME.bin ([filecoin-porep], also run
  # among [filecoin], writes sectors 1 and 2, then sector 1's again after its evaluator was changed,
  # then truncated, under the hot key; [filecoin-cluster] writes sectors 1, 2 and 2-refused)
  for n in "$@"; do
    if [[ ! -s $OUT/porep-$n.bin ]]; then echo "not ok - no PoRep proof of sector $n from the engine"; fail=1
    elif "$ORACLE" verify-seal --c1 "$FIX/sector-${n%%-*}/c1.json" --miner-id 1000 --proof "$OUT/porep-$n.bin" --cache "$FIX/params"; then
      echo "ok - fil-oracle verify-seal accepts the engine's 2 KiB PoRep C2 proof of sector $n"
    else
      echo "not ok - fil-oracle verify-seal rejects the engine's PoRep proof of sector $n"; fail=1
    fi
  done
}
if [[ $MODE == cluster ]]; then  # [filecoin-cluster]: the same jobs proved by worker nodes of a coordinator
  SNAP=$BUILD/tests/engine/snap-fixtures
  rc=0
  bash "$SRC/tests/oracle/snap_fixtures.sh" "$BUILD" "$SNAP" >/dev/null || rc=$?
  if ((rc == 77)); then echo "SKIPPED: tests/oracle/snap_fixtures.sh could not make the fixtures"; exit 77; fi
  if ((rc != 0)); then echo "FAIL - tests/oracle/snap_fixtures.sh exit $rc"; exit 1; fi
  CUZK_FIL_FIXTURES=$FIX CUZK_FIL_SNAP_FIXTURES=$SNAP CUZK_FIL_OUT=$OUT "$BUILD/bin/cuzk_engine_tests" "[filecoin-cluster]" ||
    fail=1
  verify_porep 1 2 2-refused
  for n in 1 2; do
    if [[ ! -s $OUT/snap-$n.bin ]]; then echo "not ok - no SnapDeals proof $n from the cluster"; fail=1; continue; fi
    if "$ORACLE" verify-update --update "$SNAP/update/update.json" --proof "$OUT/snap-$n.bin" --cache "$SNAP/params"; then
      echo "ok - fil-oracle verify-update accepts the cluster's 2 KiB SnapDeals proof $n"
    else
      echo "not ok - fil-oracle verify-update rejects the cluster's SnapDeals proof $n"; fail=1
    fi
  done
  if [[ -s $OUT/snap-1.bin ]]; then  # the oracle really checks: one bit flipped is rejected
    python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[100]^=1; open(sys.argv[2],'wb').write(b)" \
      "$OUT/snap-1.bin" "$OUT/bad.bin"
    if "$ORACLE" verify-update --update "$SNAP/update/update.json" --proof "$OUT/bad.bin" --cache "$SNAP/params" \
      >/dev/null 2>&1; then
      echo "not ok - fil-oracle accepted a SnapDeals proof with a bit flipped"; fail=1
    fi
  fi
  for kind in window winning; do
    if [[ ! -s $OUT/$kind.bin ]]; then echo "not ok - no $kind proof from the cluster"; fail=1
    elif "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$OUT/$kind.bin" --cache "$FIX/params"; then
      echo "ok - fil-oracle verify-post accepts the cluster's 2 KiB $kind PoSt proof"
    else
      echo "not ok - fil-oracle verify-post rejects the cluster's $kind proof"; fail=1
    fi
  done
  exit $fail
fi
if [[ $MODE == porep ]]; then
  CUZK_FIL_FIXTURES=$FIX CUZK_FIL_OUT=$OUT "$BUILD/bin/cuzk_engine_tests" "[filecoin-porep]" || fail=1
  verify_porep 1 2 1-changed 1-truncated
  exit $fail
fi
CUZK_FIL_FIXTURES=$FIX CUZK_FIL_OUT=$OUT "$BUILD/bin/cuzk_engine_tests" "[filecoin]" || fail=1
verify_porep 1 2 1-changed 1-truncated
for kind in window winning; do
  if [[ ! -s $OUT/$kind.bin ]]; then echo "not ok - no $kind proof from the engine"; fail=1; continue; fi
  if "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$OUT/$kind.bin" --cache "$FIX/params"; then
    echo "ok - fil-oracle verify-post accepts the engine's 2 KiB $kind PoSt proof"
  else
    echo "not ok - fil-oracle verify-post rejects the engine's $kind proof"; fail=1
  fi
  # And a proof of other bytes must be rejected (the oracle really checks).
  cp "$OUT/$kind.bin" "$OUT/bad.bin"
  printf '\x00' | dd of="$OUT/bad.bin" bs=1 seek=100 conv=notrunc status=none
  if "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$OUT/bad.bin" --cache "$FIX/params" >/dev/null 2>&1; then
    echo "not ok - fil-oracle accepted a damaged $kind proof"; fail=1
  fi
done
exit $fail
