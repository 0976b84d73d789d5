#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, second call), kept as the record of what ran:
# the device tests (now with synthesis on the device), the MSM accumulation kernel's three modes
# (CUZK_MSM_ACC), then 2^22 and 2^24 chain keys: `cuzk bench prove` (witness -> verified proof
# with the matrices and points resident) in the plain and prefetch modes, and the engine stream.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call4.sh", carry=[".device"])
# (The modes were an experiment, removed after this run: the best-mode pick below failed on an awk
# quoting error and the proofs ran in the plain mode, today's only one.)
set -u -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"
S=$OUT/summary.txt; : >"$S"
R=.device/run
L=$OUT/logs
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
t0=$SECONDS
timeout 200 $R cuzk_gpu_tests "[device]" --durations yes >"$L/tests.log" 2>&1; rc=$?
echo "tests rc=$rc ($((SECONDS - t0)) s)" | tee -a "$S"
grep -E "test cases|assertions|FAILED|with expansion|SKIP| s: " "$L/tests.log" | head -16 | tee -a "$S"
b() { local name=$1; shift; local t=$SECONDS; timeout 200 "$@" >"$L/$name.log" 2>&1; echo "$name rc=$? ($((SECONDS - t)) s)" >>"$S"
  grep -E "^\||stages|MISMATCH|error|verified" "$L/$name.log" | grep -v -- "---" | grep -v "^| benchmark" | tee -a "$S"; }
for m in plain prefetch prefetch3; do
  echo "== CUZK_MSM_ACC=$m" | tee -a "$S"
  CUZK_MSM_ACC=$m CUZK_MSM_PROFILE=1 b "g1_$m" $R cuzk_gpu_bench msm g1 24,26 resident reps=3
  CUZK_MSM_ACC=$m b "g2_$m" $R cuzk_gpu_bench msm g2 24 resident reps=3
done
# The faster of plain and prefetch at G1 2^24 runs the proofs below (prefetch3 too, if faster).
best=plain; bt=1e9
for m in plain prefetch prefetch3; do
  t=$(grep "msm g1 2^24 resident" "$L/g1_$m.log" | awk -F'|' '{print $3}' | tr -d ' ')
  if [[ -n $t ]] && awk "BEGIN{exit !($t < $bt)}"; then best=$m; bt=$t; fi
done
echo "best accumulation mode: $best ($bt ms)" | tee -a "$S"
export CUZK_MSM_ACC=$best
W=/tmp/call4; mkdir -p "$W"
for LOG in 22 24; do
  c=$W/c$LOG; n=$(((1 << LOG) - 3))
  b "gen$LOG" $R chain_circuit "$n" "$c.r1cs" "$c.wtns" "$LOG"
  t=$SECONDS; timeout 300 $R cuzk setup "$c.r1cs" "$c.zkey" --seed "$LOG" >"$L/setup$LOG.log" 2>&1
  echo "setup 2^$LOG rc=$? ($((SECONDS - t)) s): $(tail -1 "$L/setup$LOG.log")" | tee -a "$S"
  rm -f "$c.r1cs"
  b "prove$LOG" $R cuzk bench prove --backend cuda --warmup 1 --reps 3 "$c.zkey" "$c.wtns"
  if [[ $LOG == 22 ]]; then
    t=$SECONDS; timeout 200 $R engine_stream "$c.zkey" "$c.wtns" 4 10 cuda 0 >"$L/stream.log" 2>&1
    echo "engine_stream rc=$? ($((SECONDS - t)) s)" | tee -a "$S"; tail -4 "$L/stream.log" | tee -a "$S"
  fi
  rm -f "$c.zkey" "$c.wtns"
done
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"; cat "$S"
