//===- PosencPlugin.cpp - posenc as a plugin of the stock mlir-opt --------===//
//
// libPosencPlugin.so is both a dialect plugin and a pass plugin of an
// mlir-opt built against the same shared libMLIR.so:
//
//   mlir-opt --load-dialect-plugin=libPosencPlugin.so \
//            --load-pass-plugin=libPosencPlugin.so --posenc-to-linalg in.mlir
//
// The dialect entry point adds the posenc dialect to mlir-opt's registry; the
// pass entry point registers the posenc passes and pipelines
// (--posenc-to-linalg, --posenc-cpu-pipeline) with the global pass registry.
// The plugin carries the posenc static libraries but links libMLIR.so, so
// that MLIR's TypeIDs and registries are the ones mlir-opt uses.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Pipelines/Pipelines.h"

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
            registry->insert<posenc::PosencDialect>();
          }};
}

/// The pass plugin: registers the posenc passes and pipelines.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Posenc", LLVM_VERSION_STRING, []() {
            posenc::registerPosencConversionPasses();
            posenc::registerPosencPipelines();
          }};
}
