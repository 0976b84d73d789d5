#!/usr/bin/env bash
# `cuzk doctor` on a temporary parameter cache (ctest fil.doctor): two PoSt parameter files made by
# `cuzk setup --format bellperson` under their parameters.json names, a parameters.json with their
# digests. Both good: exit 0, each digest and proof kind reported ok. One corrupted: exit 1, its
# digest line and its proof kind FAIL with a fix, the other still ok; --json says the same. Each
# key's placement on an assumed card (--assume-vram), resident or not fitting. A daemon
# port held by another program, a missing cache and a broken config are failures too.
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
T=$(mktemp -d)
holder=
trap '[[ -n $holder ]] && kill $holder 2>/dev/null; rm -rf "$T"' EXIT
P="$T/params"
mkdir -p "$P"
W=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0
O=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9
quiet "$CUZK" setup "$SRC/tests/fixtures/sample/sample.r1cs" "$T/k.params" --format bellperson --seed 7
cp "$T/k.params" "$P/$W.params"
cp "$T/k.params" "$P/$O.params"
D=$("$CUZK" params info "$T/k.params" | sed -n 's/^digest: //p')
[[ ${#D} -eq 32 ]] || { echo "FAIL - no digest from cuzk params info"; exit 1; }
printf '{"%s.params": {"digest": "%s"}, "%s.params": {"digest": "%s"}}\n' "$W" "$D" "$O" "$D" >"$P/parameters.json"
cat >"$T/cuzk.toml" <<EOF
[daemon]
listen = "unix://$T/cuzk.sock"
status_listen = ""
[filecoin]
param_cache = "$P"
EOF
doc() { "$CUZK" doctor --config "$T/cuzk.toml" "$@"; }

# has_line FILE REGEX DESCRIPTION
has_line() {
  if grep -Eq "$2" "$1"; then ok "$3"; else not_ok "$3: no line matching /$2/ in: $(tr '\n' '|' <"$1" | head -c 600)"; fi
}

rc=0
doc >"$T/good.txt" 2>/dev/null || rc=$?
[[ $rc -eq 0 ]] && ok "doctor: good parameter cache (exit 0)" || not_ok "doctor: good parameter cache: exit $rc: $(tr '\n' '|' <"$T/good.txt")"
has_line "$T/good.txt" "^ok +params +$W\.params: digest $D as parameters.json" "doctor: the first file's digest ok"
has_line "$T/good.txt" "^ok +params +$O\.params: digest $D as parameters.json" "doctor: the second file's digest ok"
has_line "$T/good.txt" "^ok +proof +WindowPoSt .*: can be proved" "doctor: WindowPoSt can be proved"
has_line "$T/good.txt" "^ok +daemon +$T/cuzk.sock free" "doctor: the daemon's socket is free"
has_line "$T/good.txt" "^ok +host +.* host budget " "doctor: host memory and budget"
has_line "$T/good.txt" "^(ok|warn) +gpu " "doctor: a GPU line"
has_line "$T/good.txt" "^ok +evaluator +$P writable" "doctor: the evaluator cache is writable"
if grep -q "^FAIL" "$T/good.txt"; then not_ok "doctor: a FAIL line with a good cache"; else ok "doctor: no FAIL line with a good cache"; fi

# Placement on a card it does not have (--assume-vram: the planner is pure): 24 GiB holds the key's
# points whole, their bytes from the .params headers; a card of only the VRAM safety margin (512 MiB)
# holds not even the stream buffers: FAIL, the kind cannot be proved, exit 1.
info=$("$CUZK" params info "$T/k.params")
field() { sed -n "s/^$1: \([0-9]*\).*/\1/p" <<<"$info"; }
h=$(sed -n 's/^domain: .*(h: \([0-9]*\) points)/\1/p' <<<"$info")
points=$((96 * ($(field a) + $(field b) + $(field aux) + h) + 192 * $(field b)))
rc=0
doc --assume-vram 24GiB >"$T/card.txt" 2>/dev/null || rc=$?
[[ $rc -eq 0 ]] && ok "doctor --assume-vram 24GiB: exit 0" || not_ok "doctor --assume-vram 24GiB: exit $rc: $(tr '\n' '|' <"$T/card.txt")"
has_line "$T/card.txt" "^ok +placement +WindowPoSt .* on a card of 24GiB \(--assume-vram\): resident \($points bytes of points, [0-9]+ bytes of room\)$" \
  "doctor: each key resident on an assumed 24 GiB card, its $points bytes of points"
rc=0
doc --assume-vram 512MiB >"$T/small.txt" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] && ok "doctor --assume-vram 512MiB: exit 1" || not_ok "doctor --assume-vram 512MiB: exit $rc, expected 1"
has_line "$T/small.txt" "^FAIL +placement +WindowPoSt .* on a card of 512MiB \(--assume-vram\): does not fit: .*; fix: " \
  "doctor: a card of only the safety margin: the key does not fit, with a fix"
has_line "$T/small.txt" "^FAIL +proof +WindowPoSt .*: cannot be proved: its key does not fit a card of 512MiB" \
  "doctor: its proof kind cannot be proved there"
expect_exit 2 "doctor --assume-vram lots: not a size" "$CUZK" doctor --config "$T/cuzk.toml" --assume-vram lots

# One byte changed in the middle of the second file: its digest no longer matches.
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$P/$O.params"
rc=0
doc >"$T/bad.txt" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] && ok "doctor: corrupted file (exit 1)" || not_ok "doctor: corrupted file: exit $rc, expected 1"
has_line "$T/bad.txt" "^FAIL +params +$O\.params: digest [0-9a-f]{32} differs from parameters.json's $D; fix: " "doctor: the corrupted file's digest FAIL, with a fix"
has_line "$T/bad.txt" "^ok +params +$W\.params: digest $D as parameters.json" "doctor: the good file still ok"
has_line "$T/bad.txt" "^FAIL +proof +.*: cannot be proved: digest differs from parameters.json" "doctor: its proof kind cannot be proved"
doc --json >"$T/bad.json" 2>/dev/null || true
if python3 - "$T/bad.json" "$W.params" "$O.params" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
kinds = {k["params"]: k["provable"] for k in j["proof_kinds"]}
assert j["ok"] is False, j["ok"]
assert kinds == {sys.argv[2]: True, sys.argv[3]: False}, kinds
bad = [c for c in j["checks"] if c["status"] == "fail" and c["check"] == "params"]
assert len(bad) == 1 and sys.argv[3] in bad[0]["detail"] and bad[0]["fix"], bad
assert all(c["status"] in ("ok", "warn", "fail") for c in j["checks"])
PY
then ok "doctor --json: ok false, the corrupted file's kind not provable, the other provable"
else not_ok "doctor --json: $(head -c 600 "$T/bad.json")"
fi
"$CUZK" doctor --config "$T/cuzk.toml" --no-digest >/dev/null 2>&1 && ok "doctor --no-digest: exit 0 (digests skipped)" ||
  not_ok "doctor --no-digest: exit $?"

# A daemon port held by another program.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c "import socket, time; s=socket.socket(); s.bind(('127.0.0.1', $port)); s.listen(); open('$T/held', 'w').close(); time.sleep(120)" &
holder=$!
for _ in $(seq 100); do [[ -e $T/held ]] && break; sleep 0.1; done
rm "$P/$O.params"
sed -i "s|^listen = .*|listen = \"127.0.0.1:$port\"|" "$T/cuzk.toml"
rc=0
doc >"$T/port.txt" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] && ok "doctor: daemon port held by another program (exit 1)" || not_ok "doctor: port held: exit $rc, expected 1"
has_line "$T/port.txt" "^FAIL +daemon +127.0.0.1:$port cannot be bound: .*; fix: " "doctor: the port's FAIL line names it, with a fix"
kill $holder 2>/dev/null; wait $holder 2>/dev/null || true
holder=
rc=0
doc >"$T/freed.txt" 2>/dev/null || rc=$?
[[ $rc -eq 0 ]] && ok "doctor: port free again, corrupted file removed (exit 0)" || not_ok "doctor: exit $rc: $(tr '\n' '|' <"$T/freed.txt")"

# An evaluator cache others may write to: the key store would refuse it (fil::check_evaluator_dir).
mkdir -m 777 "$T/open"
chmod 777 "$T/open"
printf '[filecoin]\nparam_cache = "%s"\nevaluator_dir = "%s"\n[daemon]\nlisten = "unix://%s/cuzk.sock"\nstatus_listen = ""\n' "$P" "$T/open" "$T" >"$T/open.toml"
"$CUZK" doctor --config "$T/open.toml" >"$T/open.txt" 2>/dev/null || true
has_line "$T/open.txt" "^warn +evaluator +evaluator cache $T/open has mode 777: refused" "doctor: a world-writable evaluator cache is reported"

expect_exit 1 "doctor: no such parameter directory" "$CUZK" doctor --config "$T/cuzk.toml" --param-cache "$T/none"
printf '[daemon]\nlisten = 7\n' >"$T/broken.toml"
expect_exit 2 "doctor: a broken config" "$CUZK" doctor --config "$T/broken.toml"
finish
