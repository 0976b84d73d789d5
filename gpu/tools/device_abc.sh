#!/usr/bin/env bash
# The a, b, c kernel in one device call (<= 3 minutes). Correctness first:
# cuzk_gpu_tests "[compact],[prove]" (the device a, b, c against the host's byte for byte on the
# real 2 KiB PoRep partition and on random witnesses at a shape of long and short rows, every
# split of the kernel; proofs through it against the CPU backend's), then the kernel at 32 GiB:
# `cuzk bench abc --shape porep-32GiB` (the real recorded evaluator, recorded on the machine's
# cores; a random witness; each kernel variant timed with events and compared with the host's
# a, b, c on the device). Logs under $OUT; the summary last.
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests
#          /work/shared/tools/device-bundle -o /tmp/devb-abc build/bin/{cuzk,cuzk_gpu_tests}
#          mkdir -p .device/abc && tar -C /tmp/devb-abc -cJf .device/abc/payload.tar.xz .
#          cp gpu/tools/device_abc.sh .device/abc/
#   run(command="cd .device/abc && tar -xJf payload.tar.xz && bash device_abc.sh", carry=[".device/abc"])
set -u -o pipefail
cd "$(dirname "$0")"
export CUZK_SOURCE_DIR=${CUZK_SOURCE_DIR:-$(cd ../.. && pwd)}  # the checkout's fixtures (gpu/tools or .device/NAME)
OUT=${OUT:-/tmp/out}
L=$OUT/logs
mkdir -p "$L"
S=$OUT/summary.txt
: >"$S"
R=./run
budget=${BUDGET_S:-170}
say() { echo "$*" | tee -a "$S"; }
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee -a "$S"
say "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"

t=$SECONDS
timeout "${TESTS_S:-80}" $R cuzk_gpu_tests "${TESTS:-[compact],[prove]}" --durations yes >"$L/tests.log" 2>&1
say "device tests ${TESTS:-[compact],[prove]} rc=$? ($((SECONDS - t)) s)"
grep -E "test cases|assertions|FAILED|with expansion|SKIP|device in|^[0-9.]+ s:" "$L/tests.log" | head -30 | tee -a "$S"

left=$((budget - SECONDS))
say "bench abc porep-32GiB with ${left} s left"
t=$SECONDS
timeout "$left" $R cuzk bench abc --shape "${SHAPE:-porep-32GiB}" --evaluator-dir /tmp/pce --reps "${REPS:-5}" \
  ${KERNELS:+--kernels "$KERNELS"} >"$L/bench-abc.log" 2>&1
say "bench abc rc=$? ($((SECONDS - t)) s)"
grep -vE "^\s*$" "$L/bench-abc.log" | tail -45 | tee -a "$S"
echo "== summary"
cat "$S"
