//===- Context.cpp - C API: registration, contexts, strings ---------------===//
//
// Implements include/posenc-c/Posenc.h. Every entry point reports failure
// through a returned string rather than printing: diagnostics are routed into
// that string by a SourceMgrDiagnosticHandler scoped to the call
// (DiagnosticCollector), and llvm::Errors are rendered with toString. This
// file holds what every call relies on: the one-time registration (through
// posenc/InitAllDialects.h and posenc/InitAllPasses.h, as posenc-opt and the
// mlir-opt plugin), contexts and the error strings.
//
//===----------------------------------------------------------------------===//

#include "CAPIUtils.h"

#include "posenc/InitAllDialects.h"
#include "posenc/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"

#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace posenc::capi;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

char *posenc::capi::copyToHeap(llvm::StringRef str) {
  char *result = static_cast<char *>(std::malloc(str.size() + 1));
  if (!result)
    return nullptr;
  std::memcpy(result, str.data(), str.size());
  result[str.size()] = '\0';
  return result;
}

bool posenc::capi::setError(char **error, const llvm::Twine &message) {
  if (error) {
    std::string text = message.str();
    *error = copyToHeap(text.empty() ? "unknown error" : text);
  }
  return false;
}

std::string DiagnosticCollector::message(llvm::StringRef extra) {
  std::string result = text;
  if (!extra.empty()) {
    if (!result.empty() && result.back() != '\n')
      result += '\n';
    result += extra.str();
  }
  // Trailing newlines only make callers' messages ragged.
  while (!result.empty() && result.back() == '\n')
    result.pop_back();
  return result;
}

void posenc::capi::initializeProcessOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser(); // For inline assembly.
    mlir::registerAllPasses();
    posenc::registerAllPasses();
  });
}

//===----------------------------------------------------------------------===//
// Library
//===----------------------------------------------------------------------===//

int posencGetCAPIVersion(void) { return POSENC_CAPI_VERSION; }

const char *posencGetRuntimeLibraryDir(void) {
  return POSENC_RUNTIME_LIBRARY_DIR;
}

void posencStringFree(char *str) { std::free(str); }

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

PosencContext posencContextCreate(void) {
  initializeProcessOnce();
  DialectRegistry registry;
  posenc::registerAllDialectsAndDependencies(registry);
  auto *context = new MLIRContext(registry);
  return PosencContext{context};
}

void posencContextDestroy(PosencContext context) { delete unwrap(context); }
