#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, second call), kept as the record of what ran
# (at d48a078 plus the accumulation modes, since removed): the device tests (now with synthesis on
# the device), the MSM accumulation kernel's three modes (CUZK_MSM_ACC=plain|prefetch|prefetch3),
# then 2^22 and 2^24 chain keys: `cuzk bench prove` and the engine stream at 2^22. (A best-mode pick
# failed on an awk quoting error, so the proofs ran in the plain mode, today's only one.)
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call4.sh", carry=[".device"])
. "$(dirname "$0")/device_lib.sh"
dev_header
dev_tests --durations yes
for m in plain prefetch prefetch3; do
  echo "== CUZK_MSM_ACC=$m" | tee -a "$S"
  CUZK_MSM_ACC=$m CUZK_MSM_PROFILE=1 b "g1_$m" $R cuzk_gpu_bench msm g1 24,26 resident reps=3
  CUZK_MSM_ACC=$m b "g2_$m" $R cuzk_gpu_bench msm g2 24 resident reps=3
done
dev_proofs /tmp/call4 3 22 24
dev_finish
