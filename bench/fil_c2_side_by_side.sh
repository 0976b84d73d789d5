#!/usr/bin/env bash
# Side by side: `cuzk fil c2` against `fil-oracle c2` (filecoin-proofs' own C2) on the
# same C1 output and the same params, one after the other in one run, on whatever machine this is:
# wall time, CPU time (user + sys) and peak RSS of each (GNU time), our stage split (--timings), and
# both proofs checked with `fil-oracle verify-seal`.
#   bench/fil_c2_side_by_side.sh BUILD_DIR SECTOR_DIR PARAMS_DIR [MINER_ID]
# SECTOR_DIR holds fil-oracle seal's c1.json. cuzk runs twice with a fresh evaluator directory: the
# first run records the circuit's compact evaluator (once per sector size in production), the second
# maps it (the figure to compare). Prints one Markdown table row per run.
set -euo pipefail
BUILD=$(cd "${1:?usage: fil_c2_side_by_side.sh BUILD_DIR SECTOR_DIR PARAMS_DIR [MINER_ID]}" && pwd)
SECTOR=${2:?usage}
PARAMS=${3:?usage}
MINER=${4:-1000}
CUZK=$BUILD/bin/cuzk
ORACLE=${FIL_ORACLE:-$BUILD/bin/fil-oracle}
for f in "$CUZK" "$ORACLE" /usr/bin/time; do [[ -x $f ]] || { echo "fil_c2_side_by_side: $f: not found" >&2; exit 2; }; done
[[ -f $SECTOR/c1.json ]] || { echo "fil_c2_side_by_side: $SECTOR/c1.json: no such file" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/pce"
# measured NAME CMD...: runs CMD under GNU time; prints "wall cpu rss_gib" of it
measured() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$T/$name.time" "$@" >"$T/$name.out" 2>"$T/$name.err" \
    || { echo "fil_c2_side_by_side: $name failed:" >&2; tail -5 "$T/$name.err" >&2; exit 1; }
  awk '{printf "%.1f %.1f %.2f\n", $1, $2 + $3, $4 / 1048576}' "$T/$name.time"
}
verify() {
  "$ORACLE" verify-seal --c1 "$SECTOR/c1.json" --miner-id "$MINER" --proof "$1" --cache "$PARAMS" >/dev/null 2>&1 \
    && echo "verify-seal ok" || echo "verify-seal REJECTED"
}
echo "| run | wall s | CPU s | peak RSS GiB | stages (s) | proof |"
echo "|---|---|---|---|---|---|"
for run in record mapped; do
  read -r wall cpu rss < <(measured "cuzk-$run" "$CUZK" fil c2 --c1 "$SECTOR/c1.json" --miner-id "$MINER" \
    --params-dir "$PARAMS" --evaluator-dir "$T/pce" --backend cpu --timings --out "$T/cuzk-$run.bin")
  stages=$(grep -o 'stages (s): .*' "$T/cuzk-$run.err" | sed 's/stages (s): //')
  echo "| cuzk fil c2 (evaluator $run) | $wall | $cpu | $rss | $stages | $(verify "$T/cuzk-$run.bin") |"
done
read -r wall cpu rss < <(measured oracle "$ORACLE" c2 --c1 "$SECTOR/c1.json" --miner-id "$MINER" --cache "$PARAMS" \
  --out "$T/oracle.bin")
echo "| fil-oracle c2 (filecoin-proofs) | $wall | $cpu | $rss | - | $(verify "$T/oracle.bin") |"
