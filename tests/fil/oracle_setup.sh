#!/usr/bin/env bash
# ctest fil.oracle_setup (label oracle): cuzk's TEST-ONLY 2 KiB parameters judged by filecoin-proofs.
#   oracle_setup.sh SOURCE_DIR BUILD_DIR
# `cuzk fil setup` of the 2 KiB PoRep, WindowPoSt and WinningPoSt circuits into one directory (made by
# scripts/fil-test-params.sh: again whenever fil/, zk/ or the setup command change, else from its
# cache, as run.sh's), used by fil-oracle (filecoin-proofs 19.1.0) as its parameter cache:
#  - PoRep, the committed C1 of tests/fixtures/filecoin/oracle-2k (miner 1000, sector 1): fil-oracle c2
#    proves it with cuzk's parameters and fil-oracle verify-seal accepts that proof; `cuzk fil c2`
#    proves it with the same parameters and fil-oracle verify-seal (and cuzk fil verify-seal) accepts
#    that proof, and rejects it for miner 1001;
#  - PoRep of a sector never sealed: `cuzk fil c2` of a `cuzk fil synth-c1` C1 is accepted by
#    fil-oracle verify-seal;
#  - PoSt, a 2 KiB sector sealed by fil-oracle: fil-oracle proves its WindowPoSt and WinningPoSt with
#    cuzk's parameters and verifies them; `cuzk fil post` proves the same vanilla proofs and
#    fil-oracle verify-post accepts them, and rejects a flipped bit;
#  - a cuzk-daemon whose [filecoin] param_cache is that directory (digests checked against its
#    parameters.json) proves the same PoSt jobs sent by `cuzk fil submit` as Curio sends them, and
#    fil-oracle verify-post accepts the daemon's proofs.
# fil-oracle is $FIL_ORACLE or BUILD_DIR/bin/fil-oracle; skipped (exit 77, said why) without it. Minutes
# on 2 cores: the PoRep setup (when not cached) and the two C2 of a 2^22 domain.
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
if [[ ! -x $ORACLE ]]; then
  echo "SKIPPED: fil-oracle not found ($ORACLE; set FIL_ORACLE or build it: scripts/build.sh BUILD_DIR fil-oracle)"
  exit 77
fi
T=$(mktemp -d)
DPID=""
trap '[[ -n $DPID ]] && kill "$DPID" 2>/dev/null; rm -rf "$T"' EXIT
P=$T/params
C1=$SRC/tests/fixtures/filecoin/oracle-2k/c1.json
MINER=1000
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$@"; }

# The setups, made once per version of the code that makes them (scripts/fil-test-params.sh; its
# directory is read-only to this test: copied, so that nothing here can change the cache).
if cached=$("$SRC/scripts/fil-test-params.sh" "$CUZK" 11 StackedDrg2KiBV1_1 StackedDrgWindow2KiBV1_2 \
  StackedDrgWinning2KiBV1 2>"$T/setup.log"); then
  ok "cuzk fil setup of the 2 KiB PoRep, WindowPoSt and WinningPoSt circuits ($cached)"
  cp -r "$cached" "$P"
else
  not_ok "cuzk fil setup: $(tail -1 "$T/setup.log")"
  finish
fi

# PoRep: filecoin-proofs proves with cuzk's parameters; cuzk's proof is accepted by filecoin-proofs.
expect_exit 0 "fil-oracle c2 with cuzk's parameters" "$ORACLE" c2 --c1 "$C1" --miner-id $MINER --cache "$P" --out "$T/oracle.bin"
expect_exit 0 "fil-oracle verify-seal accepts its own proof made with cuzk's parameters" \
  "$ORACLE" verify-seal --c1 "$C1" --miner-id $MINER --proof "$T/oracle.bin" --cache "$P"
expect_exit 0 "cuzk fil verify-seal accepts the oracle's proof" \
  "$CUZK" fil verify-seal --c1 "$C1" --miner-id $MINER --proof "$T/oracle.bin" --params-dir "$P"
expect_exit 0 "cuzk fil c2 with cuzk's parameters" "$CUZK" fil c2 --c1 "$C1" --miner-id $MINER --params-dir "$P" \
  --backend cpu --out "$T/cuzk.bin"
expect_exit 0 "fil-oracle verify-seal accepts cuzk's proof" \
  "$ORACLE" verify-seal --c1 "$C1" --miner-id $MINER --proof "$T/cuzk.bin" --cache "$P"
expect_exit 1 "fil-oracle verify-seal rejects cuzk's proof for miner 1001" \
  "$ORACLE" verify-seal --c1 "$C1" --miner-id 1001 --proof "$T/cuzk.bin" --cache "$P"
# A C1 of a sector never sealed (`cuzk fil synth-c1`, what the 32 GiB runs prove): filecoin-proofs
# accepts cuzk's proof of it.
expect_exit 0 "cuzk fil synth-c1 --sector-size 2KiB" "$CUZK" fil synth-c1 --sector-size 2KiB --seed 3 --miner-id $MINER \
  --sector-id 5 --out "$T/synth.json"
expect_exit 0 "cuzk fil c2 of the synthetic C1" "$CUZK" fil c2 --c1 "$T/synth.json" --miner-id $MINER --params-dir "$P" \
  --backend cpu --out "$T/synth.bin"
expect_exit 0 "fil-oracle verify-seal accepts the proof of a synthetic C1" \
  "$ORACLE" verify-seal --c1 "$T/synth.json" --miner-id $MINER --proof "$T/synth.bin" --cache "$P"

# PoSt: a sector sealed by fil-oracle, proved by both with cuzk's parameters.
expect_exit 0 "fil-oracle seal (2 KiB, sector 7)" "$ORACLE" seal --sector-size 2KiB --seed 5 --miner-id $MINER \
  --sector-id 7 --out "$T/sector"
for kind in window winning; do
  expect_exit 0 "$kind: fil-oracle post with cuzk's parameters" "$ORACLE" post --kind $kind --sectors "$T/sector" \
    --miner-id $MINER --cache "$P" --seed 3 --out "$T/$kind"
  [[ -f $T/$kind/post.json ]] || { not_ok "$kind: no post.json"; continue; }
  expect_exit 0 "$kind: fil-oracle verify-post accepts its own proof" \
    "$ORACLE" verify-post --post "$T/$kind/post.json" --proof "$T/$kind/proof.bin" --cache "$P"
  rnd=$(json "$T/$kind/post.json" 'd["randomness"]')
  mapfile -t vfiles < <(json "$T/$kind/post.json" '"\n".join("'"$T/$kind"'/" + s["vanilla"] for s in d["sectors"])')
  expect_exit 0 "$kind: cuzk fil post with cuzk's parameters" "$CUZK" fil post --kind $kind --vanilla "${vfiles[@]}" \
    --randomness "$rnd" --miner-id $MINER --params-dir "$P" --backend cpu --out "$T/$kind.bin"
  expect_exit 0 "$kind: fil-oracle verify-post accepts cuzk's proof" \
    "$ORACLE" verify-post --post "$T/$kind/post.json" --proof "$T/$kind.bin" --cache "$P"
  flip "$T/$kind.bin" "$T/flip.bin" 30
  expect_exit 1 "$kind: fil-oracle rejects cuzk's proof with a flipped bit" \
    "$ORACLE" verify-post --post "$T/$kind/post.json" --proof "$T/flip.bin" --cache "$P"
done

# The daemon on cuzk's parameters, sent the PoSt jobs as Curio sends them.
if [[ -x $BUILD/bin/cuzk-daemon ]]; then
  mkdir -p "$T/keys"
  printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\nstatus_listen = ""\nstate_dir = "%s/state"\n[keys]\ndir = "%s/keys"\n[filecoin]\nparam_cache = "%s"\nverify_params = true\n' \
    "$T" "$T" "$T" "$P" >"$T/daemon.toml"
  "$BUILD/bin/cuzk-daemon" --config "$T/daemon.toml" >"$T/daemon.out" 2>&1 &
  DPID=$!
  for _ in $(seq 600); do grep -q "cuzk-daemon ready" "$T/daemon.out" && break; sleep 0.1; done
  for kind in window winning; do
    [[ -f $T/$kind/post.json ]] || continue
    expect_exit 0 "$kind: cuzk fil submit to a daemon on cuzk's parameters" "$CUZK" fil submit --addr "unix://$T/cuzk.sock" \
      --post-dir "$T/$kind" --out "$T/daemon-$kind"
    expect_exit 0 "$kind: fil-oracle verify-post accepts the daemon's proof" \
      "$ORACLE" verify-post --post "$T/$kind/post.json" --proof "$T/daemon-$kind/proof.bin" --cache "$P"
  done
  kill "$DPID"
  wait "$DPID" || true
  DPID=""
else
  not_ok "no $BUILD/bin/cuzk-daemon to send the jobs to"
fi
finish
