#!/usr/bin/env bash
# cuzk-daemon benchmarks:
#   1. gRPC round-trip latency of GetStatus (the cheapest call; it still asks the engine's actors
#      for their status) over the unix socket and over TCP loopback: `cuzk bench-status`, N calls
#      on one channel after a warm-up, median / p90 / p99. The daemon has proved one job first, so
#      the status carries a job, a hot key and the budgets, as in service. Then the same with
#      AwaitProof of an unknown job (NOT_FOUND after one journal lookup): the transport alone.
#   2. daemon start-to-ready: from the process start until the unix socket answers GetStatus
#      (`cuzk bench-status --wait-ready`, a fresh channel every 2 ms), median of STARTS starts,
#      without and with `[keys] preload = ["sample"]`.
#   bench/daemon_bench.sh [BUILD_DIR]      default: build/
#   3. Prove of a 1-partition sample job through gRPC against the same job through the engine
#      facade (bench/engine_overhead); start-to-ready with a cold page cache too, when run as root.
# Environment: N (calls, default 2000), STARTS (default 10), PROVES (default 200).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
CUZK="$BUILD/bin/cuzk"
DAEMON="$BUILD/bin/cuzk-daemon"
N=${N:-2000}
STARTS=${STARTS:-10}
PROVES=${PROVES:-200}
SAMPLE="$ROOT/tests/fixtures/sample"
[[ -x $CUZK && -x $DAEMON ]] || { echo "bench: build cuzk and cuzk-daemon in $BUILD first" >&2; exit 1; }
T=$(mktemp -d /tmp/cuzk-daemon-bench.XXXXXX)
SOCK="$T/cuzk.sock"
PID=""
cleanup() {
  [[ -n $PID ]] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/keys"
cp "$SAMPLE/sample.zkey" "$T/keys/"

config() {  # config FILE LISTEN PRELOAD(yes|no)
  {
    echo "[daemon]"
    echo "listen = \"$2\""
    echo "status_listen = \"127.0.0.1:0\""
    echo "state_dir = \"$T/state\""
    echo "[keys]"
    echo "dir = \"$T/keys\""
    [[ $3 == yes ]] && echo 'preload = ["sample"]'
    echo "[logging]"
    echo "file = \"$T/daemon.log\""
  } >"$1"
}
start() {  # start CONFIG: background daemon, waits for its ready line
  "$DAEMON" --config "$1" >"$T/daemon.out" 2>&1 &
  PID=$!
  for _ in $(seq 600); do
    grep -q "cuzk-daemon ready" "$T/daemon.out" && return 0
    sleep 0.05
  done
  echo "bench: the daemon did not start" >&2
  cat "$T/daemon.out" >&2
  exit 1
}
stop() {
  kill -TERM "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=""
  rm -rf "$T/state"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "date: $(date -u +%Y-%m-%d)  build: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"

# ---- 1. round trips ----
for transport in unix tcp; do
  if [[ $transport == unix ]]; then listen="unix://$SOCK"; else listen="127.0.0.1:0"; fi
  config "$T/d.toml" "$listen" no
  start "$T/d.toml"
  addr="unix://$SOCK"
  [[ $transport == tcp ]] && addr=$(sed -n 's/.*listening on \(127.0.0.1:[0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
  "$CUZK" prove --addr "$addr" --circuit sample --witness "$SAMPLE/sample.wtns" --out "$T/p" >/dev/null
  for rpc in status await-unknown; do
    echo "round trip, $transport: $("$CUZK" bench-status --addr "$addr" --n "$N" --rpc "$rpc" --json)"
  done
  # The whole path for a 1-partition job of the tiny sample circuit (against the engine call below).
  echo "round trip, $transport: $("$CUZK" bench-status --addr "$addr" --n "$PROVES" --warmup 10 --rpc prove \
    --circuit sample --witness "$SAMPLE/sample.wtns" --json)"
  stop
done

# The same 1-partition job through the engine facade, no gRPC (bench/engine_overhead).
if [[ -x $BUILD/bin/engine_overhead ]]; then
  echo "engine call: $("$BUILD/bin/engine_overhead" "$PROVES" | grep '1-partition job' | head -n 1 | sed 's/^ *//')"
fi

# ---- 2. start-to-ready ----
# Cold page cache (binary, libraries, key): only when this user may drop the caches (root).
cache_modes=(warm)
(sync && echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null && cache_modes+=(cold)
for cache in "${cache_modes[@]}"; do
for preload in no yes; do
  config "$T/d.toml" "unix://$SOCK" "$preload"
  times=()
  for _ in $(seq "$STARTS"); do
    if [[ $cache == cold ]]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
    t0=$(date +%s%N)
    "$DAEMON" --config "$T/d.toml" >"$T/daemon.out" 2>&1 &
    PID=$!
    "$CUZK" bench-status --addr "unix://$SOCK" --wait-ready 60 >/dev/null
    t1=$(date +%s%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e6}')")
    stop
  done
  echo "start-to-ready, $cache page cache, preload=$preload: median $(printf '%s\n' "${times[@]}" | median) ms (runs: ${times[*]})"
done
done
