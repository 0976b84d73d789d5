#!/usr/bin/env bash
# ctest fil.snap_counts: the SnapDeals (EmptySectorUpdate) partition's constraint counts from count mode
# (the blank circuit, nothing stored) against storage-proofs-update's own tests: 1,705,039 at 2 KiB and
# 81,049,499 per partition at 32 GiB (16 partitions of 86 challenges); 5 inputs (ONE,
# k_and_h_select, comm_r_old, comm_d_new, comm_r_new).   snap_counts.sh BUILD_DIR
set -u
fail=0
for want in 2KiB:1705039 32GiB:81049499; do
  size=${want%%:*} n=${want#*:}
  out=$("$1/bin/cuzk_r1cs_compare" --count "update:$size") || { echo "FAIL - cuzk_r1cs_compare --count update:$size"; fail=1; continue; }
  echo "$out"
  read -r inputs constraints < <(sed -E 's/.*: ([0-9]+) inputs, [0-9]+ aux, ([0-9]+) constraints.*/\1 \2/' <<<"$out")
  if [[ $inputs == 5 && $constraints == "$n" ]]; then echo "ok - $size SnapDeals partition: 5 inputs, $n constraints"
  else echo "not ok - $size SnapDeals counts: $inputs inputs, $constraints constraints (expected 5, $n)"; fail=1; fi
done
exit $fail
