#!/usr/bin/env bash
# Everything CI checks, in order; every stage runs even when an earlier one failed, and the last
# line summarises them all. Stages:
#   deps     scripts/install-deps.sh (Debian packages + npm ci, only what is missing)
#   build    Release build of every target in build/ (CUDA included when nvcc exists), then
#            fil-oracle (the Rust Filecoin oracle, tests/oracle) when cargo exists
#   ctest    every test in build/: unit (Catch2) and interop (snarkjs/circom vs the cuzk CLI)
#   asan     build-asan/ with -DCUZK_SANITIZE=ON (CUDA off: nvcc takes no -fsanitize): every case of
#            cuzk_tests but those tagged [actors] (CAF 0.17's spawn trips UBSan; see asan()), then
#            the interop bad-input test against the sanitized cuzk CLI
#   fuzz     build-fuzz/ with clang and -DCUZK_FUZZ=ON: tests/fuzz/run.sh runs each fuzz_* target
#            FUZZ_SECONDS (20) from its seeds (tests/fuzz/corpus/<target>/, the snarkjs fixtures)
# Environment: JOBS (default: cores), FUZZ_SECONDS, SKIP_ASAN=1, SKIP_FUZZ=1,
# STAGES (default "deps build ctest asan fuzz"; e.g. STAGES="build ctest" ./test.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")" && pwd)
cd "$ROOT"
JOBS=${JOBS:-$(nproc)}
export JOBS
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
T0=$SECONDS

SUMMARY=()
FAILED=0
stage() {  # stage NAME FUNCTION: runs it, records "NAME ok|FAIL|skip (Ns)"
  local name=$1 fn=$2 start=$SECONDS rc=0
  echo
  echo "==== test.sh: $name ===="
  "$fn" || rc=$?
  local took=$((SECONDS - start))
  if ((rc == 0)); then SUMMARY+=("$name ok ${took}s")
  elif ((rc == 77)); then SUMMARY+=("$name skipped ${took}s")
  else SUMMARY+=("$name FAIL ${took}s"); FAILED=1
  fi
  echo "==== test.sh: $name: $([[ $rc == 0 ]] && echo ok || { [[ $rc == 77 ]] && echo skipped || echo "FAILED (exit $rc)"; }) in ${took}s ===="
}

# grep reads all of ninja's list: with -q it would stop at the match, and under pipefail the
# SIGPIPE that ninja then gets fails the pipeline (the oracle was skipped at random).
has_target() { ninja -C "$1" -t targets all 2>/dev/null | grep "^$2:" >/dev/null; }

deps() { scripts/install-deps.sh; }

build() {
  scripts/build.sh "$ROOT/build" || return 1
  # fil-oracle (tests/oracle, Rust) is not in `all` so ./run.sh stays fast; its cargo target dir
  # is under ~/.cache/cuzk, so only the first run on a machine compiles the crates.
  if has_target "$ROOT/build" fil-oracle; then
    local t0=$SECONDS
    cmake --build "$ROOT/build" --target fil-oracle || return 1
    echo "build: fil-oracle built in $((SECONDS - t0))s"
  else
    echo "build: cargo not found: fil-oracle not built (oracle tests will skip)"
  fi
}

run_ctest() {
  [[ -f build/CTestTestfile.cmake ]] || { echo "no build/ to test"; return 1; }
  (cd build && ctest --output-on-failure -j "$JOBS" --timeout 900)
}

asan() {
  [[ ${SKIP_ASAN:-0} == 1 ]] && { echo "SKIP_ASAN=1"; return 77; }
  local B="$ROOT/build-asan"
  BUILD_TYPE=RelWithDebInfo CMAKE_ARGS="-DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF" scripts/build.sh "$B" cuzk_tests || return 1
  local with_cli=0
  if has_target "$B" cuzk; then
    cmake --build "$B" -j "$JOBS" --target cuzk || return 1
    with_cli=1
  fi
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  local rc=0
  # Every case of cuzk_tests but those that run the engine's actors ([actors]): CAF 0.17 spawns an
  # actor given no arguments through a null shared_ptr<std::tuple<>> that it dereferences
  # (caf/detail/init_fun_factory.hpp), which UBSan reports and -fno-sanitize-recover makes fatal.
  echo "asan: cuzk_tests ~[actors]"
  "$B/bin/cuzk_tests" "~[actors]" || rc=1
  if ((with_cli)); then
    # malformed files against the sanitized parsers; reuse build/'s compiled circuits
    echo "asan: interop bad-input test against the sanitized cuzk CLI"
    CUZK_INTEROP_WORK="$ROOT/build/tests/interop/work" bash tests/interop/prepare_circuits.sh "$ROOT" "$B" sample one_constraint >/dev/null || rc=1
    CUZK_INTEROP_WORK="$ROOT/build/tests/interop/work" bash tests/interop/bad_inputs.sh "$ROOT" "$B" || rc=1
  else
    echo "asan: no cuzk CLI target yet: bad-input test skipped"
  fi
  return $rc
}

fuzz() {
  [[ ${SKIP_FUZZ:-0} == 1 ]] && { echo "SKIP_FUZZ=1"; return 77; }
  command -v clang++ >/dev/null || { echo "fuzz: clang++ not installed: skipped"; return 77; }
  local B="$ROOT/build-fuzz"
  CC=clang CXX=clang++ BUILD_TYPE=RelWithDebInfo CMAKE_ARGS="-DCUZK_FUZZ=ON -DCUZK_CUDA=OFF" \
    scripts/build.sh "$B" --configure-only || { echo "fuzz: configure failed"; return 1; }
  local targets
  targets=$(ninja -C "$B" -t targets all 2>/dev/null | sed -n 's/^\(fuzz_[A-Za-z0-9_]*\): .*/\1/p' | sort -u)
  if [[ -z $targets ]]; then
    echo "fuzz: no fuzz_* targets defined yet: skipped"
    return 77
  fi
  # shellcheck disable=SC2086
  cmake --build "$B" -j "$JOBS" --target $targets || return 1
  # shellcheck disable=SC2086
  bash tests/fuzz/run.sh "$B" "$FUZZ_SECONDS" $targets
}

STAGES=${STAGES:-deps build ctest asan fuzz}
for s in $STAGES; do
  case $s in
    deps) stage deps deps ;;
    build) stage build build ;;
    ctest) stage ctest run_ctest ;;
    asan) stage asan asan ;;
    fuzz) stage fuzz fuzz ;;
    *) echo "test.sh: unknown stage $s"; exit 2 ;;
  esac
done

echo
echo "test.sh: $([[ $FAILED == 0 ]] && echo PASS || echo FAIL): ${SUMMARY[*]/%/;} total $((SECONDS - T0))s"
exit $FAILED
