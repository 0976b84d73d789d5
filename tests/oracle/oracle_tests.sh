#!/usr/bin/env bash
# tests/oracle/oracle_tests.sh CASE BUILD_DIR FIXTURES: one ctest case (label "oracle") of
# fil-oracle against the fixtures fixtures.sh made. Exit 77 (skip) when fil-oracle was not built.
# Cases: seal_c2_verify flipped_bit r1cs_porep_2kib r1cs_test_shapes post public_inputs graph bad_input
set -euo pipefail
CASE=${1:?case}
BUILD=${2:?build dir}
FIX=${3:?fixtures dir}
ORACLE=$BUILD/bin/fil-oracle
if [[ ! -x $ORACLE ]]; then
  echo "oracle.$CASE: SKIPPED: $ORACLE not built (needs cargo)"
  exit 77
fi
PARAMS=$FIX/params
MINER=1000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oracle-$CASE.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

# expect_exit CODE DESCRIPTION CMD...: runs CMD, checks its exit status
expect_exit() {
  local want=$1 what=$2 rc=0
  shift 2
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  if ((rc == want)); then ok "$what (exit $rc)"; else fail "$what: exit $rc, expected $want; stderr: $(head -c 400 "$WORK/err")"; fi
}

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

flip_bit() {  # flip_bit IN OUT BYTE BIT
  python3 - "$@" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[int(sys.argv[3])] ^= 1 << int(sys.argv[4])
open(sys.argv[2], 'wb').write(b)
EOF
}

case $CASE in
seal_c2_verify)
  for n in 1 2; do
    d=$FIX/sector-$n
    expect_exit 0 "verify-seal accepts the oracle's C2 proof of sector $n" \
      "$ORACLE" verify-seal --c1 "$d/c1.json" --miner-id $MINER --proof "$d/proof.bin" --cache "$PARAMS"
    expect_exit 1 "verify-seal rejects sector $n's proof for another miner" \
      "$ORACLE" verify-seal --c1 "$d/c1.json" --miner-id 1001 --proof "$d/proof.bin" --cache "$PARAMS"
  done
  expect_exit 1 "sector 1's proof does not verify against sector 2's C1" \
    "$ORACLE" verify-seal --c1 "$FIX/sector-2/c1.json" --miner-id $MINER --proof "$FIX/sector-1/proof.bin" --cache "$PARAMS"
  # A fresh seal from the same seed reproduces the same commitments (sealing is deterministic), so
  # the fixture's proof verifies against the fresh C1 too. (C2 itself ran in the fixture, which
  # fails if seal_commit_phase2 or verify-seal fails.)
  "$ORACLE" seal --sector-size 2KiB --seed "$(json "$FIX/manifest.json" 'd["seed"]')" --miner-id $MINER --sector-id 1 --out "$WORK/s" >/dev/null
  for k in comm_r comm_d replica_id ticket; do
    a=$(json "$WORK/s/sector.json" "d['$k']"); b=$(json "$FIX/sector-1/sector.json" "d['$k']")
    [[ $a == "$b" ]] && ok "re-seal reproduces $k" || fail "re-seal $k $a != $b"
  done
  [[ $(stat -c %s "$FIX/sector-1/proof.bin") == 192 ]] && ok "2 KiB proof is 192 bytes" || fail "proof size"
  expect_exit 0 "the fixture proof verifies against the fresh C1" \
    "$ORACLE" verify-seal --c1 "$WORK/s/c1.json" --miner-id $MINER --proof "$FIX/sector-1/proof.bin" --cache "$PARAMS"
  ;;
flipped_bit)
  P=$FIX/sector-1/proof.bin
  # bytes: A 0..47, B 48..143, C 144..191; bit 7 of the first byte of each point is the
  # compression flag, the others are coordinate bits.
  for spot in "0 7" "20 3" "47 0" "48 5" "100 1" "143 6" "144 7" "170 2" "191 0"; do
    read -r byte bit <<<"$spot"
    flip_bit "$P" "$WORK/bad.bin" "$byte" "$bit"
    expect_exit 1 "proof with byte $byte bit $bit flipped is rejected" \
      "$ORACLE" verify-seal --c1 "$FIX/sector-1/c1.json" --miner-id $MINER --proof "$WORK/bad.bin" --cache "$PARAMS"
  done
  for kind in window winning; do
    flip_bit "$FIX/$kind/proof.bin" "$WORK/badpost.bin" 30 1
    expect_exit 1 "$kind PoSt proof with a flipped bit is rejected" \
      "$ORACLE" verify-post --post "$FIX/$kind/post.json" --proof "$WORK/badpost.bin" --cache "$PARAMS"
  done
  ;;
r1cs_porep_2kib)
  # The partition circuit of a real C1: every constraint holds for the witness; its counts equal
  # the blank circuit's (what parameter generation used) and the .params file's query sizes; the
  # constraint bytes equal the blank circuit's byte for byte; the dumped public inputs equal the
  # verifier's (public-inputs); --digest equals sha256 of the file.
  "$ORACLE" r1cs --c1 "$FIX/sector-1/c1.json" --partition 0 --out "$WORK/w.r1cs" >"$WORK/w.json"
  "$ORACLE" r1cs --shape porep --sector-size 2KiB --out "$WORK/b.r1cs" >"$WORK/b.json"
  [[ $(json "$WORK/w.json" 'd["satisfied"]') == True ]] && ok "witness satisfies all constraints" || fail "unsatisfied: $(cat "$WORK/w.json")"
  for k in num_inputs num_aux num_constraints; do
    a=$(json "$WORK/w.json" "d['$k']"); b=$(json "$WORK/b.json" "d['$k']")
    [[ $a == "$b" ]] && ok "$k $a equals the blank circuit's" || fail "$k $a != blank $b"
  done
  python3 - "$WORK/w.r1cs" "$WORK/b.r1cs" "$WORK/w.json" "$FIX/sector-1/public-inputs.json" "$PARAMS" <<'EOF' || FAILS=$((FAILS + 1))
import glob, hashlib, json, struct, sys
w, b, wj, pj, params = sys.argv[1:6]
s = json.load(open(wj))
ni, na, nc = s["num_inputs"], s["num_aux"], s["num_constraints"]
import os
fw, fb = open(w, "rb"), open(b, "rb")
hw, hb = fw.read(40), fb.read(40)
assert hw[:8] == b"CUZKR1CS" and hb[:8] == b"CUZKR1CS", "magic"
assert struct.unpack_from("<IIQQQ", hw, 8) == (1, 1, ni, na, nc), "witness header"
assert struct.unpack_from("<IIQQQ", hb, 8) == (1, 0, ni, na, nc), "blank header"
wit = 32 * (ni + na)
lw, lb = os.path.getsize(w), os.path.getsize(b)
assert lw == lb + wit, "sizes: %d vs %d + %d" % (lw, lb, wit)
left = lb - 40
while left:
    n = min(left, 1 << 24)
    assert fw.read(n) == fb.read(n), "constraint sections differ near byte %d" % (lb - left)
    left -= n
print("ok: constraint bytes equal the blank circuit's (%d bytes)" % (lb - 40))
inputs = fw.read(32 * ni)
vals = [int.from_bytes(inputs[32 * i:32 * i + 32], "little") for i in range(ni)]
assert vals[0] == 1, "input 0 is ONE"
pub = [int(h, 16) for h in json.load(open(pj))["public_inputs"][0]["inputs"]]
assert vals[1:] == pub, "circuit inputs differ from the verifier's public inputs"
print("ok: the circuit's %d inputs equal public-inputs (ONE + %d)" % (ni, len(pub)))
# the .params file: vk (864 B + u32 ic + ic x 96), then h, l, a, b_g1 (G1, 96 B), b_g2 (G2, 192 B)
p = [f for f in glob.glob(params + "/v28-stacked-proof-of-replication-*8-0-0-sha256*.params")]
assert len(p) == 1, p
with open(p[0], "rb") as f:
    f.seek(864); ic = struct.unpack(">I", f.read(4))[0]; f.seek(ic * 96, 1)
    h = struct.unpack(">I", f.read(4))[0]; f.seek(h * 96, 1)
    l = struct.unpack(">I", f.read(4))[0]
assert ic == ni, "vk ic %d != inputs %d" % (ic, ni)
assert l == na, "params l %d != aux %d" % (l, na)
n = 1
while n < nc + ni:
    n *= 2
assert h == n - 1, "params h %d != 2^k-1 for %d constraints + %d inputs" % (h, nc, ni)
print("ok: params ic=%d, l=%d, h=%d agree with the dump" % (ic, l, h))
EOF
  d=$("$ORACLE" r1cs --c1 "$FIX/sector-1/c1.json" --partition 0 --digest | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])')
  [[ $d == "$(sha256sum "$WORK/w.r1cs" | cut -d' ' -f1)" ]] && ok "--digest equals sha256 of the dump" || fail "--digest $d differs from the file's sha256"
  ;;
r1cs_test_shapes)
  # Constraint and input counts the crates' own tests assert for these shapes (storage-proofs 19:
  # porep tests/stacked_circuit.rs, post tests/fallback_circuit.rs).
  for spec in "porep-test-2 22 1206212" "porep-test-8 22 1199620" "porep-test-8-4 22 1296576" \
              "porep-test-8-4-2 22 1346982" "post-test-8 19 16869" "post-test-8-4 19 22674" "post-test-8-4-2 19 27384"; do
    read -r shape ni nc <<<"$spec"
    "$ORACLE" r1cs --shape "$shape" --digest >"$WORK/s.json"
    got="$(json "$WORK/s.json" 'd["num_inputs"]') $(json "$WORK/s.json" 'd["num_constraints"]')"
    [[ $got == "$ni $nc" ]] && ok "$shape: $ni inputs, $nc constraints" || fail "$shape: got $got, expected $ni $nc"
  done
  ;;
post)
  for kind in window winning; do
    d=$FIX/$kind
    expect_exit 0 "$kind PoSt reference proof verifies" "$ORACLE" verify-post --post "$d/post.json" --proof "$d/proof.bin" --cache "$PARAMS"
    "$ORACLE" r1cs --post "$d/post.json" --partition 0 --digest >"$WORK/p.json"
    "$ORACLE" r1cs --shape $kind-post --sector-size 2KiB --digest >"$WORK/b.json"
    [[ $(json "$WORK/p.json" 'd["satisfied"]') == True ]] && ok "$kind circuit satisfied by the vanilla proofs" || fail "$kind unsatisfied"
    a=$(json "$WORK/p.json" '(d["num_inputs"], d["num_constraints"])'); b=$(json "$WORK/b.json" '(d["num_inputs"], d["num_constraints"])')
    [[ $a == "$b" ]] && ok "$kind counts $a equal the blank circuit's" || fail "$kind counts $a != $b"
    ni=$(json "$d/public-inputs.json" 'len(d["public_inputs"][0]["inputs"]) + 1')
    [[ $ni == "$(json "$WORK/p.json" 'd["num_inputs"]')" ]] && ok "$kind: $ni inputs = public-inputs + ONE" || fail "$kind input count"
    n=$(json "$d/post.json" 'len(d["sectors"])')
    for ((i = 0; i < n; i++)); do
      v=$d/$(json "$d/post.json" "d['sectors'][$i]['vanilla']")
      [[ -s $v ]] && ok "vanilla proof $i present ($(stat -c %s "$v") bytes)" || fail "vanilla $v missing"
    done
  done
  [[ $(json "$FIX/window/post.json" 'len(d["sectors"])') == 2 ]] && ok "window PoSt proves both sectors" || fail "window sectors"
  [[ $(json "$FIX/winning/post.json" 'len(d["sectors"])') == 1 ]] && ok "winning PoSt proves one sector" || fail "winning sectors"
  ;;
public_inputs)
  a=$("$ORACLE" public-inputs --c1 "$FIX/sector-1/c1.json" --miner-id $MINER --partition 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["public_inputs"][0]["inputs"])')
  b=$(json "$FIX/sector-1/public-inputs.json" 'd["public_inputs"][0]["inputs"]')
  [[ $a == "$b" ]] && ok "public-inputs is reproducible" || fail "public-inputs differ between runs"
  # inputs: replica_id, comm_d, comm_r, then per challenge the challenge index (< nodes) etc.
  python3 - "$FIX/sector-1/public-inputs.json" "$FIX/sector-1/sector.json" <<'EOF' || FAILS=$((FAILS + 1))
import json, sys
pi = [int(h, 16) for h in json.load(open(sys.argv[1]))["public_inputs"][0]["inputs"]]
s = json.load(open(sys.argv[2]))
le = lambda h: int.from_bytes(bytes.fromhex(h), "little")
assert pi[0] == le(s["replica_id"]), "input 1 is replica_id"
assert pi[1] == le(s["comm_d"]), "input 2 is comm_d"
assert pi[2] == le(s["comm_r"]), "input 3 is comm_r"
print("ok: inputs 1-3 are replica_id, comm_d, comm_r (%d inputs)" % len(pi))
EOF
  expect_exit 2 "public-inputs --partition out of range" "$ORACLE" public-inputs --c1 "$FIX/sector-1/c1.json" --miner-id $MINER --partition 5
  ;;
graph)
  "$ORACLE" graph --sector-size 2KiB >"$WORK/g.json"
  "$ORACLE" graph --sector-size 2KiB --nodes 10..20 >"$WORK/g2.json"
  "$ORACLE" graph --sector-size 2KiB --porep-id 0600000000000000000000000000000000000000000000000000000000000000 >"$WORK/g3.json"
  python3 - "$WORK/g.json" "$WORK/g2.json" "$WORK/g3.json" <<'EOF' || FAILS=$((FAILS + 1))
import json, sys
g, g2, g3 = (json.load(open(p)) for p in sys.argv[1:4])
P = g["parents"]
assert len(P) == 64 and all(len(p) == 14 for p in P), "64 nodes x 14 parents"
assert g2["first"] == 10 and g2["parents"] == P[10:20], "--nodes 10..20 is the same slice"
assert all(0 <= x < 64 for p in P for x in p), "parents in range"
assert all(all(x < n for x in p[:6]) for n, p in enumerate(P) if n > 0), "DRG parents precede the node"
assert g3["parents"] != P, "another porep id gives another graph"
print("ok: graph shape, slicing, ranges, porep-id dependence")
EOF
  ;;
bad_input)
  expect_exit 2 "unknown command" "$ORACLE" frobnicate
  expect_exit 2 "missing --c1 file" "$ORACLE" c2 --c1 "$WORK/none.json" --miner-id 1 --cache "$PARAMS" --out "$WORK/p"
  echo '{"SectorNum": 1, "Phase1Out": "not base64!", "SectorSize": 2048}' >"$WORK/bad.json"
  expect_exit 2 "Phase1Out not base64" "$ORACLE" verify-seal --c1 "$WORK/bad.json" --miner-id 1 --proof "$FIX/sector-1/proof.bin" --cache "$PARAMS"
  grep -q "Phase1Out" "$WORK/err" && ok "the error names Phase1Out" || fail "error does not name the field: $(cat "$WORK/err")"
  echo '{"SectorNum": 1}' >"$WORK/bad2.json"
  expect_exit 2 "C1 wrapper missing fields" "$ORACLE" verify-seal --c1 "$WORK/bad2.json" --miner-id 1 --proof "$FIX/sector-1/proof.bin" --cache "$PARAMS"
  head -c 100 "$FIX/sector-1/proof.bin" >"$WORK/short.bin"
  expect_exit 2 "truncated proof" "$ORACLE" verify-seal --c1 "$FIX/sector-1/c1.json" --miner-id $MINER --proof "$WORK/short.bin" --cache "$PARAMS"
  expect_exit 2 "missing params" "$ORACLE" verify-seal --c1 "$FIX/sector-1/c1.json" --miner-id $MINER --proof "$FIX/sector-1/proof.bin" --cache "$WORK/empty"
  expect_exit 2 "bad --sector-size" "$ORACLE" seal --sector-size 3KiB --seed 1 --miner-id 1 --sector-id 1 --out "$WORK/x"
  expect_exit 2 "unknown option" "$ORACLE" graph --sector-size 2KiB --bogus 1
  expect_exit 2 "bad --nodes" "$ORACLE" graph --sector-size 2KiB --nodes 5..900
  [[ $(wc -l <"$WORK/err") == 1 ]] && ok "errors are one line" || fail "multi-line error: $(cat "$WORK/err")"
  ;;
*)
  echo "unknown case $CASE"
  exit 2
  ;;
esac

if ((FAILS > 0)); then
  echo "oracle.$CASE: $FAILS FAILED"
  exit 1
fi
echo "oracle.$CASE: passed"
