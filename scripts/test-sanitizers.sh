#!/usr/bin/env bash
# The lit suite and the C API smoke test on an ASan + UBSan build of posenc
# (clang-22, build-asan/, shared with scripts/fuzz.sh; docs/reliability.md).
# Any sanitizer report fails the test that printed it, and so this script.
#   scripts/test-sanitizers.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$("$root/scripts/build-asan.sh" | tail -n 1)"
# shellcheck source=/dev/null
source "$build/posenc-env.sh"

export ASAN_SYMBOLIZER_PATH="$POSENC_LLVM_TOOLS_DIR/llvm-symbolizer"
# allow_user_poisoning=0 is the one check turned off: Debian's libMLIR.so is
# not instrumented, while LLVM's allocator headers compiled into posenc's
# instrumented code poison memory (ASAN_POISON_MEMORY_REGION in
# llvm/Support/Allocator.h) that the uninstrumented library then writes:
# ASan reports that as use-after-poison inside libMLIR. Every other check
# (addressability, leaks, double free, ...) stays on.
export ASAN_OPTIONS=allow_user_poisoning=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
echo "== sanitizer suite (ASan + UBSan, $build) =="
# Left out: the tensor-core emulation's execution test, whose time (tens of
# minutes on 2 busy cores) goes into JIT-compiled emulation code that is not
# instrumented; the passes it runs are checked under the sanitizers by
# test/Conversion/AttentionToGPU/{tensor-cores,emulate-tensor-cores}.mlir.
"$POSENC_LIT" -sv --filter-out 'attention-tensor-cores-emulated' "$build/test"
