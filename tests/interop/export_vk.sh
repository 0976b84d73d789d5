#!/usr/bin/env bash
# cuzk zkey export-vk writes the same verification_key.json as `snarkjs zkey export verificationkey`:
# equal as parsed JSON, and byte for byte.
source "$(dirname "$0")/lib.sh"
CIRCUIT=${3:?circuit name}
D=$(circuit_dir "$CIRCUIT")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk

expect_exit 0 "$CIRCUIT: cuzk zkey export-vk" "$CUZK" zkey export-vk "$D/$CIRCUIT.zkey" "$T/vk.json"
if [[ -f $T/vk.json ]]; then
  if $TOOLS json-equal "$T/vk.json" "$D/vk.json"; then ok "$CIRCUIT: vk equals snarkjs's as JSON"; else not_ok "$CIRCUIT: vk differs from snarkjs's as JSON"; fi
  if cmp -s "$T/vk.json" "$D/vk.json"; then ok "$CIRCUIT: vk equals snarkjs's byte for byte"
  else not_ok "$CIRCUIT: vk bytes differ from snarkjs's: $(cmp "$T/vk.json" "$D/vk.json" 2>&1 | head -1)"; fi
fi
finish
