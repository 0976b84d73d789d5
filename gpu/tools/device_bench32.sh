#!/usr/bin/env bash
# The 32 GiB PoRep workload in one device call (<= 10 minutes): correctness first (the synthetic SRS
# generator against the host's, a real 2 KiB WindowPoSt proved on the GPU and verified, a small
# shape through the in-process engine), then the 32 GiB PoRep workload through the engine on a
# synthetic SRS (NOT A SETUP): `cuzk bench fil --shape porep-32GiB --partitions 10 --sectors 2`.
# Logs and results under $OUT; the summary last.
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests
#          /work/shared/tools/device-bundle -o /tmp/devb-bench build/bin/{cuzk,cuzk_gpu_tests}
#          mkdir -p .device/bench && tar -C /tmp/devb-bench -cJf .device/bench/payload.tar.xz .
#          cp gpu/tools/device_bench32.sh .device/bench/ ; cp -r WINDOW_POST_FIXTURES .device/bench/fil (optional)
#   run(command="cd .device/bench && tar -xJf payload.tar.xz && bash device_bench32.sh", carry=[".device/bench"])
# B2=device|host|split|auto: where the proofs' G2 MSM runs (`cuzk bench fil --b2`; default: the engine's).
# SHIFTED=off|auto|SIZE: the 32 GiB bench's `--shifted-bases` (default: the engine's, auto); TAG: a
# suffix of its logs and results (several variants in one call); SKIP_TESTS=1 / SKIP_2K=1 skip steps 1-3.
# LIMITS: the VRAM limits the 32 GiB bench runs under, one run each (default "off").
# ARGS: more arguments of the 32 GiB bench (e.g. "--alone-below 0" for the first sector's before).
set -u -o pipefail
cd "$(dirname "$0")"
export CUZK_SOURCE_DIR=${CUZK_SOURCE_DIR:-$(cd ../.. && pwd)}  # the checkout's fixtures (gpu/tools or .device/NAME)
OUT=${OUT:-/tmp/out}
L=$OUT/logs
mkdir -p "$L"
S=$OUT/summary.txt
: >"$S"
R=./run
budget=${BUDGET_S:-400}
say() { echo "$*" | tee -a "$S"; }
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee -a "$S"
say "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
nvidia-smi dmon -s um -d 1 >"$L/dmon.log" 2>&1 &
dmon=$!

# 1. Device tests: by default the generator on the device equals the host's (points on the curve,
#    distinct, not the identity); TESTS="[compact],[prove]" for the device evaluator's a, b, c
#    against the host's and proofs through it against the CPU backend's.
if [[ -z ${SKIP_TESTS:-} ]]; then
  timeout "${TESTS_S:-60}" $R cuzk_gpu_tests "${TESTS:-[synthetic]}" >"$L/synthetic.log" 2>&1
  say "device tests ${TESTS:-[synthetic]} rc=$?"
  grep -E "test cases|assertions|FAILED|with expansion|SKIP|device in" "$L/synthetic.log" | head -20 | tee -a "$S"
fi

# 2. A real 2 KiB WindowPoSt on the GPU (cuzk fil post verifies its proof before writing it).
if [[ -d fil/window && -z ${SKIP_2K:-} ]]; then
  rnd=$(python3 -c "import json; print(json.load(open('fil/window/post.json'))['randomness'])" 2>/dev/null)
  timeout 60 $R cuzk fil post --kind window --miner-id 1000 --params-dir fil/params --backend cuda \
    --vanilla fil/window/vanilla-*.bin --randomness "$rnd" --out "$OUT/window-cuda.bin" >"$L/window.log" 2>&1
  say "2 KiB WindowPoSt on the GPU rc=$? (0: proved and verified)"
fi

# 3. A small shape through the same engine path (recorded evaluator, synthetic key on the GPU).
if [[ -z ${SKIP_2K:-} ]]; then
  timeout 90 $R cuzk bench fil --shape porep-2KiB --sectors 2 --evaluator-dir /tmp/pce --out "$OUT/bench-2k.json" \
    ${B2:+--b2 $B2} >"$L/bench-2k.log" 2>&1
  say "bench porep-2KiB rc=$?"
  grep -E "^circuit|^synthetic key|^key store|^per partition|^stages|^sectors|^memory|^allocations|error" "$L/bench-2k.log" | tee -a "$S"
fi

# 4. 32 GiB: ten partitions per sector through the engine, once per VRAM limit of LIMITS (default
#    "off": the whole card; e.g. LIMITS="off 48GiB 24GiB": the same card as smaller ones, each run
#    placing the key as a card of that size would: resident, partly resident or streamed).
T=${TAG:-}
for lim in ${LIMITS:-off}; do
  left=$((budget - SECONDS))
  ((left > 30)) || { say "32 GiB bench --vram-limit $lim: skipped, ${left} s left"; continue; }
  t="$T${lim/off/}"
  say "32 GiB bench --vram-limit $lim${SHIFTED:+ --shifted-bases $SHIFTED}${ARGS:+ $ARGS} with ${left} s left"
  timeout "$left" $R cuzk bench fil --shape porep-32GiB --partitions 10 --sectors "${SECTORS:-2}" --evaluator-dir /tmp/pce \
    --vram-limit "$lim" --out "$OUT/bench-32g$t.json" ${B2:+--b2 $B2} ${SHIFTED:+--shifted-bases $SHIFTED} ${ARGS:-} \
    >"$L/bench-32g$t.log" 2>&1
  say "bench porep-32GiB --vram-limit $lim rc=$?"
  grep -vE "^\s*$" "$L/bench-32g$t.log" | grep -v "\[" | tail -30 | tee -a "$S"
done
kill $dmon 2>/dev/null
echo "== summary"
cat "$S"
