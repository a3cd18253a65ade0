#!/usr/bin/env bash
# The README's test command: set up, build, and run the whole test suite
# (lit/FileCheck tests, then the pytest suite). Exits non-zero on any failure.
# lit and Python are the ones CMake found (build/posenc-env.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build"
# shellcheck source=/dev/null
source "$build/posenc-env.sh"

status=0
echo "== lit suite =="
"$POSENC_LIT" -sv "$build/test" || status=1

echo "== pytest suite =="
POSENC_BUILD_DIR="$build" PYTHONPATH="$root/python" \
  "$POSENC_PYTHON" -m pytest -q -p no:cacheprovider "$root/test/python" || status=1
exit $status
