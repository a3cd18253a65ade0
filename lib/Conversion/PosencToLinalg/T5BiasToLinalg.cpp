//===- T5BiasToLinalg.cpp - reference lowering of t5_bias -----------------===//
//
// The reference lowering of posenc.t5_bias: the bias tensor
// table[bucket(j - i'), h], one linalg.generic whose body computes T5's
// bucket (AttentionUtils' buildT5Bucket) and reads the table.
//
//===----------------------------------------------------------------------===//

#include "PosencToLinalgPatterns.h"

#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::reference;

namespace {

struct T5BiasToLinalg : OpConversionPattern<T5BiasOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(T5BiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    Value table = adaptor.getTable();

    Value init = tensor::EmptyOp::create(rewriter, loc, resultType,
                                         adaptor.getDynamicSizes());
    assertDimsEqual(rewriter, loc, table, 1, init, rank - 3,
                    "posenc.t5_bias: dim 1 (H) of 'table' differs from the "
                    "head dim of the result");
    Value sq = tensor::DimOp::create(rewriter, loc, init, rank - 2);
    Value sk = tensor::DimOp::create(rewriter, loc, init, rank - 1);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    T5BucketParams params = getT5BucketParams(op);

    MLIRContext *ctx = rewriter.getContext();
    Value result = buildGeneric(
        rewriter, loc, ValueRange(), init,
        {AffineMap::getMultiDimIdentityMap(rank, ctx)}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value h = linalg::IndexOp::create(b, loc, rank - 3);
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          Value dist = buildRelativeDistance(b, loc, i, j, shift);
          Value bucket = buildT5Bucket(b, loc, dist, params);
          yieldValue(b, loc,
                     tensor::ExtractOp::create(b, loc, table,
                                               ValueRange{bucket, h}));
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

} // namespace

void posenc::reference::populateT5BiasToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<T5BiasToLinalg>(patterns.getContext());
}
