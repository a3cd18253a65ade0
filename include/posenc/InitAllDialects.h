//===- InitAllDialects.h - posenc dialect registration ----------*- C++ -*-===//
//
// The one place that says which dialects and dialect extensions a posenc
// tool registers, in the style of upstream's mlir/InitAllDialects.h and
// CIRCT's circt/InitAllDialects.h. posenc-opt, the C API
// (libPosencCAPI.so) and the mlir-opt plugin (libPosencPlugin.so) all call
// it, so that they cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_INITALLDIALECTS_H
#define POSENC_INITALLDIALECTS_H

#include "posenc/Dialect/Posenc/IR/PosencDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace posenc {

/// Adds the dialects posenc defines (the posenc dialect) to `registry`. A
/// tool that already has the upstream dialects (the stock mlir-opt) needs
/// only this.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<PosencDialect>();
}

/// Adds what a posenc tool needs from upstream: every upstream dialect and
/// dialect extension (user programs mix posenc with func/arith/tensor/linalg,
/// and bufferization and the conversions to LLVM work through extensions),
/// the translations to LLVM IR (the ExecutionEngine; gpu-module-to-binary,
/// which translates gpu.module bodies) and the #nvvm.target serialization
/// (gpu-module-to-binary in --posenc-to-nvvm).
inline void registerUpstreamDependencies(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

/// Everything a stand-alone posenc tool (posenc-opt, the C API) registers:
/// registerAllDialects and registerUpstreamDependencies.
inline void registerAllDialectsAndDependencies(
    mlir::DialectRegistry &registry) {
  posenc::registerUpstreamDependencies(registry);
  posenc::registerAllDialects(registry);
}

} // namespace posenc

#endif // POSENC_INITALLDIALECTS_H
