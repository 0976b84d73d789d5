#!/usr/bin/env bash
# snarkjs vs cuzk: proving time on the same zkey + witness, at ~2^16 and ~2^18 constraints.
#   bench/prove_vs_snarkjs.sh [LOG2_SIZE...]        default: 16 18
# For each size: compiles bench/circuits/rounds.circom with N = 2^k - 32 constraints (so the
# domain is exactly 2^k), makes a key with `cuzk setup` (no ptau of that size needed) and a witness,
# then times `snarkjs groth16 prove` (CLI) and `cuzk prove` (wall clock; hyperfine when installed),
# checks both proofs with `snarkjs groth16 verify`, and prints a table.
# Environment: CUZK (default build/bin/cuzk), CUZK_ARGS (extra prove flags, e.g. "--backend cpu"),
# RUNS (cuzk runs, default 5), SNARKJS_RUNS (default 3 below 2^18, always 1 from 2^18: it takes a
# minute there on 2 cores), BENCH_DIR (default build/bench: compiled circuits are cached there).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=${CUZK:-$ROOT/build/bin/cuzk}
BENCH_DIR=${BENCH_DIR:-$ROOT/build/bench}
RUNS=${RUNS:-5}
if (($# > 0)); then SIZES=("$@"); else SIZES=(16 18); fi
SNARKJS=(node "$ROOT/node_modules/snarkjs/cli.js")
snarkjs() { "${SNARKJS[@]}" "$@"; }
[[ -x $CUZK ]] || { echo "bench: $CUZK not built (scripts/build.sh)" >&2; exit 1; }
mkdir -p "$BENCH_DIR"

# time_runs RUNS OUTVAR CMD...: runs CMD RUNS times; sets OUTVAR to "best median" in seconds
time_runs() {
  local runs=$1 out=$2
  shift 2
  local times=() i
  if command -v hyperfine >/dev/null; then
    local json
    json=$(mktemp)
    hyperfine --runs "$runs" --export-json "$json" --style none "$(printf '%q ' "$@")" >/dev/null
    mapfile -t times < <(node -e 'for (const t of require(process.argv[1]).results[0].times) console.log(t)' "$json")
    rm -f "$json"
  else
    for ((i = 0; i < runs; i++)); do
      local s=$EPOCHREALTIME
      "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; "$@" >&2 || true; return 1; }
      times+=("$(awk "BEGIN{print $EPOCHREALTIME - $s}")")
    done
  fi
  printf -v "$out" '%s' "$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f %.3f", a[1], m}')"
}

ROWS=()
for k in "${SIZES[@]}"; do
  N=$(((1 << k) - 32))
  D="$BENCH_DIR/rounds_$N"
  mkdir -p "$D"
  printf 'pragma circom 2.0.0;\ninclude "rounds.circom";\ncomponent main {public [seed]} = Rounds(%d);\n' "$N" >"$D/main.circom.new"
  hash=$(cat "$D/main.circom.new" "$ROOT/bench/circuits/rounds.circom" "$ROOT/package-lock.json" | sha256sum | cut -c1-16)
  if [[ ! -f $D/done || $(cat "$D/done") != "$hash" ]]; then
    echo "bench 2^$k: compiling rounds.circom with N = $N (circom under WASI: ~20 s at 2^16, ~2.5 min at 2^18)"
    mv "$D/main.circom.new" "$D/main.circom"
    node "$ROOT/node_modules/circom2/cli.js" "$D/main.circom" --r1cs --wasm --prime bls12381 \
      -l "$ROOT/node_modules" -l "$ROOT/bench/circuits" -o "$D" >"$D/circom.log"
    echo "{\"seed\": \"$((k * 1000003))\", \"key\": [\"$RANDOM$RANDOM\", \"$RANDOM$RANDOM$RANDOM\", \"7\"]}" >"$D/input.json"
    node "$D/main_js/generate_witness.js" "$D/main_js/main.wasm" "$D/input.json" "$D/main.wtns"
    echo "$hash" >"$D/done"
  fi
  rm -f "$D/main.circom.new"
  constraints=$(grep -oE "non-linear constraints: [0-9]+" "$D/circom.log" | grep -oE "[0-9]+$")
  echo "bench 2^$k: cuzk setup ($constraints constraints)"
  setup_start=$SECONDS
  "$CUZK" setup "$D/main.r1cs" "$D/main.zkey" --seed "$k"
  setup_s=$((SECONDS - setup_start))
  snarkjs zkey export verificationkey "$D/main.zkey" "$D/vk.json" >/dev/null

  sj_runs=${SNARKJS_RUNS:-3}
  ((k >= 18)) && sj_runs=1
  echo "bench 2^$k: snarkjs groth16 prove x$sj_runs"
  time_runs "$sj_runs" sj "${SNARKJS[@]}" groth16 prove "$D/main.zkey" "$D/main.wtns" "$D/snarkjs_proof.json" "$D/snarkjs_public.json"
  echo "bench 2^$k: cuzk prove x$RUNS"
  # shellcheck disable=SC2086
  time_runs "$RUNS" cz "$CUZK" prove "$D/main.zkey" "$D/main.wtns" "$D/cuzk_proof.json" "$D/cuzk_public.json" ${CUZK_ARGS:-}

  sj_ok=INVALID cz_ok=INVALID
  snarkjs groth16 verify "$D/vk.json" "$D/snarkjs_public.json" "$D/snarkjs_proof.json" >/dev/null 2>&1 && sj_ok=valid
  snarkjs groth16 verify "$D/vk.json" "$D/cuzk_public.json" "$D/cuzk_proof.json" >/dev/null 2>&1 && cz_ok=valid
  read -r sj_best sj_med <<<"$sj"
  read -r cz_best cz_med <<<"$cz"
  speedup=$(awk "BEGIN{printf \"%.1f\", $sj_med / $cz_med}")
  ROWS+=("$(printf '| 2^%-2d | %9d | %5ds | %7s / %7s (x%d) | %7s / %7s (x%d) | %6sx | %-7s | %-7s |' \
    "$k" "$constraints" "$setup_s" "$sj_best" "$sj_med" "$sj_runs" "$cz_best" "$cz_med" "$RUNS" "$speedup" "$sj_ok" "$cz_ok")")
done

echo
echo "prove wall time in seconds, best / median of (runs); same zkey (cuzk setup) and witness for both;"
echo "proofs checked with snarkjs groth16 verify. $(nproc) cores; cuzk: $CUZK ${CUZK_ARGS:-}"
echo "| size | constraints | setup | snarkjs best / median | cuzk best / median | speedup | snarkjs | cuzk |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
