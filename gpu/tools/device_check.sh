#!/usr/bin/env bash
# The maintained device check (one device-tool call): the [device] tests, the G1/G2 MSM and the
# 2^24 proof benchmarks of docs/benchmarks.md ("Against sppark", "Chain circuit, key resident"), with
# logs under $OUT/logs.tar and a short table last. Compare the figures with those rows. Also a
# key evicted from the GPU under VRAM pressure and made resident again (engine_stream evict).
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests chain_circuit engine_stream
#          /work/shared/tools/device-bundle -o /tmp/devb build/bin/{cuzk,cuzk_gpu_tests,chain_circuit,engine_stream}
#          mkdir -p .device && tar -C /tmp/devb -cJf .device/payload.tar.xz . && cp gpu/tools/device_{check,lib}.sh .device/
#   run(command="tar -C .device -xJf .device/payload.tar.xz && bash .device/device_check.sh", carry=[".device"])
# (the scripts travel in .device too: the device tool sends the session's main checkout)
. "$(dirname "$0")/device_lib.sh"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
dev_header
[[ -f .device/files/nvcc-version.txt ]] && tail -2 .device/files/nvcc-version.txt | tee -a "$S"
dev_tests
b msm_g1 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile --reps 5
b msm_g2 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3
chain_key /tmp/check 24
c=/tmp/check/c24
b prove24_plain $R cuzk bench prove --backend cuda --warmup 1 --reps 3 "$c.zkey" "$c.wtns"
b prove24_shifted $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps 5 "$c.zkey" "$c.wtns" \
  --proof "$OUT/proof24.json" --public "$OUT/public24.json"
$R cuzk zkey export-vk "$c.zkey" "$OUT/vk24.json" >/dev/null 2>&1
# Key residency under VRAM pressure: a VRAM budget where one 2^24 key fits, two do not; jobs on the
# key under two paths alternately, each key evicted from the GPU and made resident again each round.
b evict24 $R engine_stream "$c.zkey" "$c.wtns" evict 2 2 cuda
# The same 2^24 key in Filecoin's layout: first proof after open, snarkjs form against bellperson form
# (both read the circuit: the zkey holds it, the .params need the .r1cs beside them).
$R chain_circuit $(((1 << 24) - 3)) "$c.r1cs" /dev/null 24 >/dev/null 2>&1
b setup24_bellperson $R cuzk setup "$c.r1cs" "$c.params" --format bellperson --seed 24
b first24_snarkjs $R cuzk prove --backend cuda --timings "$c.zkey" "$c.wtns" /tmp/check/p.json /tmp/check/pub.json
b first24_bellperson $R cuzk prove --backend cuda --timings --params "$c.params" --r1cs "$c.r1cs" "$c.wtns" "$OUT/proof24b.bin"
b first24_bellperson_again $R cuzk prove --backend cuda --timings --params "$c.params" --r1cs "$c.r1cs" "$c.wtns" /tmp/check/b2.bin
cp "$c.vk" "$OUT/vk24b.vk" 2>/dev/null
rm -rf /tmp/check
# Filecoin WindowPoSt on the GPU when the 2 KiB fixtures travel in .device/fil (params/, window/):
# the proof comes back in $OUT for fil-oracle verify-post on the host.
if [[ -d .device/fil/window ]]; then
  P=.device/fil/window
  rnd=$(python3 -c "import json; print(json.load(open('$P/post.json'))['randomness'])")
  b fil_post_window $R cuzk fil post --kind window --miner-id 1000 --params-dir .device/fil/params --backend cuda \
    --vanilla "$P"/vanilla-*.bin --randomness "$rnd" --out "$OUT/window-cuda.bin"
fi
dev_finish
