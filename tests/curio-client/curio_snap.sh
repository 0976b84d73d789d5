#!/usr/bin/env bash
# tests/curio-client/curio_snap.sh SOURCE_DIR BUILD_DIR: SnapDeals over Curio's contract. The Go
# stand-in for Curio submits fil-oracle's 2 KiB SnapDeals update (tests/oracle/snap_fixtures.sh:
# a committed-capacity sector, its update.json and bincode PartitionProof) to a real cuzk-daemon on
# loopback, the oracle's update params as its parameter cache:
#   - while the update is in flight, each malformed SnapDeals field (commitments of 31, 33 and 0
#     bytes or not a field element, a PartitionProof too many or none, one that does not parse, one
#     whose paths do not open to comm_r_old, PoRep's vanilla_proof field, a registered_proof of
#     another size or none) is refused with INVALID_ARGUMENT naming the field, in one line;
#   - the update completes; `fil-oracle verify-update` accepts its proof and rejects it with one bit
#     flipped; nothing is left queued;
#   - PreloadSRS by Curio's circuit id snap-2k; `cuzk fil submit --update-dir` with a commitment cut
#     short: exit 2, the daemon's line naming it.
# Exit 77 (skip, said on stdout) without go/protoc or fil-oracle.
set -euo pipefail
SRC=$(cd "${1:?usage: curio_snap.sh SOURCE_DIR BUILD_DIR}" && pwd)
BUILD=$(cd "${2:?usage}" && pwd)
ORACLE=$BUILD/bin/fil-oracle
[[ -x $ORACLE ]] || { echo "curio-snap: SKIPPED: $ORACLE not built (needs cargo: scripts/build.sh BUILD fil-oracle)"; exit 77; }
FIX=$BUILD/tests/curio-client/snap-fixtures
rc=0
bash "$SRC/tests/oracle/snap_fixtures.sh" "$BUILD" "$FIX" >/dev/null || rc=$?
((rc == 77)) && { echo "curio-snap: SKIPPED: no snap fixtures"; exit 77; }
((rc == 0)) || { echo "FAIL - tests/oracle/snap_fixtures.sh exit $rc"; exit 1; }
T=$(mktemp -d /tmp/cuzk-curio-snap.XXXXXX)
DAEMON_PID=""
stop() { [[ -n $DAEMON_PID ]] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""; }
trap stop EXIT
bash "$SRC/tests/curio-client/build.sh" "$SRC" "$BUILD/curio-client" || exit $?
CLIENT=$BUILD/curio-client/curio-client
FAILURES=0
ok() { echo "ok   - $*"; }
not_ok() { echo "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

mkdir -p "$T/keys" "$T/evaluators"
chmod 700 "$T/evaluators"
cat >"$T/d.toml" <<TOML
[daemon]
listen = "127.0.0.1:0"
status_listen = ""
state_dir = "$T/state"
[keys]
dir = "$T/keys"
[filecoin]
param_cache = "$(cd "$FIX/params" && pwd -P)"
evaluator_dir = "$T/evaluators"
[synthesis]
threads = 1
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

U=$FIX/update
check "a SnapDeals update over Curio's contract completes; each malformed field meanwhile INVALID_ARGUMENT naming it" \
  "$CLIENT" -addr "$ADDR" snap -dir "$U" -out "$T/snap.bin"
if [[ -s $T/snap.bin ]]; then
  check "fil-oracle verify-update accepts the daemon's 2 KiB SnapDeals proof" \
    "$ORACLE" verify-update --update "$U/update.json" --proof "$T/snap.bin" --cache "$FIX/params"
  python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[100]^=1; open(sys.argv[2],'wb').write(b)" "$T/snap.bin" "$T/flipped.bin"
  rc=0
  "$ORACLE" verify-update --update "$U/update.json" --proof "$T/flipped.bin" --cache "$FIX/params" >/dev/null 2>&1 || rc=$?
  check "fil-oracle verify-update rejects it with one bit flipped (exit 1, not a crash: $rc)" test "$rc" -eq 1
fi
check "nothing queued after the refusals" bash -c "'$CLIENT' -addr '$ADDR' status | grep -q ' 0 jobs pending'"
check "PreloadSRS snap-2k (Curio's circuit id)" "$BUILD/bin/cuzk" preload --addr "$ADDR" snap-2k
# cuzk's own client sends the same request from update.json: a commitment cut short is refused by
# the daemon, exit 2 with its one line.
mkdir -p "$T/short"
cp "$U"/vanilla-*.bin "$T/short/"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['comm_r_old']=d['comm_r_old'][:62]; json.dump(d,open(sys.argv[2],'w'))" \
  "$U/update.json" "$T/short/update.json"
rc=0
"$BUILD/bin/cuzk" fil submit --addr "$ADDR" --update-dir "$T/short" --out "$T/short-out" >"$T/short.out" 2>&1 || rc=$?
check "cuzk fil submit --update-dir: a 31-byte comm_r_old is refused, exit 2, naming it ($rc: $(head -c 200 "$T/short.out"))" \
  bash -c "[[ $rc == 2 ]] && grep -q 'comm_r_old: 31 bytes' '$T/short.out' && [[ \$(wc -l <'$T/short.out') == 1 ]]"
stop
if ((FAILURES > 0)); then
  echo "$FAILURES check(s) failed; daemon log:"
  tail -n 40 "$T/daemon.log" 2>/dev/null || true
  exit 1
fi
rm -rf "$T"
echo "all checks passed"
