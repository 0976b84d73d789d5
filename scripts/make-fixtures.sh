#!/usr/bin/env bash
# Regenerates the committed reference fixtures in tests/fixtures/ with snarkjs and circom only.
# The committed files were made by this script; rerunning it gives new (random) keys and proofs,
# so only rerun it when the fixtures must change, and commit everything it writes together.
#   scripts/make-fixtures.sh [--ptau]     --ptau also regenerates the powers of tau (slow-ish: ~1 min)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SNARKJS="node $ROOT/node_modules/snarkjs/cli.js"
CIRCOM="node $ROOT/node_modules/circom2/cli.js"
PTAU_DIR=tests/fixtures/ptau
FIX=tests/fixtures/sample
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ "${1:-}" == "--ptau" ]]; then
  mkdir -p "$PTAU_DIR"
  $SNARKJS powersoftau new bls12381 11 "$WORK/p0.ptau"
  $SNARKJS powersoftau contribute "$WORK/p0.ptau" "$WORK/p1.ptau" --name=c1 -e="cuzk fixture entropy bls"
  $SNARKJS powersoftau prepare phase2 "$WORK/p1.ptau" "$PTAU_DIR/pot11_bls12381.ptau"
  $SNARKJS powersoftau new bn128 8 "$WORK/b0.ptau"
  $SNARKJS powersoftau contribute "$WORK/b0.ptau" "$WORK/b1.ptau" --name=c1 -e="cuzk fixture entropy bn"
  $SNARKJS powersoftau prepare phase2 "$WORK/b1.ptau" "$PTAU_DIR/pot8_bn128.ptau"
fi

# BLS12-381 sample: the reference set.
$CIRCOM $FIX/sample.circom --r1cs --wasm --prime bls12381 -l node_modules -o "$WORK"
cp "$WORK/sample.r1cs" $FIX/sample.r1cs
node "$WORK/sample_js/generate_witness.js" "$WORK/sample_js/sample.wasm" $FIX/input.json $FIX/sample.wtns
$SNARKJS groth16 setup $FIX/sample.r1cs $PTAU_DIR/pot11_bls12381.ptau "$WORK/sample_0000.zkey"
$SNARKJS zkey contribute "$WORK/sample_0000.zkey" $FIX/sample.zkey --name=c1 -e="cuzk sample zkey entropy"
$SNARKJS zkey export verificationkey $FIX/sample.zkey $FIX/verification_key.json
$SNARKJS groth16 prove $FIX/sample.zkey $FIX/sample.wtns $FIX/proof.json $FIX/public.json
$SNARKJS groth16 verify $FIX/verification_key.json $FIX/public.json $FIX/proof.json

# BN254 variant of the same circuit: parsers must reject these with a "wrong curve" message.
rm -rf "$WORK/bn" && mkdir -p "$WORK/bn"
$CIRCOM $FIX/sample.circom --r1cs --wasm --prime bn128 -l node_modules -o "$WORK/bn"
cp "$WORK/bn/sample.r1cs" $FIX/sample_bn254.r1cs
node "$WORK/bn/sample_js/generate_witness.js" "$WORK/bn/sample_js/sample.wasm" $FIX/input.json $FIX/sample_bn254.wtns
$SNARKJS groth16 setup $FIX/sample_bn254.r1cs $PTAU_DIR/pot8_bn128.ptau "$WORK/bn/sample_0000.zkey"
$SNARKJS zkey contribute "$WORK/bn/sample_0000.zkey" $FIX/sample_bn254.zkey --name=c1 -e="cuzk sample bn zkey entropy"
echo "fixtures written to $FIX"
