#!/usr/bin/env bash
# One device-tool call (fourth session of 2026-12-02, last), kept as the record of what ran: the
# device tests, G1 and G2 MSMs plain and on shifted bases (segments of 64 buckets for those), the
# 2^24 proofs with the key's bases plain and shifted, then the daemon (default shifted_bases =
# "auto") proving 2 x 6 partitions of a 2^20 key over gRPC.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call9.sh",
#       carry=[".device"], needs_h200=true)
# Bundle: cuzk, cuzk_gpu_tests, chain_circuit, cuzk-daemon.
. "$(dirname "$0")/device_lib.sh"
dev_header
dev_tests
CUZK_MSM_PROFILE=1 b msm_g1 $R cuzk bench msm --curve g1 --log-size 24,26 --resident --shifted --reps 5
b msm_g2 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3
chain_key /tmp/call9 24
c=/tmp/call9/c24
b prove24_plain $R cuzk bench prove --backend cuda --warmup 1 --reps 3 "$c.zkey" "$c.wtns"
b prove24_shifted $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps 5 "$c.zkey" "$c.wtns" \
  --proof "$OUT/proof24.json" --public "$OUT/public24.json"
$R cuzk zkey export-vk "$c.zkey" "$OUT/vk24.json" >/dev/null 2>&1
rm -rf /tmp/call9
timeout 120 "$(dirname "$0")/device_daemon.sh" >"$L/daemon.log" 2>&1
echo "daemon rc=$?" >>"$S"
grep -E "device|await|exit rc|error" "$L/daemon.log" | head -8 >>"$S"
dev_finish
