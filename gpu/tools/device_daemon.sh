#!/usr/bin/env bash
# The daemon on the GPU machine (one device-tool call): a 2^20 chain key in its keys dir, backend
# auto; checks that it picks the GPU (one device cuda:N per visible GPU, each with a VRAM budget),
# proves 2 jobs x 6 partitions submitted over gRPC, and stops cleanly on SIGTERM. Proofs and the
# vk come back in $OUT for `snarkjs groth16 verify` here.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_daemon.sh", carry=[".device"])
# Bundle: cuzk-daemon, cuzk, chain_circuit.
set -u -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/proofs"
R=.device/run
T=$(mktemp -d /tmp/cuzk-gpu-daemon.XXXXXX)
mkdir -p "$T/keys"
$R chain_circuit $(((1 << 20) - 3)) "$T/c.r1cs" "$T/c.wtns" 20 >/dev/null
$R cuzk setup "$T/c.r1cs" "$T/keys/chain.zkey" --seed 20 2>&1 | tail -1
$R cuzk zkey export-vk "$T/keys/chain.zkey" "$OUT/proofs/vk.json" >/dev/null
cat >"$T/cuzk.toml" <<TOML
[daemon]
listen = "unix://$T/cuzk.sock"
status_listen = "127.0.0.1:0"
state_dir = "$T/state"
[gpus]
backend = "auto"
[keys]
dir = "$T/keys"
[logging]
file = "$T/daemon.log"
TOML
$R cuzk-daemon --config "$T/cuzk.toml" >"$T/daemon.out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q "cuzk-daemon ready" "$T/daemon.out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
grep -E "ready|backend|device|error" "$T/daemon.out" | head -5
A="--addr unix://$T/cuzk.sock"
W=()
for _ in 1 2 3 4 5 6; do W+=(--witness "$T/c.wtns"); done
t0=$(date +%s.%N)
j1=$($R cuzk submit $A --circuit chain "${W[@]}")
j2=$($R cuzk submit $A --circuit chain "${W[@]}" --priority high)
$R cuzk await $A "$j1" --out "$T/o1" && $R cuzk await $A "$j2" --out "$T/o2"
echo "await rc=$? (2 jobs x 6 partitions in $(awk "BEGIN{print $(date +%s.%N) - $t0}") s, first includes the key load)"
$R cuzk status $A | head -20
ls "$T/o1" | head -20
cp "$T/o1/proof-0.json" "$OUT/proofs/proof-0.json"; cp "$T/o1/public-0.json" "$OUT/proofs/public-0.json"
cp "$T/o2/proof-5.json" "$OUT/proofs/proof-5.json"; cp "$T/o2/public-5.json" "$OUT/proofs/public-5.json"
kill -TERM $pid; t=$SECONDS; wait $pid; echo "daemon exit rc=$? after SIGTERM in $((SECONDS - t)) s"
tail -5 "$T/daemon.log"
tar -C "$OUT" -cf "$OUT/proofs.tar" proofs && rm -rf "$OUT/proofs"
