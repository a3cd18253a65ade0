#!/usr/bin/env bash
# The GPU benchmark, one command on a machine with an NVIDIA GPU: set up,
# build (the CUDA runtime library is built when the toolkit is found), and
# print time, TFLOP/s and, when PyTorch with CUDA is importable, the ratio to
# torch's scaled_dot_product_attention. Extra arguments go to
# bench/run_gpu_bench.py, e.g. --chip sm_80, --dtypes bf16, --write-docs.
# Without a GPU: --compile-only (lowers every case to a cubin).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build" >/dev/null
# shellcheck source=/dev/null
source "$build/posenc-env.sh"
PYTHONPATH="$root/python" "$POSENC_PYTHON" "$root/bench/run_gpu_bench.py" --build "$build" "$@"
