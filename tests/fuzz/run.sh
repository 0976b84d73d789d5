#!/usr/bin/env bash
# Builds a seed corpus from the committed fixtures and runs each libFuzzer target for SECONDS
# (default 60). Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with
# -DCUZK_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ and the fuzz_* targets built). Crashes land in
# BUILD_DIR/fuzz-work/<target>/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
SECONDS_EACH=${2:-60}
FIX=$ROOT/tests/fixtures/sample
BIN=$BUILD/bin
[ -x "$BIN/fuzz_zkey" ] || BIN=$BUILD/tests/fuzz
WORK=$BUILD/fuzz-work
mkdir -p "$WORK"
seed() {  # seed TARGET FILES...
  local t=$1; shift
  mkdir -p "$WORK/$t/corpus"
  for f in "$@"; do cp "$f" "$WORK/$t/corpus/"; done
}
seed zkey "$FIX/sample.zkey" "$FIX/sample_bn254.zkey"
seed wtns "$FIX/sample.wtns" "$FIX/sample_bn254.wtns"
seed r1cs "$FIX/sample.r1cs" "$FIX/sample_bn254.r1cs"
mkdir -p "$WORK/json/corpus"
{ printf '\0'; cat "$FIX/proof.json"; } > "$WORK/json/corpus/proof"
{ printf '\1'; cat "$FIX/public.json"; } > "$WORK/json/corpus/public"
{ printf '\2'; cat "$FIX/verification_key.json"; } > "$WORK/json/corpus/vk"
mkdir -p "$WORK/bellperson/corpus"
cp "$ROOT"/tests/fuzz/corpus/fuzz_bellperson/* "$WORK/bellperson/corpus/"
status=0
for t in zkey wtns r1cs json bellperson; do
  echo "== fuzz_$t for ${SECONDS_EACH}s"
  ( cd "$WORK/$t" && "$BIN/fuzz_$t" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=2048 corpus 2>&1 | tee log.txt | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)" ) || status=1
done
exit $status
