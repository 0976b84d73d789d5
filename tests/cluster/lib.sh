# Shared by the cluster tests (sourced after tests/daemon/lib.sh): several cuzk-daemon processes,
# one coordinator and its workers, each with its own state directory, socket, keys and log.
# Circuit: a 2^13-constraint chain (tests/cli/make_chain_circuit.py) with a TEST-ONLY key from
# `cuzk setup`, big enough that a 20-partition job lasts long enough to kill a worker mid-job.

declare -A NODE_PID=()

make_chain_key() {  # make_chain_key DIR SEED: DIR/chain.{r1cs,wtns,zkey}, DIR/vk.json
  local dir=$1 seed=$2
  mkdir -p "$dir"
  python3 "$SRC/tests/cli/make_chain_circuit.py" 8000 "$dir/chain.r1cs" "$dir/chain.wtns" 3 >/dev/null
  "$CUZK" setup --seed "$seed" "$dir/chain.r1cs" "$dir/chain.zkey" >/dev/null 2>&1
  "$CUZK" zkey export-vk "$dir/chain.zkey" "$dir/vk.json" >/dev/null
}

# node_config NAME ZKEY [TOML lines...]: $T/NAME.toml with its own socket, state, keys and log.
node_config() {
  local name=$1 zkey=$2
  shift 2
  mkdir -p "$T/$name/keys"
  cp "$zkey" "$T/$name/keys/chain.zkey"
  {
    echo "[daemon]"
    echo "listen = \"unix://$T/$name/cuzk.sock\""
    echo "status_listen = \"127.0.0.1:0\""
    echo "state_dir = \"$T/$name/state\""
    echo "shutdown_grace = \"10s\""
    echo "[keys]"
    echo "dir = \"$T/$name/keys\""
    echo "[synthesis]"
    echo "threads = 1"
    echo "[logging]"
    echo "file = \"$T/$name/daemon.log\""
    for line in "$@"; do echo "$line"; done
  } >"$T/$name.toml"
}

addr_of() { echo "unix://$T/$1/cuzk.sock"; }

# start_node NAME [daemon args...]: waits for "ready".
start_node() {
  local name=$1
  shift
  : >"$T/$name.out"
  "$DAEMON" --config "$T/$name.toml" "$@" >"$T/$name.out" 2>&1 &
  NODE_PID[$name]=$!
  await_ready "$T/$name.out" "${NODE_PID[$name]}"
}

stop_nodes() {
  local n
  for n in "${!NODE_PID[@]}"; do
    kill -TERM "${NODE_PID[$n]}" 2>/dev/null || true
  done
  for n in "${!NODE_PID[@]}"; do
    wait "${NODE_PID[$n]}" 2>/dev/null || true
  done
  NODE_PID=()
}
trap 'stop_nodes' EXIT

cluster_port() {  # the registrar's port, from the coordinator's log
  sed -n 's/.*accepting nodes on .* (port \([0-9]*\)).*/\1/p' "$T/$1/daemon.log" | tail -n 1
}

# wait_for SECONDS command...: polls every 0.1 s.
wait_for() {
  local limit=$1 i
  shift
  for ((i = 0; i < limit * 10; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

status_of() { "$CUZK" status --addr "$(addr_of "$1")"; }
nodes_up() {  # nodes_up COORDINATOR N: exactly N nodes are members
  [[ $(status_of "$1" | grep -c '^node #.*: up,') == "$2" ]]
}
node_up() { status_of "$1" | grep -q "^node #[0-9]* $2: up,"; }
node_busy() { status_of "$1" | grep -Eq "^node #[0-9]* $2: up, [1-9][0-9]*/"; }
worker_tasks() { status_of "$1" | sed -n 's/.*; \([0-9]*\) partitions received.*/\1/p'; }

# verify_job DIR N VK: N partition proofs, the first with snarkjs, all with cuzk verify.
verify_job() {
  local dir=$1 n=$2 vk=$3 k
  [[ $(stat -c %s "$dir/proof.bin") == $((192 * n)) ]] || { echo "proof.bin is not $n x 192 bytes"; return 1; }
  snarkjs groth16 verify "$vk" "$dir/public-0.json" "$dir/proof-0.json" 2>&1 | grep -q OK ||
    { echo "partition 0 does not verify with snarkjs"; return 1; }
  for ((k = 0; k < n; k++)); do
    "$CUZK" verify "$vk" "$dir/public-$k.json" "$dir/proof-$k.json" >/dev/null ||
      { echo "partition $k does not verify"; return 1; }
  done
}

cluster_finish() {
  stop_nodes
  if ((FAILURES > 0)); then
    echo "$FAILURES check(s) failed; logs:"
    for f in "$T"/*/daemon.log; do
      echo "== $f"
      tail -n 25 "$f"
    done
    exit 1
  fi
  rm -rf "$T"
  echo "all checks passed"
}
