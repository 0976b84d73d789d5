#!/usr/bin/env bash
# The NTT's device check in one device-tool call: the [ntt] device tests
# (transforms, compute_h and compute_h_coset byte for byte against the CPU, every pass
# configuration), forward and inverse NTT timings at 2^24 and 2^27 (NTT=...) with per-launch event
# profiles in four settings (the defaults: the bit reversal fused into the last pass with the
# compiled tile shapes; the fused reversal alone; the shapes alone; neither, `--no-...`), a baseline
# build bundled as cuzk_base (a main build's `cuzk`) and sppark's natural-order NTT when
# sppark_bench is bundled (bench/sppark/build.sh), the [prove] tests but bellperson's, three
# settings once more, and compute_h (~140 s of command). Logs go to $OUT/logs.tar, a short table
# last. Steps are cut short or skipped once BUDGET (seconds) is nearly spent: the order is the
# priority.
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests
#          cp /work/main/build/bin/cuzk /tmp/cuzk_base   # a baseline, if wanted
#          /work/shared/tools/device-bundle -o /tmp/devb-ntt build/bin/{cuzk,cuzk_gpu_tests} \
#            [/tmp/cuzk_base] [/work/main/build/bin/sppark_bench]
#          cp gpu/tools/device_ntt.sh /tmp/devb-ntt/ && mkdir -p /work/main/.device/ntt \
#            && tar -C /tmp/devb-ntt -cJf /work/main/.device/ntt/payload.tar.xz .
#   run(command="cd .device/ntt && tar -xJf payload.tar.xz && bash device_ntt.sh", carry=[".device/ntt"])
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
R=$here/run
OUT=${OUT:-/tmp/out}
L=$OUT/logs
S=$OUT/summary.txt
BUDGET=${BUDGET:-140}
NTT=${NTT:-24,27}
REPS=${REPS:-9}
mkdir -p "$L"
: >"$S"

# step NAME LIMIT CMD...: CMD into $L/NAME.log for LIMIT seconds at most (less when the budget is
# nearly spent; skipped below 5 s); its rc and time to the summary.
step() {
  local name=$1 lim=$2 t=$SECONDS rc
  shift 2
  if ((SECONDS + lim > BUDGET)); then lim=$((BUDGET - SECONDS)); fi
  if ((lim < 5)); then
    echo "$name skipped (budget)" | tee -a "$S"
    return 0
  fi
  timeout "$lim" "$@" >"$L/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc ($((SECONDS - t)) s)" | tee -a "$S"
  grep -E "MISMATCH|error|FAILED|test cases|assertions" "$L/$name.log" | head -8 | tee -a "$S"
  return 0
}
has() { [[ -x $here/bin/$1 ]]; }

date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
NB=(bench ntt --log-size "$NTT" --reps "$REPS" --warmup 2)
step tests_ntt 50 "$R" cuzk_gpu_tests "[ntt]"
step ntt_fused_shapes 25 "$R" cuzk "${NB[@]}" --fused-reversal --compiled-shapes --profile
step ntt_fused 20 "$R" cuzk "${NB[@]}" --fused-reversal --no-compiled-shapes --profile
step ntt_shapes 25 "$R" cuzk "${NB[@]}" --no-fused-reversal --compiled-shapes --profile
step ntt_plain 20 "$R" cuzk "${NB[@]}" --no-fused-reversal --no-compiled-shapes --profile
has cuzk_base && step ntt_base 20 "$R" cuzk_base "${NB[@]}"
has sppark_bench && step sppark 25 "$R" sppark_bench --ntt "$NTT" --modes resident --reps "$REPS" --warmup 2
step tests_prove 40 "$R" cuzk_gpu_tests "[prove]~[bellperson]"
step ntt_fused_shapes_again 15 "$R" cuzk "${NB[@]}" --fused-reversal --compiled-shapes
step ntt_shapes_again 15 "$R" cuzk "${NB[@]}" --no-fused-reversal --compiled-shapes
step ntt_plain_again 15 "$R" cuzk "${NB[@]}" --no-fused-reversal --no-compiled-shapes
step h_shapes 20 "$R" cuzk bench h --log-size "$NTT" --reps 5 --warmup 1 --compiled-shapes
step h_plain 20 "$R" cuzk bench h --log-size "$NTT" --reps 5 --warmup 1 --no-compiled-shapes
{
  echo "== table (median ms)"
  for f in ntt_fused_shapes ntt_fused ntt_shapes ntt_plain ntt_base ntt_fused_shapes_again ntt_shapes_again \
    ntt_plain_again h_shapes h_plain; do
    [[ -f $L/$f.log ]] && grep -E "^\| (ntt|compute_h)" "$L/$f.log" | sed "s/^/$f /"
  done
  [[ -f $L/sppark.log ]] && grep -E "^sppark.ntt" "$L/sppark.log"
  for f in ntt_fused_shapes ntt_fused ntt_shapes ntt_plain; do
    [[ -f $L/$f.log ]] && grep -E "profile .* (launch|sum)" "$L/$f.log" | sed "s/^ */$f /"
  done
} >>"$S"
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"
cat "$S"
