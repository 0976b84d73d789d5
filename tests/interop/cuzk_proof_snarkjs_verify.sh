#!/usr/bin/env bash
# cuzk proves (from snarkjs's zkey and circom's witness), snarkjs verifies: the proof is accepted by
# `snarkjs groth16 verify` and cuzk verify; public.json equals snarkjs's; two proofs differ (fresh
# blinding); the 192-byte compressed proof decodes (with @noble/curves) to proof.json's points;
# tampered copies are rejected by both verifiers.
source "$(dirname "$0")/lib.sh"
CIRCUIT=${3:?circuit name}
D=$(circuit_dir "$CIRCUIT")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk
Z="$D/$CIRCUIT.zkey" W="$D/$CIRCUIT.wtns"

expect_exit 0 "$CIRCUIT: cuzk prove" "$CUZK" prove "$Z" "$W" "$T/proof.json" "$T/public.json"
if [[ -f $T/proof.json ]]; then
  snarkjs_verify_is 0 "$CIRCUIT: snarkjs verifies cuzk's proof" "$D/vk.json" "$T/public.json" "$T/proof.json"
  expect_exit 0 "$CIRCUIT: cuzk verifies its own proof" "$CUZK" verify "$D/vk.json" "$T/public.json" "$T/proof.json"
  if $TOOLS json-equal "$T/public.json" "$D/public.json"; then ok "$CIRCUIT: public.json equals snarkjs's"; else not_ok "$CIRCUIT: public.json differs from snarkjs's"; fi

  $TOOLS negate-a "$T/proof.json" "$T/neg_a.json"
  snarkjs_verify_is 1 "$CIRCUIT: snarkjs rejects cuzk's proof with -A" "$D/vk.json" "$T/public.json" "$T/neg_a.json"
  expect_exit 1 "$CIRCUIT: cuzk rejects its proof with -A" "$CUZK" verify "$D/vk.json" "$T/public.json" "$T/neg_a.json"
  if (($($TOOLS npublic "$T/public.json") > 0)); then
    $TOOLS bump-public "$T/public.json" "$T/pub.json" 0
    snarkjs_verify_is 1 "$CIRCUIT: snarkjs rejects public[0]+1 with cuzk's proof" "$D/vk.json" "$T/pub.json" "$T/proof.json"
    expect_exit 1 "$CIRCUIT: cuzk rejects public[0]+1 with its proof" "$CUZK" verify "$D/vk.json" "$T/pub.json" "$T/proof.json"
  fi
fi

# second proof, with the optional inputs and outputs: --r1cs (witness checked against the circuit),
# --compressed, --backend cpu
expect_exit 0 "$CIRCUIT: cuzk prove --r1cs --compressed --backend cpu" \
  "$CUZK" prove "$Z" "$W" "$T/proof2.json" "$T/public2.json" --r1cs "$D/$CIRCUIT.r1cs" --compressed "$T/proof2.bin" --backend cpu
if [[ -f $T/proof2.json ]]; then
  snarkjs_verify_is 0 "$CIRCUIT: snarkjs verifies the second proof" "$D/vk.json" "$T/public2.json" "$T/proof2.json"
  if [[ -f $T/proof.json ]]; then
    if $TOOLS proofs-differ "$T/proof.json" "$T/proof2.json"; then ok "$CIRCUIT: two proofs differ (fresh r, s)"; else not_ok "$CIRCUIT: two proofs are identical"; fi
  fi
  if $TOOLS check-compressed "$T/proof2.json" "$T/proof2.bin"; then ok "$CIRCUIT: compressed proof decodes to proof.json's points"; else not_ok "$CIRCUIT: compressed proof"; fi
fi
finish
