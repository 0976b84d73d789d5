#!/usr/bin/env bash
# The first-proof-after-open rows (device_check.sh's first24_* alone, in one device call of
# at most 360 s): the [bellperson] GPU tests first, then a 2^24 chain key in both forms and `cuzk
# prove --timings` of each in a fresh process: three warm runs each, alternating (the files were just
# written: in the page cache), then one cold run each (page cache dropped) while the time lasts;
# one table line per run, then the medians of the warm runs.
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests chain_circuit
#          /work/shared/tools/device-bundle -o /tmp/devb build/bin/{cuzk,cuzk_gpu_tests,chain_circuit}
#          cp gpu/tools/device_{first_proof,lib}.sh /tmp/devb/ && mkdir -p .device/NAME &&
#          tar -C /tmp/devb -cJf .device/NAME/payload.tar.xz .
#   run(command="cd .device/NAME && tar -xJf payload.tar.xz && bash device_first_proof.sh", carry=[".device/NAME"])
# Dry run on a small key here (no GPU: the proofs fail, the script runs through):
#   LOG=12 BUDGET=120 RUN=/tmp/devb/run OUT=/tmp/out-dry bash gpu/tools/device_first_proof.sh
cd "$(dirname "$0")"
export OUT=${OUT:-/tmp/out}
. ./device_lib.sh
R=${RUN:-./run}  # the bundle's launcher (device-bundle); RUN to use another
LOG=${LOG:-24}
BUDGET=${BUDGET:-350}  # seconds this script may take in all
TIMEFORMAT="%R %U %S"
T0=$SECONDS
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
dev_header
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag); cores $(nproc); mem $(free -g | awk '/Mem/{print $2}') GiB" | tee -a "$S"
timeout 90 $R cuzk_gpu_tests "[bellperson]" >"$L/tests.log" 2>&1
echo "tests [bellperson] rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"
grep -E "test cases|assertions|FAILED|with expansion|SKIP" "$L/tests.log" | head -8 | tee -a "$S"
D=${D:-/tmp/check}; mkdir -p "$D"; c=$D/c$LOG
$R chain_circuit $(((1 << LOG) - 3)) "$c.r1cs" "$c.wtns" "$LOG" >"$L/gen.log" 2>&1
# The two setups at once (their serial stretches overlap: 210 s one after the other in the last call).
{ $R cuzk setup "$c.r1cs" "$c.zkey" --seed "$LOG" >"$L/setup_zkey.log" 2>&1; echo "setup zkey rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"; } &
{ $R cuzk setup "$c.r1cs" "$c.params" --format bellperson --seed "$LOG" >"$L/setup_bp.log" 2>&1; echo "setup params rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"; } &
wait
ls -la "$D" >>"$S"
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || echo "(drop_caches refused)" | tee -a "$S"; }
WALLS=$OUT/walls.txt; : >"$WALLS"
one() {  # one NAME warm|cold
  local name=$1 state=$2 log=$L/$1-$2-$SECONDS.log rc
  [[ $state == cold ]] && drop
  if [[ $name == snarkjs ]]; then
    { time timeout 60 $R cuzk prove --backend cuda --timings "$c.zkey" "$c.wtns" "$D/p.json" "$D/pub.json" >"$log" 2>&1; } 2>"$log.time"
    rc=$?
  else
    { time timeout 60 $R cuzk prove --backend cuda --timings --params "$c.params" --r1cs "$c.r1cs" "$c.wtns" "$D/b.bin" "$D/bpub.json" >"$log" 2>&1; } 2>"$log.time"
    rc=$?
  fi
  read -r wall us sy <"$log.time"
  echo "$name $state $rc $wall" >>"$WALLS"
  echo "| $name | $state | rc=$rc | wall $wall | user $us | sys $sy | $(grep -E '^load stages|^timings|^error' "$log" | tr '\n' ' ')" | tee -a "$S"
}
# Each run takes ~8-10 s warm, ~16 s cold at 2^24: stop starting runs when they may not finish.
for round in 1 2 3; do
  for f in snarkjs bellperson; do (( SECONDS - T0 > BUDGET - 20 )) || one $f warm; done
done
for f in snarkjs bellperson; do (( SECONDS - T0 > BUDGET - 30 )) || one $f cold; done
$R cuzk verify --vk "$c.vk" --public "$D/bpub.json" --proof "$D/b.bin" >>"$S" 2>&1
echo "verify bellperson proof rc=$?" | tee -a "$S"
for f in snarkjs bellperson; do
  echo "median warm wall $f (rc 0 runs): $(awk -v f=$f '$1==f && $2=="warm" && $3==0 {print $4}' "$WALLS" | sort -n |
    awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)] " s of " NR; else print "none"}')" | tee -a "$S"
done
rm -rf "$D"
dev_finish
