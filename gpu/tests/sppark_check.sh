#!/usr/bin/env bash
# CI test of cuzk_sppark_check without sppark: a reference folder at 2^8 (results from discrete
# logs and the NTT's definition, not from cuzk) must check ok on the CPU backend; a flipped byte in
# a result must be a MISMATCH (exit 1) in that row only; a truncated input is unusable (exit 2,
# the file named); an inverse NTT scaled by n or taken with the forward roots is a MISMATCH whose
# note line names which.
set -u
bin=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; cat "$d/out" 2>/dev/null; exit 1; }
flip() { python3 -c "import sys; p, i = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); b[i] ^= 1; open(p, 'wb').write(b)" "$1" "$2"; }

"$bin" --write-reference "$d/ok" 8 || fail "--write-reference"
"$bin" "$d/ok" --backend cpu >"$d/out" 2>&1 || fail "the reference does not check (rc $?)"
[[ $(grep -c '| ok |$' "$d/out") == 4 ]] || fail "expected 4 ok rows"

cp -r "$d/ok" "$d/g2"
flip "$d/g2/msm_g2.sppark" 7
"$bin" "$d/g2" --backend cpu >"$d/out" 2>&1
[[ $? == 1 ]] || fail "a flipped G2 result byte: expected exit 1"
grep -q '^| msm_g2 | 2^8 | cuzk cpu | MISMATCH |$' "$d/out" || fail "no G2 MISMATCH row"
[[ $(grep -c '| ok |$' "$d/out") == 3 ]] || fail "the other rows should stay ok"

cp -r "$d/ok" "$d/ntt"
flip "$d/ntt/ntt.inv.sppark" $((32 * 200 + 3))
"$bin" "$d/ntt" --backend cpu >"$d/out" 2>&1
[[ $? == 1 ]] || fail "a flipped iNTT element: expected exit 1"
grep -q '^| ntt inverse natural | 2^8 | cuzk cpu (roots of 7) | MISMATCH |$' "$d/out" || fail "no iNTT MISMATCH row"

# An inverse left unscaled (n times the definition's), and one with the forward roots (index -i): each
# is a MISMATCH whose note names what it is.
rescale() {  # rescale FILE MODE: n x each element (Montgomery form is linear), or element -i at i
  python3 - "$@" <<'EOF'
import sys
p, mode = sys.argv[1], sys.argv[2]
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
b = open(p, 'rb').read()
v = [int.from_bytes(b[i:i + 32], 'little') for i in range(0, len(b), 32)]
n = len(v)
v = [x * n % r for x in v] if mode == 'n' else [v[(n - i) % n] for i in range(n)]
open(p, 'wb').write(b''.join(x.to_bytes(32, 'little') for x in v))
EOF
}
for mode in n neg; do
  cp -r "$d/ok" "$d/inv-$mode"
  rescale "$d/inv-$mode/ntt.inv.sppark" $mode
  "$bin" "$d/inv-$mode" --backend cpu >"$d/out" 2>&1
  [[ $? == 1 ]] || fail "iNTT ($mode): expected exit 1"
  want=$([[ $mode == n ]] && echo "leaves out the 1/n" || echo "takes the forward roots")
  grep -q "^note: ntt inverse natural 2^8: sppark's is .*$want" "$d/out" || fail "iNTT ($mode): no note saying '$want'"
done

cp -r "$d/ok" "$d/short"
head -c 1000 "$d/ok/msm_g1.scalars" >"$d/short/msm_g1.scalars"
"$bin" "$d/short" --backend cpu >"$d/out" 2>&1
[[ $? == 2 ]] || fail "a truncated scalars file: expected exit 2"
grep -q "msm_g1.scalars" "$d/out" || fail "the error does not name the file"
echo "sppark_check: reference ok, corrupted result and truncated input caught"
