#!/usr/bin/env bash
# Builds sppark_bench (bench/sppark: sppark's MSM and NTT timed on the GPU, for
# gpu/tools/device_sppark.sh) with the project's nvcc, for sm_90, the CUDA runtime linked
# statically. Opt-in: not part of scripts/build.sh nor CI (it needs nvcc and a GPU to run).
#   bench/sppark/build.sh [build|check]     build (default): build/bin/sppark_bench
#                                           check: cargo check (build scripts run: the .cu compile)
# Environment: SPB_TARGET_DIR (cargo's target folder, default build/sppark), SPB_CUDA_ARCH (90).
# sppark and blst come from crates.io as Cargo.lock pins them: from cargo's local cache when it has
# them (--offline), otherwise fetched by cargo.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=scripts/cuda-toolkit.sh
. "$ROOT/scripts/cuda-toolkit.sh"
nvcc=$(cuda_system_nvcc || cuda_wheel_nvcc) || {
  echo "bench/sppark/build.sh: no nvcc (system or scripts/install-deps.sh's pinned wheels)" >&2
  exit 2
}
command -v cargo >/dev/null || { echo "bench/sppark/build.sh: cargo is not installed" >&2; exit 2; }
export NVCC=$nvcc PATH="$(dirname "$nvcc"):$PATH"
export CARGO_TARGET_DIR=${SPB_TARGET_DIR:-$ROOT/build/sppark}
what=${1:-build}
cargo_run() {
  # offline first (no network needed when cargo's cache holds the pinned crates)
  cargo "$@" --offline && return 0
  echo "bench/sppark/build.sh: the offline attempt failed; again with the network (crates.io)" >&2
  cargo "$@"
}
cd "$HERE"
case $what in
  check) cargo_run check --locked --release ;;
  build)
    cargo_run build --locked --release
    mkdir -p "$ROOT/build/bin"
    cp "$CARGO_TARGET_DIR/release/sppark_bench" "$ROOT/build/bin/sppark_bench"
    echo "bench/sppark/build.sh: $ROOT/build/bin/sppark_bench (nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
    ;;
  *) echo "usage: bench/sppark/build.sh [build|check]" >&2; exit 2 ;;
esac
