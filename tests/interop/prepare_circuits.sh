#!/usr/bin/env bash
# ctest fixture: compiles the interop circuits and makes their snarkjs keys, witnesses and proofs
# (cached in BUILD/tests/interop/work by a hash of their inputs). Checks only snarkjs/circom.
source "$(dirname "$0")/lib.sh"
shift 2
(($# > 0)) || set -- $ALL_CIRCUITS
for c in "$@"; do
  start=$SECONDS
  if d=$(circuit_dir "$c"); then
    ok "$c: compiled, snarkjs key and proof in $d ($((SECONDS - start)) s)"
  else
    not_ok "$c: could not make the snarkjs artifacts"
  fi
done
finish
