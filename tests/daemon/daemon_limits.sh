#!/usr/bin/env bash
# cuzk-daemon's listeners against clients that hold or flood them, and its answers' timing; every
# check here failed before its fix:
#  - an unauthenticated SubmitProof of 400 MB on a token-protected TCP listener is refused before
#    its body is read (the daemon's peak memory does not grow by the request);
#  - 64 half-open HTTP connections (a header byte a second) do not blind /status;
#  - AwaitProof with timeout_ms answers by its deadline while the job runs (it waited for the next
#    job to finish, or up to a minute);
#  - the shutdown log counts the jobs the journal still holds (a job whose finish the journal could
#    not record runs again at the next start: it is counted);
#  - a request whose memory (received and parsed) exceeds the host budget is refused with
#    RESOURCE_EXHAUSTED naming both sizes, while a job already running completes.
source "$(dirname "$0")/lib.sh"
W="$SAMPLE/sample.wtns"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON_PID/status"; }

# A 2^13-constraint chain circuit (TEST-ONLY key): a 16-partition job of it runs for seconds.
python3 "$SRC/tests/cli/make_chain_circuit.py" 8192 "$T/chain.r1cs" "$T/chain.wtns" 3 >/dev/null
"$CUZK" setup --seed 1 "$T/chain.r1cs" "$T/chain.zkey" >/dev/null 2>&1
port=$(free_port)
write_config "$T/l.toml" "127.0.0.1:$port" 'token = "s3cret"' "[chaos]" "enabled = true"
cp "$T/chain.zkey" "$T/keys/chain.zkey"
start_daemon "$T/l.toml"
A=(--addr "127.0.0.1:$port" --token s3cret)
sp=$(sed -n 's/.*status http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
check "a job with the token proves" "$CUZK" prove "${A[@]}" --circuit sample --witness "$W" --out "$T/p1"
check "its proof verifies" verify_dir "$T/p1" 1

# ---- the token is checked before the request's body is read ----
python3 - "$T/big.wtns" <<'PY'
import struct, sys
n = 12_500_000  # 400 MB of wires
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
with open(sys.argv[1], "wb") as f:
    f.write(b"wtns" + struct.pack("<II", 2, 2))
    f.write(struct.pack("<IQI", 1, 40, 32) + r.to_bytes(32, "little") + struct.pack("<I", n))
    f.write(struct.pack("<IQ", 2, 32 * n))
    f.truncate(f.tell() + 32 * n)
PY
h0=$(hwm)
out=$("$CUZK" submit --addr "127.0.0.1:$port" --circuit sample --witness "$T/big.wtns" 2>&1) && rc=0 || rc=$?
unauthenticated() { [[ $rc == 2 && $out == *authorization* ]] || { echo "rc=$rc output: $out"; return 1; }; }
check "a 400 MB SubmitProof without the token is refused (authorization)" unauthenticated
out=$("$CUZK" prove --addr "127.0.0.1:$port" --circuit sample --witness "$T/big.wtns" --out "$T/x" 2>&1) && rc=0 || rc=$?
check "a 400 MB Prove without the token is refused (authorization)" unauthenticated
h1=$(hwm)
echo "     daemon VmHWM $h0 -> $h1 KiB over two unauthenticated 400 MB requests"
check "the daemon did not buffer them (peak +$(((h1 - h0) / 1024)) MiB < 64 MiB)" test $((h1 - h0)) -lt 65536
rm -f "$T/big.wtns"
check "it proves on with the token" "$CUZK" prove "${A[@]}" --circuit sample --witness "$W" --out "$T/p2"

# ---- half-open HTTP connections do not blind /status ----
python3 - "$sp" <<'PY' &
import socket, sys, time
socks = []
for _ in range(64):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.send(b"GET /status HTTP/1.1\r\nHost: x\r\n")
    socks.append(s)
for _ in range(20):  # a header byte a second on each, never the blank line
    for s in socks:
        try:
            s.send(b"X")
        except OSError:
            pass
    time.sleep(1)
PY
slow=$!
sleep 2
t0=$(date +%s%N)
check "/status answers beside 64 half-open connections" curl -sf --max-time 3 "http://127.0.0.1:$sp/status" -o "$T/status.json"
echo "     /status in $((($(date +%s%N) - t0) / 1000000)) ms"
check "and /metrics" bash -c "curl -sf --max-time 3 http://127.0.0.1:$sp/metrics | grep -q '^cuzk_up'"
sleep 6  # past the request deadline (5 s): the slow connections are closed
check "/status still answers after the slow connections' deadline" curl -sf --max-time 3 "http://127.0.0.1:$sp/status" -o /dev/null
kill "$slow" 2>/dev/null || true
wait "$slow" 2>/dev/null || true

# ---- AwaitProof answers by its timeout while the job runs ----
many=()
for _ in $(seq 16); do many+=(--witness "$T/chain.wtns"); done
job=$("$CUZK" submit "${A[@]}" --circuit chain "${many[@]}")
t0=$(date +%s%N)
out=$("$CUZK" await "${A[@]}" "$job" --timeout 1 2>&1) && rc=0 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "     await --timeout 1 of a running job: exit $rc after $ms ms"
timely() { [[ $rc == 5 && $out == *"not finished"* ]] && ((ms < 3500)) || { echo "rc=$rc after $ms ms: $out"; return 1; }; }
check "await --timeout 1 answers TIMEOUT within 3.5 s while the job runs" timely
check "the job then completes" "$CUZK" await "${A[@]}" "$job" --out "$T/chain"
check "its 16 proofs verify" bash -c "'$CUZK' zkey export-vk '$T/chain.zkey' '$T/chain-vk.json' >/dev/null && for k in \$(seq 0 15); do '$CUZK' verify '$T/chain-vk.json' '$T/chain/public-'\$k'.json' '$T/chain/proof-'\$k'.json' >/dev/null || exit 1; done"

# ---- the shutdown log counts what the journal still holds ----
job=$("$CUZK" submit "${A[@]}" --circuit chain "${many[@]}")
"$CUZK" chaos journal-fail "${A[@]}" 3 >/dev/null  # 3: the minutely expiry may take one
check "a job finishing while the journal fails is awaited from memory" "$CUZK" await "${A[@]}" "$job" --out "$T/j"
check "the journal could not record its finish" grep -q "finish: database or disk is full" "$T/daemon.log"
stop_daemon
check "the shutdown log counts it: 1 job left for the next start" grep -q "shutdown: 1 job(s) left" "$T/daemon.log"
start_daemon "$T/l.toml"
check "the next start runs it again, and it completes" "$CUZK" await "${A[@]}" "$job" --out "$T/j2"
stop_daemon
check "then none is left" bash -c "grep 'shutdown:' '$T/daemon.log' | tail -n 1 | grep -q 'shutdown: 0 job(s) left'"

# ---- a request's memory is charged to the host budget: one larger than it is refused ----
port=$(free_port)
write_config "$T/m.toml" "127.0.0.1:$port" "" "[memory]" 'total_budget = "48MiB"'
start_daemon "$T/m.toml"
M=(--addr "127.0.0.1:$port")
job=$("$CUZK" submit "${M[@]}" --circuit chain "${many[@]}")
truncate -s 32M "$T/big.wtns"  # received and parsed: 2 x 32 MiB, more than the 48 MiB budget
out=$("$CUZK" submit "${M[@]}" --circuit sample --witness "$T/big.wtns" 2>&1) && rc=0 || rc=$?
rm -f "$T/big.wtns"
too_big() {
  [[ $rc == 2 && $out == *"a request of 335544"*" bytes"*"needs 671"*"the whole host budget is 50331648 bytes"* ]] ||
    { echo "rc=$rc output: $out"; return 1; }
}
check "a 32 MiB request beside a 48 MiB host budget is refused, naming both sizes" too_big
check "as RESOURCE_EXHAUSTED" grep -q "SubmitProof: refused (RESOURCE_EXHAUSTED): a request of" "$T/daemon.log"
check "the job running beside it completes" "$CUZK" await "${M[@]}" "$job" --out "$T/m-chain"
check "its 16 proofs verify" bash -c "for k in \$(seq 0 15); do '$CUZK' verify '$T/chain-vk.json' '$T/m-chain/public-'\$k'.json' '$T/m-chain/proof-'\$k'.json' >/dev/null || exit 1; done"
check "a request that fits proves" "$CUZK" prove "${M[@]}" --circuit sample --witness "$W" --out "$T/m1"
check "its proof verifies" verify_dir "$T/m1" 1

finish
