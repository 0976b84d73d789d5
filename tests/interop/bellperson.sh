#!/usr/bin/env bash
# bellperson's key formats on a circom circuit: `cuzk setup --format bellperson` writes .params and
# .vk; `cuzk params info` reads their shape; `cuzk prove --params` makes a 192-byte proof that
# `cuzk verify --vk` and @noble/curves (tests/noble/verify_bellperson.js) both accept; tampered
# proofs, wrong inputs and another key are refused; two partitions verify in one batch and a bad one
# is named; unusable files exit 2 with one line. The same seed gives the same bytes.
source "$(dirname "$0")/lib.sh"
CIRCUIT=${3:?circuit name}
D=$(circuit_dir "$CIRCUIT")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
require_cuzk
NOBLE="node $SRC/tests/noble/verify_bellperson.js"

expect_exit 0 "$CIRCUIT: setup --format bellperson" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k.params" --seed 7 --format bellperson
[[ -f $T/k.params && -f $T/k.vk ]] || { not_ok "$CIRCUIT: no k.params / k.vk written"; finish; }
expect_exit 0 "$CIRCUIT: setup again, same seed" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k2.params" --seed 7 --format bellperson
if cmp -s "$T/k.params" "$T/k2.params" && cmp -s "$T/k.vk" "$T/k2.vk"; then ok "$CIRCUIT: same seed, same bytes"; else not_ok "$CIRCUIT: same seed, different bytes"; fi
# The .params file starts with the .vk.
if cmp -s -n "$(stat -c %s "$T/k.vk")" "$T/k.vk" "$T/k.params"; then ok "$CIRCUIT: .params starts with the .vk bytes"; else not_ok "$CIRCUIT: .params does not start with the .vk"; fi
expect_exit 0 "$CIRCUIT: params info --points" "$CUZK" params info --points "$T/k.params"
expect_exit 0 "$CIRCUIT: params info of the .vk" "$CUZK" params info "$T/k.vk"

expect_exit 0 "$CIRCUIT: prove --params" "$CUZK" prove --params "$T/k.params" --r1cs "$D/$CIRCUIT.r1cs" "$D/$CIRCUIT.wtns" "$T/p.bin" "$T/pub.json" --backend cpu
[[ -f $T/p.bin ]] || { not_ok "$CIRCUIT: no proof written"; finish; }
if [[ $(stat -c %s "$T/p.bin") -eq 192 ]]; then ok "$CIRCUIT: proof is 192 bytes"; else not_ok "$CIRCUIT: proof is $(stat -c %s "$T/p.bin") bytes"; fi
if [[ $(tr -d ' \n' <"$T/pub.json") == "$(tr -d ' \n' <"$D/public.json")" ]]; then ok "$CIRCUIT: public inputs equal snarkjs's"; else not_ok "$CIRCUIT: public inputs differ from snarkjs's"; fi
expect_exit 0 "$CIRCUIT: cuzk verify --vk accepts it" "$CUZK" verify --vk "$T/k.vk" --public "$T/pub.json" --proof "$T/p.bin"
if $NOBLE "$T/k.vk" "$T/pub.json" "$T/p.bin" >/dev/null 2>&1; then ok "$CIRCUIT: @noble/curves accepts it"; else not_ok "$CIRCUIT: @noble/curves rejects cuzk's bellperson proof"; fi

# Tampering: a flipped bit in each of A, B, C; another key's vk; a changed input.
for at in 10 100 170; do
  python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$T/p.bin" "$T/flip.bin" $at
  expect_reject "$CIRCUIT: bit flipped at byte $at" "$CUZK" verify --vk "$T/k.vk" --public "$T/pub.json" --proof "$T/flip.bin"
  rc=0; $NOBLE "$T/k.vk" "$T/pub.json" "$T/flip.bin" >/dev/null 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then ok "$CIRCUIT: noble rejects the flip at $at"; else not_ok "$CIRCUIT: noble accepts a flipped bit at $at"; fi
done
expect_exit 0 "$CIRCUIT: setup with seed 8" "$CUZK" setup "$D/$CIRCUIT.r1cs" "$T/k8.params" --seed 8 --format bellperson
expect_exit 1 "$CIRCUIT: another key's vk rejects the proof" "$CUZK" verify --vk "$T/k8.vk" --public "$T/pub.json" --proof "$T/p.bin"
if [[ $(tr -d ' \n' <"$T/pub.json") != "[]" ]]; then
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); v[0]=str(int(v[0])+1); json.dump(v,open(sys.argv[2],'w'))" "$T/pub.json" "$T/pub_bad.json"
  expect_exit 1 "$CIRCUIT: a changed public input is rejected" "$CUZK" verify --vk "$T/k.vk" --public "$T/pub_bad.json" --proof "$T/p.bin"
  # Two partitions in one batch; then the second one's inputs wrong: named.
  expect_exit 0 "$CIRCUIT: second proof" "$CUZK" prove --params "$T/k.params" --r1cs "$D/$CIRCUIT.r1cs" "$D/$CIRCUIT.wtns" "$T/p2.bin" --backend cpu
  cat "$T/p.bin" "$T/p2.bin" >"$T/two.bin"
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); json.dump([v,v],open(sys.argv[2],'w'))" "$T/pub.json" "$T/pub2.json"
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); w=json.load(open(sys.argv[2])); json.dump([v,w],open(sys.argv[3],'w'))" "$T/pub.json" "$T/pub_bad.json" "$T/pub2_bad.json"
  expect_exit 0 "$CIRCUIT: two partitions verify in one batch" "$CUZK" verify --vk "$T/k.vk" --public "$T/pub2.json" --proof "$T/two.bin"
  if $NOBLE "$T/k.vk" "$T/pub2.json" "$T/two.bin" >/dev/null 2>&1; then ok "$CIRCUIT: noble accepts both partitions"; else not_ok "$CIRCUIT: noble rejects the two partitions"; fi
  out=$("$CUZK" verify --vk "$T/k.vk" --public "$T/pub2_bad.json" --proof "$T/two.bin" 2>/dev/null || true)
  if [[ $out == "INVALID: partition 1 of 2 does not verify" ]]; then ok "$CIRCUIT: the bad partition is named"; else not_ok "$CIRCUIT: bad partition report: '$out'"; fi
fi

# Unusable input: exit 2, one line.
head -c 191 "$T/p.bin" >"$T/p191.bin"
expect_exit 2 "$CIRCUIT: a proof of 191 bytes" "$CUZK" verify --vk "$T/k.vk" --public "$T/pub.json" --proof "$T/p191.bin"
size=$(stat -c %s "$T/k.params")
head -c $((size - 1)) "$T/k.params" >"$T/trunc.params"
expect_exit 2 "$CIRCUIT: truncated params (info)" "$CUZK" params info "$T/trunc.params"
expect_exit 2 "$CIRCUIT: truncated params (prove)" "$CUZK" prove --params "$T/trunc.params" --r1cs "$D/$CIRCUIT.r1cs" "$D/$CIRCUIT.wtns" "$T/x.bin"
vks=$(stat -c %s "$T/k.vk")
# h's count (the first u32 after the vk) set to 2^31: larger than the file.
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); o=int(sys.argv[3]); b[o:o+4]=(2**31).to_bytes(4,'big'); open(sys.argv[2],'wb').write(b)" "$T/k.params" "$T/count.params" "$vks"
expect_exit 2 "$CIRCUIT: a section count larger than the file" "$CUZK" params info "$T/count.params"
# The last point of b_g1 (just before b_g2's count) moved off the curve.
python3 - "$T/k.params" "$T/offcurve.params" "$vks" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); at = int(sys.argv[3])
for size in (96, 96, 96, 96):  # h, l, a, b_g1
    n = int.from_bytes(b[at:at+4], 'big'); last = at + 4 + (n - 1) * size; at += 4 + n * size
b[last + 95] ^= 1
open(sys.argv[2], 'wb').write(b)
PY
expect_exit 2 "$CIRCUIT: a point off the curve at the end of section b_g1 (info --points)" "$CUZK" params info --points --no-digest "$T/offcurve.params"
expect_exit 2 "$CIRCUIT: a point off the curve at the end of section b_g1 (prove)" "$CUZK" prove --params "$T/offcurve.params" --r1cs "$D/$CIRCUIT.r1cs" "$D/$CIRCUIT.wtns" "$T/x.bin"
# The vk's last IC point replaced by the point at infinity.
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[-96:]=bytes([0x40])+bytes(95); open(sys.argv[2],'wb').write(b)" "$T/k.vk" "$T/inf.vk"
expect_exit 2 "$CIRCUIT: a vk IC point at infinity" "$CUZK" verify --vk "$T/inf.vk" --public "$T/pub.json" --proof "$T/p.bin"
# A witness that misses a constraint (sample: its last wire changed): its proof fails verification,
# then the constraint is named (exit 2, one line), and nothing is written.
if [[ $CIRCUIT == sample ]]; then
  cp "$D/$CIRCUIT.wtns" "$T/unsat.wtns"
  printf '\x05' | dd of="$T/unsat.wtns" bs=1 seek=$(($(stat -c %s "$D/$CIRCUIT.wtns") - 32)) conv=notrunc status=none
  expect_exit 2 "$CIRCUIT: prove --params with a witness that does not satisfy the circuit" "$CUZK" prove --params "$T/k.params" --r1cs "$D/$CIRCUIT.r1cs" "$T/unsat.wtns" "$T/unsat.bin" --backend cpu
  if [[ ! -e $T/unsat.bin ]]; then ok "$CIRCUIT: no proof written for it"; else not_ok "$CIRCUIT: a proof was written for an unsatisfied witness"; fi
fi
[[ $CIRCUIT != sample ]] && expect_exit 2 "$CIRCUIT: params of another circuit" "$CUZK" prove --params "$T/k.params" --r1cs "$SRC/tests/fixtures/sample/sample.r1cs" "$SRC/tests/fixtures/sample/sample.wtns" "$T/x.bin"
finish
