#!/usr/bin/env bash
# One command from a fresh clone to a running proving service: installs what is missing, builds cuzk
# (Release, build/), proves the bundled sample circuit (tests/fixtures/sample, made by circom +
# snarkjs) once with build/bin/cuzk as a self-check, then runs cuzk-daemon in the foreground with its
# built-in defaults (a private socket that `cuzk` finds by itself: as root unix:///run/cuzk/cuzk.sock,
# else $XDG_RUNTIME_DIR/cuzk/cuzk.sock or ~/.local/state/cuzk/cuzk.sock; keys from ./keys, where the
# sample key is installed as the circuit "sample"). Ctrl-C stops it. RUN_DAEMON=0 skips the daemon.
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
((status == 0)) || exit $status
[[ ${RUN_DAEMON:-1} == 1 ]] || exit 0

mkdir -p "$ROOT/keys"
cp -f "$SAMPLE/sample.zkey" "$ROOT/keys/sample.zkey"
echo "run: starting cuzk-daemon with built-in defaults (circuit 'sample' from ./keys); in another shell:"
echo "       build/bin/cuzk prove --circuit sample --witness tests/fixtures/sample/sample.wtns --out /tmp/sample-out"
echo "       build/bin/cuzk status"
exec "$ROOT/build/bin/cuzk-daemon"
