#!/usr/bin/env bash
# One command from a fresh clone to a proof: installs what is missing, builds cuzk (Release, build/),
# then proves the bundled sample circuit (tests/fixtures/sample, made by circom + snarkjs) with
# build/bin/cuzk and checks the proof with cuzk verify and with snarkjs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")" && pwd)
cd "$ROOT"

scripts/install-deps.sh
scripts/build.sh "$ROOT/build"

CUZK="$ROOT/build/bin/cuzk"
SAMPLE="$ROOT/tests/fixtures/sample"
OUT="$ROOT/build/sample-proof"
mkdir -p "$OUT"
if [[ ! -x $CUZK ]]; then
  echo "run: $CUZK was not built" >&2
  exit 1
fi

echo "run: proving tests/fixtures/sample (sample.zkey + sample.wtns) with cuzk"
start=$EPOCHREALTIME
"$CUZK" prove "$SAMPLE/sample.zkey" "$SAMPLE/sample.wtns" "$OUT/proof.json" "$OUT/public.json" --compressed "$OUT/proof.bin"
end=$EPOCHREALTIME
printf 'run: proof written to %s (%s s); public signals: %s\n' "$OUT/proof.json" "$(awk "BEGIN{printf \"%.2f\", $end - $start}")" \
  "$(tr -d ' \n' <"$OUT/public.json")"

status=0
if "$CUZK" verify "$SAMPLE/verification_key.json" "$OUT/public.json" "$OUT/proof.json"; then
  echo "run: cuzk verify: valid"
else
  echo "run: cuzk verify: INVALID"; status=1
fi
if node node_modules/snarkjs/cli.js groth16 verify "$SAMPLE/verification_key.json" "$OUT/public.json" "$OUT/proof.json" >/dev/null 2>&1; then
  echo "run: snarkjs groth16 verify: valid"
else
  echo "run: snarkjs groth16 verify: INVALID"; status=1
fi
((status == 0)) && echo "run: OK: cuzk proved the sample circuit and both verifiers accept the proof" || echo "run: FAILED"
exit $status
