#!/usr/bin/env bash
# Installs what building and testing cuzk needs, skipping whatever is already there:
# the Debian packages below (apt-get, as root or through sudo), the pinned npm tools (npm ci,
# from package-lock.json, into ./node_modules) and, when no system nvcc exists, the CUDA 13.0
# compiler from the pinned PyPI wheels of scripts/cuda-requirements.txt into
# ~/.cache/cuzk/cuda-<hash>/ (outside the clone; docs/gpu.md); CUZK_CUDA=OFF skips CUDA (a build
# without the CUDA backend: run.sh on a machine with no NVIDIA GPU). Safe to rerun; prints what it does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cuda-toolkit.sh
. "$ROOT/scripts/cuda-toolkit.sh"

DEBIAN_PACKAGES=(
  cmake ninja-build ccache g++ clang libclang-rt-14-dev
  libcaf-dev libspdlog-dev libfmt-dev catch2 libtomlplusplus-dev libcli11-dev nlohmann-json3-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libgmp-dev libsqlite3-dev libcpp-httplib-dev libssl-dev iproute2
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) != "install ok installed" ]]; then
    missing+=("$p")
  fi
done
# node and npm may come from NodeSource rather than Debian: only ask apt when the commands are absent
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
# pip installs the CUDA wheels when there is no system nvcc
if [[ ${CUZK_CUDA:-AUTO} != OFF ]] && ! cuda_system_nvcc >/dev/null && ! python3 -m pip --version >/dev/null 2>&1; then
  missing+=(python3-pip)
fi

if ((${#missing[@]} > 0)); then
  echo "install-deps: apt-get install ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    SUDO=(sudo)
  fi
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: Debian packages present"
fi

# npm ci wipes and reinstalls node_modules: only run it when the lock file changed since the last one
stamp="$ROOT/node_modules/.cuzk-lock.sha256"
want=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
if [[ -f $stamp && $(cat "$stamp") == "$want" && -f $ROOT/node_modules/snarkjs/cli.js ]]; then
  echo "install-deps: node_modules up to date"
else
  echo "install-deps: npm ci"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
fi

# CUDA: a system toolkit wins; otherwise the pinned wheels, installed once per requirements file.
# pip --target makes a plain folder (no interpreter inside, so it can be renamed into place); the
# install goes to a temporary sibling and is renamed only after the checks, so a cut-off install is
# never taken for a finished one. The wheels' nvidia/cu13 tree becomes toolkit/, completed with what
# nvcc.profile and CMake's FindCUDAToolkit expect of a toolkit: lib64 -> lib (nvcc links from
# lib64), unversioned libcudart.so / libnvvm.so, and lib/stubs/libcuda.so, an empty stand-in for the
# driver library (found by find_library, never linked: the runtime is linked statically and finds
# the real driver at run time).
check_cuda_wheels() {  # check_cuda_wheels SITE TOOLKIT: the installed set is one CUDA 13.0 release
  local site=$1 tk=$2 nvcc_v want
  nvcc_v=$("$tk/bin/nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
  [[ -n $nvcc_v ]] || { echo "install-deps: $tk/bin/nvcc does not run or print its version" >&2; return 1; }
  local -A got=()
  local meta name ver
  for meta in "$site"/*.dist-info/METADATA; do
    name=$(sed -n 's/^Name: //p' "$meta" | head -1 | tr -d '\r')
    ver=$(sed -n 's/^Version: //p' "$meta" | head -1 | tr -d '\r')
    got[$name]=$ver
  done
  local bad=()
  # the compiler, its NVVM, its crt headers and the runtime: exactly nvcc's release
  for name in nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime; do
    [[ ${got[$name]:-missing} == "$nvcc_v" ]] || bad+=("$name ${got[$name]:-missing}")
  done
  # CCCL has its own build numbers: the same major.minor
  [[ ${got[nvidia-cuda-cccl]:-missing} == "${nvcc_v%.*}".* ]] || bad+=("nvidia-cuda-cccl ${got[nvidia-cuda-cccl]:-missing}")
  want=$(awk -F. '{print $1 * 1000 + $2 * 10}' <<<"$nvcc_v")
  grep -q "#define CUDART_VERSION  *$want\$" "$tk/include/cuda_runtime_api.h" || bad+=("cuda_runtime_api.h: CUDART_VERSION is not $want")
  if ((${#bad[@]} > 0)); then
    echo "install-deps: CUDA wheels do not match nvcc $nvcc_v (mixed releases give 'incompatible headers' errors): ${bad[*]}; fix scripts/cuda-requirements.txt" >&2
    return 1
  fi
  echo "install-deps: CUDA wheels consistent: nvcc, nvvm, crt, runtime $nvcc_v, cccl ${got[nvidia-cuda-cccl]}"
}

install_cuda_wheels() {
  local dir tmp t0=$SECONDS
  dir=$(cuda_wheel_dir)
  tmp="$dir.tmp.$$"
  echo "install-deps: no nvcc found: CUDA 13.0 from the pinned wheels of scripts/cuda-requirements.txt into $dir"
  rm -rf "$tmp" && mkdir -p "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip install --quiet --disable-pip-version-check --no-input --root-user-action=ignore --no-deps --only-binary=:all: \
    --require-hashes --target "$tmp/site" -r "$CUDA_REQUIREMENTS"
  local tk=$tmp/site/nvidia/cu13
  [[ -x $tk/bin/nvcc ]] || { echo "install-deps: the wheels left no nvidia/cu13/bin/nvcc in $tmp/site" >&2; return 1; }
  ln -s lib "$tk/lib64"
  ln -s libcudart.so.13 "$tk/lib/libcudart.so"
  ln -s libnvvm.so.4 "$tk/lib/libnvvm.so"
  mkdir -p "$tk/lib/stubs"
  echo 'void cuzk_libcuda_stub(void) {}' >"$tmp/stub.c"
  cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tk/lib/stubs/libcuda.so" "$tmp/stub.c"
  rm "$tmp/stub.c"
  ln -s site/nvidia/cu13 "$tmp/toolkit"
  check_cuda_wheels "$tmp/site" "$tmp/toolkit"
  cp "$CUDA_REQUIREMENTS" "$tmp/cuda-requirements.txt"
  date -u +%FT%TZ >"$tmp/.complete"
  if ! mv -T "$tmp" "$dir" 2>/dev/null; then
    # another install (a parallel CI run) got there first, or a broken leftover is in the way
    if [[ -f $dir/.complete ]]; then rm -rf "$tmp"; else rm -rf "$dir" && mv -T "$tmp" "$dir"; fi
  fi
  trap - EXIT
  echo "install-deps: CUDA toolkit ready in $((SECONDS - t0)) s: $dir/toolkit/bin/nvcc"
}

if [[ ${CUZK_CUDA:-AUTO} == OFF ]]; then
  echo "install-deps: CUDA: skipped (CUZK_CUDA=OFF)"
elif n=$(cuda_system_nvcc); then
  echo "install-deps: CUDA: system nvcc $n"
elif n=$(cuda_wheel_nvcc); then
  echo "install-deps: CUDA: pinned wheels already installed: $n"
  check_cuda_wheels "$(cuda_wheel_dir)/site" "$(cuda_wheel_dir)/toolkit"
else
  install_cuda_wheels
fi
