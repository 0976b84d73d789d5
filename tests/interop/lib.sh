# Shared by the interop tests (sourced, not run). Every test is called by ctest as
#   bash tests/interop/<test>.sh SOURCE_DIR BUILD_DIR [CIRCUIT]
# and prints one "ok"/"FAIL" line per check; any failure ends the test with exit 1.
set -euo pipefail
shopt -s inherit_errexit

SRC=$(cd "${1:?usage: $0 SOURCE_DIR BUILD_DIR [CIRCUIT]}" && pwd)
BUILD=$(cd "${2:?usage: $0 SOURCE_DIR BUILD_DIR [CIRCUIT]}" && pwd)
CUZK="$BUILD/bin/cuzk"
WORK="${CUZK_INTEROP_WORK:-$BUILD/tests/interop/work}"   # override to share one cache between build dirs
PTAU="$SRC/tests/fixtures/ptau/pot11_bls12381.ptau"
TOOLS="node $SRC/tests/interop/tools.js"
mkdir -p "$WORK"

# snarkjs and circom from the pinned node_modules; quiet unless they fail.
snarkjs() { node "$SRC/node_modules/snarkjs/cli.js" "$@"; }
# circom2 runs under WASI and turns every path into one relative to the working directory: paths
# with "../" cannot be opened there, so it always runs from the source tree (build dirs are inside).
circom() { (cd "$SRC" && node "$SRC/node_modules/circom2/cli.js" "$@"); }
quiet() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    echo "command failed: $*" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

FAILURES=0
ok() { echo "ok   - $*"; }
not_ok() { echo "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
finish() {
  if ((FAILURES > 0)); then
    echo "$FAILURES check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}

require_cuzk() {
  if [[ ! -x "$CUZK" ]]; then
    echo "FAIL - $CUZK does not exist (the cuzk CLI is not built yet)"
    exit 1
  fi
}

# expect_exit CODE DESCRIPTION CMD...: runs CMD, checks its exit status. For exit 2 (unusable input)
# it also checks that the program explained itself in exactly one non-empty line on stderr.
expect_exit() {
  local want=$1 what=$2
  shift 2
  local err rc=0
  err=$(mktemp)
  "$@" >/dev/null 2>"$err" || rc=$?
  if [[ $rc -ne $want ]]; then
    not_ok "$what: exit $rc, expected $want ($(head -c 300 "$err" | tr '\n' ' '))"
  elif [[ $want -eq 2 ]]; then
    local lines
    lines=$(grep -c . "$err" || true)
    if [[ $lines -ne 1 ]]; then
      not_ok "$what: exit 2 but $lines stderr lines, expected exactly one: $(head -c 300 "$err" | tr '\n' '|')"
    else
      ok "$what (exit 2: $(head -c 160 "$err"))"
    fi
  else
    ok "$what (exit $rc)"
  fi
  rm -f "$err"
}

# expect_reject DESCRIPTION CMD...: exit 1 (invalid) or 2 (unusable) are both acceptable answers,
# for inputs where the two readings are equally defensible; a crash or an acceptance is not.
expect_reject() {
  local what=$1 rc=0
  shift
  "$@" >/dev/null 2>&1 || rc=$?
  if [[ $rc -eq 1 || $rc -eq 2 ]]; then ok "$what (exit $rc)"; else not_ok "$what: exit $rc, expected 1 or 2"; fi
}

# snarkjs_verify_is EXPECTED(0|1) DESCRIPTION VK PUBLIC PROOF
snarkjs_verify_is() {
  local want=$1 what=$2 rc=0
  snarkjs groth16 verify "$3" "$4" "$5" >/dev/null 2>&1 || rc=$?
  if [[ $rc -eq $want ]]; then ok "$what (snarkjs exit $rc)"; else not_ok "$what: snarkjs verify exit $rc, expected $want"; fi
}

# circuit_dir NAME: prints the directory holding NAME's snarkjs-made artifacts, building them if
# needed: NAME.r1cs, NAME.wtns, NAME.zkey (groth16 setup on the committed ptau + one contribution,
# so delta != generator), vk.json, proof.json, public.json. Cached under WORK by a hash of
# everything that goes into them, so a rerun costs nothing. "sample" is the committed fixture.
circuit_dir() {
  local name=$1
  if [[ $name == sample ]]; then
    local d="$WORK/sample"
    mkdir -p "$d"
    local f="$SRC/tests/fixtures/sample" src dst
    # Tests run in parallel and read these while another test calls circuit_dir: a file already
    # equal is left alone, and a new one replaces it by rename (a cp -f over it would truncate
    # it under a reader, which then sees 0 bytes).
    for src in sample.r1cs:sample.r1cs sample.wtns:sample.wtns sample.zkey:sample.zkey \
      verification_key.json:vk.json proof.json:proof.json public.json:public.json; do
      dst=${src#*:} src=${src%%:*}
      cmp -s "$f/$src" "$d/$dst" && continue
      cp -f "$f/$src" "$d/$dst.$$" && mv -f "$d/$dst.$$" "$d/$dst"
    done
    echo "$d"
    return
  fi
  local circ="$SRC/tests/interop/circuits/$name.circom" input="$SRC/tests/interop/circuits/$name.input.json"
  [[ -f $circ && -f $input ]] || { echo "no circuit $circ / $input" >&2; return 1; }
  local hash
  hash=$(cat "$circ" "$input" "$PTAU" "$SRC/package-lock.json" | sha256sum | cut -c1-16)
  local d="$WORK/$name-$hash"
  (
    flock 9
    if [[ ! -f "$d/done" ]]; then
      # Explicit "|| exit 1": this runs inside $(...) in an `if`, where bash ignores set -e, and a
      # half-made directory must never be marked done.
      rm -rf "$d" && mkdir -p "$d" || exit 1
      quiet circom "$circ" --r1cs --wasm --prime bls12381 -l "$SRC/node_modules" -l "$SRC/tests/interop/circuits" -o "$d" ||
        quiet circom "$circ" --r1cs --wasm --prime bls12381 -l "$SRC/node_modules" -l "$SRC/tests/interop/circuits" -o "$d" ||
        exit 1
      quiet node "$d/${name}_js/generate_witness.js" "$d/${name}_js/$name.wasm" "$input" "$d/$name.wtns" || exit 1
      quiet snarkjs groth16 setup "$d/$name.r1cs" "$PTAU" "$d/${name}_0.zkey" || exit 1
      quiet snarkjs zkey contribute "$d/${name}_0.zkey" "$d/$name.zkey" --name=interop -e="interop $name $hash" || exit 1
      rm -f "$d/${name}_0.zkey"
      quiet snarkjs zkey export verificationkey "$d/$name.zkey" "$d/vk.json" || exit 1
      quiet snarkjs groth16 prove "$d/$name.zkey" "$d/$name.wtns" "$d/proof.json" "$d/public.json" || exit 1
      quiet snarkjs groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" || exit 1
      touch "$d/done"
    fi
  ) 9>"$WORK/.$name.lock" >&2 || return 1
  echo "$d"
}

ALL_CIRCUITS="sample multi_io no_public one_constraint boolean_heavy"
