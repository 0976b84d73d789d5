#!/usr/bin/env bash
# A key from `cuzk setup` (test-only, no ceremony) is a valid snarkjs zkey: snarkjs exports its vk,
# proves with it and verifies the proof; cuzk proves with it and snarkjs verifies that too. The same
# seed gives the same key, another seed another key.
source "$(dirname "$0")/lib.sh"
CIRCUIT=${3:?circuit name}
D=$(circuit_dir "$CIRCUIT")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk

expect_exit 0 "$CIRCUIT: cuzk setup --seed 7" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k7.zkey" --seed 7
[[ -f $T/k7.zkey ]] || { not_ok "$CIRCUIT: cuzk setup wrote no key"; finish; }
if quiet snarkjs zkey export verificationkey "$T/k7.zkey" "$T/vk.json"; then ok "$CIRCUIT: snarkjs exports the vk of cuzk's key"; else not_ok "$CIRCUIT: snarkjs cannot export the vk of cuzk's key"; fi
if quiet snarkjs groth16 prove "$T/k7.zkey" "$D/$CIRCUIT.wtns" "$T/sj_proof.json" "$T/sj_public.json"; then
  ok "$CIRCUIT: snarkjs proves with cuzk's key"
  snarkjs_verify_is 0 "$CIRCUIT: snarkjs verifies its proof made with cuzk's key" "$T/vk.json" "$T/sj_public.json" "$T/sj_proof.json"
  expect_exit 0 "$CIRCUIT: cuzk verifies snarkjs's proof made with cuzk's key" "$CUZK" verify "$T/vk.json" "$T/sj_public.json" "$T/sj_proof.json"
else
  not_ok "$CIRCUIT: snarkjs groth16 prove fails with cuzk's key"
fi
expect_exit 0 "$CIRCUIT: cuzk proves with its own key" "$CUZK" prove "$T/k7.zkey" "$D/$CIRCUIT.wtns" "$T/cz_proof.json" "$T/cz_public.json"
[[ -f $T/cz_proof.json ]] && snarkjs_verify_is 0 "$CIRCUIT: snarkjs verifies cuzk's proof with cuzk's key" "$T/vk.json" "$T/cz_public.json" "$T/cz_proof.json"
# the vk of snarkjs's key must not verify a proof made under cuzk's key (the keys really differ)
[[ -f $T/cz_proof.json ]] && snarkjs_verify_is 1 "$CIRCUIT: control: snarkjs's vk rejects a proof under cuzk's key" "$D/vk.json" "$T/cz_public.json" "$T/cz_proof.json"

expect_exit 0 "$CIRCUIT: cuzk setup --seed 7 again" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k7b.zkey" --seed 7
expect_exit 0 "$CIRCUIT: cuzk setup --seed 8" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k8.zkey" --seed 8
if cmp -s "$T/k7.zkey" "$T/k7b.zkey"; then ok "$CIRCUIT: same seed, same key"; else not_ok "$CIRCUIT: same seed gave different keys"; fi
if cmp -s "$T/k7.zkey" "$T/k8.zkey"; then not_ok "$CIRCUIT: seeds 7 and 8 gave the same key"; else ok "$CIRCUIT: another seed, another key"; fi
finish
