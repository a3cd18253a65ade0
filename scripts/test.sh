#!/usr/bin/env bash
# The README's test command: set up, build, and run the whole test suite
# (lit/FileCheck tests, then the pytest suite). Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${POSENC_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build"

status=0
echo "== lit suite =="
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1

echo "== pytest suite =="
POSENC_BUILD_DIR="$build" PYTHONPATH="$root/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$root/test/python" || status=1
exit $status
