#!/usr/bin/env bash
# Separate hosts: the coordinator and two workers each in its own network namespace, joined by veth
# pairs to a bridge (made here, as root). Mid-job, one worker's link goes down: the coordinator
# notices within node_timeout (+ one heartbeat), the job completes on the other worker, proofs
# verify; the link comes back: the worker rejoins and takes work. Then Filecoin over Curio's contract
# (tests/curio-client) with fil-oracle's 2 KiB fixtures as every node's parameter cache: the
# coordinator (coordinator_only) sends PoRep C2, WindowPoSt / WinningPoSt and SnapDeals partitions
# to the workers, one worker is killed (-9) mid-way, every proof is accepted by fil-oracle. That part is
# skipped, saying so, without fil-oracle or go/protoc. Skips (77) without root or ip.
source "$(dirname "$0")/../daemon/lib.sh"
source "$(dirname "$0")/lib.sh"
if [[ $(id -u) != 0 ]] || ! command -v ip >/dev/null || ! ip netns add "cuzk-probe-$$" 2>/dev/null; then
  echo "SKIP: network namespaces need root and iproute2 (ip netns)"
  exit 77
fi
ip netns del "cuzk-probe-$$"

NS=(c$$ a$$ b$$)  # coordinator, worker a, worker b
BR="cuzkbr$$"
cleanup_net() {
  stop_nodes
  local n
  for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
  ip link del "$BR" 2>/dev/null || true
}
trap 'cleanup_net' EXIT

# A bridge in the root namespace; each namespace gets 10.77.0.(1+i)/24 on a veth whose peer
# ("vethN" in the root namespace) joins the bridge. Taking that peer down cuts the host off.
ip link add "$BR" type bridge
ip link set "$BR" up
for i in 0 1 2; do
  ns=${NS[$i]}
  ip netns add "$ns"
  ip link add "v$i$$" type veth peer name eth0 netns "$ns"
  ip link set "v$i$$" master "$BR" up
  ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  # A re-dial after the link comes back should not wait minutes for SYN retries.
  ip netns exec "$ns" sysctl -qw net.ipv4.tcp_syn_retries=2 || true
done

# The Filecoin fixtures (params, sealed sectors, PoSt vanilla proofs) and the Go stand-in for Curio.
FIX="" CLIENT="" fil_skip=""
if [[ ! -x $BUILD/bin/fil-oracle ]]; then
  fil_skip="no fil-oracle ($BUILD/bin/fil-oracle)"
elif ! bash "$SRC/tests/oracle/fixtures.sh" "$BUILD" "$T/fix" >/dev/null; then
  fil_skip="tests/oracle/fixtures.sh could not make the fixtures"
elif ! bash "$SRC/tests/oracle/snap_fixtures.sh" "$BUILD" "$T/fix" >/dev/null; then
  fil_skip="tests/oracle/snap_fixtures.sh could not make the fixtures"
elif ! bash "$SRC/tests/curio-client/build.sh" "$SRC" "$BUILD/curio-client" >/dev/null; then
  fil_skip="the curio-client could not be built (go, protoc)"
else
  FIX="$T/fix" CLIENT="$BUILD/curio-client/curio-client"
fi
filecoin() {  # filecoin NAME: the node's [filecoin] lines (an evaluator directory of its own)
  [[ -n $FIX ]] || return 0
  printf '%s\n' "[filecoin]" "param_cache = \"$(cd "$FIX/params" && pwd -P)\"" "evaluator_dir = \"$T/$1/pce\""
  mkdir -p "$T/$1/pce"
}

K="$T/key"
make_chain_key "$K" 5
W="$K/chain.wtns"
cluster=("[cluster]" "secret = \"netns\"" "heartbeat = \"250ms\"" "node_timeout = \"2s\"")
mapfile -t fc < <(filecoin coord)
mapfile -t fa < <(filecoin wa)
mapfile -t fb < <(filecoin wb)
node_config coord "$K/chain.zkey" "${cluster[@]}" "listen = \"10.77.0.1:7700\"" "coordinator_only = true" "${fc[@]}"
node_config wa "$K/chain.zkey" "${cluster[@]}" "name = \"wa\"" "slots = 2" "${fa[@]}"
node_config wb "$K/chain.zkey" "${cluster[@]}" "name = \"wb\"" "slots = 2" "${fb[@]}"

# start_in NS NAME [args]: like start_node, inside a namespace (the unix sockets stay reachable:
# they live in the file system, not the network namespace).
start_in() {
  local ns=$1 name=$2
  shift 2
  : >"$T/$name.out"
  ip netns exec "$ns" "$DAEMON" --config "$T/$name.toml" "$@" >"$T/$name.out" 2>&1 &
  NODE_PID[$name]=$!
  await_ready "$T/$name.out" "${NODE_PID[$name]}"
}
start_in "${NS[0]}" coord
start_in "${NS[1]}" wa --join 10.77.0.1:7700
start_in "${NS[2]}" wb --join 10.77.0.1:7700
C=$(addr_of coord)
check "two workers in other namespaces join" wait_for 20 nodes_up coord 2

args=()
for _ in $(seq 24); do args+=(--witness "$W"); done
job=$("$CUZK" submit --addr "$C" --circuit chain "${args[@]}")
check "worker a holds partitions of the running job" wait_for 30 node_busy coord wa
t_cut=$(date +%s.%N)
ip link set "v1$$" down
check "the cut is detected within node_timeout + 1 s" wait_for 4 bash -c "'$CUZK' status --addr '$C' | grep -q '^node #[0-9]* wa: LOST'"
t_seen=$(date +%s.%N)
echo "detected after $(python3 -c "print(round($t_seen - $t_cut, 2))") s (node_timeout 2 s, heartbeat 0.25 s)"
check "the job completes on worker b" "$CUZK" await --addr "$C" "$job" --out "$T/j1" --timeout 180
check "its 24 proofs verify" verify_job "$T/j1" 24 "$K/vk.json"
check "the loss names the heartbeat timeout" grep -q "node wa .* lost: no heartbeat" "$T/coord/daemon.log"

ip link set "v1$$" up
check "worker a rejoins once its link is back" wait_for 60 node_up coord wa
before=$(worker_tasks wa)
args=()
for _ in $(seq 16); do args+=(--witness "$W"); done
check "a job after the rejoin" "$CUZK" prove --addr "$C" --circuit chain "${args[@]}" --out "$T/j2"
check "its proofs verify" verify_job "$T/j2" 16 "$K/vk.json"
check "worker a took part of it" bash -c "(( $(worker_tasks wa) > $before ))"

# ---- Filecoin: PoRep C2, PoSt and SnapDeals partitions proved by the workers, worker a killed mid-way ----
if [[ -z $FIX ]]; then
  echo "SKIP: the Filecoin part: $fil_skip"
  cluster_finish
  exit 0
fi
CA="unix:$T/coord/cuzk.sock"
O="$T/fil"
mkdir -p "$O"
check "the workers offer the 2 KiB params by parameters.json digest" bash -c \
  "[[ \$('$CUZK' status --addr '$C' | grep -c '^  params v28-proof-of-spacetime-fallback-.*: WindowPoSt, parameters.json digest ') == 2 ]]"
check "and the update params" bash -c \
  "[[ \$('$CUZK' status --addr '$C' | grep -c '^  params v28-empty-sector-update-.*: SnapDeals, parameters.json digest ') == 2 ]]"
before_b=$(worker_tasks wb)
pids=()
for n in 1 2; do
  "$CLIENT" -addr "$CA" -timeout 20m porep -c1 "$FIX/sector-$n/c1.json" -out "$O/porep-$n.bin" >"$O/porep-$n.out" 2>&1 &
  pids+=($!)
done
declare -A post_job
for kind in window winning; do post_job[$kind]=$("$CLIENT" -addr "$CA" submit -dir "$FIX/$kind"); done
snap_job=$("$CLIENT" -addr "$CA" submit -dir "$FIX/update")
check "worker a holds Filecoin partitions" wait_for 300 node_busy coord wa
kill -9 "${NODE_PID[wa]}"
wait "${NODE_PID[wa]}" 2>/dev/null || true
unset 'NODE_PID[wa]'
for n in 1 2; do
  check "PoRep C2 of sector $n completes without worker a" wait "${pids[$((n - 1))]}"
  check "fil-oracle verify-seal accepts sector $n's proof" \
    "$BUILD/bin/fil-oracle" verify-seal --c1 "$FIX/sector-$n/c1.json" --miner-id 1000 --proof "$O/porep-$n.bin" --cache "$FIX/params"
done
for kind in window winning; do
  check "the $kind PoSt completes" "$CLIENT" -addr "$CA" -timeout 20m await -job "${post_job[$kind]}" -out "$O/$kind.bin"
  check "fil-oracle verify-post accepts the $kind proof" \
    "$BUILD/bin/fil-oracle" verify-post --post "$FIX/$kind/post.json" --proof "$O/$kind.bin" --cache "$FIX/params"
done
check "the SnapDeals update completes" "$CLIENT" -addr "$CA" -timeout 20m await -job "$snap_job" -out "$O/snap.bin"
check "fil-oracle verify-update accepts the update's proof" \
  "$BUILD/bin/fil-oracle" verify-update --update "$FIX/update/update.json" --proof "$O/snap.bin" --cache "$FIX/params"
check "worker a is reported lost" bash -c "'$CUZK' status --addr '$C' | grep -q '^node #[0-9]* wa: LOST'"
check "worker b proved Filecoin partitions" bash -c "(( $(worker_tasks wb) > $before_b ))"
cluster_finish
