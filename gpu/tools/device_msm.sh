#!/usr/bin/env bash
# The MSM in one device call: the MSM tests, then the G1 MSM at 2^24 / 2^26 / 2^27 by stage with
# the kernel variants (--variants) beside a base build (cuzk_base: any earlier build to compare
# with), bits90, G2 2^24, the proof tests last; logs in $OUT/logs.tar, a summary last.
#   here: scripts/build.sh build cuzk cuzk_gpu_tests; cp BASE/cuzk /tmp/msm-base/cuzk_base
#         /work/shared/tools/device-bundle -o /tmp/devb-msm build/bin/{cuzk,cuzk_gpu_tests} /tmp/msm-base/cuzk_base
#         cp gpu/tools/device_msm.sh gpu/tools/device_lib.sh /tmp/devb-msm/
#         mkdir -p /work/main/.device/msm && tar -C /tmp/devb-msm -cJf /work/main/.device/msm/payload.tar.xz .
#   run(command="cd .device/msm && tar -xJf payload.tar.xz && bash device_msm.sh", carry=[".device/msm"], timeout_s=270)
#   (device_msm.sh check: the defaults only, ~80 s: tests, G1 2^24 / 2^26 shifted, G2 2^24)
#   (device_msm.sh g2 [TESTS]: G2 against G1 at 2^24, one call: the MSM tests and TESTS (default
#    "[prove]~[bellperson]"), G1 and G2 plain and shifted with --profile (G2: the --variants G2V,
#    default acc4+split), and the G2 rows of any other builds of cuzk bundled as bin/cuzk_NAME,
#    e.g. cuzk_base, by stage; ~45 s; NCU=1 adds Nsight Compute's stall reasons of one 2^22
#    accumulation each (~10 s a build);
#    SEGS=32,52,208 adds G2 and G1 plain at those bucket segment lengths, ~8 s each)
#   (END=260 device_msm.sh padd: the lane pairs' device tests, G2 2^24 with and without them
#    (the first level on one thread a point or pairs, the bucket segments on pairs: msm_g2_pair_add,
#    msm_g2_pair_seg; PADDV: other --variants), G1 2^24, the proof tests, then Nsight Compute on a
#    2^22 G2 accumulation each way while END allows)
#   (LANE=V,... AFTER=V device_msm.sh bits: scalars that are bits, random against 90% bits, one
#    call within END: the [bits] MSM tests and the proofs, the ones' lane variants LANE on G1 2^24
#    bits90, then G1 2^24, G2 2^24 and G1 2^26 on plain and shifted bases with this build (variant
#    AFTER) and the bits90 rows of any other builds bundled as bin/cuzk_NAME, 9 repetitions)
cd "$(dirname "$0")"
. ./device_lib.sh
R=./run
END=${END:-258}  # seconds: every step's timeout ends by then
left() { local l=$((END - SECONDS)); ((l > 200)) && l=200; echo $((l > 1 ? l : 1)); }
# bt NAME CMD...: like device_lib's b, with the time left as its limit.
bt() {
  local name=$1 t=$SECONDS
  shift
  timeout "$(left)" "$@" >"$L/$name.log" 2>&1
  echo "$name rc=$? ($((SECONDS - t)) s)" >>"$S"
  grep -E "^\||stages|MISMATCH|error|verified" "$L/$name.log" | grep -v -- "---" | grep -v "^| benchmark" | tee -a "$S"
}
tests() {
  local name=$1 lim=$2 t=$SECONDS
  shift 2
  timeout "$lim" $R cuzk_gpu_tests "$@" >"$L/$name.log" 2>&1
  echo "$name rc=$? ($((SECONDS - t)) s)" | tee -a "$S"
  grep -E "test cases|assertions|FAILED|with expansion" "$L/$name.log" | head -12 | tee -a "$S"
}
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
dev_header
tests tests_msm 70 "[msm]~[affine]"
if [[ ${1:-} == check ]]; then  # the defaults (acc4+split): tests, G1 2^24 / 2^26, G2 2^24
  tests tests_prove 40 "[prove]~[bellperson]"
  bt g1_24 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile --reps 5
  bt g2_24 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3
  bt g1_26 $R cuzk bench msm --curve g1 --log-size 26 --resident --shifted --reps 3
  echo "total $SECONDS s" | tee -a "$S"
  dev_finish
  exit 0
fi
if [[ ${1:-} == g2 ]]; then  # G2 MSM at 2^24 against G1's, the same call
  tests tests_g2 "${G2TESTLIM:-60}" "${2:-[prove]~[bellperson]}"
  bt g1_24 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile --reps 5
  bt g2_24 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --profile --reps 5 \
    --variants "${G2V:-acc4+split}"
  for b in bin/cuzk_*; do
    [[ -x $b && $b != *tests ]] && bt "g2_24_${b#bin/}" $R "${b#bin/}" bench msm --curve g2 --log-size 24 --resident \
      --shifted --profile --reps 5
  done
  # NCU=1: Nsight Compute on one 2^22 accumulation launch, G2 of this build and the bundled ones, and
  # G1: the cycles a warp waits per issued instruction, by reason (fetch, fixed latency, ...).
  if [[ ${NCU:-} == 1 ]] && command -v ncu >/dev/null; then
    stalls=$(for r in no_instruction wait math_pipe_throttle dispatch_stall not_selected long_scoreboard; do
      printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," "$r"; done)
    runs=("cuzk g2" "cuzk g1")
    for b in bin/cuzk_*; do [[ -x $b && $b != *tests ]] && runs+=("${b#bin/} g2"); done
    for run in "${runs[@]}"; do
      read -r bin curve <<<"$run"
      timeout "$(left)" ncu --clock-control none -k "regex:msm_accumulate_points" --launch-count 1 \
        --metrics "${stalls}gpu__time_duration.sum,smsp__inst_executed.sum" $R "$bin" bench msm --curve "$curve" \
        --log-size 22 --resident --reps 1 --warmup 0 >"$L/ncu_${bin}_$curve.log" 2>&1
      echo "ncu $bin $curve: $(grep -E "stalled|duration|inst_exec" "$L/ncu_${bin}_$curve.log" | awk '{print $1, $NF}' |
        sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | paste -sd' ')" | tee -a "$S"
    done
  fi
  # SEGS=32,52,208: the plain G2 and G1 bucket reduction at those segment lengths (by size: 104 at
  # 2^24; tuned on G1), by stage.
  SEGS=${SEGS:-}
  for n in ${SEGS//,/ }; do
    bt "g2_24_seg$n" $R cuzk bench msm --curve g2 --log-size 24 --resident --profile --reps 3 --segment-length "$n"
    bt "g1_24_seg$n" $R cuzk bench msm --curve g1 --log-size 24 --resident --profile --reps 3 --segment-length "$n"
  done
  echo "total $SECONDS s" | tee -a "$S"
  dev_finish
  exit 0
fi
if [[ ${1:-} == padd ]]; then  # G2's mixed additions shared by lane pairs (msm_g2_pair_add)
  tests tests_padd "${PADDLIM:-50}" "device G2 MSM with pair*"
  bt g2_24 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --profile --reps 5 \
    --variants "${PADDV:-acc4+split+g2padd0+nog2pseg,acc4+split,acc4+split+g2pseg+nowaves,acc4+split}"
  bt g1_24 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile --reps 5
  tests tests_prove "$(left)" "[prove]~[bellperson]"
  # Nsight Compute on one 2^22 accumulation launch, one thread a point against the pairs (issue rate,
  # the multiply pipe, warp states).
  if command -v ncu >/dev/null; then
    for v in acc4+split+g2padd0+nog2pseg acc4+split+g2pseg; do
      bt "ncu_g2_$v" ncu --clock-control none -k "regex:msm_accumulate_points" --launch-count 1 --section Occupancy \
        --section WarpStateStats --section SchedulerStats --metrics \
        sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum \
        $R cuzk bench msm --curve g2 --log-size 22 --resident --reps 1 --warmup 0 --variants "$v"
      grep -E "pct|inst_executed.sum|duration|Stall|Warp Cycles|Active Warps|Issued|Eligible|No Eligible" "$L/ncu_g2_$v.log" | head -40 >>"$S"
    done
  fi
  echo "total $SECONDS s" | tee -a "$S"
  dev_finish
  exit 0
fi
if [[ ${1:-} == bits ]]; then  # bits90 against random, this build and the bundled others
  # LANE: --variants of the ones' lane (bench.cpp's msm_variant) compared on G1 2^24 bits90 plain;
  # AFTER: the variant this build's rows run with (empty: its defaults). Then per size this build's
  # random and bits90 rows and the bits90 rows of every bundled bin/cuzk_NAME (the same mode each).
  tests tests_bits "${TL:-40}" "[msm][bits],[msm][waves]"
  tests tests_prove "${TP:-30}" "[prove]~[bellperson]"
  [[ -n ${LANE:-} ]] && bt g1_24_lane $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile \
    --scalars bits90 --reps 9 --variants "$LANE"
  for b in bin/cuzk_*; do  # the others' G1 2^24 first: before and after side by side
    [[ -x $b && $b != *tests ]] && bt "g1_24_${b#bin/}" $R "${b#bin/}" bench msm --curve g1 --log-size 24 \
      --resident --shifted --profile --scalars bits90 --reps 9
  done
  for step in "24 g1" "24 g2" "26 g1"; do
    read -r lg curve <<<"$step"
    bt "${curve}_$lg" $R cuzk bench msm --curve "$curve" --log-size "$lg" --resident --shifted --profile \
      --scalars random,bits90 --reps 9 ${AFTER:+--variants "$AFTER"}
    for b in bin/cuzk_*; do
      [[ $curve$lg != g124 && -x $b && $b != *tests ]] && bt "${curve}_${lg}_${b#bin/}" $R "${b#bin/}" bench msm \
        --curve "$curve" --log-size "$lg" --resident --shifted --profile --scalars bits90 --reps 9
    done
  done
  echo "total $SECONDS s" | tee -a "$S"
  dev_finish
  exit 0
fi
V=xyzz,acc4,split,acc4+split
bt g1_24 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --profile --reps 5 --variants $V
bt base24 $R cuzk_base bench msm --curve g1 --log-size 24 --resident --shifted --reps 5
bt g1_27 $R cuzk bench msm --curve g1 --log-size 27 --resident --profile --reps 3 --variants xyzz,split,acc4+split,split+c21,split+c23
bt g1_26 $R cuzk bench msm --curve g1 --log-size 26 --resident --shifted --profile --reps 3 --variants xyzz,acc4+split
bt g1_24_bits90 $R cuzk bench msm --curve g1 --log-size 24 --resident --shifted --scalars bits90 --reps 5 --variants xyzz,acc4+split
bt g2_24 $R cuzk bench msm --curve g2 --log-size 24 --resident --shifted --reps 3 --variants xyzz,split
tests tests_prove "$(left)" "[prove]~[bellperson]"
echo "total $SECONDS s" | tee -a "$S"
dev_finish
