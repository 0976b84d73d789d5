#!/usr/bin/env bash
# The field product's device check (the split-accumulator Montgomery product in
# mont.cuh), one device-tool call: the [device] tests (NTT, compute_h, MSMs and proofs against the
# CPU backend), then NTT 2^20..2^27 forward/inverse, compute_h 2^24/2^27, 512 threads per pass for
# comparison, G1 and G2 MSM 2^24 resident (G1 plain and shifted), each beside the same runs of a
# baseline build bundled as cuzk_gpu_bench_base, and Nsight Compute on the passes of one 2^24
# transform. Logs go to $OUT/logs.tar, a short table last. Steps are skipped once the call's time
# is nearly spent.
#   here:  scripts/build.sh build cuzk_gpu_tests cuzk_gpu_bench
#          /work/shared/tools/device-bundle -o /tmp/devb-fields build/bin/{cuzk_gpu_tests,cuzk_gpu_bench} BASE
#          cp gpu/tools/device_fields.sh /tmp/devb-fields/ && tar -C /tmp/devb-fields -cJf .device/fields/payload.tar.xz .
#   run(command="cd .device/fields && tar -xJf payload.tar.xz && bash device_fields.sh", carry=[".device/fields"])
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
R=$here/run
OUT=${OUT:-/tmp/out}
L=$OUT/logs
S=$OUT/summary.txt
BUDGET=${BUDGET:-220}  # seconds: no step starts that could run past this
mkdir -p "$L"
: >"$S"
have_base() { [[ -x $here/bin/cuzk_gpu_bench_base ]]; }

# step NAME LIMIT CMD...: CMD into $L/NAME.log for LIMIT seconds at most (skipped if that would
# run past BUDGET); its rc and time to the summary.
step() {
  local name=$1 lim=$2 t=$SECONDS rc
  shift 2
  if ((SECONDS + lim > BUDGET)); then
    lim=$((BUDGET - SECONDS))
    if ((lim < 10)); then
      echo "$name skipped (time)" | tee -a "$S"
      return 0
    fi
  fi
  timeout "$lim" "$@" >"$L/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc ($((SECONDS - t)) s)" | tee -a "$S"
  grep -E "MISMATCH|error|FAILED|test cases|assertions|SKIP" "$L/$name.log" | head -8 | tee -a "$S"
  return 0
}

date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
step tests_device 75 "$R" cuzk_gpu_tests "[device]"
step ntt_new 35 "$R" cuzk_gpu_bench ntt 20,24,26,27 reps=11 warmup=2 profile
have_base && step ntt_base 25 "$R" cuzk_gpu_bench_base ntt 20,24,26,27 reps=11 warmup=2
step msm_g1_new 25 "$R" cuzk_gpu_bench msm g1 24 resident shifted reps=5 warmup=1
have_base && step msm_g1_base 25 "$R" cuzk_gpu_bench_base msm g1 24 resident shifted reps=5 warmup=1
step msm_g2_new 20 "$R" cuzk_gpu_bench msm g2 24 resident reps=3 warmup=1
have_base && step msm_g2_base 20 "$R" cuzk_gpu_bench_base msm g2 24 resident reps=3 warmup=1
step h_new 25 "$R" cuzk_gpu_bench h 24,27 reps=5 warmup=1 profile
have_base && step h_base 20 "$R" cuzk_gpu_bench_base h 24,27 reps=5 warmup=1
step ntt_512 15 "$R" cuzk_gpu_bench ntt 24,27 reps=11 warmup=2 ntt_threads=512
step ntt_new_again 12 "$R" cuzk_gpu_bench ntt 24,27 reps=11 warmup=2
if command -v ncu >/dev/null; then
  step ncu_pipes 25 ncu --clock-control none -k "regex:ntt_pass" --launch-count 1 --section Occupancy --section WarpStateStats --metrics \
    sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    "$R" cuzk_gpu_bench ntt 24 reps=1 warmup=0
fi
{
  echo "== table (median ms; the rows of each log)"
  for f in ntt_base ntt_new ntt_512 ntt_new_again h_base h_new msm_g1_base msm_g1_new msm_g2_base msm_g2_new; do
    [[ -f $L/$f.log ]] && grep -E "^\| (ntt|compute_h|msm)" "$L/$f.log" | sed "s/^/$f /"
  done
  for f in ntt_new h_new; do
    [[ -f $L/$f.log ]] && grep -E "profile .* (launch|sum)" "$L/$f.log" | sed "s/^ */$f /"
  done
  [[ -f $L/ncu_pipes.log ]] && grep -E "ntt_pass|pct|sum|duration" "$L/ncu_pipes.log" | head -24
} >>"$S"
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"
cat "$S"
