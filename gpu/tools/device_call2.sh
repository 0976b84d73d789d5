#!/usr/bin/env bash
# Second device call of 2026-12-02 (kept as the record of what ran): tests with the register-radix
# NTT, NTT A/B against the one-stage-per-step kernel, compute_h, MSM with per-stage events, the
# host-scalar MSM after the threaded staging copies, and the 2^24 cuzk-setup proof again.
# (The register-radix kernel that CUZK_NTT_KERNEL selected was removed after it measured slower.)
. "$(dirname "$0")/device_lib.sh"
export CUZK_NTT_KERNEL=reg  # the register-radix NTT under test (the fallback below switches to stage)
dev_header
dev_tests --durations yes
if grep -q "FAILED" "$L/tests.log" && grep -B3 FAILED "$L/tests.log" | grep -qi "ntt\|compute_h"; then
  echo "NTT tests failed: falling back to CUZK_NTT_KERNEL=stage" | tee -a "$S"; export CUZK_NTT_KERNEL=stage
fi
b ntt_new $R cuzk_gpu_bench ntt 20,24,26,27 reps=10 warmup=2
CUZK_NTT_KERNEL=stage b ntt_old $R cuzk_gpu_bench ntt 24,27 reps=10 warmup=2
b h $R cuzk_gpu_bench h 20,24 reps=5
CUZK_MSM_PROFILE=1 b g1 $R cuzk_gpu_bench msm g1 20,24,26 resident reps=3
b g1_host $R cuzk_gpu_bench msm g1 24 reps=3
CUZK_MSM_PROFILE=1 b g2 $R cuzk_gpu_bench msm g2 24 resident reps=3
tar -C "$OUT" -cf "$OUT/logs1.tar" logs
if [[ ${1:-} == nochain ]]; then gpu/tools/device_e2e.sh chain:20:5 >"$OUT/e2e.txt" 2>&1
else gpu/tools/device_e2e.sh chain:24:3 >"$OUT/e2e.txt" 2>&1; fi
cat "$OUT/e2e.txt" | sed -n '/== summary/,$p' | tail -24 >>"$S"
rm -rf "$OUT/logs" "$OUT/proofs"
echo "== summary"; cat "$S"
