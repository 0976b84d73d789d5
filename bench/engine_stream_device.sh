#!/usr/bin/env bash
# On the GPU machine (one device-tool call): a 2^LOG-constraint chain circuit keyed by `cuzk
# setup`, then `engine_stream` on the CUDA device: a stream of JOBS x PARTS-partition jobs, the
# device's busy fraction and the mean idle gap between partitions (docs/benchmarks.md, "A stream of jobs").
#   run(command="bench/engine_stream_device.sh [LOG=22] [JOBS=3] [PARTS=10]", carry=[".device"])
# Build and bundle first (here):
#   ninja -C build-gpu cuzk chain_circuit engine_stream
#   /work/shared/tools/device-bundle build-gpu/bin/{cuzk,chain_circuit,engine_stream}
set -u -o pipefail
LOG=${1:-22} JOBS=${2:-3} PARTS=${3:-10}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
W=/tmp/stream
mkdir -p "$W"
R=.device/run
c=$W/c$LOG
n=$(((1 << LOG) - 3))
t0=$SECONDS
$R chain_circuit "$n" "$c.r1cs" "$c.wtns" "$LOG" >"$OUT/gen.log" 2>&1 || { cat "$OUT/gen.log"; exit 1; }
$R cuzk setup "$c.r1cs" "$c.zkey" --seed "$LOG" >"$OUT/setup.log" 2>&1 || { cat "$OUT/setup.log"; exit 1; }
echo "circuit and key: $((SECONDS - t0)) s ($(tail -1 "$OUT/setup.log"))"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 400 $R engine_stream "$c.zkey" "$c.wtns" "$JOBS" "$PARTS" cuda 0 2>&1 | tee "$OUT/stream.log"
