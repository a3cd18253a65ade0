#!/usr/bin/env bash
# A fuzzing campaign of posenc-fuzz (test/fuzz; docs/reliability.md).
#   scripts/fuzz.sh [SECONDS [JOBS]]     default: 600 seconds, 1 job
# Builds the instrumented build (scripts/build-asan.sh), writes the seed
# corpus from the lit inputs, fuzzes for SECONDS with JOBS processes
# (libFuzzer's fork mode: a crash, OOM or timeout is saved and the campaign
# goes on), then classifies every finding by its stack
# (test/fuzz/classify-crash.py). Exits non-zero when a finding is a crash in
# posenc or an upstream crash not listed in test/fuzz/known-upstream.txt.
# The corpus grows across campaigns in $build/fuzz/corpus.
# Environment: POSENC_FUZZ_PIPELINES restricts the pipelines (a substring
# filter over posenc-fuzz's list; "none" keeps parse + verify only, for a
# fast campaign of the parser and the verifiers); POSENC_FUZZ_WORK moves the
# corpus, artifacts and log (default $build/fuzz), so that two campaigns can
# run side by side.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
jobs="${2:-1}"
build="$("$root/scripts/build-asan.sh" | tail -n 1)"
# shellcheck source=/dev/null
source "$build/posenc-env.sh"
work="${POSENC_FUZZ_WORK:-$build/fuzz}"
mkdir -p "$work/corpus" "$work/artifacts"
rm -rf "$work/seeds" "$work/artifacts"/*
"$POSENC_PYTHON" "$root/test/fuzz/make-corpus.py" "$work/seeds"

export ASAN_SYMBOLIZER_PATH="$POSENC_LLVM_TOOLS_DIR/llvm-symbolizer"
# allow_user_poisoning=0: see docs/reliability.md (Debian's libMLIR.so is not
# instrumented); every other ASan check stays on.
export ASAN_OPTIONS=allow_user_poisoning=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
log="$work/campaign.log"
echo "fuzz: ${seconds}s, $jobs job(s), pipelines ${POSENC_FUZZ_PIPELINES:-all}, log $log"
# -fork keeps going after a finding (-ignore_*); -timeout: one input through
# every pipeline takes well under a second, 30 s is a hang; -rss_limit_mb:
# a compile of a program with huge static dims must fail, not eat the
# machine.
"$build/bin/posenc-fuzz" -fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 \
  -ignore_timeouts=1 -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
  -max_len=4096 -dict="$root/test/fuzz/mlir.dict" \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" >"$log" 2>&1 || true

# The last status line: "#N: cov: C ft: F corp: K exec/s: E ... time: Ts".
status_line="$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1 || true)"
echo "fuzz: last status: ${status_line:-none (see $log)}"
if [ -z "$status_line" ]; then
  tail -n 30 "$log"
  exit 1
fi
shopt -s nullglob
findings=("$work"/artifacts/*)
echo "fuzz: ${#findings[@]} finding(s)"
# A job libFuzzer counts as crashed but that left no artifact died without
# libFuzzer's handler (killed from outside): said, not hidden.
counted="$(sed -E 's|.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*|\1+\2+\3|' <<<"$status_line")"
if (( counted > ${#findings[@]} )); then
  echo "fuzz: warning: libFuzzer counted $((counted)) failed job(s) but ${#findings[@]} artifact(s); see $log"
fi
if ((${#findings[@]})); then
  "$POSENC_PYTHON" "$root/test/fuzz/classify-crash.py" "$build/bin/posenc-fuzz" "${findings[@]}"
fi
