//===- VectorizeCopies.cpp - posenc-vectorize-copies
//-----------------------===//
//
// memref.copy between strided memrefs as row loops of vector transfers.
//
// Upstream's memref-to-LLVM lowering emits llvm.memcpy only for copies whose
// both sides are contiguous; any other copy calls the C runner's memrefCopy,
// which copies one element per memcpy call. The tile buffers of the fused
// attention kernel (a padded query tile, the output tile written back into
// its [.., S, D] slice) are exactly such copies, so they are rewritten here
// before the LLVM lowering (see Passes.td). Upstream has no pass for it;
// vectorizing them as linalg.copy would need masks for the dynamic row
// count, where a loop over rows with full-row transfers needs none.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace posenc {
#define GEN_PASS_DEF_POSENCVECTORIZECOPIESPASS
#include "posenc/Pipelines/Passes.h.inc"
} // namespace posenc

using namespace mlir;

/// Whether upstream lowers a copy from or to `type` with llvm.memcpy (the
/// condition of memref-to-LLVM's copy lowering).
static bool isMemcpyContiguous(MemRefType type) {
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

/// Whether `type`'s innermost dimension is static with unit stride.
static bool hasStaticUnitStrideRows(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 || ShapedType::isDynamic(type.getShape().back()) ||
      failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

namespace {

/// memref.copy %src, %dst (strided, static rows) ->
///   scf.for %i0 .. scf.for %i{n-2}, scf.for %j step W:
///     vector.transfer_write (vector.transfer_read %src[%i.., %j]),
///                           %dst[%i.., %j]  (vector<W x elem>, in bounds)
struct VectorizeStridedCopy : OpRewritePattern<memref::CopyOp> {
  VectorizeStridedCopy(MLIRContext *ctx, int64_t maxVectorBits)
      : OpRewritePattern(ctx), maxVectorBits(maxVectorBits) {}

  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    auto srcType = dyn_cast<MemRefType>(copy.getSource().getType());
    auto dstType = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!srcType || !dstType)
      return rewriter.notifyMatchFailure(copy, "unranked memref");
    if (isMemcpyContiguous(srcType) && isMemcpyContiguous(dstType))
      return rewriter.notifyMatchFailure(copy, "lowered to llvm.memcpy");
    if (!hasStaticUnitStrideRows(srcType) || !hasStaticUnitStrideRows(dstType))
      return rewriter.notifyMatchFailure(copy, "no static unit-stride rows");
    Type elem = srcType.getElementType();
    if (!VectorType::isValidElementType(elem) || !elem.isIntOrFloat())
      return rewriter.notifyMatchFailure(copy, "element type");
    int64_t width =
        rowChunk(srcType.getShape().back(), elem.getIntOrFloatBitWidth());
    if (!width)
      return rewriter.notifyMatchFailure(copy, "element wider than a vector");
    buildRowLoops(rewriter, copy, width);
    rewriter.eraseOp(copy);
    return success();
  }

private:
  /// The largest power of two dividing `rowLength` whose vector fits in
  /// maxVectorBits, or 0 when not even one element fits.
  int64_t rowChunk(int64_t rowLength, unsigned elemBits) const {
    int64_t width = 1;
    while (rowLength % (width * 2) == 0 &&
           (width * 2) * elemBits <= static_cast<uint64_t>(maxVectorBits))
      width *= 2;
    return elemBits <= static_cast<uint64_t>(maxVectorBits) ? width : 0;
  }

  void buildRowLoops(PatternRewriter &rewriter, memref::CopyOp copy,
                     int64_t width) const {
    Location loc = copy.getLoc();
    Value src = copy.getSource(), dst = copy.getTarget();
    auto srcType = cast<MemRefType>(src.getType());
    int64_t rank = srcType.getRank();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(rank, zero), ubs, steps(rank, one);
    for (int64_t dim = 0; dim < rank; ++dim)
      ubs.push_back(memref::DimOp::create(rewriter, loc, src, dim));
    steps.back() = arith::ConstantIndexOp::create(rewriter, loc, width);
    auto vectorType = VectorType::get({width}, srcType.getElementType());
    scf::buildLoopNest(rewriter, loc, lbs, ubs, steps,
                       [&](OpBuilder &b, Location loc, ValueRange ivs) {
                         Value row = vector::TransferReadOp::create(
                             b, loc, vectorType, src, ivs,
                             /*padding=*/std::nullopt, ArrayRef<bool>{true});
                         vector::TransferWriteOp::create(b, loc, row, dst, ivs,
                                                         ArrayRef<bool>{true});
                       });
  }

  int64_t maxVectorBits;
};

struct PosencVectorizeCopiesPass
    : posenc::impl::PosencVectorizeCopiesPassBase<PosencVectorizeCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxVectorBits < 8) {
      getOperation()->emitError("posenc-vectorize-copies: max-vector-bits "
                                "must be at least 8, got ")
          << static_cast<int64_t>(maxVectorBits);
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    posenc::populateVectorizeCopiesPatterns(
        patterns, static_cast<int64_t>(maxVectorBits));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void posenc::populateVectorizeCopiesPatterns(RewritePatternSet &patterns,
                                             int64_t maxVectorBits) {
  patterns.add<VectorizeStridedCopy>(patterns.getContext(), maxVectorBits);
}
