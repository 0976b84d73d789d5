#!/usr/bin/env bash
# A/B of two `cuzk` binaries on one key and witness, runs interleaved (A B A B ...) so that this
# VM's slow spells hit both alike. Prints the best and median wall and CPU (user + system) times.
#   bench/ab_prove.sh OLD_CUZK NEW_CUZK [RUNS=8] [KEY_DIR=build/bench/rounds_65504]
# KEY_DIR holds main.zkey and main.wtns, as bench/prove_vs_snarkjs.sh leaves them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 2)) || { echo "usage: $0 OLD_CUZK NEW_CUZK [RUNS] [KEY_DIR]" >&2; exit 2; }
A=$1 B=$2 RUNS=${3:-8} DIR=${4:-$ROOT/build/bench/rounds_65504}
for f in "$A" "$B"; do [[ -x $f ]] || { echo "ab_prove: $f is not an executable" >&2; exit 2; }; done
for f in main.zkey main.wtns; do
  [[ -f $DIR/$f ]] || { echo "ab_prove: $DIR/$f missing (run bench/prove_vs_snarkjs.sh first)" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "ab_prove: needs /usr/bin/time (Debian package: time)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((i = 0; i < RUNS; i++)); do
  for side in a b; do
    bin=$A
    [[ $side == b ]] && bin=$B
    /usr/bin/time -f "%e %U %S" -a -o "$out/$side" "$bin" prove "$DIR/main.zkey" "$DIR/main.wtns" \
      "$out/proof.json" "$out/public.json" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
  done
done
stats() { sort -g | awk '{v[NR]=$1} END{printf "best %.3f median %.3f", v[1], (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
printf '| binary | wall (s) | CPU (s) |\n|---|---|---|\n'
for side in a b; do
  bin=$A
  [[ $side == b ]] && bin=$B
  printf '| %s | %s | %s |\n' "$bin" "$(awk '{print $1}' "$out/$side" | stats)" "$(awk '{print $2 + $3}' "$out/$side" | stats)"
done
