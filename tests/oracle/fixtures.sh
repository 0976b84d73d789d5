#!/usr/bin/env bash
# tests/oracle/fixtures.sh BUILD_DIR OUTDIR [SEED]
# Makes the Filecoin fixtures other tests compare against, with BUILD_DIR/bin/fil-oracle:
#   OUTDIR/params/          -> 2 KiB Groth16 params + vks for porep, window-post, winning-post
#                              (Filecoin file names; use it as FIL_PROOFS_PARAMETER_CACHE / --cache)
#   OUTDIR/sector-1/, sector-2/  sealed 2 KiB sectors (miner 1000, sector ids 1 and 2):
#                              c1.json (Curio's wrapper), sector.json, proof.bin (the oracle's C2),
#                              public-inputs.json, sealed + cache/ (for PoSt)
#   OUTDIR/window/, winning/   post.json, vanilla-*.bin (bincode FallbackPoStSectorProof as Curio
#                              sends them), proof.bin, public-inputs.json
#   OUTDIR/manifest.json       what was made, with which seed and Cargo.lock
# Everything is cached under ~/.cache/cuzk/ (CUZK_CACHE): params by the oracle's Cargo.lock hash
# (fil-params/<hash>/), the rest by Cargo.lock + oracle sources + SEED (oracle-fixtures/<key>/);
# OUTDIR gets symlinks. Exit 77 (skip) when fil-oracle was not built (no cargo).
set -euo pipefail
BUILD=${1:?usage: fixtures.sh BUILD_DIR OUTDIR [SEED]}
OUT=${2:?usage: fixtures.sh BUILD_DIR OUTDIR [SEED]}
SEED=${3:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ORACLE=$BUILD/bin/fil-oracle
if [[ ! -x $ORACLE ]]; then
  echo "oracle fixtures: SKIPPED: $ORACLE not built (needs cargo: scripts/build.sh BUILD_DIR fil-oracle)"
  exit 77
fi
CACHE=${CUZK_CACHE:-$HOME/.cache/cuzk}
LOCKHASH=$(sha256sum "$HERE/Cargo.lock" | cut -c1-16)
FIXKEY=$(cat "$HERE/Cargo.lock" "$HERE"/src/*.rs "$HERE/fixtures.sh" | sha256sum | cut -c1-16)
PARAMS=$CACHE/fil-params/$LOCKHASH
FIX=$CACHE/oracle-fixtures/$FIXKEY-s$SEED
MINER=1000
mkdir -p "$PARAMS" "$CACHE/oracle-fixtures"

say() { echo "oracle fixtures: $*"; }
timed() {  # timed LABEL CMD...: runs it, records seconds in $TIMES
  local label=$1 t0=$EPOCHREALTIME
  shift
  "$@"
  TIMES+=("\"$label\": $(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $t0}")")
}
TIMES=()

# Params: one writer at a time (another test run or engineer may be generating them).
exec 8>"$PARAMS/.lock"
flock 8
for p in porep window-post winning-post; do
  if [[ ! -f $PARAMS/.done-$p ]]; then
    say "generating 2 KiB $p params into $PARAMS (minutes on 2 cores; cached afterwards)"
    timed "params_$p" "$ORACLE" params --proof "$p" --sector-size 2KiB --cache "$PARAMS" >"$PARAMS/.params-$p.json"
    touch "$PARAMS/.done-$p"
  fi
done
flock -u 8

exec 9>"$FIX.lock"
flock 9
if [[ ! -f $FIX/manifest.json ]]; then
  TMP=$FIX.tmp.$$
  rm -rf "$TMP"
  mkdir -p "$TMP"
  ln -s "$PARAMS" "$TMP/params"
  for n in 1 2; do
    d=$TMP/sector-$n
    say "sealing 2 KiB sector $n (seed $((SEED + n - 1)))"
    timed "seal_$n" "$ORACLE" seal --sector-size 2KiB --seed $((SEED + n - 1)) --miner-id $MINER --sector-id "$n" --out "$d" >/dev/null
    say "C2 of sector $n"
    timed "c2_$n" "$ORACLE" c2 --c1 "$d/c1.json" --miner-id $MINER --cache "$PARAMS" --out "$d/proof.bin" >/dev/null
    "$ORACLE" verify-seal --c1 "$d/c1.json" --miner-id $MINER --proof "$d/proof.bin" --cache "$PARAMS" >/dev/null
    "$ORACLE" public-inputs --c1 "$d/c1.json" --miner-id $MINER >"$d/public-inputs.json"
    rm -rf "$d/parents"
  done
  for kind in window winning; do
    say "$kind PoSt over sectors 1 and 2"
    timed "post_$kind" "$ORACLE" post --kind $kind --sectors "$TMP/sector-1,$TMP/sector-2" --miner-id $MINER \
      --cache "$PARAMS" --seed "$SEED" --out "$TMP/$kind" >/dev/null
    "$ORACLE" public-inputs --post "$TMP/$kind/post.json" >"$TMP/$kind/public-inputs.json"
  done
  cat >"$TMP/manifest.json" <<EOF
{"seed": $SEED, "miner_id": $MINER, "sector_size": 2048, "cargo_lock": "$LOCKHASH",
 "params": "params", "sectors": ["sector-1", "sector-2"], "post": ["window", "winning"],
 "seconds": {$(IFS=,; echo "${TIMES[*]}")}}
EOF
  rm -f "$TMP/params"
  rm -rf "$FIX"
  mv "$TMP" "$FIX"
  say "cached in $FIX"
else
  say "cached: $FIX"
fi
flock -u 9

mkdir -p "$OUT"
for e in sector-1 sector-2 window winning manifest.json; do
  ln -sfn "$FIX/$e" "$OUT/$e"
done
ln -sfn "$PARAMS" "$OUT/params"
say "ready in $OUT"
