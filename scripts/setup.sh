#!/usr/bin/env bash
# Installs what posenc needs on a fresh Debian 12 machine (idempotent: only
# missing packages are installed) and configures + builds the project.
#   scripts/setup.sh [build-dir]       (default: build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"

packages=(
  cmake ninja-build g++ git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libomp-22-dev
  python3 python3-numpy python3-pytest pybind11-dev libgtest-dev
  # The instrumented build (scripts/build-asan.sh: ASan + UBSan + libFuzzer):
  # clang-22, and its runtimes (libclang_rt.asan/ubsan/fuzzer*.a are in
  # libclang-rt-22-dev; libfuzzer-22-dev only adds a standalone libFuzzer.a).
  clang-22 libclang-rt-22-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc
fi
# 2 jobs: the CI and developer machines have 2 cores and 24 GiB.
cmake --build "$build" -j "${POSENC_JOBS:-2}"
