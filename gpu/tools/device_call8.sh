#!/usr/bin/env bash
# One device-tool call (fourth session of 2026-12-02), kept as the record of what ran: the device
# tests; G1 MSMs on shifted bases for the window / segment-length knobs (CUZK_MSM_SHIFT_C, which
# did not reach the backend in this build and is gone, so its runs repeat c = 22; CUZK_MSM_SEG_LEN);
# the G2 MSM with lazily reduced Fp2 products; 2^24 proofs plain and shifted.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call8.sh",
#       carry=[".device"], needs_h200=true)
. "$(dirname "$0")/device_lib.sh"
dev_header
dev_tests
b msm_g2 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3
for v in "20 0" "21 0" "22 64" "22 128"; do
  set -- $v
  CUZK_MSM_SHIFT_C=$1 CUZK_MSM_SEG_LEN=$2 CUZK_MSM_PROFILE=1 b "msm_g1_c$1_s$2" $R cuzk bench msm --curve g1 \
    --log-size 24 --resident --shifted --reps 5
done
chain_key /tmp/call8 24
c=/tmp/call8/c24
b prove24_plain $R cuzk bench prove --backend cuda --warmup 1 --reps 3 "$c.zkey" "$c.wtns"
b prove24_shifted $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps 3 "$c.zkey" "$c.wtns" \
  --proof "$OUT/proof24.json" --public "$OUT/public24.json"
CUZK_MSM_SHIFT_C=20 b prove24_shifted_c20 $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps 3 \
  "$c.zkey" "$c.wtns"
$R cuzk zkey export-vk "$c.zkey" "$OUT/vk24.json" >/dev/null 2>&1
dev_finish
