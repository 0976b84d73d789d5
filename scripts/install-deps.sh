#!/usr/bin/env bash
# Installs what building and testing cuzk needs, skipping whatever is already there:
# the Debian packages below (apt-get, as root or through sudo) and the pinned npm tools (npm ci,
# from package-lock.json, into ./node_modules). Safe to rerun; prints what it does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

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
