#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
namespace posenc {
#define GEN_PASS_DEF_POSENCTOLINALGPASS
#include "posenc/Conversion/Passes.h.inc"
}
using namespace mlir;
namespace {
struct PosencToLinalgPass : posenc::impl::PosencToLinalgPassBase<PosencToLinalgPass> {
  void runOnOperation() override {}
};
}
void posenc::populatePosencToLinalgPatterns(RewritePatternSet &) {}
