#!/usr/bin/env bash
# One device-tool call (fourth session of 2026-12-02), kept as the record of what ran: the device
# tests (with the shifted-bases cases), the G1 and G2 MSMs on plain and on precomputed shifted
# bases, then whole 2^24 proofs with the key's bases plain and shifted (one key, same run).
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call7.sh [tests] [msm] [prove]",
#       carry=[".device"], needs_h200=true)   (the shifted 2^26 G1 sets and the 2^24 proof's take ~100 GB)
. "$(dirname "$0")/device_lib.sh"
what=" $* "
dev_header
if [[ $what == *" tests "* ]]; then dev_tests; fi
if [[ $what == *" msm "* ]]; then
  CUZK_MSM_PROFILE=1 b msm_g1 $R cuzk bench msm --curve g1 --log-size 24,26 --resident --shifted --reps 5
  b msm_g2 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3
fi
if [[ $what == *" prove "* ]]; then
  chain_key /tmp/call7 24
  c=/tmp/call7/c24
  b prove24_plain $R cuzk bench prove --backend cuda --warmup 1 --reps 3 "$c.zkey" "$c.wtns"
  b prove24_shifted $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps 3 "$c.zkey" "$c.wtns" \
    --proof "$OUT/proof24.json" --public "$OUT/public24.json"
  $R cuzk zkey export-vk "$c.zkey" "$OUT/vk24.json" >/dev/null 2>&1
fi
dev_finish
