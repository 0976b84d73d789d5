#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, third call), kept as the record of what ran:
# the device tests, then the proofs of device_call4.sh with the G2 MSM on a second lane (its own
# stream and scratch, overlapping the G1 MSMs), at 2^22 and 2^24, and the engine stream at 2^22.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call5.sh", carry=[".device"])
set -u -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"
S=$OUT/summary.txt; : >"$S"
R=.device/run
L=$OUT/logs
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
t0=$SECONDS
timeout 200 $R cuzk_gpu_tests "[device]" >"$L/tests.log" 2>&1; rc=$?
echo "tests rc=$rc ($((SECONDS - t0)) s)" | tee -a "$S"
grep -E "test cases|assertions|FAILED|with expansion|SKIP" "$L/tests.log" | head -16 | tee -a "$S"
b() { local name=$1; shift; local t=$SECONDS; timeout 200 "$@" >"$L/$name.log" 2>&1; echo "$name rc=$? ($((SECONDS - t)) s)" >>"$S"
  grep -E "^\||stages|MISMATCH|error|verified" "$L/$name.log" | grep -v -- "---" | grep -v "^| benchmark" | tee -a "$S"; }
W=/tmp/call5; mkdir -p "$W"
for LOG in 22 24; do
  c=$W/c$LOG; n=$(((1 << LOG) - 3))
  b "gen$LOG" $R chain_circuit "$n" "$c.r1cs" "$c.wtns" "$LOG"
  t=$SECONDS; timeout 300 $R cuzk setup "$c.r1cs" "$c.zkey" --seed "$LOG" >"$L/setup$LOG.log" 2>&1
  echo "setup 2^$LOG rc=$? ($((SECONDS - t)) s): $(tail -1 "$L/setup$LOG.log")" | tee -a "$S"
  rm -f "$c.r1cs"
  b "prove$LOG" $R cuzk bench prove --backend cuda --warmup 1 --reps 5 "$c.zkey" "$c.wtns"
  if [[ $LOG == 22 ]]; then
    t=$SECONDS; timeout 200 $R engine_stream "$c.zkey" "$c.wtns" 4 10 cuda 0 >"$L/stream.log" 2>&1
    echo "engine_stream rc=$? ($((SECONDS - t)) s)" | tee -a "$S"; tail -4 "$L/stream.log" | tee -a "$S"
  fi
  rm -f "$c.zkey" "$c.wtns"
done
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"; cat "$S"
