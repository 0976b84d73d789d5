#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for SECONDS each (default 60), each from its seeds:
# the committed corpus tests/fuzz/corpus/<target>/ and, for the snarkjs readers, the committed
# fixtures. test.sh's fuzz stage calls this after building the targets.
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]
#   BUILD_DIR configured with -DCUZK_FUZZ=ON and clang, its fuzz_* targets built; TARGET (fuzz_zkey,
#   ...) runs only those. Each target's grown corpus, log and any crash land in
#   BUILD_DIR/fuzz-work/<target>/. Exit 1 if any target found a problem (its log's tail printed).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]}" && pwd)
SECONDS_EACH=${2:-60}
shift $(($# < 2 ? $# : 2))
FIX=$ROOT/tests/fixtures/sample
BIN=$BUILD/bin
WORK=$BUILD/fuzz-work

targets=("$@")
if [[ ${#targets[@]} == 0 ]]; then
  for f in "$BIN"/fuzz_*; do [[ -x $f ]] && targets+=("$(basename "$f")"); done
fi
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz: no fuzz_* binaries in $BIN" >&2; exit 1; }

# seed TARGET: the target's corpus directory, with its seeds copied in.
seed() {
  local t=$1 c=$WORK/$1/corpus
  mkdir -p "$c"
  case $t in
    fuzz_zkey) cp "$FIX/sample.zkey" "$FIX/sample_bn254.zkey" "$c/" ;;
    fuzz_wtns) cp "$FIX/sample.wtns" "$FIX/sample_bn254.wtns" "$c/" ;;
    fuzz_r1cs) cp "$FIX/sample.r1cs" "$FIX/sample_bn254.r1cs" "$c/" ;;
    fuzz_json)  # the first byte picks the reader (fuzz_json.cpp)
      { printf '\0'; cat "$FIX/proof.json"; } >"$c/proof"
      { printf '\1'; cat "$FIX/public.json"; } >"$c/public"
      { printf '\2'; cat "$FIX/verification_key.json"; } >"$c/vk" ;;
  esac
  if [[ -d $ROOT/tests/fuzz/corpus/$t ]]; then cp "$ROOT/tests/fuzz/corpus/$t"/* "$c/"; fi
  echo "$c"
}

status=0
for t in "${targets[@]}"; do
  [[ -x $BIN/$t ]] || { echo "fuzz: $t: no binary $BIN/$t"; status=1; continue; }
  corpus=$(seed "$t")
  echo "fuzz: $t for ${SECONDS_EACH}s ($(find "$corpus" -type f | wc -l) inputs to start from)"
  if (cd "$WORK/$t" && "$BIN/$t" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048 corpus >log.txt 2>&1); then
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$WORK/$t/log.txt" | sed "s/^/fuzz: $t: /" || true
  else
    echo "fuzz: $t FOUND A PROBLEM (log and crash input: $WORK/$t/):"
    tail -n 40 "$WORK/$t/log.txt"
    status=1
  fi
done
exit $status
