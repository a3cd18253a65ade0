//===- PosencToLinalg.cpp - reference lowering of posenc to linalg --------===//
//
// The plain, materializing lowering of every posenc op: one linalg.generic per
// formula of the op descriptions (SPEC.md), every intermediate a full tensor.
// It is the semantic baseline fused lowerings are checked against; clarity
// wins over speed here on purpose. The patterns are by op family:
// RopeToLinalg.cpp (sinusoidal, rope), AlibiToLinalg.cpp, T5BiasToLinalg.cpp,
// AttentionToLinalg.cpp (attention, rel_pos_attention); this file holds the
// pass and the small builders they share.
//
//===----------------------------------------------------------------------===//

#include "PosencToLinalgPatterns.h"

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCTOLINALGPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

//===----------------------------------------------------------------------===//
// Small builders shared by the op lowerings
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult>
posenc::reference::mixedSizes(OpBuilder &b, Location loc, Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

Value posenc::reference::filledTensor(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> sizes,
                                      Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value cst = floatConst(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

void posenc::reference::replaceWithResultType(
    ConversionPatternRewriter &rewriter, Operation *op, Value value) {
  Type resultType = op->getResult(0).getType();
  if (value.getType() != resultType)
    value = tensor::CastOp::create(rewriter, op->getLoc(), resultType, value);
  rewriter.replaceOp(op, value);
}

SmallVector<Value> posenc::reference::loopIndices(OpBuilder &b, Location loc,
                                                  int64_t numLoops) {
  SmallVector<Value> ivs;
  for (int64_t i = 0; i < numLoops; ++i)
    ivs.push_back(linalg::IndexOp::create(b, loc, i));
  return ivs;
}

Value posenc::reference::positionToFloat(OpBuilder &b, Location loc, Value pos,
                                         Type to) {
  return arith::SIToFPOp::create(b, loc, to, pos);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct PosencToLinalgPass
    : posenc::impl::PosencToLinalgPassBase<PosencToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<PosencDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populatePosencToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void posenc::populatePosencToLinalgPatterns(RewritePatternSet &patterns) {
  reference::populateRopeToLinalgPatterns(patterns);
  reference::populateAlibiToLinalgPatterns(patterns);
  reference::populateT5BiasToLinalgPatterns(patterns);
  reference::populateAttentionToLinalgPatterns(patterns);
  reference::populateDisentangledAttentionToLinalgPatterns(patterns);
}
