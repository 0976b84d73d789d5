#!/usr/bin/env bash
# cuzk-daemon end to end: prove through the client and verify with snarkjs; lifecycle (second start
# refused, kill -9 and restart with an accepted job finishing exactly once, SIGTERM drains); bad
# requests answered with errors while the daemon keeps serving; chaos kills mid-job; concurrent load.
source "$(dirname "$0")/lib.sh"
W="$SAMPLE/sample.wtns"

write_config "$T/d.toml" "$ADDR" "" "[chaos]" "enabled = true"
start_daemon "$T/d.toml"

# ---- proving through the daemon ----
check "prove 3 partitions through the daemon" \
  "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --witness "$W" --witness "$W" --out "$T/p3"
check "the 3 partition proofs verify with snarkjs" verify_dir "$T/p3" 3
check "public-K.json equals snarkjs's public.json" cmp -s "$T/p3/public-0.json" "$SAMPLE/public.json"
status_shows() {  # status_shows REGEX: the human status has a matching line (polled: evictions are messages)
  local _
  for _ in $(seq 50); do
    "$CUZK" status --addr "$ADDR" | grep -qE "$1" && return 0
    sleep 0.1
  done
  "$CUZK" status --addr "$ADDR"
  return 1
}
check "status: the sample key is hot after a proof, with its evaluator's bytes" status_shows '^key sample: hot, [1-9][0-9]* bytes in memory'
check "status: the sample key resident on device 0 (the key store's tier above hot), with its placement there" \
  status_shows '^key sample: hot, .*; resident on device 0 \(resident\)$'
check "status: device 0's VRAM budget by owner (resident, staged, free)" \
  status_shows '^device cpu[^ ]* .*; vram 0 resident \(1 keys\), [0-9]+ staged, [0-9]+ free of [1-9][0-9]*; 1 loads, 0 evictions$'
job=$("$CUZK" submit --addr "$ADDR" --circuit sample --witness "$W" --request-id same-id)
again=$("$CUZK" submit --addr "$ADDR" --circuit sample --witness "$W" --request-id same-id)
check "a repeated request id returns the same job" test "$job" = "$again"
check "await writes the job's proofs" "$CUZK" await --addr "$ADDR" "$job" --out "$T/a1"
check "awaited proof verifies" verify_dir "$T/a1" 1
check "status: the host waits line (none waiting once the proofs are done)" \
  status_shows '^host waits: 0 partitions waiting for a host grant, [0-9]+ served by a grant coming home to their key$'
check "status answers with this daemon's pid" bash -c "'$CUZK' status --addr '$ADDR' --json | grep -q '\"pid\": *$DAEMON_PID'"
port=$(sed -n 's/.*status http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
check "HTTP /metrics serves Prometheus text" bash -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^cuzk_jobs_completed_total [1-9]'"
check "HTTP /metrics shows the scheduler's host waits (engine status -> core's snapshot)" \
  bash -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^cuzk_host_waits_served_home_total [0-9]'"
check "HTTP /metrics shows the sample key's tier (hot)" \
  bash -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^cuzk_key_tier{circuit=\"sample\",tier=\"hot\"} 1'"
check "HTTP /status shows the sample key hot" \
  bash -c "curl -sf http://127.0.0.1:$port/status | node -e 'const s = JSON.parse(require(\"fs\").readFileSync(0)); process.exit(s.keys.some(k => k.circuit === \"sample\" && k.tier === \"hot\" && k.bytes > 0) ? 0 : 1)'"
check "HTTP /status shows the host waits" \
  bash -c "curl -sf http://127.0.0.1:$port/status | node -e 'const s = JSON.parse(require(\"fs\").readFileSync(0)); process.exit(Number.isInteger(s.host_waits.waiting) && Number.isInteger(s.host_waits.served_home) ? 0 : 1)'"
check "HTTP /status serves JSON" bash -c "curl -sf http://127.0.0.1:$port/status | node -e 'JSON.parse(require(\"fs\").readFileSync(0))'"
check "the unix socket is 0600" test "$(stat -c %a "$SOCK")" = 600

# ---- bad requests: an error each, and the daemon keeps serving ----
expect_refused() {  # expect_refused "message fragment" client-args...
  local want=$1 out rc=0
  shift
  out=$("$CUZK" "$@" 2>&1) || rc=$?
  [[ $rc == 2 && $out == *"$want"* ]] || { echo "rc=$rc output: $out"; return 1; }
}
head -c 100 "$W" >"$T/truncated.wtns"
check "unknown circuit refused" expect_refused "no key nope.zkey" submit --addr "$ADDR" --circuit nope --witness "$W"
check "malformed witness refused" expect_refused "partitions[0].witness_wtns" \
  submit --addr "$ADDR" --circuit sample --witness "$T/truncated.wtns"
check "witness of another curve refused" expect_refused "BN254" \
  submit --addr "$ADDR" --circuit sample --witness "$SAMPLE/sample_bn254.wtns"
check "bad circuit name refused" expect_refused "not a circuit name" submit --addr "$ADDR" --circuit ../x --witness "$W"
check "unknown job refused" expect_refused "no job" await --addr "$ADDR" no-such-job
check "still serving after bad requests" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/p-after"

# ---- chaos: kill a synthesizer and the device in the middle of a 10-partition job ----
ten=()
for _ in $(seq 10); do ten+=(--witness "$W"); done
job=$("$CUZK" submit --addr "$ADDR" --circuit sample "${ten[@]}")
"$CUZK" chaos kill --addr "$ADDR" synthesizer >/dev/null || true
"$CUZK" chaos kill --addr "$ADDR" device >/dev/null || true
check "10-partition job completes after chaos kills" "$CUZK" await --addr "$ADDR" "$job" --out "$T/chaos"
check "its proofs verify" verify_dir "$T/chaos" 10

# ---- chaos: the next 2 allocations of device 0 fail; the partitions are retried, the job succeeds ----
retries() { "$CUZK" status --addr "$ADDR" | sed -n 's/.*; retries \([0-9]*\),.*/\1/p'; }
r0=$(retries)
check "chaos fail-alloc is accepted" bash -c "'$CUZK' chaos fail-alloc --addr '$ADDR' --device 0 2 | grep -q 'next 2 allocation'"
check "fail-alloc of a device that does not exist is refused" expect_refused "no device 7" \
  chaos fail-alloc --addr "$ADDR" --device 7 1
check "a 3-partition job completes after 2 failed allocations" \
  "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --witness "$W" --witness "$W" --out "$T/failalloc"
check "its proofs verify" verify_dir "$T/failalloc" 3
r1=$(retries)
check "status shows the 2 retries ($r0 -> $r1)" test "$r1" -eq "$((r0 + 2))"

# ---- 200 submissions from 8 concurrent clients ----
load() {
  local i
  for i in $(seq 25); do
    "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/load-$1-$i" >/dev/null || return 1
  done
}
pids=()
for c in $(seq 8); do load "$c" & pids+=($!); done
lrc=0
for p in "${pids[@]}"; do wait "$p" || lrc=1; done
check "200 proofs from 8 concurrent clients complete" test $lrc = 0
vk_ok=0
for d in "$T"/load-*; do verify_dir_cuzk "$d" 1 || vk_ok=1; done
check "all 200 verify" test $vk_ok = 0
"$CUZK" evict --addr "$ADDR" sample >/dev/null
check "host budget back to zero once the idle key is evicted" \
  bash -c "'$CUZK' status --addr '$ADDR' | grep -q '^budget host: 0 /'"
check "status: the evicted sample key is cold, nothing in memory" status_shows '^key sample: cold, 0 bytes in memory'
check "status: its residency went with it (nothing resident on device 0)" \
  status_shows '^device cpu[^ ]* .*; vram 0 resident \(0 keys\), 0 staged, [0-9]+ free of [1-9][0-9]*; '
check "HTTP /metrics shows the sample key cold" \
  bash -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^cuzk_key_tier{circuit=\"sample\",tier=\"cold\"} 1'"

# ---- lifecycle ----
out=$("$DAEMON" --config "$T/d.toml" 2>&1) && rc=0 || rc=$?
check "a second daemon on the same socket is refused with the first one's pid" \
  bash -c "[[ $rc != 0 && '$out' == *'pid $DAEMON_PID'* ]]"

# kill -9 right after a job was accepted: after a restart it completes, exactly once.
job=$("$CUZK" submit --addr "$ADDR" --circuit sample "${ten[@]}")
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=""
check "restart after kill -9 (stale socket removed)" start_daemon "$T/d.toml"
check "the accepted job completes after the restart" "$CUZK" await --addr "$ADDR" "$job" --out "$T/restart"
check "its proofs verify" verify_dir "$T/restart" 10
check "journal holds the job once, completed" bash -c \
  "sqlite3 '$T/state/journal.sqlite' \"select count(*) || ' ' || state from jobs where id = '$job'\" | grep -qx '1 completed'"

# SIGTERM drains: exit status 0, and the daemon says it stopped.
"$CUZK" submit --addr "$ADDR" --circuit sample "${ten[@]}" >/dev/null
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" && trc=0 || trc=$?
DAEMON_PID=""
check "SIGTERM drains and exits 0" test $trc = 0
check "the log says it stopped" grep -q "stopped" "$T/daemon.log"
check "the engine stopped cleanly (no 10 s shutdown bound hit)" bash -c "! grep -q 'did not stop within' '$T/daemon.log'"
check "the log has one start banner per run" test "$(grep -c '==== cuzk-daemon start' "$T/daemon.log")" -ge 2

# ---- TCP with a token ----
write_config "$T/tcp.toml" "127.0.0.1:0" 'token = "s3cret"'
start_daemon "$T/tcp.toml"
tcp=$(sed -n 's/.*listening on \(127.0.0.1:[0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
check "TCP: a request without the token is refused" expect_refused "token" status --addr "$tcp"
check "TCP: with the token it proves" "$CUZK" prove --addr "$tcp" --token s3cret --circuit sample --witness "$W" --out "$T/tcp"
check "TCP: the proof verifies" verify_dir "$T/tcp" 1
stop_daemon

# An oversized message is refused, the daemon keeps serving.
write_config "$T/small.toml" "$ADDR" 'max_message_size = "4KiB"'
start_daemon "$T/small.toml"
head -c 8192 /dev/urandom >"$T/big.wtns"
out=$("$CUZK" submit --addr "$ADDR" --circuit sample --witness "$T/big.wtns" 2>&1) && rc=0 || rc=$?
check "oversized message refused with an error" bash -c "[[ $rc != 0 && '$out' == *'error'* ]]"
check "still serving after an oversized message" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/small"
stop_daemon

finish
