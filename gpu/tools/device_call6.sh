#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, fourth call), kept as the record of what ran:
# the device tests with the registry's device ordinals, then issue 7's multi-device path on the one
# GPU lent: two device actors (each with its stager and VRAM budget) on cuda:0, a stream of
# 10-partition jobs on a 2^22 key, once as is and once killing device actor 1 mid-stream.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call6.sh", carry=[".device"])
set -u -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"
S=$OUT/summary.txt; : >"$S"
R=.device/run
L=$OUT/logs
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
t0=$SECONDS
timeout 200 $R cuzk_gpu_tests "[device]" >"$L/tests.log" 2>&1; rc=$?
echo "tests rc=$rc ($((SECONDS - t0)) s)" | tee -a "$S"
grep -E "test cases|assertions|FAILED|with expansion" "$L/tests.log" | head -12 | tee -a "$S"
W=/tmp/call6; mkdir -p "$W"; c=$W/c22; n=$(((1 << 22) - 3))
$R chain_circuit "$n" "$c.r1cs" "$c.wtns" 22 >"$L/gen.log" 2>&1
t=$SECONDS; timeout 200 $R cuzk setup "$c.r1cs" "$c.zkey" --seed 22 >"$L/setup.log" 2>&1
echo "setup rc=$? ($((SECONDS - t)) s)" | tee -a "$S"
for run in "cuda:0 none" "cuda:0,cuda:0 none" "cuda:0,cuda:0 1"; do
  set -- $run
  k=$2; [[ $k == none ]] && k=-1
  t=$SECONDS; timeout 200 $R engine_stream "$c.zkey" "$c.wtns" 3 10 "$1" 0 "$k" >"$L/stream_$1_$2.log" 2>&1
  echo "== engine_stream devices=$1 kill=$2: rc=$? ($((SECONDS - t)) s)" | tee -a "$S"
  grep -v "^circuit" "$L/stream_$1_$2.log" | tail -9 | tee -a "$S"
done
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"; cat "$S"
