//===- RuntimeChecks.cpp - C API: failed run-time checks as errors --------===//
//
// Failures of the compiled code that its caller can survive end the call
// with an error instead of the process (the C API's callers, Python among
// them, get the message and go on; docs/reliability.md, "Failure model"):
//  * cf.assert lowers to `puts(message); abort();`;
//  * an allocation of the compiled code that fails (`malloc` returns null for
//    a huge dynamic size) would be written through a null pointer;
//  * a CUDA error in libposenc_cuda_runtime.so reaches its error handler.
// The JIT resolves puts/abort/malloc of its code to the functions below and
// the runtime's handler is set to posencRuntimeFailure: inside posencJitCall
// they record the message and jump back to the call. Outside a
// posencJitCall (another thread, e.g. an OpenMP worker, or code called some
// other way) they behave as before: the C library's puts/abort, an
// allocation failure aborts with its size, the CUDA runtime exits. What the
// ended call had allocated is not freed.
//
//===----------------------------------------------------------------------===//

#include "CAPIUtils.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <string>

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

/// Ends the current posencJitCall with `message`; returns when there is none
/// on this thread.
extern "C" void posencRuntimeFailure(const char *message) {
  if (!activeRuntimeCheck)
    return;
  activeRuntimeCheck->message = message;
  std::longjmp(activeRuntimeCheck->env, 1);
}

extern "C" void *posencRuntimeMalloc(size_t size) {
  void *pointer = std::malloc(size);
  if (pointer || size == 0)
    return pointer;
  std::string message = "cannot allocate " + std::to_string(size) +
                        " bytes (malloc failed in the compiled code)";
  posencRuntimeFailure(message.c_str());
  std::fprintf(stderr, "posenc: %s\n", message.c_str());
  std::abort();
}

void posenc::capi::registerRuntimeCheckSymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto define = [&](llvm::StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    define("puts", &posencRuntimePuts);
    define("abort", &posencRuntimeAbort);
    define("malloc", &posencRuntimeMalloc);
    return symbols;
  });
}

void posenc::capi::installRuntimeErrorHandlers(
    llvm::ArrayRef<llvm::sys::DynamicLibrary> libraries) {
  using SetErrorHandler = void (*)(void (*)(const char *));
  for (llvm::sys::DynamicLibrary library : libraries)
    if (void *setter = library.getAddressOfSymbol("posencCudaSetErrorHandler"))
      reinterpret_cast<SetErrorHandler>(setter)(&posencRuntimeFailure);
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
  // Only JIT-compiled frames (no destructors) and the CUDA runtime's (which
  // pops what it pushed first) lie between here and the longjmp.
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
