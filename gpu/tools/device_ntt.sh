#!/usr/bin/env bash
# The NTT's device check (issue 19 item 4), one device-tool call (114 s on the machine on 2026-12-04): the [ntt]
# device tests (transforms, compute_h and compute_h_coset byte for byte against the CPU), forward
# and inverse NTT timings at 2^20/2^24/2^26/2^27 and compute_h at 2^24/2^27 with per-launch event
# profiles, the same for a baseline build when one is bundled as cuzk_gpu_bench_base, the default
# thread order in every stage (ntt_uniform=0), 512 threads per pass, the [prove] tests, and Nsight Compute on the passes of one 2^24 transform. Logs go to
# $OUT/logs.tar, a short table last. Steps are skipped once the call's time is nearly spent.
#   here:  scripts/build.sh build cuzk_gpu_tests cuzk_gpu_bench
#          /work/shared/tools/device-bundle -o /tmp/devb-ntt build/bin/{cuzk_gpu_tests,cuzk_gpu_bench} [BASE]
#          cp gpu/tools/device_ntt.sh /tmp/devb-ntt/ && tar -C /tmp/devb-ntt -cJf .device/ntt/payload.tar.xz .
#   run(command="cd .device/ntt && tar -xJf payload.tar.xz && bash device_ntt.sh", carry=[".device/ntt"])
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
R=$here/run
OUT=${OUT:-/tmp/out}
L=$OUT/logs
S=$OUT/summary.txt
BUDGET=${BUDGET:-215}  # seconds: no step starts that could run past this
mkdir -p "$L"
: >"$S"

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
  grep -E "MISMATCH|error|FAILED|test cases|assertions" "$L/$name.log" | head -8 | tee -a "$S"
  return 0
}

date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
step tests_ntt 60 "$R" cuzk_gpu_tests "[ntt]"
step ntt_new 50 "$R" cuzk_gpu_bench ntt 20,24,26,27 reps=11 warmup=2 profile
if [[ -x $here/bin/cuzk_gpu_bench_base ]]; then
  step ntt_base 45 "$R" cuzk_gpu_bench_base ntt 20,24,26,27 reps=11 warmup=2
fi
step h_new 35 "$R" cuzk_gpu_bench h 24,27 reps=5 warmup=1 profile
if [[ -x $here/bin/cuzk_gpu_bench_base ]]; then
  step h_base 30 "$R" cuzk_gpu_bench_base h 24,27 reps=5 warmup=1
fi
step ntt_nouniform 25 "$R" cuzk_gpu_bench ntt 24,27 reps=11 warmup=2 ntt_uniform=0
step ntt_new512 25 "$R" cuzk_gpu_bench ntt 24,27 reps=11 warmup=2 ntt_threads=512
step tests_prove 60 "$R" cuzk_gpu_tests "[prove]"
step ntt_new_again 20 "$R" cuzk_gpu_bench ntt 24,27 reps=11 warmup=2
if command -v ncu >/dev/null; then
  step ncu 30 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section MemoryWorkloadAnalysis -k "regex:ntt_pass|bit_reverse" --launch-count 4 "$R" cuzk_gpu_bench ntt 24 reps=1 warmup=0
  step ncu_pipes 25 ncu --clock-control none -k "regex:ntt_pass" --launch-count 2 --metrics \
    sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum \
    "$R" cuzk_gpu_bench ntt 24 reps=1 warmup=0
fi
{
  echo "== table (median ms; the rows of each log)"
  for f in ntt_base ntt_new ntt_nouniform ntt_new512 ntt_new_again h_base h_new; do
    [[ -f $L/$f.log ]] && grep -E "^\| (ntt|compute_h)" "$L/$f.log" | sed "s/^/$f /"
  done
  for f in ntt_new h_new; do
    [[ -f $L/$f.log ]] && grep -E "profile .* (launch|sum)" "$L/$f.log" | sed "s/^ */$f /"
  done
} >>"$S"
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"
cat "$S"
