#!/usr/bin/env bash
# A coordinator (coordinator_only) and two worker daemons on loopback, each its own process: a job
# submitted before any worker joined is refused (FAILED_PRECONDITION, naming the key); jobs spread
# over both workers; kill -9 of a worker in the middle of a job loses nothing (the job
# completes, every proof verifies, it is answered once); the worker restarted rejoins and takes
# work; a wrong secret and a worker whose key differs are refused work, with a message. Then a
# cluster over TLS ([cluster] tls_cert/tls_key/tls_ca, certificates from make_certs.sh): a job
# proves through a worker whose certificate the CA signed; a worker signed by another CA and one
# without TLS never join; a plain client hears nothing from the TLS port; some but not all of the
# keys, or a missing file, refuse the start naming the key.
source "$(dirname "$0")/../daemon/lib.sh"
source "$(dirname "$0")/lib.sh"
K="$T/key"
make_chain_key "$K" 5
W="$K/chain.wtns"
cluster=("[cluster]" "secret = \"correct horse\"" "heartbeat = \"200ms\"" "node_timeout = \"2s\"")

node_config coord "$K/chain.zkey" "${cluster[@]}" "listen = \"127.0.0.1:0\"" "coordinator_only = true"
start_node coord
PORT=$(cluster_port coord)
check "the coordinator publishes its registrar (port $PORT)" test -n "$PORT"
C=$(addr_of coord)
rc=0
"$CUZK" prove --addr "$C" --circuit chain --witness "$W" --out "$T/j0" 2>"$T/j0.err" || rc=$?
check "with no worker joined a job is refused at submit (rc $rc), naming the key" \
  grep -q "error: no place can prove chain.zkey: this engine has no local devices (cluster coordinator_only) and no node has joined" "$T/j0.err"
node_config w1 "$K/chain.zkey" "${cluster[@]}" "name = \"w1\"" "slots = 2"
node_config w2 "$K/chain.zkey" "${cluster[@]}" "name = \"w2\"" "slots = 2"
start_node w1 --join "127.0.0.1:$PORT"
start_node w2 --join "127.0.0.1:$PORT"
check "both workers join" wait_for 20 nodes_up coord 2
check "a worker's status shows its coordinator" bash -c "'$CUZK' status --addr '$(addr_of w1)' | grep -q 'cluster: worker of 127.0.0.1:$PORT: joined'"

# ---- work spreads over both ----
args=()
for _ in $(seq 12); do args+=(--witness "$W"); done
check "a 12-partition job through the coordinator" "$CUZK" prove --addr "$C" --circuit chain "${args[@]}" --out "$T/j1"
check "its proofs verify" verify_job "$T/j1" 12 "$K/vk.json"
t1=$(worker_tasks w1)
t2=$(worker_tasks w2)
check "both workers proved partitions (w1 $t1, w2 $t2)" bash -c "(( $t1 > 0 && $t2 > 0 && $t1 + $t2 == 12 ))"

# ---- kill -9 one worker in the middle of a job ----
args=()
for _ in $(seq 24); do args+=(--witness "$W"); done
job=$("$CUZK" submit --addr "$C" --circuit chain "${args[@]}")
check "w1 holds partitions of the running job" wait_for 30 node_busy coord w1
kill -9 "${NODE_PID[w1]}"
wait "${NODE_PID[w1]}" 2>/dev/null || true
unset 'NODE_PID[w1]'
check "the job completes without w1" "$CUZK" await --addr "$C" "$job" --out "$T/j2" --timeout 120
check "all 24 proofs verify" verify_job "$T/j2" 24 "$K/vk.json"
check "w1 is reported lost" bash -c "'$CUZK' status --addr '$C' | grep -q '^node #[0-9]* w1: LOST'"
check "the coordinator logged the loss" grep -q "node w1 .* lost" "$T/coord/daemon.log"
completed=$("$CUZK" status --addr "$C" --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).totalProofsCompleted)')
check "each job answered once (2 completed)" test "$completed" = 2

# ---- w1 comes back and takes work again ----
start_node w1 --join "127.0.0.1:$PORT"
check "the restarted w1 rejoins" wait_for 20 node_up coord w1
args=()
for _ in $(seq 12); do args+=(--witness "$W"); done
check "a job after the rejoin" "$CUZK" prove --addr "$C" --circuit chain "${args[@]}" --out "$T/j3"
check "its proofs verify" verify_job "$T/j3" 12 "$K/vk.json"
check "the rejoined w1 took part of it" bash -c "(( $(worker_tasks w1) > 0 ))"

# ---- refusals ----
node_config intruder "$K/chain.zkey" "[cluster]" "secret = \"wrong\"" "name = \"intruder\""
rc=0
timeout 30 "$DAEMON" --config "$T/intruder.toml" --join "127.0.0.1:$PORT" >"$T/intruder.out" 2>&1 || rc=$?
check "a worker with the wrong secret exits non-zero (rc $rc)" test "$rc" = 1
check "it says it was refused for the wrong secret" grep -q "refused by the coordinator at 127.0.0.1:$PORT: wrong secret" "$T/intruder.out"
check "the coordinator logged the refusal" grep -q "node intruder refused: wrong secret" "$T/coord/daemon.log"

make_chain_key "$T/otherkey" 6
node_config stranger "$T/otherkey/chain.zkey" "${cluster[@]}" "name = \"stranger\""
start_node stranger --join "127.0.0.1:$PORT"
check "a worker with another key for the circuit joins" wait_for 20 node_up coord stranger
check "a job after it joined" "$CUZK" prove --addr "$C" --circuit chain "${args[@]}" --out "$T/j4"
check "its proofs verify" verify_job "$T/j4" 12 "$K/vk.json"
check "the worker whose key differs was sent nothing" test "$(worker_tasks stranger)" = 0

# ---- TLS ----
CERTS="$T/certs"
bash "$SRC/tests/cluster/make_certs.sh" "$CERTS" ca tcoord tw1
bash "$SRC/tests/cluster/make_certs.sh" "$CERTS" other rogue
tls() {  # tls NAME [CA]: the three [cluster] lines for NAME's certificate
  printf 'tls_cert = "%s"\ntls_key = "%s"\ntls_ca = "%s"\n' "$CERTS/$1.pem" "$CERTS/$1.key" "$CERTS/${2:-ca}.pem"
}
node_config half "$K/chain.zkey" "${cluster[@]}" "listen = \"127.0.0.1:0\"" "$(tls tcoord | grep -v tls_key)"
rc=0
timeout 30 "$DAEMON" --config "$T/half.toml" >"$T/half.out" 2>&1 || rc=$?
check "tls_cert and tls_ca without tls_key refuse the start (rc $rc)" test "$rc" = 2
check "naming the missing key" grep -q "cluster.tls_key is unset" "$T/half.out"
node_config nokey "$K/chain.zkey" "${cluster[@]}" "listen = \"127.0.0.1:0\"" "$(tls tcoord | sed 's/tcoord.key/absent.key/')"
rc=0
timeout 30 "$DAEMON" --config "$T/nokey.toml" >"$T/nokey.out" 2>&1 || rc=$?
check "a missing tls_key file refuses the start (rc $rc)" test "$rc" != 0
check "naming the key and the file" grep -q "cluster tls_key '$CERTS/absent.key': cannot read" "$T/nokey.out"

node_config tcoord "$K/chain.zkey" "${cluster[@]}" "listen = \"127.0.0.1:0\"" "coordinator_only = true" "$(tls tcoord)"
start_node tcoord
TPORT=$(cluster_port tcoord)
TC=$(addr_of tcoord)
node_config tw1 "$K/chain.zkey" "${cluster[@]}" "name = \"tw1\"" "slots = 2" "$(tls tw1)"
node_config rogue "$K/chain.zkey" "${cluster[@]}" "name = \"rogue\"" "$(tls rogue other)"
node_config bare "$K/chain.zkey" "${cluster[@]}" "name = \"bare\""
start_node tw1 --join "127.0.0.1:$TPORT"
start_node rogue --join "127.0.0.1:$TPORT"
start_node bare --join "127.0.0.1:$TPORT"
check "the worker whose certificate the CA signed joins over TLS" wait_for 20 node_up tcoord tw1
args=()
for _ in $(seq 6); do args+=(--witness "$W"); done
check "a 6-partition job through the TLS coordinator" "$CUZK" prove --addr "$TC" --circuit chain "${args[@]}" --out "$T/j5"
check "its proofs verify" verify_job "$T/j5" 6 "$K/vk.json"
check "tw1 proved all 6" test "$(worker_tasks tw1)" = 6
check "tw1's link held while the others were refused (1 join)" bash -c "'$CUZK' status --addr '$(addr_of tw1)' | grep -q ', 1 joins$'"
sleep 1
check "only tw1 is a member: the worker of another CA and the one without TLS never joined" nodes_up tcoord 1
echo "rogue: $(status_of rogue | grep 'cluster:')"
echo "bare: $(status_of bare | grep 'cluster:')"
check "the worker of another CA is not joined" bash -c "! '$CUZK' status --addr '$(addr_of rogue)' | grep -q ': joined'"
check "the worker without TLS is not joined" bash -c "! '$CUZK' status --addr '$(addr_of bare)' | grep -q ': joined'"
first_byte() {  # first_byte PORT: how many of the first 4 bytes a silent client receives within 2 s
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1; head -c 4 <&3 | wc -c"
}
check "a plain client hears CAF's handshake at once from the plain port" test "$(first_byte "$PORT")" = 4
check "and nothing from the TLS port (it waits for a ClientHello)" test "$(first_byte "$TPORT" || true)" != 4

cluster_finish
