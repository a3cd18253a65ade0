#!/usr/bin/env bash
# Mutation audit of the test suite, on demand (not in CI): applies each bug of
# scripts/mutate.py's catalogue alone to a scratch copy of the tree
# (build-mutate/src, with its own build dir), rebuilds, runs the tests that
# should catch it and reports the survivors. docs/reliability.md lists the
# last run's results.
#   scripts/mutate.sh [--only NAME[,NAME...]] [--list]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec /usr/bin/python3 "$root/scripts/mutate.py" "$@"
