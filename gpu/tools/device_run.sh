#!/usr/bin/env bash
# One device-tool call: GPU tests, then benchmarks, logs under $OUT, a short table last.
#   run(command="gpu/tools/device_run.sh [tests|bench|all] [extra bench lines...]", carry=[".device"])
# Build and bundle first (here):
#   ninja -C build-gpu cuzk_gpu_tests cuzk_gpu_bench
#   /work/shared/tools/device-bundle build-gpu/bin/cuzk_gpu_tests build-gpu/bin/cuzk_gpu_bench
set -u -o pipefail
mode=${1:-all}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$summary"
# Registers / stack / spills of every kernel (ptxas report, read from the binary).
cuobjdump --dump-resource-usage .device/bin/cuzk_gpu_bench >"$OUT/resources.txt" 2>&1 &&
  awk '/Function/{f=$2} /REG:/{print f, $2, $3, $4, $5}' "$OUT/resources.txt" | sed -E 's/_Z[0-9]+//' | cut -c1-150 | tee -a "$summary"
step() {  # step NAME TIMEOUT CMD...
  local name=$1 to=$2
  shift 2
  local t0=$SECONDS
  timeout "$to" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "step $name: rc=$rc in $((SECONDS - t0)) s" | tee -a "$summary"
}
if [[ $mode == tests || $mode == all ]]; then
  step tests 200 .device/run cuzk_gpu_tests "[device]" --durations yes
  grep -E "passed|failed|FAILED|REQUIRE|with expansion|SKIP|seconds: device" "$OUT/tests.log" | tail -40
fi
if [[ $mode == bench || $mode == all ]]; then
  step bench_ntt 60 .device/run cuzk_gpu_bench ntt 20,24,26,27 reps=10 warmup=2
  step bench_h 30 .device/run cuzk_gpu_bench h 20,24 reps=5
  step bench_g1 130 .device/run cuzk_gpu_bench msm g1 20,22,24,26 resident reps=5
  step bench_g1_host 40 .device/run cuzk_gpu_bench msm g1 24 reps=3
  step bench_g2 90 .device/run cuzk_gpu_bench msm g2 20,22,24 resident reps=3
  for f in bench_ntt bench_h bench_g1 bench_g1_host bench_g2; do grep -E "^\||error|MISMATCH" "$OUT/$f.log" | grep -v -- "---" | grep -v "^| benchmark"; done | tee -a "$summary"
fi
if [[ $mode == quick ]]; then  # the shortest call that still checks and times the targets
  step tests 150 .device/run cuzk_gpu_tests "[device]"
  grep -E "passed|failed|FAILED|with expansion|SKIP" "$OUT/tests.log" | tail -30
  step bench_ntt 40 .device/run cuzk_gpu_bench ntt 24,27 reps=5
  step bench_g1 70 .device/run cuzk_gpu_bench msm g1 24,26 resident reps=3
  step bench_g2 40 .device/run cuzk_gpu_bench msm g2 24 resident reps=3
  for f in bench_ntt bench_g1 bench_g2; do grep -E "^\||error|MISMATCH" "$OUT/$f.log" | grep -v -- "---" | grep -v "^| benchmark"; done | tee -a "$summary"
fi
echo "== summary"; cat "$summary"
