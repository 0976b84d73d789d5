# Sourced by tests/fil's oracle scripts after tests/interop/lib.sh (which sets SRC and BUILD).
#   fil_fixtures FIXTURES_DIR SUBDIR
# Sets FIX (the 2 KiB fixtures of tests/oracle/fixtures.sh: the oracle's params, sealed sectors, PoSt
# vanilla proofs) and ORACLE (the fil-oracle that judges). FIXTURES_DIR empty: the fixtures are made
# under BUILD/tests/fil/SUBDIR by fixtures.sh (cached under ~/.cache/cuzk). fil-oracle is $FIL_ORACLE,
# else BUILD/bin/fil-oracle, else FIXTURES_DIR/bin/fil-oracle (/work/oracle-sample's layout). Exits 77
# (skipped, saying why) when there is no fixture or no oracle, 1 when fixtures.sh fails.
fil_fixtures() {
  FIX=$1
  ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
  [[ -x $ORACLE || -z $FIX ]] || ORACLE=$FIX/bin/fil-oracle
  if [[ -z $FIX ]]; then
    if [[ ! -x $SRC/tests/oracle/fixtures.sh ]]; then
      echo "SKIPPED: tests/oracle/fixtures.sh is not in this checkout"
      exit 77
    fi
    FIX=$BUILD/tests/fil/$2
    local rc=0
    bash "$SRC/tests/oracle/fixtures.sh" "$BUILD" "$FIX" || rc=$?
    ((rc == 77)) && { echo "SKIPPED: fil-oracle not built (cargo absent)"; exit 77; }
    ((rc == 0)) || { echo "FAIL - tests/oracle/fixtures.sh exit $rc"; exit 1; }
  fi
  [[ -x $ORACLE ]] || { echo "SKIPPED: no fil-oracle binary to judge the proofs ($ORACLE; set FIL_ORACLE)"; exit 77; }
}
