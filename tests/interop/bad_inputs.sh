#!/usr/bin/env bash
# Unusable inputs make every cuzk command exit 2 with a one-line message (never a crash, never a
# proof): truncated and wrong-magic files, BN254 files, a witness of another circuit, broken JSON.
source "$(dirname "$0")/lib.sh"
S=$(circuit_dir sample)
O=$(circuit_dir one_constraint)
F="$SRC/tests/fixtures/sample"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk
Z="$S/sample.zkey" W="$S/sample.wtns" R1="$S/sample.r1cs"

# truncated copies: inside the header, inside a section, one byte short
for n in 10 200 $(($(stat -c %s "$Z") - 1)); do
  head -c "$n" "$Z" >"$T/trunc_$n.zkey"
  expect_exit 2 "prove: zkey truncated to $n bytes" "$CUZK" prove "$T/trunc_$n.zkey" "$W" "$T/p.json" "$T/q.json"
  expect_exit 2 "export-vk: zkey truncated to $n bytes" "$CUZK" zkey export-vk "$T/trunc_$n.zkey" "$T/vk.json"
done
for n in 10 $(($(stat -c %s "$W") - 1)); do
  head -c "$n" "$W" >"$T/trunc_$n.wtns"
  expect_exit 2 "prove: wtns truncated to $n bytes" "$CUZK" prove "$Z" "$T/trunc_$n.wtns" "$T/p.json" "$T/q.json"
done
head -c 100 "$R1" >"$T/trunc.r1cs"
expect_exit 2 "setup: r1cs truncated to 100 bytes" "$CUZK" setup "$T/trunc.r1cs" "$T/k.zkey" --seed 1
expect_exit 2 "prove --r1cs: r1cs truncated to 100 bytes" "$CUZK" prove "$Z" "$W" "$T/p.json" "$T/q.json" --r1cs "$T/trunc.r1cs"

# wrong magic: right size and layout, first four bytes of another format
{ printf 'wtns'; tail -c +5 "$Z"; } >"$T/magic.zkey"
{ printf 'zkey'; tail -c +5 "$W"; } >"$T/magic.wtns"
{ printf 'zkey'; tail -c +5 "$R1"; } >"$T/magic.r1cs"
expect_exit 2 "prove: zkey with magic 'wtns'" "$CUZK" prove "$T/magic.zkey" "$W" "$T/p.json" "$T/q.json"
expect_exit 2 "prove: wtns with magic 'zkey'" "$CUZK" prove "$Z" "$T/magic.wtns" "$T/p.json" "$T/q.json"
expect_exit 2 "export-vk: zkey with magic 'wtns'" "$CUZK" zkey export-vk "$T/magic.zkey" "$T/vk.json"
expect_exit 2 "setup: r1cs with magic 'zkey'" "$CUZK" setup "$T/magic.r1cs" "$T/k.zkey" --seed 1
expect_exit 2 "prove: files swapped (wtns given as zkey)" "$CUZK" prove "$W" "$Z" "$T/p.json" "$T/q.json"

# BN254 files of the same circuit
expect_exit 2 "prove: BN254 zkey" "$CUZK" prove "$F/sample_bn254.zkey" "$W" "$T/p.json" "$T/q.json"
expect_exit 2 "prove: BN254 wtns" "$CUZK" prove "$Z" "$F/sample_bn254.wtns" "$T/p.json" "$T/q.json"
expect_exit 2 "export-vk: BN254 zkey" "$CUZK" zkey export-vk "$F/sample_bn254.zkey" "$T/vk.json"
expect_exit 2 "setup: BN254 r1cs" "$CUZK" setup "$F/sample_bn254.r1cs" "$T/k.zkey" --seed 1
expect_exit 2 "prove --r1cs: BN254 r1cs" "$CUZK" prove "$Z" "$W" "$T/p.json" "$T/q.json" --r1cs "$F/sample_bn254.r1cs"

# a witness of another circuit, and a witness that does not satisfy the r1cs
expect_exit 2 "prove: witness of another circuit" "$CUZK" prove "$Z" "$O/one_constraint.wtns" "$T/p.json" "$T/q.json"
expect_exit 2 "prove --r1cs: r1cs of another circuit" "$CUZK" prove "$Z" "$W" "$T/p.json" "$T/q.json" --r1cs "$O/one_constraint.r1cs"
# same size, one private wire changed (last 32 bytes = the last wire): unsatisfied, caught with --r1cs
cp "$W" "$T/unsat.wtns"
printf '\x05' | dd of="$T/unsat.wtns" bs=1 seek=$(($(stat -c %s "$W") - 32)) conv=notrunc status=none
expect_exit 2 "prove --r1cs: witness that does not satisfy the constraints" "$CUZK" prove "$Z" "$T/unsat.wtns" "$T/p.json" "$T/q.json" --r1cs "$R1"

# missing files and broken JSON for verify
expect_exit 2 "prove: zkey does not exist" "$CUZK" prove "$T/nope.zkey" "$W" "$T/p.json" "$T/q.json"
printf '{"protocol": "groth16", "curve": "bls12381", "nPublic": ' >"$T/broken_vk.json"
expect_exit 2 "verify: truncated vk JSON" "$CUZK" verify "$T/broken_vk.json" "$S/public.json" "$S/proof.json"
printf '{"pi_a": ["1", "2", "1"]}' >"$T/broken_proof.json"
expect_exit 2 "verify: proof JSON without pi_b and pi_c" "$CUZK" verify "$S/vk.json" "$S/public.json" "$T/broken_proof.json"
node -e 'const f=require("fs");const v=JSON.parse(f.readFileSync(process.argv[1]));v.curve="bn128";f.writeFileSync(process.argv[2],JSON.stringify(v))' "$S/vk.json" "$T/bn_vk.json"
expect_exit 2 "verify: vk for curve bn128" "$CUZK" verify "$T/bn_vk.json" "$S/public.json" "$S/proof.json"
printf '["1", "x"]' >"$T/bad_public.json"
expect_exit 2 "verify: public.json with a non-number" "$CUZK" verify "$S/vk.json" "$T/bad_public.json" "$S/proof.json"
node -e 'const f=require("fs");f.writeFileSync(process.argv[1],JSON.stringify(["52435875175126190479447740508185965837690552500527637822603658699938581184513","234","3"]))' "$T/big_public.json"
expect_reject "verify: public signal >= r" "$CUZK" verify "$S/vk.json" "$T/big_public.json" "$S/proof.json"
finish
