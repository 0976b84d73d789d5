#!/usr/bin/env bash
# tests/curio-client/curio_client.sh SOURCE_DIR BUILD_DIR FIXTURES_DIR: the Go stand-in for Curio
# against a real cuzk-daemon on loopback TCP, with fil-oracle's 2 KiB fixtures (tests/oracle/
# fixtures.sh) as parameter cache and payloads:
#   - malformed Filecoin requests (every malformed field the daemon checks): each refused with its gRPC code and one
#     line, nothing queued, a WindowPoSt in flight meanwhile completes and verifies;
#   - a circom job through `cuzk prove` on the same daemon (both kinds of client, one service);
#   - GetStatus as Curio reads it (queues for back-pressure, devices, keys);
#   - WindowPoSt and WinningPoSt proved through Prove, the bytes accepted by `fil-oracle verify-post`;
#   - PoRep C2 of both sealed sectors submitted as Curio does, then a WinningPoSt: the PoRep bytes
#     accepted by `fil-oracle verify-seal`, the WinningPoSt's by verify-post, and by the daemon's
#     per-partition timings the WinningPoSt started on the (one) device before every PoRep partition
#     still queued when it arrived (one synthesizer: the second PoRep waits); GetStatus names the
#     running jobs as current_job_id while they run, SubmitProof names assigned_gpu (curio-client
#     overtake). This covers the engine's PoRep path end to end, which is why the
#     `filecoin_engine.sh SRC BUILD porep` is not a ctest of its own;
#   - `cuzk bench fil`: per-partition stage times in its JSON, synthesizer and device lanes in its SVG;
#   - PreloadSRS / EvictSRS by Curio's circuit ids;
#   - a PoRep cancelled mid-job (once it runs), then the daemon idle with nothing but keys in its
#     host budget;
#   - two jobs accepted, the daemon killed (-9) and restarted: both complete, their proofs verify.
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
[synthesis]
threads = 1
[scheduler]
step_timeout = "30m"
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

check "bad Filecoin requests are refused with their gRPC codes, one line each, nothing queued, a job in flight unharmed" \
  "$CLIENT" -addr "$ADDR" bad-inputs -sample "$FIX" -good-out "$T/good-window.bin"
[[ -s $T/good-window.bin ]] && check "fil-oracle verify-post accepts the proof of the job in flight during the refusals" \
  "$ORACLE" verify-post --post "$FIX/window/post.json" --proof "$T/good-window.bin" --cache "$FIX/params"
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
# ---- cuzk bench fil: per-partition stage times in its JSON, one lane per synthesizer and device in
# its SVG, no progress bar in a pipe ----
if "$BUILD/bin/cuzk" bench fil --addr "$ADDR" --kind wpost --dir "$FIX/window" --mode batch --count 2 \
     --out "$T/bench.json" >"$T/bench.out" 2>"$T/bench.err"; then
  check "bench fil: both jobs' partition timings (synthesizer, device) in its JSON" bash -c \
    "[[ \$(grep -c '\"synthesizer\": \"synth:0\"' '$T/bench.json') == 2 && \$(grep -Ec '\"device\": \"(cpu|cuda):0\"' '$T/bench.json') == 2 ]]"
  check "bench fil: its SVG has the synthesizer's and the device's lanes, a bar per stage of each partition" bash -c \
    "grep -q '>synth:0<' '$T/bench.svg' && grep -Eq '>(cpu|cuda):0<' '$T/bench.svg' && [[ \$(grep -c '<rect x=' '$T/bench.svg') == 4 ]]"
  check "bench fil: no progress bar in a pipe" bash -c "! grep -q \$'\\r' '$T/bench.err'"
else
  not_ok "cuzk bench fil --mode batch --count 2: $(tail -n 1 "$T/bench.err")"
fi

# ---- PoRep over the wire; a WinningPoSt overtakes the queued PoRep partitions ----
mkdir -p "$T/overtake"
if "$CLIENT" -addr "$ADDR" -timeout 25m overtake -fix "$FIX" -out "$T/overtake"; then
  ok "PoRep x 2 then WinningPoSt: completed, the WinningPoSt overtook the queued PoRep partitions, status named them"
else
  not_ok "PoRep x 2 then WinningPoSt (curio-client overtake)"
fi
for n in 1 2; do
  if [[ -s $T/overtake/porep-$n.bin ]]; then
    check "fil-oracle verify-seal accepts the daemon's PoRep C2 of sector $n" \
      "$ORACLE" verify-seal --c1 "$FIX/sector-$n/c1.json" --miner-id 1000 --proof "$T/overtake/porep-$n.bin" --cache "$FIX/params"
  else
    not_ok "no PoRep proof of sector $n"
  fi
done
[[ -s $T/overtake/porep-1.bin && -f $FIX/sector-2/c1.json ]] && check "fil-oracle verify-seal rejects sector 1's proof for sector 2" \
  bash -c "! '$ORACLE' verify-seal --c1 '$FIX/sector-2/c1.json' --miner-id 1000 --proof '$T/overtake/porep-1.bin' --cache '$FIX/params' >/dev/null 2>&1"
[[ -s $T/overtake/winning.bin ]] && check "fil-oracle verify-post accepts the overtaking WinningPoSt" \
  "$ORACLE" verify-post --post "$FIX/winning/post.json" --proof "$T/overtake/winning.bin" --cache "$FIX/params"

check "PreloadSRS wpost-2k (Curio's circuit id)" "$BUILD/bin/cuzk" preload --addr "$ADDR" wpost-2k
check "the WindowPoSt parameters are hot in GetStatus" bash -c "'$CLIENT' -addr '$ADDR' status | grep -q 'key v28-proof-of-spacetime.*: HOT'"
check "EvictSRS wpost-2k" "$BUILD/bin/cuzk" evict --addr "$ADDR" wpost-2k
check "PreloadSRS snap-32g names the 32 GiB update params it does not find" bash -c "'$BUILD/bin/cuzk' preload --addr '$ADDR' snap-32g 2>&1 | grep -q 'v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9.*not found'"
check "cancel a PoRep mid-job: cancelled, then idle, the host budget holding only keys" \
  "$CLIENT" -addr "$ADDR" cancel -c1 "$FIX/sector-1/c1.json" -idle 10m

# ---- jobs accepted survive kill -9 ----
declare -A jobs
for kind in window winning; do jobs[$kind]=$("$CLIENT" -addr "$ADDR" submit -dir "$FIX/$kind"); done
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=""
start_daemon
for kind in window winning; do
  job=${jobs[$kind]}
  check "the restarted daemon re-queued the accepted $kind job" grep -q "re-queued job $job" "$T/daemon.log"
  if "$CLIENT" -addr "$ADDR" await -job "$job" -out "$T/restart-$kind.bin"; then
    check "the $kind job accepted before kill -9 completed after the restart; fil-oracle accepts its proof" \
      "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$T/restart-$kind.bin" --cache "$FIX/params"
  else
    not_ok "the $kind job accepted before kill -9 completes after the restart"
  fi
done

stop
if ((FAILURES > 0)); then
  echo "$FAILURES check(s) failed; daemon log:"
  tail -n 40 "$T/daemon.log" 2>/dev/null || true
  exit 1
fi
rm -rf "$T"
echo "all checks passed"
