#!/usr/bin/env bash
# tests/curio-client/curio_client.sh SOURCE_DIR BUILD_DIR FIXTURES_DIR: the Go stand-in for Curio
# against a real cuzk-daemon on loopback TCP, with fil-oracle's 2 KiB fixtures (tests/oracle/
# fixtures.sh) as parameter cache and payloads:
#   - malformed Filecoin requests: each refused with its gRPC code and one line, nothing queued;
#   - a circom job through `cuzk prove` on the same daemon (both kinds of client, one service);
#   - GetStatus as Curio reads it (queues for back-pressure, devices, keys).
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

check "bad Filecoin requests are refused with their gRPC codes, one line each, nothing queued" \
  "$CLIENT" -addr "$ADDR" bad-inputs -sample "$FIX"
check "a circom job through cuzk's own client on the same service" \
  "$BUILD/bin/cuzk" prove --addr "$ADDR" --circuit sample --witness "$SRC/tests/fixtures/sample/sample.wtns" --out "$T/circom"
check "status as Curio reads it" "$CLIENT" -addr "$ADDR" status

stop
if ((FAILURES > 0)); then
  echo "$FAILURES check(s) failed; daemon log:"
  tail -n 40 "$T/daemon.log" 2>/dev/null || true
  exit 1
fi
rm -rf "$T"
echo "all checks passed"
