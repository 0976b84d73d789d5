#!/usr/bin/env bash
# tests/curio-client/curio_client.sh SOURCE_DIR BUILD_DIR FIXTURES_DIR: the Go stand-in for Curio
# against a real cuzk-daemon on loopback TCP, with fil-oracle's 2 KiB fixtures (tests/oracle/
# fixtures.sh) as parameter cache and payloads:
#   - malformed Filecoin requests: each refused with its gRPC code and one line, nothing queued;
#   - a circom job through `cuzk prove` on the same daemon (both kinds of client, one service);
#   - GetStatus as Curio reads it (queues for back-pressure, devices, keys);
#   - WindowPoSt and WinningPoSt proved through Prove, the bytes accepted by `fil-oracle verify-post`;
#   - PreloadSRS / EvictSRS by Curio's circuit ids;
#   - cancel, then the daemon idle with nothing but keys in its host budget;
#   - a job accepted, the daemon killed (-9) and restarted: the job completes, its proof verifies.
# Exit 77 (skip, said on stdout) without go/protoc or without the oracle fixtures.
set -euo pipefail
SRC=$(cd "${1:?usage: curio_client.sh SOURCE_DIR BUILD_DIR FIXTURES_DIR}" && pwd)
BUILD=$(cd "${2:?usage}" && pwd)
FIX=${3:?usage}
ORACLE=$BUILD/bin/fil-oracle
if [[ ! -f $FIX/window/post.json || ! -x $ORACLE ]]; then
  echo "curio-client: SKIPPED: no oracle fixtures in $FIX (fil-oracle needs cargo: scripts/build.sh BUILD fil-oracle)"
  exit 77
fi
T=$(mktemp -d /tmp/cuzk-curio-test.XXXXXX)
DAEMON_PID=""
stop() { [[ -n $DAEMON_PID ]] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""; }
trap stop EXIT
rc=0
bash "$SRC/tests/curio-client/build.sh" "$SRC" "$BUILD/curio-client" || exit $?
CLIENT=$BUILD/curio-client/curio-client
FAILURES=0
ok() { echo "ok   - $*"; }
not_ok() { echo "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

mkdir -p "$T/keys"
cp "$SRC/tests/fixtures/sample/sample.zkey" "$T/keys/"
cat >"$T/d.toml" <<TOML
[daemon]
listen = "127.0.0.1:0"
status_listen = ""
state_dir = "$T/state"
[keys]
dir = "$T/keys"
[filecoin]
param_cache = "$(cd "$FIX/params" && pwd -P)"
[logging]
file = "$T/daemon.log"
TOML
start_daemon() {
  "$BUILD/bin/cuzk-daemon" --config "$T/d.toml" >"$T/daemon.out" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 600); do
    grep -q "cuzk-daemon ready" "$T/daemon.out" && break
    kill -0 "$DAEMON_PID" 2>/dev/null || { cat "$T/daemon.out"; exit 1; }
    sleep 0.1
  done
  ADDR=$(sed -n 's/.*ready: listening on \([0-9.]*:[0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
  [[ -n $ADDR ]] || { echo "no address in:"; cat "$T/daemon.out"; exit 1; }
  echo "daemon on $ADDR"
}
start_daemon

check "bad Filecoin requests are refused with their gRPC codes, one line each, nothing queued" \
  "$CLIENT" -addr "$ADDR" bad-inputs -sample "$FIX"
check "a circom job through cuzk's own client on the same service" \
  "$BUILD/bin/cuzk" prove --addr "$ADDR" --circuit sample --witness "$SRC/tests/fixtures/sample/sample.wtns" --out "$T/circom"
check "status as Curio reads it" "$CLIENT" -addr "$ADDR" status

for kind in window winning; do
  if "$CLIENT" -addr "$ADDR" post -dir "$FIX/$kind" -out "$T/$kind.bin"; then
    check "fil-oracle verify-post accepts the daemon's $kind proof" \
      "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$T/$kind.bin" --cache "$FIX/params"
  else
    not_ok "$kind PoSt through Prove"
  fi
done
check "PreloadSRS wpost-2k (Curio's circuit id)" "$BUILD/bin/cuzk" preload --addr "$ADDR" wpost-2k
check "the WindowPoSt parameters are hot in GetStatus" bash -c "'$CLIENT' -addr '$ADDR' status | grep -q 'key v28-proof-of-spacetime.*: HOT'"
check "EvictSRS wpost-2k" "$BUILD/bin/cuzk" evict --addr "$ADDR" wpost-2k
check "PreloadSRS snap-32g is UNIMPLEMENTED" bash -c "'$BUILD/bin/cuzk' preload --addr '$ADDR' snap-32g 2>&1 | grep -q 'SNAP_DEALS_UPDATE is not implemented'"
check "cancel a WindowPoSt: cancelled (or done first), then idle, the host budget holding only keys" \
  "$CLIENT" -addr "$ADDR" cancel -dir "$FIX/window"

# ---- a job accepted survives kill -9 ----
job=$("$CLIENT" -addr "$ADDR" submit -dir "$FIX/window")
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=""
start_daemon
check "the restarted daemon re-queued the accepted job" grep -q "re-queued job $job" "$T/daemon.log"
if "$CLIENT" -addr "$ADDR" await -job "$job" -out "$T/restart.bin"; then
  check "the job accepted before kill -9 completed after the restart; fil-oracle accepts its proof" \
    "$ORACLE" verify-post --post "$FIX/window/post.json" --proof "$T/restart.bin" --cache "$FIX/params"
else
  not_ok "the job accepted before kill -9 completes after the restart"
fi

stop
if ((FAILURES > 0)); then
  echo "$FAILURES check(s) failed; daemon log:"
  tail -n 40 "$T/daemon.log" 2>/dev/null || true
  exit 1
fi
rm -rf "$T"
echo "all checks passed"
