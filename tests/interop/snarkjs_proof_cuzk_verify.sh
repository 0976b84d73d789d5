#!/usr/bin/env bash
# snarkjs proves, cuzk verifies: the genuine proof is accepted (exit 0); a proof with -A instead of A
# and a public input off by one are rejected (exit 1) by cuzk, and by snarkjs as a control.
source "$(dirname "$0")/lib.sh"
CIRCUIT=${3:?circuit name}
D=$(circuit_dir "$CIRCUIT")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk

expect_exit 0 "$CIRCUIT: cuzk verify accepts snarkjs's proof" "$CUZK" verify "$D/vk.json" "$D/public.json" "$D/proof.json"

$TOOLS negate-a "$D/proof.json" "$T/neg_a.json"
snarkjs_verify_is 1 "$CIRCUIT: control: snarkjs rejects -A" "$D/vk.json" "$D/public.json" "$T/neg_a.json"
expect_exit 1 "$CIRCUIT: cuzk verify rejects -A" "$CUZK" verify "$D/vk.json" "$D/public.json" "$T/neg_a.json"

$TOOLS swap-ac "$D/proof.json" "$T/swap.json"
expect_exit 1 "$CIRCUIT: cuzk verify rejects A and C exchanged" "$CUZK" verify "$D/vk.json" "$D/public.json" "$T/swap.json"

NPUB=$($TOOLS npublic "$D/public.json")
if ((NPUB > 0)); then
  for i in 0 $((NPUB - 1)); do
    $TOOLS bump-public "$D/public.json" "$T/pub_$i.json" "$i"
    snarkjs_verify_is 1 "$CIRCUIT: control: snarkjs rejects public[$i]+1" "$D/vk.json" "$T/pub_$i.json" "$D/proof.json"
    expect_exit 1 "$CIRCUIT: cuzk verify rejects public[$i]+1" "$CUZK" verify "$D/vk.json" "$T/pub_$i.json" "$D/proof.json"
  done
  # a public.json with one signal too few cannot be checked against this key at all
  node -e 'const f=require("fs");const p=JSON.parse(f.readFileSync(process.argv[1]));p.pop();f.writeFileSync(process.argv[2],JSON.stringify(p))' "$D/public.json" "$T/short.json"
  expect_reject "$CIRCUIT: cuzk verify: public.json shorter than the key's nPublic" "$CUZK" verify "$D/vk.json" "$T/short.json" "$D/proof.json"
else
  echo "skip - $CIRCUIT has no public signals: nothing to tamper with in public.json"
fi
finish
