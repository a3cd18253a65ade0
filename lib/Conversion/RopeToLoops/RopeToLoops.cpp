//===- RopeToLoops.cpp - fast lowering of standalone posenc.rope ----------===//
//
// The reference lowering rotates each element in a scalar linalg.generic that
// recomputes cos/sin per element and gathers the pair partner with a
// tensor.extract. RoPE alone is memory bound (one read and one write of the
// input), so this lowering computes cos/sin once per (row, pair) into a small
// per-block table and streams the rows through vector registers:
//
//   scf.forall (block of sequence rows):
//     cos/sin table tile [rows, R/2] (interleaved: [rows, R], duplicated)
//     for lead indices (batch, heads...), for rows of the block:
//       half:        a = x[..., :R/2], b = x[..., R/2:R]
//                    (a cos - b sin, b cos + a sin)
//       interleaved: x = x[..., :R], y = x with lanes swapped pairwise
//                    x cos + y sin', sin' = -sin on even lanes (table)
//       x[..., R:] copied
//
// The element math is posenc.rope's (BuilderUtils.h), the inverse
// frequencies the reference lowering's table (PosencToLinalg.h).
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <functional>

namespace posenc {
#define GEN_PASS_DEF_POSENCLOWERROPEPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

/// Lanes per vector op of a row (4 AVX-512 registers of f32): rows are
/// processed in static chunks of at most this many elements.
constexpr int64_t kChunk = 64;
/// Larger head dims would unroll into too many chunks; they keep the
/// reference lowering.
constexpr int64_t kMaxHeadDim = 1024;
/// Bytes of one block's cos/sin table when `block-rows` is 0 (stays in L1
/// while every lead index of the block reads it).
constexpr int64_t kTableBytes = 16 * 1024;

Value readVector(OpBuilder &b, Location loc, Value source, ValueRange indices,
                 int64_t width) {
  auto type = VectorType::get({width},
                              cast<ShapedType>(source.getType()).getElementType());
  return vector::TransferReadOp::create(b, loc, type, source, indices,
                                        /*padding=*/std::nullopt,
                                        ArrayRef<bool>{true});
}

Value writeVector(OpBuilder &b, Location loc, Value vec, Value dest,
                  ValueRange indices) {
  return vector::TransferWriteOp::create(b, loc, vec, dest, indices,
                                         ArrayRef<bool>{true})
      .getResult();
}

SmallVector<Value> withTail(ValueRange lead, Value row, Value col) {
  SmallVector<Value> idx(lead);
  idx.push_back(row);
  idx.push_back(col);
  return idx;
}

struct LowerStandaloneRope : OpRewritePattern<RopeOp> {
  LowerStandaloneRope(MLIRContext *ctx, int64_t blockRows)
      : OpRewritePattern(ctx), blockRows(blockRows) {}

  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    // Left to the reference lowering, which reports the form.
    if (!describeUnloweredKVCacheForm(op).empty())
      return rewriter.notifyMatchFailure(op, describeUnloweredKVCacheForm(op));
    Location loc = op.getLoc();
    Value input = op.getInput();
    Value positions = op.getPositions();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t numLead = rank - 2;
    int64_t headDim = op.getHeadDim();
    int64_t rotaryDim = op.getRotaryDimOrDefault();
    int64_t half = rotaryDim / 2;
    if (headDim > kMaxHeadDim)
      return rewriter.notifyMatchFailure(
          op, "head dim above 1024: left to the reference lowering");
    bool interleaved = op.getLayout() == Layout::interleaved;
    bool exact = op.getPrecision() == AnglePrecision::exact;
    Type elemType = inputType.getElementType();
    FloatType computeType = computeTypeFor(elemType);
    FloatType angleType = exact ? rewriter.getF64Type() : rewriter.getF32Type();
    double attentionFactor = op.getEffectiveAttentionFactor();

    // Same run-time check as the reference lowering.
    auto posType = cast<RankedTensorType>(positions.getType());
    if (posType.isDynamicDim(0) || inputType.isDynamicDim(rank - 2)) {
      Value a = tensor::DimOp::create(rewriter, loc, positions, 0);
      Value c = tensor::DimOp::create(rewriter, loc, input, rank - 2);
      Value eq = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       a, c);
      cf::AssertOp::create(rewriter, loc, eq,
                           "posenc.rope: length of 'positions' differs from "
                           "the sequence dim of 'input'");
    }
    Value invFreq =
        buildRopeInvFreqTable(rewriter, loc, op, positions, angleType);

    // Table row: cos and sin per pair (half) or per lane (interleaved).
    int64_t tableWidth = interleaved ? rotaryDim : half;
    int64_t rows = blockRows;
    if (rows <= 0) {
      int64_t rowBytes = 2 * tableWidth * computeType.getWidth() / 8;
      rows = std::clamp<int64_t>(kTableBytes / rowBytes, 1, 256);
    }

    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, input);
    Value seqLen = getValueOrCreateConstantIndexOp(rewriter, loc,
                                                   sizes[rank - 2]);
    Value rowsC = indexConst(rewriter, loc, rows);
    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    Value numBlocks = arith::CeilDivUIOp::create(rewriter, loc, seqLen, rowsC);
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elemType);

    auto forall = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{numBlocks}, ValueRange{init},
        std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    OpBuilder &b = rewriter;
    Value rowStart =
        arith::MulIOp::create(b, loc, forall.getInductionVars()[0], rowsC);
    Value numRows = arith::MinUIOp::create(
        b, loc, rowsC, arith::SubIOp::create(b, loc, seqLen, rowStart));

    // cos/sin of the block's rows, one computation per (row, pair).
    auto tableType = RankedTensorType::get({rows, tableWidth}, computeType);
    Value cos0 = tensor::EmptyOp::create(b, loc, tableType.getShape(),
                                         computeType);
    Value sin0 = tensor::EmptyOp::create(b, loc, tableType.getShape(),
                                         computeType);
    Type posElem = posType.getElementType();
    auto tables = scf::ForOp::create(
        b, loc, zero, numRows, one, ValueRange{cos0, sin0},
        [&](OpBuilder &b, Location loc, Value r, ValueRange iter) {
          Value s = arith::AddIOp::create(b, loc, rowStart, r);
          Value pos = tensor::ExtractOp::create(b, loc, positions, s);
          Value posVec = vector::BroadcastOp::create(
              b, loc, VectorType::get({half}, posElem), pos);
          Value inv = readVector(b, loc, invFreq, {zero}, half);
          // Reduced in f64: the table is small, and the polynomial cos/sin
          // stay as accurate as the reference's libm at large angles.
          auto [c, sn] = buildRotaryCosSin(b, loc, posVec, inv, angleType,
                                           computeType, attentionFactor,
                                           /*reduceAngleInF64=*/true);
          if (interleaved) {
            // Lane 2p and 2p+1 both use pair p.
            SmallVector<int64_t> dup;
            for (int64_t p = 0; p < half; ++p)
              dup.append({p, p});
            c = vector::ShuffleOp::create(b, loc, c, c, dup);
            sn = vector::ShuffleOp::create(b, loc, sn, sn, dup);
            // The table holds -sin on even lanes, so the row loop is
            // x*cos + swap(x)*sin' with no sign select per vector
            // (negation is exact: the same numbers as the select form).
            SmallVector<bool> even;
            for (int64_t l = 0; l < rotaryDim; ++l)
              even.push_back(l % 2 == 0);
            Value isEven = arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(
                    VectorType::get({rotaryDim}, b.getI1Type()),
                    ArrayRef<bool>(even)));
            sn = arith::SelectOp::create(
                b, loc, isEven, arith::NegFOp::create(b, loc, sn), sn);
          }
          Value cosT = writeVector(b, loc, c, iter[0], {r, zero});
          Value sinT = writeVector(b, loc, sn, iter[1], {r, zero});
          scf::YieldOp::create(b, loc, ValueRange{cosT, sinT});
        });
    Value cosTable = tables.getResult(0), sinTable = tables.getResult(1);

    // The block's slice of the output: every lead index, its rows.
    Value shared = forall.getRegionIterArgs()[0];
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[rank - 2] = rowStart;
    SmallVector<OpFoldResult> blockSizes(sizes);
    blockSizes[rank - 2] = numRows;
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    Value outBlock = tensor::ExtractSliceOp::create(b, loc, shared, offsets,
                                                    blockSizes, strides);

    SmallVector<Value> lead;
    auto rotateRow = [&](OpBuilder &b, Location loc, Value out, Value r) {
      Value s = arith::AddIOp::create(b, loc, rowStart, r);
      if (interleaved) {
        for (int64_t c0 = 0; c0 < rotaryDim; c0 += kChunk) {
          int64_t w = std::min(kChunk, rotaryDim - c0);
          Value col = indexConst(b, loc, c0);
          Value x = castFloat(
              b, loc, readVector(b, loc, input, withTail(lead, s, col), w),
              VectorType::get({w}, computeType));
          SmallVector<int64_t> swap;
          for (int64_t l = 0; l < w; l += 2)
            swap.append({l + 1, l});
          Value y = vector::ShuffleOp::create(b, loc, x, x, swap);
          Value c = readVector(b, loc, cosTable, {r, col}, w);
          Value sn = readVector(b, loc, sinTable, {r, col}, w);
          // sn is -sin on even lanes (see the table).
          Value rot = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, c),
              arith::MulFOp::create(b, loc, y, sn));
          out = writeVector(b, loc,
                            castFloat(b, loc, rot,
                                      VectorType::get({w}, elemType)),
                            out, withTail(lead, r, col));
        }
      } else {
        Value t = arith::ConstantIntOp::create(b, loc, 1, 1);
        Value f = arith::ConstantIntOp::create(b, loc, 0, 1);
        for (int64_t c0 = 0; c0 < half; c0 += kChunk) {
          int64_t w = std::min(kChunk, half - c0);
          Value colA = indexConst(b, loc, c0);
          Value colB = indexConst(b, loc, half + c0);
          auto computeVec = VectorType::get({w}, computeType);
          Value a = castFloat(
              b, loc, readVector(b, loc, input, withTail(lead, s, colA), w),
              computeVec);
          Value bv = castFloat(
              b, loc, readVector(b, loc, input, withTail(lead, s, colB), w),
              computeVec);
          Value c = readVector(b, loc, cosTable, {r, colA}, w);
          Value sn = readVector(b, loc, sinTable, {r, colA}, w);
          Value outA = buildRotatedElement(b, loc, a, bv, c, sn, t);
          Value outB = buildRotatedElement(b, loc, bv, a, c, sn, f);
          auto elemVec = VectorType::get({w}, elemType);
          out = writeVector(b, loc, castFloat(b, loc, outA, elemVec), out,
                            withTail(lead, r, colA));
          out = writeVector(b, loc, castFloat(b, loc, outB, elemVec), out,
                            withTail(lead, r, colB));
        }
      }
      // Dims past rotary_dim pass through.
      for (int64_t c0 = rotaryDim; c0 < headDim; c0 += kChunk) {
        int64_t w = std::min(kChunk, headDim - c0);
        Value col = indexConst(b, loc, c0);
        Value x = readVector(b, loc, input, withTail(lead, s, col), w);
        out = writeVector(b, loc, x, out, withTail(lead, r, col));
      }
      return out;
    };

    // for lead dims (outermost first), for rows: rotate.
    std::function<Value(OpBuilder &, Location, int64_t, Value)> buildLoops =
        [&](OpBuilder &b, Location loc, int64_t dim, Value out) -> Value {
      if (dim == numLead) {
        auto rowLoop = scf::ForOp::create(
            b, loc, zero, numRows, one, ValueRange{out},
            [&](OpBuilder &b, Location loc, Value r, ValueRange iter) {
              scf::YieldOp::create(b, loc, rotateRow(b, loc, iter[0], r));
            });
        return rowLoop.getResult(0);
      }
      Value ub = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
      auto loop = scf::ForOp::create(
          b, loc, zero, ub, one, ValueRange{out},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange iter) {
            lead.push_back(iv);
            Value res = buildLoops(b, loc, dim + 1, iter[0]);
            lead.pop_back();
            scf::YieldOp::create(b, loc, res);
          });
      return loop.getResult(0);
    };
    Value outTile = buildLoops(b, loc, 0, outBlock);

    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, outTile, shared, offsets,
                                          blockSizes, strides);
    rewriter.replaceOp(op, forall.getResult(0));
    return success();
  }

  int64_t blockRows;
};

struct PosencLowerRopePass
    : posenc::impl::PosencLowerRopePassBase<PosencLowerRopePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePosencLowerRopePatterns(patterns, blockRows);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace

void posenc::populatePosencLowerRopePatterns(RewritePatternSet &patterns,
                                             int64_t blockRows) {
  patterns.add<LowerStandaloneRope>(patterns.getContext(), blockRows);
}
