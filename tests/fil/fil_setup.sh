#!/usr/bin/env bash
# ctest fil.setup: `cuzk fil setup` (TEST-ONLY Filecoin parameters) from the command line, no oracle:
#  - the 2 KiB WindowPoSt circuit set up into an empty directory: .params and .vk under Filecoin's
#    names, the CUZK-TEST-ONLY marker listing them, a parameters.json whose digests `cuzk params
#    check` accepts, every point on its curve; TEST-ONLY said on stderr;
#  - the same seed gives the same bytes; --force with another seed replaces them;
#  - refusals, exit 2 with one line and nothing written or changed: an existing file without
#    --force, a directory holding a parameter file the marker does not list (real parameters), an
#    unknown proof type, a directory that cannot be created or written.
# Proofs made with such parameters are judged by filecoin-proofs in tests/fil/oracle_setup.sh (and by
# `cuzk fil verify-seal` in run.sh).
source "$(dirname "$0")/../interop/lib.sh"
require_cuzk
T=$(mktemp -d); trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
W=StackedDrgWindow2KiBV1_2
P=$T/params
setup() { "$CUZK" fil setup --params-dir "$@"; }

expect_exit 0 "setup $W into a new directory" setup "$P" --proof-type $W --seed 7
params=$(ls "$P"/v28-proof-of-spacetime-fallback-*.params 2>/dev/null || true)
vk=${params%.params}.vk
[[ -f $params && -f $vk ]] && ok "wrote $(basename "$params") and its .vk" || not_ok "no .params/.vk in $P: $(ls "$P")"
msg=$("$CUZK" fil setup --params-dir "$T/again" --proof-type $W --seed 7 2>&1 >/dev/null)
[[ $msg == *TEST-ONLY* ]] && ok "stderr says TEST-ONLY" || not_ok "stderr does not say TEST-ONLY: $msg"
cmp -s "$params" "$T/again/$(basename "$params")" && ok "the same seed gives the same .params" ||
  not_ok "seed 7 twice gave different .params"
for f in "$params" "$vk" "$P/parameters.json"; do
  grep -q "^$(basename "$f") " "$P/CUZK-TEST-ONLY" && ok "the marker lists $(basename "$f")" ||
    not_ok "the marker does not list $(basename "$f")"
done
expect_exit 0 "cuzk params check accepts the digests of parameters.json" "$CUZK" params check "$P" "$P/parameters.json"
expect_exit 0 "cuzk params info --points: every point on its curve" "$CUZK" params info --points "$params"

# Refusals: nothing written or changed.
before=$(cd "$P" && sha256sum ./* | sha256sum)
unchanged() {  # unchanged WHAT
  [[ $(cd "$P" && sha256sum ./* | sha256sum) == "$before" ]] && ok "$1: nothing in $P changed" || not_ok "$1: $P changed"
}
expect_exit 2 "an existing file without --force" setup "$P" --proof-type $W --seed 8
unchanged "without --force"
expect_exit 2 "an unknown proof type" setup "$P" --proof-type StackedDrgWindow3KiBV1 --force
cp "$vk" "$P/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-real.vk"
before=$(cd "$P" && sha256sum ./* | sha256sum)
expect_exit 2 "a directory holding an unlisted parameter file (real parameters)" setup "$P" --proof-type $W --force
msg=$("$CUZK" fil setup --params-dir "$P" --proof-type $W --force 2>&1 >/dev/null || true)
[[ $msg == *"real parameters"*real.vk* ]] && ok "the line names the real file" || not_ok "real params: '$msg'"
unchanged "real parameters"
rm -f "$P"/*-real.vk
mkdir -p "$T/real"
echo '{}' >"$T/real/parameters.json"
expect_exit 2 "a directory with someone else's parameters.json" setup "$T/real" --proof-type $W
[[ ! -e $T/real/CUZK-TEST-ONLY ]] && ok "no marker written there" || not_ok "a marker was written into $T/real"
touch "$T/file"
expect_exit 2 "a --params-dir that is a file" setup "$T/file" --proof-type $W
expect_exit 2 "a --params-dir that cannot be created" setup "$T/file/sub" --proof-type $W
if ((EUID != 0)); then
  mkdir -p "$T/ro" && chmod 555 "$T/ro"
  expect_exit 2 "a read-only --params-dir" setup "$T/ro" --proof-type $W
fi

before=$(cd "$P" && sha256sum ./* | sha256sum)
expect_exit 0 "--force with another seed" setup "$P" --proof-type $W --seed 9 --force
[[ $(cd "$P" && sha256sum ./* | sha256sum) != "$before" ]] && ok "another seed replaced the files" ||
  not_ok "seed 9 left the files as they were"
expect_exit 0 "cuzk params check after --force" "$CUZK" params check "$P" "$P/parameters.json"
finish
