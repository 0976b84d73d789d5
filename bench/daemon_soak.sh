#!/usr/bin/env bash
# cuzk-daemon soak: JOBS one-partition sample jobs from CLIENTS concurrent clients (`cuzk prove`
# through the unix socket), every proof verified (`cuzk verify` against the sample's verification
# key), and the daemon's resident memory, thread count and number of mappings sampled every
# STEP jobs from /proc: after warm-up they must stay flat (a thread per job, never
# joined, once left two mappings and 8 MiB of address space behind each job).
#   bench/daemon_soak.sh [BUILD_DIR]        default: build/
# Environment: JOBS (default 10000), CLIENTS (default 8), STEP (default 1000).
# Prints one line per sample ("jobs N: rss KiB, threads, mappings") and a verdict; exit 1 when a
# proof fails, does not verify, or the last sample exceeds the first after warm-up by more than
# 8 threads, 32 mappings or 64 MiB of resident memory.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
CUZK="$BUILD/bin/cuzk"
DAEMON="$BUILD/bin/cuzk-daemon"
JOBS=${JOBS:-10000}
CLIENTS=${CLIENTS:-8}
STEP=${STEP:-1000}
SAMPLE="$ROOT/tests/fixtures/sample"
[[ -x $CUZK && -x $DAEMON ]] || { echo "soak: build cuzk and cuzk-daemon in $BUILD first" >&2; exit 1; }
T=$(mktemp -d /tmp/cuzk-daemon-soak.XXXXXX)
ADDR="unix://$T/cuzk.sock"
PID=""
cleanup() {
  [[ -n $PID ]] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/keys" "$T/out"
cp "$SAMPLE/sample.zkey" "$T/keys/"
cat >"$T/d.toml" <<TOML
[daemon]
listen = "$ADDR"
status_listen = ""
state_dir = "$T/state"
[keys]
dir = "$T/keys"
[logging]
file = "$T/daemon.log"
level = "warn"
TOML
"$DAEMON" --config "$T/d.toml" >"$T/daemon.out" 2>&1 &
PID=$!
for _ in $(seq 600); do grep -q "cuzk-daemon ready" "$T/daemon.out" && break; sleep 0.1; done
grep -q "cuzk-daemon ready" "$T/daemon.out" || { cat "$T/daemon.out"; exit 1; }

sample() {  # sample JOBS_DONE
  local rss threads maps
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status")
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$PID/status")
  maps=$(wc -l <"/proc/$PID/maps")
  echo "jobs $1: rss $rss KiB, threads $threads, mappings $maps"
  echo "$1 $rss $threads $maps" >>"$T/samples"
}
client() {  # client ID COUNT: proves and verifies COUNT jobs, one at a time
  local i d
  for ((i = 0; i < $2; i++)); do
    d="$T/out/$1"
    rm -rf "$d"
    "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$SAMPLE/sample.wtns" --out "$d" >/dev/null ||
      { echo "client $1: job $i failed"; return 1; }
    "$CUZK" verify "$SAMPLE/verification_key.json" "$d/public-0.json" "$d/proof-0.json" >/dev/null ||
      { echo "client $1: job $i does not verify"; return 1; }
  done
}
start=$EPOCHREALTIME
sample 0
done_jobs=0 failed=0
while ((done_jobs < JOBS)); do
  per=$(((STEP + CLIENTS - 1) / CLIENTS))
  pids=()
  for c in $(seq "$CLIENTS"); do client "$c" "$per" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  done_jobs=$((done_jobs + per * CLIENTS))
  sample "$done_jobs"
  ((failed == 0)) || break
done
end=$EPOCHREALTIME
secs=$(awk "BEGIN{printf \"%.0f\", $end - $start}")
# Flat after warm-up: the first sample after STEP jobs against the last.
read -r _ r0 t0 m0 < <(sed -n 2p "$T/samples")
read -r _ r1 t1 m1 < <(tail -n 1 "$T/samples")
verdict=ok
((failed == 0)) || verdict="FAILED (a job failed or did not verify)"
((t1 <= t0 + 8 && m1 <= m0 + 32 && r1 <= r0 + 65536)) || verdict="NOT FLAT"
echo "soak: $done_jobs jobs from $CLIENTS clients in $secs s, every proof verified: $([[ $failed == 0 ]] && echo yes || echo no);" \
  "after warm-up rss $r0 -> $r1 KiB, threads $t0 -> $t1, mappings $m0 -> $m1: $verdict"
[[ $verdict == ok ]]
