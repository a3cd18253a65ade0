#!/usr/bin/env bash
# Configures and builds the instrumented test build (clang-22, ASan + UBSan,
# libFuzzer coverage: -DPOSENC_ENABLE_FUZZER=ON) that scripts/test-sanitizers.sh
# and scripts/fuzz.sh share, in build-asan/ (or $POSENC_ASAN_BUILD_DIR).
# Builds only what those two run: posenc-opt, the C API and its smoke test,
# the unit tests, the generated docs and posenc-fuzz.
#   scripts/build-asan.sh            prints the build directory last
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_ASAN_BUILD_DIR:-$root/build-asan}"
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22 \
    -DPOSENC_ENABLE_FUZZER=ON "${launcher[@]}" >&2
fi
cmake --build "$build" -j "${POSENC_JOBS:-2}" --target posenc-opt PosencCAPI \
  posenc-capi-smoke posenc-unittests mlir-doc posenc-fuzz >&2
echo "$build"
