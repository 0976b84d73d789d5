#!/usr/bin/env bash
# cuzk against Filecoin's own prover (fil-oracle: rust-fil-proofs + bellperson) on the real 2 KiB
# WindowPoSt circuit: our readers load the oracle's .params/.vk (and `params check` agrees with its
# digests); `cuzk verify --vk` (and @noble/curves) accept the oracle's proof and refuse a flipped bit;
# `cuzk prove --params` on the oracle's R1CS dump makes a proof that the oracle's verify-post accepts.
# Needs fil-oracle: $CUZK_FIL_ORACLE, else the one test.sh builds (BUILD/bin/fil-oracle, as the other
# oracle tests), else fil-oracle on PATH; skipped (exit 77) without it. Params and the sealed sector
# are cached under ${CUZK_CACHE:-~/.cache/cuzk}/bellperson-oracle.
source "$(dirname "$0")/lib.sh"
ORACLE=${CUZK_FIL_ORACLE:-}
[[ -n $ORACLE || ! -x $BUILD/bin/fil-oracle ]] || ORACLE=$BUILD/bin/fil-oracle
[[ -n $ORACLE ]] || ORACLE=$(command -v fil-oracle || true)
[[ -n $ORACLE && -x $ORACLE ]] || { echo "skip: fil-oracle not found (set CUZK_FIL_ORACLE)"; exit 77; }
require_cuzk
C=${CUZK_CACHE:-$HOME/.cache/cuzk}/bellperson-oracle
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$C"
(
  flock 9
  if [[ ! -f $C/done ]]; then
    rm -rf "$C/params" "$C/sector" && mkdir -p "$C/params" || exit 1
    quiet "$ORACLE" params --proof window-post --sector-size 2KiB --cache "$C/params" >"$C/params.json" || exit 1
    quiet "$ORACLE" seal --sector-size 2KiB --seed 1 --miner-id 1000 --sector-id 1 --out "$C/sector" || exit 1
    touch "$C/done"
  fi
) 9>"$C/.lock" || { not_ok "fil-oracle could not make params / a sector"; finish; }
P=$(ls "$C"/params/*.params | head -1)
VK=${P%.params}.vk

expect_exit 0 "params info of the oracle's .params" "$CUZK" params info --points "$P"
expect_exit 0 "params info of the oracle's .vk" "$CUZK" params info "$VK"
# parameters.json in the published shape, from the oracle's own digests.
python3 - "$C/params" "$T/parameters.json" <<'PY'
import json, os, subprocess, sys, hashlib
d = sys.argv[1]; out = {}
for f in sorted(os.listdir(d)):
    if f.endswith(('.params', '.vk')):
        out[f] = {"cid": "", "digest": hashlib.blake2b(open(os.path.join(d, f), 'rb').read()).hexdigest()[:32], "sector_size": 2048}
json.dump(out, open(sys.argv[2], 'w'), indent=1)
PY
expect_exit 0 "params check: every digest matches" "$CUZK" params check "$C/params" "$T/parameters.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); k=sorted(j)[0]; d=j[k]['digest']; j[k]['digest']=('1' if d[0]!='1' else '2')+d[1:]; json.dump(j,open(sys.argv[2],'w'))" "$T/parameters.json" "$T/bad.json"
expect_exit 1 "params check: a wrong digest is reported" "$CUZK" params check "$C/params" "$T/bad.json"

quiet "$ORACLE" post --kind window --sectors "$C/sector" --miner-id 1000 --cache "$C/params" --out "$T/window" --seed 3 ||
  { not_ok "fil-oracle post failed"; finish; }
"$ORACLE" public-inputs --post "$T/window/post.json" >"$T/inputs.json"
expect_exit 0 "cuzk verify accepts the oracle's WindowPoSt proof" "$CUZK" verify --vk "$VK" --public "$T/inputs.json" --proof "$T/window/proof.bin"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); json.dump(['0x'+x for x in j['public_inputs'][0]['inputs']],open(sys.argv[2],'w'))" "$T/inputs.json" "$T/inputs_flat.json"
if node "$SRC/tests/noble/verify_bellperson.js" "$VK" "$T/inputs_flat.json" "$T/window/proof.bin" >/dev/null 2>&1; then ok "@noble/curves accepts the oracle's proof"; else not_ok "@noble/curves rejects the oracle's proof"; fi
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[20]^=2; open(sys.argv[2],'wb').write(b)" "$T/window/proof.bin" "$T/flip.bin"
expect_reject "cuzk verify refuses the oracle's proof with a flipped bit" "$CUZK" verify --vk "$VK" --public "$T/inputs.json" --proof "$T/flip.bin"

quiet "$ORACLE" r1cs --post "$T/window/post.json" --partition 0 --out "$T/post.r1cs" || { not_ok "fil-oracle r1cs failed"; finish; }
expect_exit 0 "cuzk prove --params with the oracle's params and R1CS" "$CUZK" prove --params "$P" --r1cs "$T/post.r1cs" "$T/ours.bin" --backend cpu
if "$ORACLE" verify-post --post "$T/window/post.json" --proof "$T/ours.bin" --cache "$C/params" >/dev/null 2>&1; then
  ok "fil-oracle (bellperson) verifies cuzk's proof"
else
  not_ok "fil-oracle rejects cuzk's proof"
fi
expect_exit 0 "cuzk verify accepts its own proof" "$CUZK" verify --vk "$VK" --public "$T/inputs.json" --proof "$T/ours.bin"
cat "$T/window/proof.bin" "$T/ours.bin" >"$T/two.bin"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['public_inputs']=j['public_inputs']*2; json.dump(j,open(sys.argv[2],'w'))" "$T/inputs.json" "$T/inputs2.json"
expect_exit 0 "the oracle's proof and ours verify in one batch" "$CUZK" verify --vk "$VK" --public "$T/inputs2.json" --proof "$T/two.bin"
finish
