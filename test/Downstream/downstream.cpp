//===- downstream.cpp - posenc used from another CMake project ------------===//
//
// Registers the posenc dialect next to MLIR's, parses a posenc program (the
// file named on the command line), lowers it with posenc's CPU pipeline and
// prints the posenc ops before and the functions after.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: posenc-downstream <program.mlir>\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<posenc::PosencDialect>();
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  module->walk([](mlir::Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() ==
            posenc::PosencDialect::getDialectNamespace())
      llvm::outs() << "parsed: " << op->getName() << "\n";
  });

  mlir::PassManager pm(&context);
  posenc::buildPosencCPUPipeline(pm, posenc::PosencCPUPipelineOptions());
  if (mlir::failed(pm.run(*module)))
    return 1;
  int posencOps = 0;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "posenc")
      ++posencOps;
  });
  for (auto func : module->getOps<mlir::LLVM::LLVMFuncOp>())
    if (!func.isExternal())
      llvm::outs() << "lowered: llvm.func @" << func.getSymName() << "\n";
  llvm::outs() << "posenc ops left: " << posencOps << "\n";
  return 0;
}
