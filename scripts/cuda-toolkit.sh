# shellcheck shell=bash
# Where the CUDA compiler comes from (sourced by scripts/install-deps.sh and scripts/build.sh).
#   cuda_system_nvcc     prints a system nvcc (PATH, then /usr/local/cuda/bin) or fails
#   cuda_wheel_dir       prints the pinned-wheel toolkit's folder (it may not exist yet):
#                        ${CUZK_CACHE:-~/.cache/cuzk}/cuda-<first 16 hex of sha256(cuda-requirements.txt)>
#   cuda_wheel_nvcc      prints that toolkit's nvcc when it was installed completely, or fails
# The folder lives outside the clone and is keyed by the requirements file, so every clone on a
# machine (CI's fresh ones too) shares one install, and a changed pin installs beside the old one.
CUDA_REQUIREMENTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cuda-requirements.txt"

cuda_system_nvcc() {
  local n
  n=$(command -v nvcc 2>/dev/null) || n=/usr/local/cuda/bin/nvcc
  [[ -x $n ]] && echo "$n"
}

cuda_wheel_dir() {
  local h
  h=$(sha256sum "$CUDA_REQUIREMENTS" | cut -c1-16)
  echo "${CUZK_CACHE:-$HOME/.cache/cuzk}/cuda-$h"
}

# toolkit/ is the wheels' nvidia/cu13 tree; .complete is written last, after the checks passed.
cuda_wheel_nvcc() {
  local d
  d=$(cuda_wheel_dir)
  [[ -f $d/.complete && -x $d/toolkit/bin/nvcc ]] && echo "$d/toolkit/bin/nvcc"
}
