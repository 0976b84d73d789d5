#!/usr/bin/env bash
# Configures and builds cuzk with CMake + Ninja (+ ccache when installed).
#   scripts/build.sh [BUILD_DIR] [TARGET...]       default: build/, every target, Release
#   scripts/build.sh BUILD_DIR --configure-only
# Environment: JOBS (default: the number of cores), BUILD_TYPE (default Release), CUZK_CUDA (AUTO,
# the default: the CUDA backend when nvcc is found; ON; OFF), CMAKE_ARGS (extra, last).
# CUDA: a system nvcc (PATH, /usr/local/cuda) is found by CMake itself; without one, the toolkit of
# pinned wheels that scripts/install-deps.sh installed (scripts/cuda-toolkit.sh) is passed in as
# CMAKE_CUDA_COMPILER and CUDAToolkit_ROOT.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cuda-toolkit.sh
. "$ROOT/scripts/cuda-toolkit.sh"
# Given on every configure: a build dir that one caller configured OFF is AUTO again for the next.
CUDA_ARGS=(-DCUZK_CUDA="${CUZK_CUDA:-AUTO}")
if [[ ${CUZK_CUDA:-AUTO} != OFF ]] && ! cuda_system_nvcc >/dev/null && nvcc=$(cuda_wheel_nvcc); then
  CUDA_ARGS+=(-DCMAKE_CUDA_COMPILER="$nvcc" -DCUDAToolkit_ROOT="$(dirname "$(dirname "$nvcc")")")
fi
BUILD_DIR=${1:-$ROOT/build}
shift || true
mkdir -p "$BUILD_DIR"
JOBS=${JOBS:-$(nproc)}
# Paths relative to the checkout in ccache keys: a fresh clone elsewhere (CI) reuses the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# shellcheck disable=SC2086
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${CUDA_ARGS[@]}" ${CMAKE_ARGS:-} >"$BUILD_DIR/configure.log" 2>&1 \
  || { cat "$BUILD_DIR/configure.log"; echo "build: cmake configure failed ($BUILD_DIR)" >&2; exit 1; }
grep -E "^-- cuzk" "$BUILD_DIR/configure.log" || true
if [[ ${1:-} == --configure-only ]]; then
  exit 0
elif (($# > 0)); then
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "$@"
else
  cmake --build "$BUILD_DIR" -j "$JOBS"
fi
