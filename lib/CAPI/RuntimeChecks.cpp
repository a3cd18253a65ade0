//===- RuntimeChecks.cpp - C API: failed run-time checks as errors --------===//
//
// cf.assert lowers to `puts(message); abort();`. The JIT resolves those two
// symbols of its code to the functions below: inside posencJitCall they
// record the message and jump back to the call instead of ending the
// process (the C API's callers, Python among them, get an error). Outside a
// posencJitCall (another thread, or code called some other way) they behave
// as the C library's.
//
//===----------------------------------------------------------------------===//

#include "CAPIUtils.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace posenc::capi;

namespace {
struct RuntimeCheckFrame {
  std::jmp_buf env;
  std::string message;
};
thread_local RuntimeCheckFrame *activeRuntimeCheck = nullptr;
} // namespace

extern "C" int posencRuntimePuts(const char *text) {
  if (activeRuntimeCheck) {
    activeRuntimeCheck->message = text ? text : "";
    return 0;
  }
  return std::puts(text);
}

extern "C" [[noreturn]] void posencRuntimeAbort() {
  if (activeRuntimeCheck)
    std::longjmp(activeRuntimeCheck->env, 1);
  std::abort();
}

void posenc::capi::registerRuntimeCheckSymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("puts")] = {
        llvm::orc::ExecutorAddr::fromPtr(&posencRuntimePuts),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("abort")] = {
        llvm::orc::ExecutorAddr::fromPtr(&posencRuntimeAbort),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

bool posencJitCall(PosencPackedFunction function, void **args,
                   char **error) {
  clearError(error);
  if (!function) {
    setError(error, "posencJitCall: null function");
    return false;
  }
  RuntimeCheckFrame frame;
  RuntimeCheckFrame *outer = activeRuntimeCheck;
  activeRuntimeCheck = &frame;
  // Only JIT-compiled frames (no destructors) lie between here and the
  // longjmp in posencRuntimeAbort.
  if (setjmp(frame.env) == 0) {
    function(args);
    activeRuntimeCheck = outer;
    return true;
  }
  activeRuntimeCheck = outer;
  setError(error, "run-time check failed: " +
                      (frame.message.empty() ? std::string("abort() called")
                                             : frame.message));
  return false;
}
