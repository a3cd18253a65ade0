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
//     (xPos: the table rows carry the decay, XPosDecay.cpp)
//
// The table form (posenc.rope with cos/sin operands) has no per-block table:
// each row reads its own rows of the op's tables (broadcast over the lead
// dims as the reference lowering reads them, ropeTableIndices), full width
// with independent halves: half layout x[p] cos[p] - x[p + R/2] sin[p] and
// x[p + R/2] cos[p + R/2] + x[p] sin[p + R/2]; interleaved x cos + y sin'
// with the op's own sin signed per lane (signRotaryLanes).
//
// The rotation is posenc.rope's, built by BuilderUtils.h's helpers
// (buildRotatedElement per half; buildInterleavedRotaryLanes, whose tables
// carry the sign of buildRotatedElement, and applyRotaryBySignedSin), the
// inverse frequencies the reference lowering's table (AttentionUtils.h).
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
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

/// Builds the lowering of one posenc.rope (the loop nest of the file
/// header) before it.
class StandaloneRopeBuilder {
public:
  StandaloneRopeBuilder(OpBuilder &b, RopeOp op, int64_t blockRows);

  /// The rotated tensor.
  Value build();

private:
  /// Same run-time check as the reference lowering.
  void checkPositionsLength();
  /// Rows of one block's table: `blockRows`, or what fits kTableBytes.
  int64_t rowsPerBlock();
  /// cos and sin of the block's rows, one computation per (row, pair),
  /// as [rows x tableWidth] tensors (interleaved: per lane, the sign of
  /// the rotation folded into sin).
  std::pair<Value, Value> buildTables(int64_t rows);
  /// Row `r` of the block (lead indices `lead`) rotated into `out`.
  Value rotateRow(OpBuilder &b, Location loc, Value out, Value r);
  Value rotateInterleavedRow(OpBuilder &b, Location loc, Value out, Value r,
                             Value s);
  Value rotateHalfRow(OpBuilder &b, Location loc, Value out, Value r, Value s);
  /// cos and sin for columns [col, col + w) of block row `r` (sequence row
  /// `s`): the block's table, or the op's (table form, each read at the
  /// lead indices as the reference lowering reads it), in the compute type;
  /// interleaved: the sin signed per lane (signRotaryLanes).
  std::pair<Value, Value> rowTables(OpBuilder &b, Location loc, Value r,
                                    Value s, Value col, int64_t w);
  /// for lead dims from `dim` (outermost first), for rows: rotate.
  Value buildLoops(OpBuilder &b, Location loc, int64_t dim, Value out);

  OpBuilder &b;
  RopeOp op;
  Location loc;
  int64_t blockRows;
  Value input, positions;
  RankedTensorType inputType;
  int64_t rank, numLead, headDim, rotaryDim, half, tableWidth;
  bool interleaved;
  /// The table form: cos/sin operands instead of positions.
  bool tableForm;
  Type elemType;
  FloatType computeType, angleType;
  double attentionFactor;

  Value invFreq;
  /// xPos: the per-pair log decay [R/2] and the center (i64), or null.
  Value xposLogDecay, xposCenter;
  SmallVector<OpFoldResult> sizes;
  Value zero, one;
  /// The block: its first row, its number of rows, its cos/sin tables.
  Value rowStart, numRows, cosTable, sinTable;
  /// Lead indices of the loops around the current row.
  SmallVector<Value> lead;
  /// Per-batch positions [B, S]: the forall also runs over the batch, whose
  /// index is lead[0]; the block's output slice holds that one batch.
  bool perBatch = false;
  /// The output indices of lead dims (lead, with the batch at 0 per batch).
  SmallVector<Value> outLead(Value r, Value col) const {
    SmallVector<Value> idx = withTail(lead, r, col);
    if (perBatch)
      idx[0] = zero;
    return idx;
  }
};

StandaloneRopeBuilder::StandaloneRopeBuilder(OpBuilder &b, RopeOp op,
                                             int64_t blockRows)
    : b(b), op(op), loc(op.getLoc()), blockRows(blockRows) {
  input = op.getInput();
  positions = op.getPositions();
  tableForm = op.hasTables();
  inputType = cast<RankedTensorType>(input.getType());
  rank = inputType.getRank();
  numLead = rank - 2;
  headDim = op.getHeadDim();
  rotaryDim = op.getRotaryDimOrDefault();
  half = rotaryDim / 2;
  interleaved = op.getLayout() == Layout::interleaved;
  // Table row: cos and sin per pair (half) or per lane (interleaved).
  tableWidth = interleaved ? rotaryDim : half;
  elemType = inputType.getElementType();
  computeType = computeTypeFor(elemType);
  angleType = op.getPrecision() == AnglePrecision::exact ? b.getF64Type()
                                                          : b.getF32Type();
  attentionFactor = tableForm ? 1.0 : op.getEffectiveAttentionFactor();
  perBatch =
      !tableForm && cast<RankedTensorType>(positions.getType()).getRank() == 2;
}

void StandaloneRopeBuilder::checkPositionsLength() {
  assertDimsEqual(b, loc, positions, perBatch ? 1 : 0, input, rank - 2,
                  "posenc.rope: length of 'positions' differs from the "
                  "sequence dim of 'input'");
  buildPerBatchPositionsCheck(b, loc, "posenc.rope", positions, input);
}

int64_t StandaloneRopeBuilder::rowsPerBlock() {
  if (blockRows > 0)
    return blockRows;
  int64_t rowBytes = 2 * tableWidth * computeType.getWidth() / 8;
  return std::clamp<int64_t>(kTableBytes / rowBytes, 1, 256);
}

std::pair<Value, Value> StandaloneRopeBuilder::buildTables(int64_t rows) {
  auto tableType = RankedTensorType::get({rows, tableWidth}, computeType);
  Value cos0 =
      tensor::EmptyOp::create(b, loc, tableType.getShape(), computeType);
  Value sin0 =
      tensor::EmptyOp::create(b, loc, tableType.getShape(), computeType);
  Type posElem = cast<RankedTensorType>(positions.getType()).getElementType();
  auto tables = scf::ForOp::create(
      b, loc, zero, numRows, one, ValueRange{cos0, sin0},
      [&](OpBuilder &b, Location loc, Value r, ValueRange iter) {
        Value s = arith::AddIOp::create(b, loc, rowStart, r);
        SmallVector<Value> at = {s};
        if (perBatch)
          at.insert(at.begin(), lead[0]);
        Value pos = tensor::ExtractOp::create(b, loc, positions, at);
        Value posVec = vector::BroadcastOp::create(
            b, loc, VectorType::get({half}, posElem), pos);
        Value inv = readVector(b, loc, invFreq, {zero}, half);
        // Reduced in f64: the table is small, and the polynomial cos/sin
        // stay as accurate as the reference's libm at large angles.
        auto [c, sn] = buildRotaryCosSin(b, loc, posVec, inv, angleType,
                                         computeType, attentionFactor,
                                         /*reduceAngleInF64=*/true);
        if (xposLogDecay)
          std::tie(c, sn) = applyXPosDecay(
              b, loc, c, sn, posVec, xposCenter,
              readVector(b, loc, xposLogDecay, {zero}, half));
        if (interleaved)
          std::tie(c, sn) = buildInterleavedRotaryLanes(b, loc, c, sn);
        Value cosT = writeVector(b, loc, c, iter[0], {r, zero});
        Value sinT = writeVector(b, loc, sn, iter[1], {r, zero});
        scf::YieldOp::create(b, loc, ValueRange{cosT, sinT});
      });
  return {tables.getResult(0), tables.getResult(1)};
}

std::pair<Value, Value> StandaloneRopeBuilder::rowTables(OpBuilder &b,
                                                         Location loc, Value r,
                                                         Value s, Value col,
                                                         int64_t w) {
  if (!tableForm)
    return {readVector(b, loc, cosTable, {r, col}, w),
            readVector(b, loc, sinTable, {r, col}, w)};
  SmallVector<Value> at =
      ropeTableIndices(b, loc, op.getCos(), withTail(lead, s, col), col);
  auto computeVec = VectorType::get({w}, computeType);
  // In sequence, not as call arguments (their order is unspecified).
  Value c =
      castFloat(b, loc, readVector(b, loc, op.getCos(), at, w), computeVec);
  Value sn =
      castFloat(b, loc, readVector(b, loc, op.getSin(), at, w), computeVec);
  // The block's interleaved table carries the rotation's sign; the op's
  // sin gets it here.
  if (interleaved)
    sn = signRotaryLanes(b, loc, sn);
  return {c, sn};
}

Value StandaloneRopeBuilder::rotateInterleavedRow(OpBuilder &b, Location loc,
                                                  Value out, Value r,
                                                  Value s) {
  for (int64_t c0 = 0; c0 < rotaryDim; c0 += kChunk) {
    int64_t w = std::min(kChunk, rotaryDim - c0);
    Value col = indexConst(b, loc, c0);
    Value x = castFloat(
        b, loc, readVector(b, loc, input, withTail(lead, s, col), w),
        VectorType::get({w}, computeType));
    Value y = swapRotaryPairLanes(b, loc, x);
    auto [c, sn] = rowTables(b, loc, r, s, col, w);
    Value rot = applyRotaryBySignedSin(b, loc, x, y, c, sn);
    out = writeVector(b, loc,
                      castFloat(b, loc, rot, VectorType::get({w}, elemType)),
                      out, outLead(r, col));
  }
  return out;
}

Value StandaloneRopeBuilder::rotateHalfRow(OpBuilder &b, Location loc,
                                           Value out, Value r, Value s) {
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
    // The block's table has one entry per pair; the op's tables a column
    // per dim, each half its own (nothing assumes equal halves).
    auto [cA, sA] = rowTables(b, loc, r, s, colA, w);
    auto [cB, sB] = tableForm ? rowTables(b, loc, r, s, colB, w)
                              : std::pair<Value, Value>{cA, sA};
    Value outA = buildRotatedElement(b, loc, a, bv, cA, sA, /*isFirst=*/true);
    Value outB = buildRotatedElement(b, loc, bv, a, cB, sB, /*isFirst=*/false);
    auto elemVec = VectorType::get({w}, elemType);
    out = writeVector(b, loc, castFloat(b, loc, outA, elemVec), out,
                      outLead(r, colA));
    out = writeVector(b, loc, castFloat(b, loc, outB, elemVec), out,
                      outLead(r, colB));
  }
  return out;
}

Value StandaloneRopeBuilder::rotateRow(OpBuilder &b, Location loc, Value out,
                                       Value r) {
  Value s = arith::AddIOp::create(b, loc, rowStart, r);
  out = interleaved ? rotateInterleavedRow(b, loc, out, r, s)
                    : rotateHalfRow(b, loc, out, r, s);
  // Dims past rotary_dim pass through.
  for (int64_t c0 = rotaryDim; c0 < headDim; c0 += kChunk) {
    int64_t w = std::min(kChunk, headDim - c0);
    Value col = indexConst(b, loc, c0);
    Value x = readVector(b, loc, input, withTail(lead, s, col), w);
    out = writeVector(b, loc, x, out, outLead(r, col));
  }
  return out;
}

Value StandaloneRopeBuilder::buildLoops(OpBuilder &b, Location loc,
                                        int64_t dim, Value out) {
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
}

Value StandaloneRopeBuilder::build() {
  if (tableForm)
    buildRopeTableChecks(b, loc, "posenc.rope", op.getCos(), input);
  else
    checkPositionsLength();
  if (!tableForm)
    invFreq = buildRopeInvFreqTable(b, loc, op, positions, angleType);
  if (XPosAttr xpos = op.getXposAttr()) {
    xposLogDecay =
        buildXPosLogDecayConstant(b, loc, xpos, rotaryDim, computeType);
    xposCenter = arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(xpos.getCenter()));
  }
  int64_t rows = rowsPerBlock();

  sizes = tensor::getMixedSizes(b, loc, input);
  Value seqLen = getValueOrCreateConstantIndexOp(b, loc, sizes[rank - 2]);
  Value rowsC = indexConst(b, loc, rows);
  zero = indexConst(b, loc, 0);
  one = indexConst(b, loc, 1);
  Value numBlocks = arith::CeilDivUIOp::create(b, loc, seqLen, rowsC);
  Value init = tensor::EmptyOp::create(b, loc, sizes, elemType);

  // Per batch, the tables depend on the batch too: one block per (b, rows).
  SmallVector<OpFoldResult> grid = {numBlocks};
  if (perBatch)
    grid.insert(grid.begin(), sizes[0]);
  auto forall =
      scf::ForallOp::create(b, loc, grid, ValueRange{init}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  if (perBatch)
    lead.push_back(forall.getInductionVars()[0]);
  rowStart =
      arith::MulIOp::create(b, loc, forall.getInductionVars().back(), rowsC);
  numRows = arith::MinUIOp::create(
      b, loc, rowsC, arith::SubIOp::create(b, loc, seqLen, rowStart));
  if (!tableForm)
    std::tie(cosTable, sinTable) = buildTables(rows);

  // The block's slice of the output: every lead index, its rows.
  Value shared = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[rank - 2] = rowStart;
  SmallVector<OpFoldResult> blockSizes(sizes);
  blockSizes[rank - 2] = numRows;
  if (perBatch) {
    offsets[0] = lead[0];
    blockSizes[0] = b.getIndexAttr(1);
  }
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value outBlock = tensor::ExtractSliceOp::create(b, loc, shared, offsets,
                                                  blockSizes, strides);
  Value outTile = buildLoops(b, loc, perBatch ? 1 : 0, outBlock);

  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, outTile, shared, offsets,
                                        blockSizes, strides);
  return forall.getResult(0);
}

struct LowerStandaloneRope : OpRewritePattern<RopeOp> {
  LowerStandaloneRope(MLIRContext *ctx, int64_t blockRows)
      : OpRewritePattern(ctx), blockRows(blockRows) {}

  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    // Larger head dims would unroll into too many chunks.
    if (op.getHeadDim() > kMaxHeadDim)
      return rewriter.notifyMatchFailure(
          op, "head dim above 1024: left to the reference lowering");
    Value result = StandaloneRopeBuilder(rewriter, op, blockRows).build();
    rewriter.replaceOp(op, result);
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
