#!/usr/bin/env bash
# The README's benchmark command: set up, build, and print the CPU benchmark
# table (time, GFLOP/s, GB/s, peak memory, ratios to this machine's peak
# measured in the same run). Extra arguments go to bench/run_bench.py, e.g.
#   scripts/bench.sh --cases 'attn-rope-*' --write-docs
#   scripts/bench.sh --interleave --cases 'attn-xl-*,decode-gqa-q1-k16384-*'
# (--interleave: ratios measured call by call against plain attention or the
# roofline probe, bench/interleave.py).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build" >/dev/null
# shellcheck source=/dev/null
source "$build/posenc-env.sh"
PYTHONPATH="$root/python" POSENC_BUILD_DIR="$build" \
  "$POSENC_PYTHON" "$root/bench/run_bench.py" --build "$build" "$@"
