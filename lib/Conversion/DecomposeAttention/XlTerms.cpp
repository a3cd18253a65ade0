//===- XlTerms.cpp - Transformer-XL's relative terms on the tiles ---------===//
//
// posenc.fused_attention's xl term (posenc.xl_attention, Dai et al.):
//
//   e[i, j] = scale * ((q_i + u_h) . k_j + (q_i + v_h) . rel[i' - j + Sq - 1])
//
// never with an Sq x Sk or Sq x L tensor (docs/design.md, "Transformer-XL's
// band product"):
//
//   content term:  u_h is added to the query tile once per task, so the
//                  tile's Q K^T product is (q + u) . k as it stands;
//   position term: per key tile, the band product
//                  (q_tile + v_h) . rel[band]^T over the Bq + Bk - 1 rows of
//                  rel that the tile's distances reach, read along the
//                  diagonals: score (i, j) takes column i of band row
//                  iLocal - jLocal + Bk - 1. The "relative shift" of the
//                  paper's implementation is that index, not a copy.
//
// The vector layout (CPU) keeps the band as [rows x Bq] next to S^T; the
// generic layout (the scalar tile path) takes the dot product per score.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

/// Row `head` of a [H x D] bias as a tensor<D>.
static Value headRow(OpBuilder &b, Location loc, Value bias, Value head) {
  auto type = cast<RankedTensorType>(bias.getType());
  auto rowType =
      RankedTensorType::get({type.getDimSize(1)}, type.getElementType());
  return tensor::ExtractSliceOp::create(
      b, loc, rowType, bias, ArrayRef<OpFoldResult>{head, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                             tensor::getMixedSize(b, loc, bias, 1)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// `tile` + bias[head] in the compute type, the bias read along the tile's
/// dim `headDim` (the head dim D).
static Value addBiasRow(OpBuilder &b, Location loc, FloatType c, Value tile,
                        int64_t headDim, Value bias, Value head) {
  MLIRContext *ctx = b.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  return buildGeneric(
      b, loc, ValueRange{tile, headRow(b, loc, bias, head)},
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, tile), c),
      {id2, mapOf(ctx, 2, {headDim}), id2}, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc,
                   arith::AddFOp::create(b, loc, castFloat(b, loc, a[0], c),
                                         castFloat(b, loc, a[1], c)));
      });
}

/// The indices of rel's row `row` at the task's head (rel [[H x] L x D]).
static SmallVector<Value> relIndex(const AttentionInfo &info,
                                   const QueryTileTask &task, Value row,
                                   Value d) {
  if (cast<RankedTensorType>(info.xlRel.getType()).getRank() == 3)
    return {task.lead[info.n - 1], row, d};
  return {row, d};
}

//===----------------------------------------------------------------------===//
// Generic layout
//===----------------------------------------------------------------------===//

std::pair<Value, Value>
posenc::decompose::addXlQueryBiases(OpBuilder &b, Location loc,
                                    const AttentionInfo &info,
                                    const QueryTileTask &task, Value qTile) {
  Value head = task.lead[info.n - 1];
  return {addBiasRow(b, loc, info.c, qTile, 1, info.xlContentBias, head),
          addBiasRow(b, loc, info.c, qTile, 1, info.xlPositionBias, head)};
}

Value posenc::decompose::addXlPositionTerm(OpBuilder &b, Location loc,
                                           const AttentionInfo &info,
                                           const QueryTileTask &task, Value s,
                                           Value qvTile, Value kStart) {
  // s[iLocal, jLocal] += sum_d qv[iLocal, d] * rel[t, d] (loops i, j, d),
  // t = i' - j + Sq - 1 of the absolute i, j.
  MLIRContext *ctx = b.getContext();
  FloatType c = info.c;
  Value sqMinusOne =
      arith::SubIOp::create(b, loc, task.sq, indexConst(b, loc, 1));
  return buildGeneric(
      b, loc, ValueRange{qvTile}, s,
      {mapOf(ctx, 3, {0, 2}), mapOf(ctx, 3, {0, 1})}, iterators(2, 1),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Value i = arith::AddIOp::create(b, loc, task.qStart,
                                        linalg::IndexOp::create(b, loc, 0));
        Value j = arith::AddIOp::create(b, loc, kStart,
                                        linalg::IndexOp::create(b, loc, 1));
        Value row = arith::SubIOp::create(
            b, loc, sqMinusOne,
            buildRelativeDistance(b, loc, i, j, task.shift));
        Value rel = tensor::ExtractOp::create(
            b, loc, info.xlRel,
            relIndex(info, task, row, linalg::IndexOp::create(b, loc, 2)));
        Value prod =
            arith::MulFOp::create(b, loc, a[0], castFloat(b, loc, rel, c));
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[1], prod));
      });
}

//===----------------------------------------------------------------------===//
// Vector layout
//===----------------------------------------------------------------------===//

void VectorTileBuilder::buildXlQueryTiles() {
  // Q~^T is [D x tq]: the biases run along dim 0. Built after Shaw's key
  // table, which reads the query without u.
  Value head = task.lead[info.n - 1];
  xlQueryT = addBiasRow(b, loc, c, qT, 0, info.xlPositionBias, head);
  markVectorTile(xlQueryT, {1, 0});
  qT = addBiasRow(b, loc, c, qT, 0, info.xlContentBias, head);
  markVectorTile(qT, {1, 0});
  // Band rows padded to whole register tiles; the pad rows are never read.
  xlBandRows = llvm::alignTo(tq + tk - 1, 8);
}

Value VectorTileBuilder::buildXlBand(Value kStart) {
  // Band row r is rel row first + r with first = t(qStart, kStart + tk - 1)
  // = qStart - kStart + Sk - tk. Rows outside [0, L) belong only to padded
  // query rows or keys (dropped or masked); the clamp keeps them in bounds.
  Value rel = info.xlRel;
  int64_t relRank = cast<RankedTensorType>(rel.getType()).getRank();
  Value first = arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, task.qStart, kStart),
      arith::SubIOp::create(b, loc, task.sk, tkV));
  Value last = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, rel, relRank - 2),
      indexConst(b, loc, 1));
  Value rows = buildGeneric(
      b, loc, ValueRange(),
      tensor::EmptyOp::create(
          b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(xlBandRows), dq}, c),
      {id2}, iterators(2), [&](OpBuilder &b, Location loc, ValueRange) {
        Value at = arith::AddIOp::create(b, loc, first,
                                         linalg::IndexOp::create(b, loc, 0));
        at = arith::MaxSIOp::create(
            b, loc, arith::MinSIOp::create(b, loc, at, last), zeroIdx);
        Value x = tensor::ExtractOp::create(
            b, loc, rel,
            relIndex(info, task, at, linalg::IndexOp::create(b, loc, 1)));
        yieldValue(b, loc, castFloat(b, loc, x, c));
      });
  markVectorTile(rows, {1, 0});
  // P^T [rows x tq] = rel[band] (Q~ + v)^T  (loops r, i, d)
  Value band = contract(b, loc, c, rows, {0, 2}, xlQueryT, {2, 1},
                        filled({b.getIndexAttr(xlBandRows), tqI}, 0.0));
  markVectorTile(band, {8, divisorAtMost(tq, 32), 1});
  return band;
}

Value VectorTileBuilder::addXlTerm(OpBuilder &b, Location loc, Value score) {
  // S^T[jLocal, iLocal] += band[iLocal - jLocal + tk - 1, iLocal].
  Value iLocal = linalg::IndexOp::create(b, loc, 1);
  Value r = arith::AddIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, iLocal, linalg::IndexOp::create(b, loc, 0)),
      indexConst(b, loc, tk - 1));
  return arith::AddFOp::create(
      b, loc, score,
      tensor::ExtractOp::create(b, loc, xlBand, ValueRange{r, iLocal}));
}
