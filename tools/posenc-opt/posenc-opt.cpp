//===- posenc-opt.cpp - the posenc optimizer driver -----------------------===//
//
// mlir-opt with the posenc dialect, passes and pipelines, plus every upstream
// dialect and pass, since user programs mix posenc with func/arith/tensor/
// linalg and the pipelines run upstream passes.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (in --posenc-to-nvvm) translates gpu.module bodies
  // to LLVM IR and serializes them through the #nvvm.target interface.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<posenc::PosencDialect>();

  mlir::registerAllPasses();
  posenc::registerPosencConversionPasses();
  posenc::registerPosencTransformsPasses();
  posenc::registerPosencPipelines();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "posenc optimizer driver\n", registry));
}
