#!/usr/bin/env bash
# TEST-ONLY Filecoin parameters made by `cuzk fil setup`, cached outside the clone so that run.sh and
# the oracle tests make them once per version of the code that makes them.
#   scripts/fil-test-params.sh CUZK SEED TYPE... [--remake]
# Prints the directory that holds the parameters of every TYPE (a `cuzk fil setup --proof-type`)
# made with --seed SEED: ${CUZK_CACHE:-~/.cache/cuzk}/fil-test-params/<key>-s<SEED>, key = a hash of
# fil/ and zk/ (the circuits, the setup, the field and curve code) and apps/cuzk/cmd_fil_setup.cpp, so
# a change there makes them again. Directories of other keys unused for two days are removed. --remake: made again even
# when cached. Concurrent callers wait for each other (flock). Progress goes to stderr.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=$1 SEED=$2
shift 2
REMAKE=0
TYPES=()
for a in "$@"; do
  if [[ $a == --remake ]]; then REMAKE=1; else TYPES+=("$a"); fi
done
((${#TYPES[@]} > 0)) || { echo "fil-test-params.sh: no proof type given" >&2; exit 2; }
key=$(cd "$ROOT" && find fil zk apps/cuzk/cmd_fil_setup.cpp -type f -name '*.[ch]pp' | LC_ALL=C sort | xargs cat |
  sha256sum | cut -c1-16)
CACHE=${CUZK_CACHE:-$HOME/.cache/cuzk}/fil-test-params
DIR=$CACHE/$key-s$SEED
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$key-s*" -mtime +1 -exec rm -rf {} +
mkdir -p "$DIR"
touch "$DIR"  # in use: kept
for t in "${TYPES[@]}"; do
  if ((REMAKE)) || [[ ! -f $DIR/.complete-$t ]]; then
    rm -f "$DIR/.complete-$t"
    echo "fil-test-params: cuzk fil setup --proof-type $t --seed $SEED (once; cached in $DIR)" >&2
    "$CUZK" fil setup --proof-type "$t" --params-dir "$DIR" --seed "$SEED" --force >&2
    touch "$DIR/.complete-$t"
  fi
done
echo "$DIR"
