#!/usr/bin/env bash
# cuzk fil verify-post / verify-seal / inspect-c1 from the command line (ctest fil.cli):
#  - polka-storage's 2 KiB WindowPoSt proof (real circuit) verifies, with the key given or found in a
#    parameter directory by its parameters.json name; a flipped bit in A, B or C, other randomness or
#    another sector is rejected;
#  - synthetic 2 KiB C1 outputs: inspect-c1 accepts the right miner and rejects another; verify-seal
#    rejects a wrong miner id, a changed seed and another sector's proof;
#  - unusable inputs exit 2 with one line; fil submit's refusals (exit 2) and no daemon (exit 5).
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
F="$SRC/tests/fixtures/filecoin/polka-storage"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
R=0101010101010101010101010101010101010101010101010101010101010101
echo '[{"sector_number": 77, "comm_r": "4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950"}]' >"$T/sectors.json"
echo '[{"sector_number": 78, "comm_r": "4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950"}]' >"$T/other.json"
post() { "$CUZK" fil verify-post --proof-type StackedDrgWindow2KiBV1_2 --vk-format compressed "$@"; }
VK=(--vk "$F/window-post-2k.vk.compressed")

expect_exit 0 "verify-post: polka-storage WindowPoSt" post --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
mkdir -p "$T/params"
cp "$F/window-post-2k.vk.compressed" "$T/params/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk"
expect_exit 0 "verify-post: the key found in --params-dir" post --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" --params-dir "$T/params"
expect_exit 1 "verify-post: other randomness" post --randomness 02${R:2} --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
expect_exit 1 "verify-post: another sector" post --randomness $R --sectors "$T/other.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
for at in 20 100 170; do  # inside A, B, C (x coordinates, past the flag bits)
  python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[$at]^=1; open(sys.argv[2],'wb').write(b)" "$F/window-post-2k.proof" "$T/flip.proof"
  expect_reject "verify-post: bit flipped at byte $at" post --randomness $R --sectors "$T/sectors.json" --proof "$T/flip.proof" "${VK[@]}"
done
head -c 191 "$F/window-post-2k.proof" >"$T/short.proof"
expect_exit 2 "verify-post: 191-byte proof" post --randomness $R --sectors "$T/sectors.json" --proof "$T/short.proof" "${VK[@]}"
cat "$F/window-post-2k.proof" "$F/window-post-2k.proof" >"$T/two.proof"
expect_exit 2 "verify-post: two partitions for one" post --randomness $R --sectors "$T/sectors.json" --proof "$T/two.proof" "${VK[@]}"
expect_exit 2 "verify-post: randomness not a field element" post --randomness ${R:0:62}ff --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
expect_exit 2 "verify-post: randomness not hex" post --randomness xyz --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
expect_exit 2 "verify-post: no key in --params-dir" post --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" --params-dir "$T"
expect_exit 2 "verify-post: the PoRep key (another circuit)" post --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" --vk "$F/porep-2k.vk.compressed"
echo '[{"sector_number": 77}]' >"$T/bad.json"
expect_exit 2 "verify-post: sector without comm_r" post --randomness $R --sectors "$T/bad.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
echo '[{"sector_number": 77, "comm_r": "4afb"' >"$T/broken.json"
expect_exit 2 "verify-post: broken sectors JSON" post --randomness $R --sectors "$T/broken.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
expect_exit 2 "verify-post: unknown proof type" "$CUZK" fil verify-post --proof-type StackedDrgWindow3KiBV1 --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" "${VK[@]}"

# C1 outputs: synthetic 2 KiB (a sector never sealed; its vanilla proofs verify).
quiet "$CUZK" fil synth-c1 "$T/c1.json" --proof-type StackedDrg2KiBV1_1 --miner-id 1000 --sector-id 5
quiet "$CUZK" fil synth-c1 "$T/bare.json" --proof-type StackedDrg2KiBV1_1 --miner-id 1000 --sector-id 5 --bare
expect_exit 0 "inspect-c1: the miner it was made for" "$CUZK" fil inspect-c1 "$T/c1.json" --miner-id 1000
expect_exit 1 "inspect-c1: another miner" "$CUZK" fil inspect-c1 "$T/c1.json" --miner-id 1001
expect_exit 0 "inspect-c1: bare output with --sector-id" "$CUZK" fil inspect-c1 "$T/bare.json" --miner-id 1000 --sector-id 5
expect_exit 1 "inspect-c1: bare output, another sector" "$CUZK" fil inspect-c1 "$T/bare.json" --miner-id 1000 --sector-id 6
expect_exit 0 "inspect-c1 --vanilla: a synthetic C1 passes the vanilla checks" "$CUZK" fil inspect-c1 "$T/c1.json" --miner-id 1000 --vanilla
quiet "$CUZK" fil synth-c1 --sector-size 2KiB --seed 3 --miner-id 1000 --sector-id 5 --out "$T/c1s.json"
expect_exit 0 "synth-c1 --sector-size: passes the vanilla checks" "$CUZK" fil inspect-c1 "$T/c1s.json" --miner-id 1000 --vanilla
expect_exit 2 "synth-c1: unknown sector size" "$CUZK" fil synth-c1 --sector-size 3KiB --out "$T/x.json"
expect_exit 2 "synth-c1: both --proof-type and --sector-size" "$CUZK" fil synth-c1 --sector-size 2KiB --proof-type StackedDrg2KiBV1_1 --out "$T/x.json"
O="$SRC/tests/fixtures/filecoin/oracle-2k/c1.json"
expect_exit 0 "inspect-c1 --vanilla: fil-oracle's real C1 output" "$CUZK" fil inspect-c1 "$O" --miner-id 1000 --vanilla
expect_exit 1 "inspect-c1: fil-oracle's C1 output, another miner" "$CUZK" fil inspect-c1 "$O" --miner-id 1001
expect_exit 2 "inspect-c1: bare output without --sector-id" "$CUZK" fil inspect-c1 "$T/bare.json" --miner-id 1000
seal() { "$CUZK" fil verify-seal --vk "$F/porep-2k.vk.compressed" --vk-format compressed "$@"; }
expect_exit 1 "verify-seal: wrong miner id" seal --c1 "$T/c1.json" --miner-id 999 --proof "$F/porep-2k.proof"
expect_exit 1 "verify-seal: another sector's proof" seal --c1 "$T/c1.json" --miner-id 1000 --proof "$F/porep-2k.proof"
python3 - "$T/bare.json" "$T/seed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["seed"][0] ^= 1; json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 1 "verify-seal: changed seed" seal --c1 "$T/seed.json" --sector-id 5 --miner-id 1000 --proof "$F/porep-2k.proof"
python3 - "$T/bare.json" "$T/comm_r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["comm_r"][0] ^= 1; json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 1 "inspect-c1: comm_r is not Poseidon(comm_c, comm_r_last)" "$CUZK" fil inspect-c1 "$T/comm_r.json" --sector-id 5 --miner-id 1000
expect_exit 2 "verify-seal: 191-byte proof" seal --c1 "$T/c1.json" --miner-id 1000 --proof "$T/short.proof"
head -c 3000 "$T/c1.json" >"$T/trunc.json"
expect_exit 2 "verify-seal: truncated C1" seal --c1 "$T/trunc.json" --miner-id 1000 --proof "$F/porep-2k.proof"
sed 's/"SectorSize":2048/"SectorSize":34359738368/' "$T/c1.json" >"$T/size.json"
expect_exit 2 "verify-seal: C1 wrapper of another sector size" seal --c1 "$T/size.json" --miner-id 1000 --proof "$F/porep-2k.proof"
sed 's/StackedDrg2KiBV1_1/StackedDrg32GiBV1_1/' "$T/bare.json" >"$T/other_size.json"
expect_exit 2 "verify-seal: C1 of another sector size" seal --c1 "$T/other_size.json" --sector-id 5 --miner-id 1000 --proof "$F/porep-2k.proof"
expect_exit 2 "verify-seal: C1 is not JSON" seal --c1 "$F/porep-2k.proof" --miner-id 1000 --proof "$F/porep-2k.proof"
expect_exit 2 "verify-seal: no C1 file" seal --c1 "$T/none.json" --miner-id 1000 --proof "$F/porep-2k.proof"
expect_exit 2 "verify-seal: no key" "$CUZK" fil verify-seal --c1 "$T/c1.json" --miner-id 1000 --proof "$F/porep-2k.proof" --params-dir "$T"
# Hostile files: a FIFO, a device, a huge sparse file, deep JSON; each refused at once (exit 2,
# one line naming the file), never read forever or into gigabytes, never a crash.
refused() {  # refused "what" "message fragment" command...: exit 2 within 30 s, the message says it
  local what=$1 want=$2 out rc=0
  shift 2
  out=$(timeout 30 "$@" 2>&1 >/dev/null) || rc=$?
  if [[ $rc == 2 && $out == *"$want"* && $(wc -l <<<"$out") == 1 ]]; then ok "$what"; else not_ok "$what: exit $rc: $out"; fi
}
mkfifo "$T/fifo"
refused "inspect-c1: a FIFO is refused, not waited on" "not a regular file" "$CUZK" fil inspect-c1 "$T/fifo" --miner-id 1000
SEAL=("$CUZK" fil verify-seal --vk "$F/porep-2k.vk.compressed" --vk-format compressed)
POST=("$CUZK" fil verify-post --proof-type StackedDrgWindow2KiBV1_2 --vk-format compressed)
refused "verify-seal --proof /dev/zero: refused, not read forever" "not a regular file" "${SEAL[@]}" --c1 "$T/c1.json" --miner-id 1000 --proof /dev/zero
refused "verify-post --vk /dev/zero (compressed)" "not a regular file" "${POST[@]}" --randomness $R --sectors "$T/sectors.json" --proof "$F/window-post-2k.proof" --vk /dev/zero
refused "post --vanilla /dev/zero" "not a regular file" "$CUZK" fil post --kind window --vanilla /dev/zero --randomness $R --miner-id 1 --params-dir "$T" --out "$T/x.proof"
refused "verify --public FIFO" "not a regular file" "$CUZK" verify --vk "$T/none.vk" --public "$T/fifo" --proof "$F/porep-2k.proof"
refused "verify-post --sectors FIFO" "not a regular file" "${POST[@]}" --randomness $R --sectors "$T/fifo" --proof "$F/window-post-2k.proof" "${VK[@]}"
truncate -s 4G "$T/huge.proof"
refused "verify-seal: a 4 GiB proof file is refused by its size, unread" "more than a proof of 1 partitions" "${SEAL[@]}" --c1 "$T/c1.json" --miner-id 1000 --proof "$T/huge.proof"
truncate -s 4G "$T/huge.vanilla"
refused "post: a 4 GiB vanilla proof is refused by its size" "more than a PoSt vanilla proof" "$CUZK" fil post --kind window --vanilla "$T/huge.vanilla" --randomness $R --miner-id 1 --params-dir "$T" --out "$T/x.proof"
truncate -s 2G "$T/huge.json"
refused "inspect-c1: a 2 GiB C1 file is refused by its size" "more than a C1 output may have" "$CUZK" fil inspect-c1 "$T/huge.json" --miner-id 1000
rm -f "$T"/huge.*
python3 -c 'import sys; n = 200000; sys.stdout.write("[" * n + "]" * n)' >"$T/deep.json"
refused "verify --public: 200,000-deep JSON is refused, no stack overflow" "nested deeper than 64 levels" "$CUZK" verify --vk "$T/none.vk" --public "$T/deep.json" --proof "$F/porep-2k.proof"
refused "verify-post --sectors: deep JSON" "nested deeper than 64 levels" "${POST[@]}" --randomness $R --sectors "$T/deep.json" --proof "$F/window-post-2k.proof" "${VK[@]}"
refused "params check: a FIFO manifest" "not a regular file" "$CUZK" params check "$T/params" "$T/fifo"
refused "params check: a deep manifest" "nested deeper than 64 levels" "$CUZK" params check "$T/params" "$T/deep.json"
# params check reads plain names inside its directory only.
echo '{"/etc/passwd": {"digest": "00"}}' >"$T/passwd.json"
refused "params check: a manifest naming /etc/passwd" "not a plain file name" "$CUZK" params check "$T/params" "$T/passwd.json"
echo '{"../c1.json": {"digest": "00"}}' >"$T/up.json"
refused "params check: a manifest naming ../" "not a plain file name" "$CUZK" params check "$T/params" "$T/up.json"
mkfifo "$T/params/pipe.params"
echo '{"pipe.params": {"digest": "00"}}' >"$T/pipe.json"
refused "params check: a FIFO in the directory" "not a regular file" "$CUZK" params check "$T/params" "$T/pipe.json"
ln -s /dev/zero "$T/params/zero.params"
echo '{"zero.params": {"digest": "00"}}' >"$T/zero.json"
refused "params check: a link to /dev/zero" "not a regular file" "$CUZK" params check "$T/params" "$T/zero.json"
expect_exit 0 "synth-c1 --out before the other options" "$CUZK" fil synth-c1 --out "$T/o1.json" --proof-type StackedDrg2KiBV1_1
expect_exit 0 "synth-c1 OUT positional" "$CUZK" fil synth-c1 "$T/o2.json" --sector-size 2KiB
cmp -s "$T/o1.json" "$T/o2.json" && ok "synth-c1: both forms write the same C1" || not_ok "synth-c1: --out and OUT differ"
refused "synth-c1: OUT and --out both" "OUT or --out, not both" "$CUZK" fil synth-c1 "$T/o3.json" --out "$T/o4.json" --sector-size 2KiB
refused "synth-c1: no output file" "no output file" "$CUZK" fil synth-c1 --sector-size 2KiB
expect_exit 0 "synth-post --out" "$CUZK" fil synth-post --out "$T/sp1.bin" --proof-type StackedDrgWindow2KiBV1_2 --randomness $R
expect_exit 0 "synth-post OUT" "$CUZK" fil synth-post "$T/sp2.bin" --proof-type StackedDrgWindow2KiBV1_2 --randomness $R
cmp -s "$T/sp1.bin" "$T/sp2.bin" && ok "synth-post: both forms write the same proof" || not_ok "synth-post: --out and OUT differ"

expect_exit 0 "graph: 2 KiB parents" "$CUZK" fil graph --proof-type StackedDrg2KiBV1_1 --first 60 --count 10
expect_exit 2 "graph: a node past the end" "$CUZK" fil graph --proof-type StackedDrg2KiBV1_1 --first 64

# fil submit: its refusals before any daemon is asked (sending jobs: tests/fil/oracle_setup.sh).
C1=$SRC/tests/fixtures/filecoin/oracle-2k/c1.json
submit() { "$CUZK" fil submit --addr "unix://$T/none.sock" --out "$T/sub" "$@"; }
expect_exit 2 "submit: neither --c1 nor --post-dir" submit
expect_exit 2 "submit: --c1 without --miner-id" submit --c1 "$C1"
expect_exit 2 "submit: no post.json in --post-dir" submit --post-dir "$T"
expect_exit 5 "submit: no daemon at --addr" submit --c1 "$C1" --miner-id 1000
[[ ! -e $T/sub ]] && ok "submit: nothing written" || not_ok "submit: $T/sub was written"
finish
