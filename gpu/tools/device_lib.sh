# shellcheck shell=bash
# Shared by the device-call scripts (sourced, on the GPU machine): a summary file, the [device]
# tests, benchmark steps whose table lines go to the summary, chain keys and proofs.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
L=$OUT/logs
R=.device/run
mkdir -p "$L"
S=${S:-$OUT/summary.txt}
: >"$S"

dev_header() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
}

# dev_tests [ARGS...]: cuzk_gpu_tests "[device]"; its totals (and failures) to the summary.
dev_tests() {
  local t0=$SECONDS rc
  timeout 200 $R cuzk_gpu_tests "[device]" "$@" >"$L/tests.log" 2>&1
  rc=$?
  echo "tests rc=$rc ($((SECONDS - t0)) s)" | tee -a "$S"
  grep -E "test cases|assertions|FAILED|with expansion|SKIP" "$L/tests.log" | head -16 | tee -a "$S"
  return $rc
}

# b NAME CMD...: runs CMD (200 s at most) into $L/NAME.log; its table and stage lines to the summary.
b() {
  local name=$1 t=$SECONDS
  shift
  timeout 200 "$@" >"$L/$name.log" 2>&1
  echo "$name rc=$? ($((SECONDS - t)) s)" >>"$S"
  grep -E "^\||stages|MISMATCH|error|verified|killed|faults|steady" "$L/$name.log" | grep -v -- "---" |
    grep -v "^| benchmark" | tee -a "$S"
}

# chain_key DIR LOG: DIR/cLOG.{zkey,wtns}, a 2^LOG - 3 constraint chain keyed by `cuzk setup`.
chain_key() {
  local c=$1/c$2 n=$(((1 << $2) - 3)) t=$SECONDS
  mkdir -p "$1"
  $R chain_circuit "$n" "$c.r1cs" "$c.wtns" "$2" >"$L/gen$2.log" 2>&1
  timeout 300 $R cuzk setup "$c.r1cs" "$c.zkey" --seed "$2" >"$L/setup$2.log" 2>&1
  echo "chain key 2^$2 rc=$? ($((SECONDS - t)) s): $(tail -1 "$L/setup$2.log")" | tee -a "$S"
  rm -f "$c.r1cs"
}

# dev_proofs DIR REPS LOG...: per LOG a chain key, `cuzk bench prove --backend cuda` (1 + REPS
# proofs), and at 2^22 an engine stream (4 jobs x 10 partitions).
dev_proofs() {
  local dir=$1 reps=$2 log c
  shift 2
  for log in "$@"; do
    chain_key "$dir" "$log"
    c=$dir/c$log
    b "prove$log" $R cuzk bench prove --backend cuda --warmup 1 --reps "$reps" "$c.zkey" "$c.wtns"
    if [[ $log == 22 ]]; then b stream $R engine_stream "$c.zkey" "$c.wtns" 4 10 cuda 0; fi
    rm -f "$c.zkey" "$c.wtns"
  done
}

# dev_finish: the logs as one tar (the tool brings back a few files), then the summary.
dev_finish() {
  tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
  echo "== summary"
  cat "$S"
}
