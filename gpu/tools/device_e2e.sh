#!/usr/bin/env bash
# One device-tool call: the [device] tests, then end-to-end proofs with `--backend cuda` that are
# verified back here with snarkjs (proofs come back in $OUT/proofs.tar):
#   - the interop fixtures (.device/files/gpu_fixtures/NAME/{NAME.zkey,NAME.wtns,vk.json});
#   - chain circuits made there (chain_circuit), keyed by `cuzk setup`, timed by `cuzk bench prove`.
#   run(command="gpu/tools/device_e2e.sh [tests] [fixtures] [chain:LOG[:REPS]]... [bench:ARGS]...", carry=[".device"])
#   B2_MODES="device host split auto" (env): each chain key proved again with B2 in each place.
# Build and bundle first (here):
#   ninja -C build-gpu cuzk cuzk_gpu_tests cuzk_gpu_bench chain_circuit
#   /work/shared/tools/device-bundle build-gpu/bin/{cuzk,cuzk_gpu_tests,cuzk_gpu_bench,chain_circuit} -- /tmp/gpu_fixtures
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/proofs" "$OUT/logs"
L=$OUT/logs
summary="$OUT/summary.txt"
: >"$summary"
W=${E2E_WORK:-/tmp/e2e}
mkdir -p "$W"
R=.device/run
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv,noheader 2>&1 | tee -a "$summary"
echo "cpus: $(nproc)" | tee -a "$summary"
step() {  # step NAME TIMEOUT CMD...: log in $L/NAME.log, one summary line
  local name=$1 to=$2
  shift 2
  local t0=$SECONDS
  timeout "$to" "$@" >"$L/$name.log" 2>&1
  local rc=$?
  echo "step $name: rc=$rc in $((SECONDS - t0)) s" | tee -a "$summary"
  return $rc
}
pack() { tar -C "$OUT" -cf "$OUT/proofs.tar" proofs; tar -C "$OUT" -cf "$OUT/logs.tar" logs; }
for what in "$@"; do
  case $what in
    tests)
      step tests 240 $R cuzk_gpu_tests "[device]" --durations yes
      cp "$L/tests.log" "$OUT/tests.log"
      grep -E "test cases|assertions|FAILED|SKIP" "$L/tests.log" | tail -8 | tee -a "$summary" ;;
    fixtures)
      for d in .device/files/gpu_fixtures/*/; do
        n=$(basename "$d")
        step "fixture_$n" 60 $R cuzk prove --backend cuda --timings --r1cs "$d/$n.r1cs" "$d/$n.zkey" "$d/$n.wtns" \
          "$OUT/proofs/$n.proof.json" "$OUT/proofs/$n.public.json"
        grep -E "backend|timings|error" "$L/fixture_$n.log" | head -3 | sed "s/^/  /" | tee -a "$summary"
      done ;;
    chain:*)  # chain:LOG[:REPS]: 2^LOG - 3 constraints (domain 2^LOG), setup, export-vk, bench prove
      IFS=: read -r _ lg reps <<<"$what"
      reps=${reps:-5}
      c=$W/c$lg
      n=$(((1 << lg) - 3))
      step "chain${lg}_gen" 120 $R chain_circuit "$n" "$c.r1cs" "$c.wtns" "$lg" || continue
      step "chain${lg}_setup" $((lg >= 24 ? 420 : 200)) $R cuzk setup "$c.r1cs" "$c.zkey" --seed "$lg" || continue
      tail -1 "$L/chain${lg}_setup.log" | tee -a "$summary"
      rm -f "$c.r1cs"
      step "chain${lg}_vk" 120 $R cuzk zkey export-vk "$c.zkey" "$OUT/proofs/c$lg.vk.json"
      step "chain${lg}_prove_cuda" 300 $R cuzk bench prove --backend cuda --warmup 1 --reps "$reps" "$c.zkey" "$c.wtns" \
        --proof "$OUT/proofs/c$lg.proof.json" --public "$OUT/proofs/c$lg.public.json"
      cat "$L/chain${lg}_prove_cuda.log" | tee -a "$summary"
      # B2_MODES="device host split auto": the same key with shifted bases, B2 in each place.
      for m in ${B2_MODES:-}; do
        step "chain${lg}_b2_$m" 200 $R cuzk bench prove --backend cuda --shifted-bases auto --warmup 1 --reps "$reps" \
          --b2 "$m" "$c.zkey" "$c.wtns"
        grep -E "^proof|^\| (msm B2|B2 host|main lane|witness to)" "$L/chain${lg}_b2_$m.log" | sed "s/^/  b2 $m: /" | tee -a "$summary"
      done
      if ((lg <= 20)); then
        step "chain${lg}_prove_cpu" 120 $R cuzk bench prove --backend cpu --warmup 0 --reps 1 "$c.zkey" "$c.wtns"
        grep -E "witness to|^\| (h|msm)" "$L/chain${lg}_prove_cpu.log" | sed "s/^/  cpu /" | tee -a "$summary"
      fi
      rm -f "$c.zkey" "$c.wtns" ;;
    bench:*)  # bench:ARGS (commas for spaces are not needed: ARGS with '+' for spaces)
      args=${what#bench:}
      args=${args//+/ }
      name=bench_$(echo "$args" | tr -c 'a-z0-9' '_' | cut -c1-40)
      # shellcheck disable=SC2086
      step "$name" 200 $R cuzk_gpu_bench $args
      grep -E "^\||error|MISMATCH|stage" "$L/$name.log" | grep -v -- "---" | grep -v "^| benchmark" | tee -a "$summary" ;;
  esac
  pack
done
pack
echo "== summary"; cat "$summary"
