#!/usr/bin/env bash
# One command from a fresh clone to a running proving service: installs what is missing, builds cuzk
# and cuzk-daemon (Release, build/; the CUDA backend when the machine has an NVIDIA GPU or
# CUZK_CUDA=AUTO|ON says so), then two self-checks with build/bin/cuzk:
#  1. Filecoin, with nothing downloaded: a TEST-ONLY setup of the real 2 KiB PoRep circuit made by
#     `cuzk fil setup` (cached outside the clone by scripts/fil-test-params.sh, remade when the circuit's
#     sources change), the committed 2 KiB C1 (tests/fixtures/filecoin/oracle-2k, made by
#     filecoin-proofs) proved with `cuzk fil c2` and checked with `cuzk fil verify-seal`; files in
#     build/sample-fil/: c1.json, miner-id, params/ (a link into the cache), proof.bin, daemon.toml;
#  2. the bundled circom sample (tests/fixtures/sample, made by circom + snarkjs), proved and checked
#     by cuzk and snarkjs.
# Then runs cuzk-daemon in the foreground with build/sample-fil/daemon.toml: [filecoin] param_cache
# on those params (digests checked against their parameters.json), keys from ./keys (the circom
# sample installed as the circuit "sample"), the built-in socket that `cuzk` finds by itself (as root
# unix:///run/cuzk/cuzk.sock, else $XDG_RUNTIME_DIR/cuzk/cuzk.sock or ~/.local/state/cuzk/cuzk.sock);
# it prints the command that sends the C1 to the daemon as Curio does (`cuzk fil submit`). Ctrl-C
# stops it. RUN_DAEMON=0 skips the daemon.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")" && pwd)
cd "$ROOT"

# The CUDA backend (nvcc: minutes of compiling) only where a GPU can use it; CUZK_CUDA=AUTO or ON
# builds it anyway.
if [[ -z ${CUZK_CUDA:-} ]]; then
  if compgen -G '/dev/nvidia[0-9]*' >/dev/null; then CUZK_CUDA=AUTO; else CUZK_CUDA=OFF; fi
  [[ $CUZK_CUDA == OFF ]] && echo "run: no NVIDIA GPU (/dev/nvidia*): cuzk without the CUDA backend (CUZK_CUDA=AUTO ./run.sh builds it)"
fi
export CUZK_CUDA
scripts/install-deps.sh
# Only what run.sh runs: the unit, engine and GPU tests are ./test.sh's.
scripts/build.sh "$ROOT/build" cuzk cuzk-daemon

CUZK="$ROOT/build/bin/cuzk"
SAMPLE="$ROOT/tests/fixtures/sample"
OUT="$ROOT/build/sample-proof"
mkdir -p "$OUT"
if [[ ! -x $CUZK ]]; then
  echo "run: $CUZK was not built" >&2
  exit 1
fi

# Filecoin: TEST-ONLY params of the 2 KiB PoRep circuit (cached by a hash of the sources that make
# the circuit and the setup), the committed C1 proved and verified.
fil_start=$EPOCHREALTIME
FIL="$ROOT/build/sample-fil"
FIXTURE="$ROOT/tests/fixtures/filecoin/oracle-2k"
MINER=1000
mkdir -p "$FIL"
cp -f "$FIXTURE/c1.json" "$FIL/c1.json"
echo "$MINER" >"$FIL/miner-id"
params() { PARAMS=$("$ROOT/scripts/fil-test-params.sh" "$CUZK" 11 StackedDrg2KiBV1_1 "$@"); }
c2() { "$CUZK" fil c2 --c1 "$FIL/c1.json" --miner-id "$MINER" --params-dir "$FIL/params" --out "$FIL/proof.bin"; }
echo "run: TEST-ONLY parameters of the 2 KiB PoRep circuit (made by cuzk fil setup once per version of the code)"
params
ln -sfn "$PARAMS" "$FIL/params"
echo "run: proving the committed 2 KiB C1 (miner $MINER, sector 1) with cuzk fil c2"
if ! c2; then
  echo "run: the cached parameters did not prove it: making them again"
  params --remake
  c2
fi
status=0
if "$CUZK" fil verify-seal --c1 "$FIL/c1.json" --miner-id "$MINER" --proof "$FIL/proof.bin" --params-dir "$FIL/params" >/dev/null; then
  printf 'run: OK: cuzk fil verify-seal accepted the 2 KiB PoRep proof in %s (Filecoin part %s s)\n' "$FIL/proof.bin" \
    "$(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $fil_start}")"
else
  echo "run: cuzk fil verify-seal: the 2 KiB PoRep proof was NOT accepted"; status=1
fi

echo "run: proving tests/fixtures/sample (circom; sample.zkey + sample.wtns) with cuzk"
start=$EPOCHREALTIME
"$CUZK" prove "$SAMPLE/sample.zkey" "$SAMPLE/sample.wtns" "$OUT/proof.json" "$OUT/public.json" --compressed "$OUT/proof.bin"
end=$EPOCHREALTIME
printf 'run: proof written to %s (%s s); public signals: %s\n' "$OUT/proof.json" "$(awk "BEGIN{printf \"%.2f\", $end - $start}")" \
  "$(tr -d ' \n' <"$OUT/public.json")"

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
((status == 0)) && echo "run: OK: cuzk proved the 2 KiB PoRep and the circom sample; every verifier accepts the proofs" || echo "run: FAILED"
((status == 0)) || exit $status
[[ ${RUN_DAEMON:-1} == 1 ]] || exit 0

mkdir -p "$ROOT/keys"
cp -f "$SAMPLE/sample.zkey" "$ROOT/keys/sample.zkey"
cat >"$FIL/daemon.toml" <<EOF
# run.sh's daemon: everything at its default but the Filecoin parameters, the TEST-ONLY 2 KiB params.
[filecoin]
param_cache = "$FIL/params"
verify_params = true
EOF
echo "run: starting cuzk-daemon (build/sample-fil/daemon.toml: Filecoin params from build/sample-fil/params;"
echo "     circuit 'sample' from ./keys). In another shell, a 2 KiB PoRep C2 sent as Curio sends it:"
echo "       build/bin/cuzk fil submit --c1 build/sample-fil/c1.json --miner-id $MINER --out /tmp/sample-fil-out"
echo "     then: build/bin/cuzk fil verify-seal --c1 build/sample-fil/c1.json --miner-id $MINER \\"
echo "             --proof /tmp/sample-fil-out/proof.bin --params-dir build/sample-fil/params"
echo "     circom: build/bin/cuzk prove --circuit sample --witness tests/fixtures/sample/sample.wtns --out /tmp/sample-out"
echo "     build/bin/cuzk status"
exec "$ROOT/build/bin/cuzk-daemon" --config "$FIL/daemon.toml"
