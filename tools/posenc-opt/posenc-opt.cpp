//===- posenc-opt.cpp - the posenc optimizer driver -----------------------===//
//
// mlir-opt with the posenc dialect, passes and pipelines, plus every upstream
// dialect and pass, since user programs mix posenc with func/arith/tensor/
// linalg and the pipelines run upstream passes. What is registered is
// decided in posenc/InitAllDialects.h and posenc/InitAllPasses.h, shared
// with the C API and the mlir-opt plugin; posenc-opt adds the test-only
// passes of test/lib.
//
//===----------------------------------------------------------------------===//

#include "posenc/InitAllDialects.h"
#include "posenc/InitAllPasses.h"

#include "InitAllTestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  posenc::registerAllDialectsAndDependencies(registry);

  mlir::registerAllPasses();
  posenc::registerAllPasses();
  posenc::registerPosencTestPasses();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "posenc optimizer driver\n", registry));
}
