//===- PosencPlugin.cpp - posenc as a plugin of the stock mlir-opt --------===//
//
// libPosencPlugin.so is both a dialect plugin and a pass plugin of an
// mlir-opt built against the same shared libMLIR.so:
//
//   mlir-opt --load-dialect-plugin=libPosencPlugin.so \
//            --load-pass-plugin=libPosencPlugin.so --posenc-to-linalg in.mlir
//
// The dialect entry point adds the posenc dialect to mlir-opt's registry; the
// pass entry point registers every posenc pass and pipeline with the global
// pass registry. Both go through posenc/InitAllDialects.h and
// posenc/InitAllPasses.h, as posenc-opt and the C API do, so the plugin
// knows the same passes (test/Plugin/every-pass.mlir runs each of them).
// The plugin carries the posenc static libraries but links libMLIR.so, so
// that MLIR's TypeIDs and registries are the ones mlir-opt uses.
//
//===----------------------------------------------------------------------===//

#include "posenc/InitAllDialects.h"
#include "posenc/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

/// The dialect plugin: registers the posenc dialect.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Posenc", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            posenc::registerAllDialects(*registry);
          }};
}

/// The pass plugin: registers the posenc passes and pipelines.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Posenc", LLVM_VERSION_STRING,
          []() { posenc::registerAllPasses(); }};
}
