#!/usr/bin/env bash
# Issue 16's first-proof-after-open rows (device_check.sh's first24_* alone, in one device call of
# 300 s): the [bellperson] GPU tests first, then a 2^24 chain key in both forms and `cuzk prove
# --timings` of each in a fresh process, warm (files just written) then cold (page cache dropped)
# while the time lasts; one table line per run.
#   here:  scripts/build.sh build cuzk cuzk_gpu_tests chain_circuit
#          /work/shared/tools/device-bundle -o /tmp/devb build/bin/{cuzk,cuzk_gpu_tests,chain_circuit}
#          cp gpu/tools/device_{first_proof,lib}.sh /tmp/devb/ && mkdir -p .device/NAME &&
#          tar -C /tmp/devb -cJf .device/NAME/payload.tar.xz .
#   run(command="cd .device/NAME && tar -xJf payload.tar.xz && bash device_first_proof.sh", carry=[".device/NAME"])
cd "$(dirname "$0")"
export OUT=${OUT:-/tmp/out}
. ./device_lib.sh
R=./run
TIMEFORMAT="%R %U %S"
T0=$SECONDS
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
dev_header
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag); cores $(nproc); mem $(free -g | awk '/Mem/{print $2}') GiB" | tee -a "$S"
timeout 90 $R cuzk_gpu_tests "[bellperson]" >"$L/tests.log" 2>&1
echo "tests [bellperson] rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"
grep -E "test cases|assertions|FAILED|with expansion" "$L/tests.log" | head -8 | tee -a "$S"
D=/tmp/check; mkdir -p $D; c=$D/c24
$R chain_circuit $(((1 << 24) - 3)) "$c.r1cs" "$c.wtns" 24 >"$L/gen.log" 2>&1
$R cuzk setup "$c.r1cs" "$c.zkey" --seed 24 >"$L/setup_zkey.log" 2>&1; echo "setup zkey rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"
$R cuzk setup "$c.r1cs" "$c.params" --format bellperson --seed 24 >"$L/setup_bp.log" 2>&1; echo "setup params rc=$? ($((SECONDS - T0)) s)" | tee -a "$S"
ls -la $D >>"$S"
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || echo "(drop_caches refused)"; }
one() {  # one NAME COLD
  local name=$1 cold=$2 log=$L/$1-$2-$SECONDS.log
  [[ $cold == cold ]] && drop
  local rc
  if [[ $name == snarkjs* ]]; then
    { time timeout 60 $R cuzk prove --backend cuda --timings "$c.zkey" "$c.wtns" $D/p.json $D/pub.json >"$log" 2>&1; } 2>"$log.time"
    rc=$?
  else
    { time timeout 60 $R cuzk prove --backend cuda --timings --params "$c.params" --r1cs "$c.r1cs" "$c.wtns" $D/b.bin $D/bpub.json >"$log" 2>&1; } 2>"$log.time"
    rc=$?
  fi
  read -r wall us sy <"$log.time"
  echo "| $name | $cold | rc=$rc | wall $wall | user $us | sys $sy | $(grep -E '^load stages|^timings' "$log" | tr '\n' ' ')" | tee -a "$S"
}
# Warm first (the files were just written: in the page cache), then cold while the time lasts.
for f in snarkjs bellperson; do (( SECONDS - T0 > 262 )) || one $f warm; done
for round in 1 2 3; do
  for f in snarkjs bellperson; do
    (( SECONDS - T0 > 245 )) && break 2
    one $f cold
  done
done
$R cuzk verify --vk "$c.vk" --public $D/bpub.json --proof $D/b.bin >>"$S" 2>&1
rm -rf $D
dev_finish
