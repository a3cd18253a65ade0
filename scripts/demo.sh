#!/usr/bin/env bash
# The README's demo command: set up, build, compile the example attention
# programs (RoPE + causal mask; ALiBi) with posenc-opt, run them on the CPU
# with mlir-runner, and compare with the numpy reference.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build" >/dev/null
# shellcheck source=/dev/null
source "$build/posenc-env.sh"
PYTHONPATH="$root/python" "$POSENC_PYTHON" "$root/examples/run_demo.py" \
  --build "$build" "$@"
