//===- HostFunctions.h - the host side of a GPU program ---------*- C++ -*-===//
//
// The GPU preparation passes rewrite what runs on the host: the functions
// outside the gpu.module ops (and, inside them, what is outside a
// gpu.launch).
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_CONVERSION_GPUPREPARATION_HOSTFUNCTIONS_H
#define POSENC_LIB_CONVERSION_GPUPREPARATION_HOSTFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace posenc {

/// Host functions: the `func.func` ops of `module` that are not inside a
/// `gpu.module`.
inline llvm::SmallVector<mlir::func::FuncOp>
getHostFunctions(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::func::FuncOp> functions;
  module.walk([&](mlir::func::FuncOp func) {
    if (!func->getParentOfType<mlir::gpu::GPUModuleOp>())
      functions.push_back(func);
  });
  return functions;
}

} // namespace posenc

#endif // POSENC_LIB_CONVERSION_GPUPREPARATION_HOSTFUNCTIONS_H
