#!/usr/bin/env bash
# ctest fil.porep_counts: the 32 GiB PoRep partition's counts from count mode (nothing stored), against
# the figures of ../shared/notes/filecoin.md (Curio's precompiled-evaluator header): 328 inputs,
# 130,169,893 aux, 130,278,869 constraints counting the prover's one `input * 0 = 0` per input
# (fil-oracle's dumps and our constraint system leave those out: 130,278,541 + 328).
#   porep_counts.sh BUILD_DIR
set -u
out=$("$1/bin/cuzk_r1cs_compare" --count porep:32GiB) || { echo "FAIL - cuzk_r1cs_compare --count porep:32GiB"; exit 1; }
echo "$out"
read -r inputs aux constraints < <(sed -E 's/.*: ([0-9]+) inputs, ([0-9]+) aux, ([0-9]+) constraints.*/\1 \2 \3/' <<<"$out")
if [[ $inputs == 328 && $aux == 130169893 && $((constraints + inputs)) == 130278869 ]]; then
  echo "ok - 32 GiB PoRep partition: 328 inputs, 130,169,893 aux, 130,278,869 constraints with the input constraints"
else
  echo "not ok - 32 GiB PoRep counts: $inputs inputs, $aux aux, $constraints constraints"
  exit 1
fi
