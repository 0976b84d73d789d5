#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02), kept as the record of what ran (at bb3b5d2):
# the device tests (with whole staged proofs against the CPU backend), the NTT kernels A/B,
# compute_h, MSM with per-stage events, the host-scalar MSM, then a 2^22 chain key: `cuzk bench
# prove` (staged inputs, five MSMs back to back) and the engine stream of issue 4 on the same key.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call3.sh", carry=[".device"])
# (The register-radix kernel that CUZK_NTT_KERNEL selected was removed after this run measured it.)
. "$(dirname "$0")/device_lib.sh"
export CUZK_NTT_KERNEL=reg
dev_header
dev_tests --durations yes
if grep -q "FAILED" "$L/tests.log" && grep -B3 FAILED "$L/tests.log" | grep -qi "ntt\|compute_h"; then
  echo "NTT tests failed: falling back to CUZK_NTT_KERNEL=stage" | tee -a "$S"; export CUZK_NTT_KERNEL=stage
fi
b ntt_new $R cuzk_gpu_bench ntt 20,24,27 reps=10 warmup=2
CUZK_NTT_KERNEL=stage b ntt_old $R cuzk_gpu_bench ntt 24,27 reps=10 warmup=2
b h $R cuzk_gpu_bench h 24 reps=5
CUZK_MSM_PROFILE=1 b g1 $R cuzk_gpu_bench msm g1 20,24,26 resident reps=3
b g1_host $R cuzk_gpu_bench msm g1 24 reps=3
CUZK_MSM_PROFILE=1 b g2 $R cuzk_gpu_bench msm g2 24 resident reps=3
W=/tmp/call3
chain_key "$W" 22
b prove $R cuzk bench prove --backend cuda --warmup 1 --reps 5 "$W/c22.zkey" "$W/c22.wtns"
b stream $R engine_stream "$W/c22.zkey" "$W/c22.wtns" 2 10 cuda 0
dev_finish
