# Shared by the daemon end-to-end tests (sourced). Each test runs the real cuzk-daemon binary on a
# temporary unix socket / loopback port with its own state and keys directories, and the real
# `cuzk` client against it. Called by ctest as: bash tests/daemon/<test>.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
shopt -s inherit_errexit

SRC=$(cd "${1:?usage: $0 SOURCE_DIR BUILD_DIR}" && pwd)
BUILD=$(cd "${2:?usage: $0 SOURCE_DIR BUILD_DIR}" && pwd)
CUZK="$BUILD/bin/cuzk"
DAEMON="$BUILD/bin/cuzk-daemon"
T=$(mktemp -d /tmp/cuzk-daemon-test.XXXXXX)
SOCK="$T/cuzk.sock"
ADDR="unix://$SOCK"
SAMPLE="$SRC/tests/fixtures/sample"
DAEMON_PID=""

FAILURES=0
ok() { echo "ok   - $*"; }
not_ok() { echo "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
check() {  # check "what" command...: ok when the command succeeds
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
finish() {
  stop_daemon
  if ((FAILURES > 0)); then
    echo "$FAILURES check(s) failed; daemon log:"
    tail -n 40 "$T/daemon.log" 2>/dev/null || true
    exit 1
  fi
  rm -rf "$T"
  echo "all checks passed"
}
trap 'stop_daemon' EXIT

snarkjs() { node "$SRC/node_modules/snarkjs/cli.js" "$@"; }

# write_config FILE LISTEN "DAEMON_KEY = VALUE;..." [extra TOML lines (other sections)...]
write_config() {
  local f=$1 listen=$2 daemon_extra=$3
  shift 3
  mkdir -p "$T/keys"
  cp "$SAMPLE/sample.zkey" "$T/keys/sample.zkey"
  {
    echo "[daemon]"
    echo "listen = \"$listen\""
    echo "status_listen = \"127.0.0.1:0\""
    echo "state_dir = \"$T/state\""
    echo "shutdown_grace = \"20s\""
    [[ -n $daemon_extra ]] && tr ';' '\n' <<<"$daemon_extra"
    echo "[keys]"
    echo "dir = \"$T/keys\""
    echo "[logging]"
    echo "file = \"$T/daemon.log\""
    for line in "$@"; do echo "$line"; done
  } >"$f"
}

# await_ready OUTFILE PID: waits (at most 60 s) for the daemon writing OUTFILE to print "ready";
# fails at once, showing its output, if it exits first.
await_ready() {
  local out=$1 pid=$2
  for _ in $(seq 600); do
    grep -q "cuzk-daemon ready" "$out" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$out"; return 1; }
    sleep 0.1
  done
  echo "daemon ($out) did not become ready"
  return 1
}

# start_daemon CONFIG: starts it in the background and waits for "ready".
start_daemon() {
  : >"$T/daemon.out"
  "$DAEMON" --config "$1" >"$T/daemon.out" 2>&1 &
  DAEMON_PID=$!
  await_ready "$T/daemon.out" "$DAEMON_PID"
}

stop_daemon() {
  if [[ -n $DAEMON_PID ]] && kill -0 "$DAEMON_PID" 2>/dev/null; then
    kill -TERM "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  DAEMON_PID=""
}

# verify_dir DIR N: every partition's proof in DIR verifies with snarkjs against the sample's vk,
# and proof.bin holds N x 192 bytes.
verify_dir() {
  local dir=$1 n=$2 k
  [[ $(stat -c %s "$dir/proof.bin") == $((192 * n)) ]] || { echo "proof.bin is not $n x 192 bytes"; return 1; }
  for ((k = 0; k < n; k++)); do
    snarkjs groth16 verify "$SAMPLE/verification_key.json" "$dir/public-$k.json" "$dir/proof-$k.json" 2>&1 |
      grep -q "OK" || { echo "partition $k does not verify with snarkjs"; return 1; }
  done
}

# verify_dir_cuzk DIR N: the same with `cuzk verify` (the load test checks hundreds of proofs; cuzk's
# verifier is itself checked against snarkjs by the interop tests).
verify_dir_cuzk() {
  local dir=$1 n=$2 k
  [[ $(stat -c %s "$dir/proof.bin") == $((192 * n)) ]] || { echo "proof.bin is not $n x 192 bytes"; return 1; }
  for ((k = 0; k < n; k++)); do
    "$CUZK" verify "$SAMPLE/verification_key.json" "$dir/public-$k.json" "$dir/proof-$k.json" >/dev/null ||
      { echo "$dir partition $k does not verify"; return 1; }
  done
}
