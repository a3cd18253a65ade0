//===- AlibiToLinalg.cpp - reference lowering of alibi_bias ---------------===//
//
// The reference lowering of posenc.alibi_bias: the bias tensor
// slope * (j - i') (or -slope * |j - i'|), one linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "PosencToLinalgPatterns.h"

#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::reference;

namespace {

using utils::IteratorType;

//===----------------------------------------------------------------------===//
// posenc.alibi_bias
//===----------------------------------------------------------------------===//

struct AlibiBiasToLinalg : OpConversionPattern<AlibiBiasOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AlibiBiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    FloatType f32 = rewriter.getF32Type();

    Value slopes = adaptor.getSlopes();
    if (!slopes) {
      SmallVector<double> all = computeAlibiSlopes(
          op.getNumHeadsOrDefault(), op.getMaxBias().convertToDouble());
      int64_t offset = op.getHeadOffset();
      slopes = constantTable(
          rewriter, loc,
          ArrayRef<double>(all).slice(offset, op.getNumLocalHeads()), f32);
    } else if (resultType.isDynamicDim(rank - 3) ||
               cast<RankedTensorType>(slopes.getType()).isDynamicDim(0)) {
      // Checked against the result's head dim below, once sizes exist.
    }

    Value init = tensor::EmptyOp::create(rewriter, loc, resultType,
                                         adaptor.getDynamicSizes());
    if (adaptor.getSlopes())
      assertDimsEqual(rewriter, loc, slopes, 0, init, rank - 3,
                      "posenc.alibi_bias: length of 'slopes' differs from "
                      "the head dim");
    Value sq = tensor::DimOp::create(rewriter, loc, init, rank - 2);
    Value sk = tensor::DimOp::create(rewriter, loc, init, rank - 1);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap slopeMap =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 3, ctx)}, ctx);
    bool symmetric = op.getSymmetric();
    Type elemType = resultType.getElementType();
    Value result = buildGeneric(
        rewriter, loc, slopes, init,
        {slopeMap, AffineMap::getMultiDimIdentityMap(rank, ctx)},
        iterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          // distance = j - (i + Sk - Sq)
          Value qpos = arith::AddIOp::create(b, loc, i, shift);
          Value dist = arith::SubIOp::create(b, loc, j, qpos);
          Value distI =
              arith::IndexCastOp::create(b, loc, b.getI64Type(), dist);
          Value distF = arith::SIToFPOp::create(b, loc, f32, distI);
          Value bias;
          if (symmetric) {
            Value absD = math::AbsFOp::create(b, loc, distF);
            bias = arith::MulFOp::create(b, loc, args[0], absD);
            bias = arith::NegFOp::create(b, loc, bias);
          } else {
            bias = arith::MulFOp::create(b, loc, args[0], distF);
          }
          yieldValue(b, loc, castFloat(b, loc, bias, elemType));
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

} // namespace

void posenc::reference::populateAlibiToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<AlibiBiasToLinalg>(patterns.getContext());
}
