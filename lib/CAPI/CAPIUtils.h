//===- CAPIUtils.h - what the C API's files share ---------------*- C++ -*-===//
//
// The handle storage, the unwrap functions, error strings and the
// diagnostic collector of the C API (include/posenc-c/Posenc.h), used by
// Context.cpp, Module.cpp, ExecutionEngine.cpp and RuntimeChecks.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_CAPI_CAPIUTILS_H
#define POSENC_LIB_CAPI_CAPIUTILS_H

#include "posenc-c/Posenc.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

#ifndef POSENC_RUNTIME_LIBRARY_DIR
#define POSENC_RUNTIME_LIBRARY_DIR ""
#endif

namespace posenc::capi {

/// What a PosencModule handle points to. The source buffer lives as long as
/// the module so that diagnostics of later pipelines can quote source lines.
struct ModuleStorage {
  mlir::MLIRContext *context;
  std::shared_ptr<llvm::SourceMgr> sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

inline mlir::MLIRContext *unwrap(PosencContext context) {
  return static_cast<mlir::MLIRContext *>(context.ptr);
}
inline ModuleStorage *unwrap(PosencModule module) {
  return static_cast<ModuleStorage *>(module.ptr);
}
inline mlir::ExecutionEngine *unwrap(PosencJit jit) {
  return static_cast<mlir::ExecutionEngine *>(jit.ptr);
}

/// A malloc'ed, NUL-terminated copy of `str` (freed by posencStringFree).
char *copyToHeap(llvm::StringRef str);

/// Stores `message` in `*error` (when the caller asked for it). Always
/// returns false so that failing paths read `return setError(...)`.
bool setError(char **error, const llvm::Twine &message);

inline void clearError(char **error) {
  if (error)
    *error = nullptr;
}

/// One-time process setup: the JIT's native target and the pass registry
/// that textual pipelines are resolved against.
void initializeProcessOnce();

/// Collects, while alive, every diagnostic emitted on a context, formatted as
/// mlir-opt prints them (`file:line:col: error: ...` and the source line when
/// the location points into `sourceMgr`).
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext *context, llvm::SourceMgr &sourceMgr)
      : stream(text), handler(sourceMgr, context, stream) {}

  /// Returns what was collected, followed by `extra` when not empty.
  std::string message(llvm::StringRef extra = {});

  /// Returns what was collected, or `fallback` when nothing was.
  std::string messageOr(llvm::StringRef fallback) {
    std::string result = message();
    return result.empty() ? fallback.str() : result;
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  mlir::SourceMgrDiagnosticHandler handler;
};

/// Resolves the compiled code's puts/abort/malloc so that failed run-time
/// checks and allocations report through posencJitCall (RuntimeChecks.cpp).
void registerRuntimeCheckSymbols(mlir::ExecutionEngine &engine);

/// Hands the run-time failure handler to the libraries that take one
/// (libposenc_cuda_runtime.so's posencCudaSetErrorHandler), so that their
/// errors end posencJitCall too (RuntimeChecks.cpp).
void installRuntimeErrorHandlers(
    llvm::ArrayRef<llvm::sys::DynamicLibrary> libraries);

} // namespace posenc::capi

#endif // POSENC_LIB_CAPI_CAPIUTILS_H
