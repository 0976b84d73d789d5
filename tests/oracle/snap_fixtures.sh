#!/usr/bin/env bash
# tests/oracle/snap_fixtures.sh BUILD_DIR OUTDIR [SEED]
# The SnapDeals fixtures, with BUILD_DIR/bin/fil-oracle; independent of fixtures.sh's sectors and
# proofs (none is needed: the CC sector is sealed up to pre-commit, no C2), sharing its params directory:
#   OUTDIR/params/     -> the 2 KiB update params + vk (v28-empty-sector-update-...), in fixtures.sh's
#                         ~/.cache/cuzk/fil-params/<Cargo.lock hash>/
#   OUTDIR/sector-cc/  a committed-capacity 2 KiB sector (seal --cc, miner 1000, sector id 3)
#   OUTDIR/update/     its SnapDeals update: update.json (comm_r_old, comm_r_new, comm_d_new),
#                      vanilla-0.bin (the bincode PartitionProof Curio sends), proof.bin (the oracle's
#                      proof), public-inputs.json
# Cached under ~/.cache/cuzk/oracle-fixtures/<key>-snap-s<SEED> (key: Cargo.lock, oracle sources, this
# script); OUTDIR gets symlinks. Exit 77 (skip) when fil-oracle was not built.
set -euo pipefail
BUILD=${1:?usage: snap_fixtures.sh BUILD_DIR OUTDIR [SEED]}
OUT=${2:?usage: snap_fixtures.sh BUILD_DIR OUTDIR [SEED]}
SEED=${3:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ORACLE=$BUILD/bin/fil-oracle
if [[ ! -x $ORACLE ]]; then
  echo "snap fixtures: SKIPPED: $ORACLE not built (needs cargo: scripts/build.sh BUILD_DIR fil-oracle)"
  exit 77
fi
CACHE=${CUZK_CACHE:-$HOME/.cache/cuzk}
PARAMS=$CACHE/fil-params/$(sha256sum "$HERE/Cargo.lock" | cut -c1-16)
mkdir -p "$PARAMS" "$CACHE/oracle-fixtures"
FIXKEY=$(cat "$HERE/Cargo.lock" "$HERE"/src/*.rs "$HERE/snap_fixtures.sh" | sha256sum | cut -c1-16)
FIX=$CACHE/oracle-fixtures/$FIXKEY-snap-s$SEED
say() { echo "snap fixtures: $*"; }

exec 8>"$PARAMS/.lock"
flock 8
if [[ ! -f $PARAMS/.done-update ]]; then
  say "generating 2 KiB update params into $PARAMS (minutes on 2 cores; cached afterwards)"
  "$ORACLE" params --proof update --sector-size 2KiB --cache "$PARAMS" >"$PARAMS/.params-update.json"
  touch "$PARAMS/.done-update"
fi
flock -u 8

exec 9>"$FIX.lock"
flock 9
if [[ ! -f $FIX/update/update.json ]]; then
  TMP=$FIX.tmp.$$
  rm -rf "$TMP"
  mkdir -p "$TMP"
  say "committed-capacity sector 3 and its SnapDeals update (seed $SEED)"
  "$ORACLE" seal --cc --sector-size 2KiB --seed "$SEED" --miner-id 1000 --sector-id 3 --out "$TMP/sector-cc" >/dev/null
  "$ORACLE" update --sector "$TMP/sector-cc" --seed "$SEED" --cache "$PARAMS" --out "$TMP/update" >/dev/null
  "$ORACLE" public-inputs --update "$TMP/update/update.json" >"$TMP/update/public-inputs.json"
  rm -rf "$TMP/sector-cc/parents" "$TMP/update/cache" "$TMP/update/replica"
  rm -rf "$FIX"
  mv "$TMP" "$FIX"
  say "cached in $FIX"
fi
flock -u 9
mkdir -p "$OUT"
for e in sector-cc update; do ln -sfn "$FIX/$e" "$OUT/$e"; done
ln -sfn "$PARAMS" "$OUT/params"
say "ready in $OUT"
