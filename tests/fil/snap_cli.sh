#!/usr/bin/env bash
# ctest fil.snap_cli: `cuzk fil snap` refusing unusable input, without fil-oracle. Synthetic 2 KiB
# and 8 MiB PartitionProofs (`cuzk fil synth-update`, fil/synthetic) are checked and accepted up to
# the params lookup (the missing file named); every kind of bad input exits 2 with one line naming
# the option, file or field, and no proof file is left behind: a commitment of 31 bytes or not a field
# element, the wrong number of partition proofs, a PartitionProof that does not parse, one of
# another sector (paths that do not open to comm_r_old), a leaf changed, partitions swapped. Then the
# whole pipeline at 2 KiB on TEST-ONLY params (`cuzk fil setup --proof-type update:StackedDrg2KiBV1`, made
# once per version of the code by scripts/fil-test-params.sh):
# the proof of the synthetic update is written and accepted by `cuzk fil verify-update`, which
# refuses it with a flipped bit or for another comm_r_new; `cuzk fil post` refuses these params under
# the 2 KiB WindowPoSt's name, naming the file. (Filecoin's verifier judges real updates: fil.snap.)
#   snap_cli.sh SOURCE_DIR BUILD_DIR
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(b)" "$@"; }
mkdir -p "$T/empty"
bad() {  # bad SIZE DESCRIPTION PATTERN ARGS...
  local size=$1 what=$2 pattern=$3
  shift 3
  rm -f "$T/bad.bin"
  expect_exit 2 "$what" "$CUZK" fil snap --sector-size "$size" --backend cpu --out "$T/bad.bin" --params-dir "$T/empty" "$@"
  local msg
  msg=$("$CUZK" fil snap --sector-size "$size" --backend cpu --out "$T/bad.bin" --params-dir "$T/empty" "$@" 2>&1 >/dev/null || true)
  [[ $msg =~ $pattern ]] && ok "$what: the line says '$pattern'" || not_ok "$what: '$msg' does not match '$pattern'"
  [[ ! -e $T/bad.bin ]] && ok "$what: no proof written" || not_ok "$what: a proof file was written"
}
for size in 2KiB 8MiB; do
  S=$T/$size
  expect_exit 0 "synth-update $size" "$CUZK" fil synth-update --sector-size $size --seed 3 --out "$S"
  old=$(json "$S/update.json" 'd["comm_r_old"]') new=$(json "$S/update.json" 'd["comm_r_new"]') dnew=$(json "$S/update.json" 'd["comm_d_new"]')
  mapfile -t v < <(json "$S/update.json" '"\n".join("'"$S"'/" + x for x in d["vanilla"])')
  ids=(--comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew")
  bad $size "$size: valid vanilla proofs, no params" "$T/empty/v28-empty-sector-update-[^ ]*\\.params: no such file" \
    "${ids[@]}" --vanilla "${v[@]}"
  bad $size "$size: comm_r_old of 31 bytes" "--comm-r-old: expected 64 hex digits" \
    --comm-r-old "${old:0:62}" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${v[@]}"
  bad $size "$size: comm_d_new not a field element" "--comm-d-new" \
    --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "ff${dnew:2:60}ff" --vanilla "${v[@]}"
  bad $size "$size: one partition proof too many" "vanilla: $((${#v[@]} + 1)) partition proofs, .* has ${#v[@]} partitions" \
    "${ids[@]}" --vanilla "${v[@]}" "${v[0]}"
  head -c 700 "${v[0]}" >"$T/short.bin"
  bad $size "$size: a truncated PartitionProof" "short\\.bin: (challenge_proofs|apex_leafs)" \
    "${ids[@]}" --vanilla "$T/short.bin" "${v[@]:1}"
  other=$(python3 -c "print('%064x' % 5)")
  bad $size "$size: comm_r_old of another sector" "vanilla-0\\.bin \\(partition 0\\): comm_r_old $other is not Poseidon\\(comm_c" \
    --comm-r-old "$other" --comm-r-new "$new" --comm-d-new "$dnew" --vanilla "${v[@]}"
  # Challenge 0's TreeROld leaf: comm_c 32, apex count 8 + n x 32, challenge count 8, the variant u32, the root 32.
  napex=$(python3 -c "import struct,sys; print(struct.unpack_from('<Q', open(sys.argv[1],'rb').read(), 32)[0])" "${v[0]}")
  flip "${v[0]}" "$T/leaf.bin" $((32 + 8 + 32 * napex + 8 + 4 + 32))
  bad $size "$size: a changed TreeROld leaf" "leaf\\.bin \\(partition 0\\): challenge 0 \\(node [0-9]+\\): proof_r_old: the path does not lead" \
    "${ids[@]}" --vanilla "$T/leaf.bin" "${v[@]:1}"
  if ((${#v[@]} > 1)); then
    bad $size "$size: partitions 0 and 1 swapped" "\\(partition 0\\): (comm_d_new|challenge 0 \\(node [0-9]+\\): proof_r_old proves node)" \
      "${ids[@]}" --vanilla "${v[1]}" "${v[0]}" "${v[@]:2}"
  fi
done

S=$T/2KiB
old=$(json "$S/update.json" 'd["comm_r_old"]') new=$(json "$S/update.json" 'd["comm_r_new"]') dnew=$(json "$S/update.json" 'd["comm_d_new"]')
ids=(--sector-size 2KiB --comm-r-old "$old" --comm-r-new "$new" --comm-d-new "$dnew")
# The setup, made once per version of the code that makes it (scripts/fil-test-params.sh), copied.
if cached=$("$SRC/scripts/fil-test-params.sh" "$CUZK" 5 update:StackedDrg2KiBV1 2>"$T/setup.log"); then
  ok "TEST-ONLY params of the 2 KiB update circuit ($cached)"
  cp -r "$cached" "$T/params"
else
  not_ok "TEST-ONLY params of the 2 KiB update circuit: $(tail -1 "$T/setup.log")"
fi
expect_exit 0 "cuzk fil snap of the synthetic 2 KiB update" \
  "$CUZK" fil snap "${ids[@]}" --vanilla "$S/vanilla-0.bin" --params-dir "$T/params" --backend cpu --out "$T/snap.bin"
expect_exit 0 "cuzk fil verify-update accepts it" "$CUZK" fil verify-update "${ids[@]}" --params-dir "$T/params" --proof "$T/snap.bin"
flip "$T/snap.bin" "$T/flip.bin" 40
expect_reject "cuzk fil verify-update refuses it with a flipped bit" \
  "$CUZK" fil verify-update "${ids[@]}" --params-dir "$T/params" --proof "$T/flip.bin"
expect_exit 1 "cuzk fil verify-update refuses it for another comm_r_new" "$CUZK" fil verify-update --sector-size 2KiB \
  --comm-r-old "$old" --comm-r-new "$dnew" --comm-d-new "$dnew" --params-dir "$T/params" --proof "$T/snap.bin"

# A params file of another circuit (these update params under the 2 KiB WindowPoSt's name): exit 2,
# one line naming the file (fil::load_circuit_key, which the engine's key store calls too).
R=$(python3 -c "print('01' * 32)")
expect_exit 0 "synth-post 2KiB" "$CUZK" fil synth-post --proof-type StackedDrgWindow2KiBV1_2 --randomness $R --out "$T/post-v.bin"
post=(fil post --kind window --miner-id 1000 --randomness $R --vanilla "$T/post-v.bin" --backend cpu --out "$T/post.bin")
name=$({ "$CUZK" "${post[@]}" --params-dir "$T/empty" 2>&1 || true; } | sed -n 's|.*/\(v28-[^/ :]*\.params\): no such file.*|\1|p')
mkdir -p "$T/other"
ln -s "$(ls "$T"/params/v28-empty-sector-update-*.params)" "$T/other/$name"
expect_exit 2 "cuzk fil post: a params file of another circuit" "$CUZK" "${post[@]}" --params-dir "$T/other"
msg=$("$CUZK" "${post[@]}" --params-dir "$T/other" 2>&1 >/dev/null || true)
pattern="$T/other/$name: vk\.ic has [0-9]+, the circuit needs [0-9]+ \(a key for another circuit\?\)"
[[ $msg =~ $pattern ]] && ok "the line names the file: '$msg'" || not_ok "'$msg' does not match '$pattern'"
[[ ! -e $T/post.bin ]] && ok "no proof written" || not_ok "a proof file was written"
finish
