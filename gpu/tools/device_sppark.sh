#!/usr/bin/env bash
# sppark and cuzk side by side on the GPU, in one device-tool call: first the
# check that both compute the same thing (sppark_bench --dump at 2^20, then cuzk_sppark_check
# computes the same on cuzk's GPU and CPU paths), then sppark's G1/G2 MSM and NTT figures
# (bench/sppark: resident points with device scalars, the stock host call, natural-order NTT on
# device data), then cuzk's (`cuzk bench msm` / `cuzk bench ntt`, same sizes, inputs of the same
# kind), and last one table "primitive | size | sppark | cuzk | cuzk/sppark" (medians, ms).
# Logs go to $OUT/logs.tar; steps are cut short when BUDGET is nearly spent (their rows so far stay).
#
#   here (the dev machine, a worktree of the tree to measure):
#     bash gpu/tools/device_sppark.sh pack /work/main/.device/sppark
#                            # builds cuzk, cuzk_sppark_check, sppark_bench in this checkout and bundles
#                            # them into DIR/payload.tar.xz (default DIR: this checkout's .device/sppark)
#   device (the run tool sends /work/main's checkout plus the carried folder):
#     run(command="bash gpu/tools/device_sppark.sh", carry=[".device/sppark"], timeout_s=...)
#
# Environment (device side): BUDGET seconds for the whole script (default 140: a call of 150 s);
# G1, G2, NTT: comma-separated log sizes (defaults 20,24,26 / 20,24 / 20,24,26,27; the full
# reference set is 20,24,26,27 for each, which needs a budget of about 400); MODES: sppark's MSM modes
# (resident,stock; add host for resident points with host scalars); REPS, WARMUP (5, 1);
# CHECK_LOG (20); SHIFTED=1: cuzk's G1 resident rows on its shifted bases too; SPB_DIR (.device/sppark).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=${SPB_DIR:-$ROOT/.device/sppark}

if [[ ${1:-} == pack ]]; then
  set -e
  D=${2:-$D}
  cd "$ROOT"
  scripts/build.sh build cuzk cuzk_sppark_check
  bench/sppark/build.sh build
  rm -rf /tmp/devb-sppark-pack
  /work/shared/tools/device-bundle -o /tmp/devb-sppark-pack build/bin/{cuzk,cuzk_sppark_check,sppark_bench}
  git -C "$ROOT" log -1 --format='commit %h %s' >/tmp/devb-sppark-pack/files/commit.txt
  mkdir -p "$D"
  tar -C /tmp/devb-sppark-pack -cJf "$D/payload.tar.xz" .
  rm -rf /tmp/devb-sppark-pack
  du -sh "$D" | awk '{print "device_sppark.sh pack: " $1 " in " $2}'
  exit 0
fi

OUT=${OUT:-/tmp/out}
L=$OUT/logs
S=$OUT/summary.txt
BUDGET=${BUDGET:-140}
G1=${G1:-20,24,26}
G2=${G2:-20,24}
NTT=${NTT:-20,24,26,27}
MODES=${MODES:-resident,stock}
REPS=${REPS:-5}
WARMUP=${WARMUP:-1}
CHECK_LOG=${CHECK_LOG:-20}
mkdir -p "$L"
: >"$S"
if [[ ! -x $D/run ]]; then
  [[ -f $D/payload.tar.xz ]] || { echo "device_sppark.sh: no $D/payload.tar.xz (run 'bash gpu/tools/device_sppark.sh pack' here first)" >&2; exit 2; }
  tar -C "$D" -xJf "$D/payload.tar.xz"
fi
R=$D/run

# step NAME LIMIT CMD...: CMD into $L/NAME.log for LIMIT seconds at most (less when the budget is
# nearly spent; skipped below 5 s); rc and time to the summary.
step() {
  local name=$1 lim=$2 t=$SECONDS rc
  shift 2
  if ((SECONDS + lim > BUDGET)); then lim=$((BUDGET - SECONDS)); fi
  if ((lim < 5)); then
    echo "$name skipped (budget)" | tee -a "$S"
    return 0
  fi
  timeout "$lim" "$@" >"$L/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc ($((SECONDS - t)) s)$( ((rc == 124)) && echo ' cut short by the budget')" | tee -a "$S"
  grep -E "MISMATCH|error|FAILED" "$L/$name.log" | head -5 | tee -a "$S"
  return 0
}

date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
[[ -f $D/files/commit.txt ]] && tee -a "$S" <"$D/files/commit.txt"

# 1. Same inputs, same results (2^CHECK_LOG): sppark's three ways must agree (sppark_bench checks),
#    and cuzk's GPU and CPU paths must give sppark's point and vectors.
T=$(mktemp -d)
step check_sppark 40 "$R" sppark_bench --dump "$T/dump" --dump-log "$CHECK_LOG" --modes "$MODES,host"
step check_cuzk 40 "$R" cuzk_sppark_check "$T/dump" --backend both
grep -E "^\| (msm|ntt)" "$L/check_cuzk.log" | tee -a "$S"
rm -rf "$T"

# 2. sppark's figures, then cuzk's (each process times its sizes in turn; rows are printed as they come).
step sppark $((BUDGET * 45 / 100)) "$R" sppark_bench --msm-g1 "$G1" --msm-g2 "$G2" --ntt "$NTT" --modes "$MODES" --reps "$REPS" --warmup "$WARMUP"
step cuzk_ntt 60 "$R" cuzk bench ntt --log-size "$NTT" --reps "$REPS" --warmup "$WARMUP"
step cuzk_g1_resident 90 "$R" cuzk bench msm --curve g1 --log-size "$G1" --resident ${SHIFTED:+--shifted} --reps "$REPS" --warmup "$WARMUP"
step cuzk_g2_resident 90 "$R" cuzk bench msm --curve g2 --log-size "$G2" --resident --reps "$REPS" --warmup "$WARMUP"
# from the host last: the least important rows go first when the budget runs out
if [[ ,$MODES, == *,stock,* ]]; then
  step cuzk_g1_host 90 "$R" cuzk bench msm --curve g1 --log-size "$G1" --reps "$REPS" --warmup "$WARMUP"
  step cuzk_g2_host 90 "$R" cuzk bench msm --curve g2 --log-size "$G2" --reps "$REPS" --warmup "$WARMUP"
fi

# 3. The table: sppark's TSV rows against cuzk's table rows, matched by primitive and size.
{
  echo "== sppark | cuzk (median ms, $REPS runs after $WARMUP warm-up; cuzk's check column: its own result check)"
  echo "| primitive | size | sppark | cuzk | cuzk/sppark |"
  echo "|---|---|---|---|---|"
  cat "$L"/cuzk_*.log 2>/dev/null | awk -v spf="$L/sppark.log" '
    # cuzk rows: "| msm g1 2^24 random resident | 158.1 | 157.0 | ok |", "| ntt 2^24 natural order (inverse: median 5.1 ms) | 5.9 | ... |"
    /^\| msm g[12] 2\^[0-9]+ random (resident|host-scalars|pinned-host-scalars) \|/ {
      split($0, f, "|"); split(f[2], w, " "); c = w[2]; l = substr(w[3], 3); mode = w[5]
      key = (mode == "resident" ? "resident" : mode == "host-scalars" ? "host" : "pinned")
      cz[c " " key " " l] = f[3] + 0; ck[c " " key " " l] = f[5]; next
    }
    /^\| msm g[12] 2\^[0-9]+ random resident shifted / {
      split($0, f, "|"); split(f[2], w, " "); c = w[2]; l = substr(w[3], 3)
      cz[c " shifted " l] = f[3] + 0; ck[c " shifted " l] = f[5]; next
    }
    /^\| ntt 2\^[0-9]+ natural order/ {
      split($0, f, "|"); split(f[2], w, " "); l = substr(w[2], 3)
      match(f[2], /median [0-9.]+/); inv = substr(f[2], RSTART + 7, RLENGTH - 7)
      cz["ntt fwd " l] = f[3] + 0; cz["ntt inv " l] = inv + 0; ck["ntt fwd " l] = f[5]; next
    }
    END {
      while ((getline line < spf) > 0) {
        n = split(line, t, "\t"); if (n < 7 || t[1] != "sppark") continue
        p = t[2]; l = t[3]; ms = t[4] + 0
        if (p ~ /^msm_g[12] resident$/) { c = substr(p, 5, 2); k = c " resident " l; name = toupper(c) " MSM, resident bases + scalars" }
        else if (p ~ /^msm_g[12] stock/) { c = substr(p, 5, 2); k = c " host " l; name = toupper(c) " MSM, from host (sppark stock call; cuzk pageable)" }
        else if (p ~ /^msm_g[12] resident-points host-scalars/) { c = substr(p, 5, 2); k = ""; name = toupper(c) " MSM, resident bases, host scalars" }
        else if (p == "ntt forward natural") { k = "ntt fwd " l; name = "NTT forward, natural order, device data" }
        else if (p == "ntt inverse natural") { k = "ntt inv " l; name = "NTT inverse, natural order, device data" }
        else continue
        if (t[7] == "ERROR" || ms <= 0) { printf "| %s | 2^%s | ERROR (sppark.log) | %s | - |\n", name, l, (k in cz) ? sprintf("%.2f", cz[k]) : "-"; continue }
        bad = (t[7] == "MISMATCH") ? " (sppark modes MISMATCH)" : ""
        if (k != "" && (k in cz)) {
          if (ck[k] ~ /MISMATCH/) bad = bad " (cuzk MISMATCH)"
          printf "| %s | 2^%s | %.2f | %.2f | %.2f%s |\n", name, l, ms, cz[k], cz[k] / ms, bad
        } else printf "| %s | 2^%s | %.2f | - | -%s |\n", name, l, ms, bad
        s = c " shifted " l
        if (k ~ / resident / && (s in cz)) {
          bad = (ck[s] ~ /MISMATCH/) ? " (cuzk MISMATCH)" : ""
          printf "| %s MSM, resident; cuzk on its shifted bases | 2^%s | %.2f | %.2f | %.2f%s |\n", toupper(c), l, ms, cz[s], cz[s] / ms, bad
        }
      }
    }'
} >"$L/table.txt"
cp "$L/table.txt" "$OUT/table.txt"
# the logs as one tar (the device tool brings back only a few files)
tar -C "$OUT" -cf "$OUT/logs.tar" logs && rm -rf "$L"
echo "== summary"
cat "$S"
cat "$OUT/table.txt"
