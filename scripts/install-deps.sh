#!/usr/bin/env bash
# Installs every build and test dependency of Spyglass from Debian 12 packages.
# Idempotent: packages already present are skipped by apt; safe to run as often as you like.
set -euo pipefail

# --peers: only what the peer comparison (`make bench-peers`, bench/peers) needs beyond them, the Eigen 3 and Boost
# headers qulacs builds with; never part of `make test`.
if [ "${1:-}" = "--peers" ]; then
  packages=(libeigen3-dev libboost-dev)
else
packages=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev
  libimgui-dev
  libgraphviz-dev
  libsqlite3-dev sqlite3
  libonnx-dev libprotobuf-dev protobuf-compiler
  libgl1-mesa-dri libegl-dev libgl-dev xvfb xauth fonts-dejavu-core
  python3-onnx python3-numpy
  python3-torch python3-torchvision libonnx-testdata
  libopenblas-dev
  libopenmpi-dev openmpi-bin
  llvm
  clang libclang-rt-14-dev
  file dpkg-dev
)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
