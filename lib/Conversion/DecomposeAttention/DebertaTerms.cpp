//===- DebertaTerms.cpp - DeBERTa's relative terms on the tiles -----------===//
//
// posenc.fused_attention's DeBERTa terms (posenc.disentangled_attention,
// He et al.):
//
//   e[i, j] = scale * (q_i . k_j + [c2p] q_i . pos_key[c(i - j)]
//                                + [p2c] k_j . pos_query[c(i - j)])
//
// with c(r) = clamp(bucket(r) + k, 0, 2k - 1) (AttentionUtils'
// buildDisentangledIndex, DeBERTa-v2's log bucket when set), never with an
// Sq x Sk or Sq x 2k tensor (docs/design.md, "DeBERTa's band products"):
// both terms depend on (i, j) only through the distance i - j, and a
// [Bq x Bk] tile touches Bq + Bk - 1 distances. Per key tile:
//
//   index row:  c of each of the tile's distances (one bucket per distance,
//               not per score);
//   c2p:        C^T [rows x Bq] = pos_key[c(band)] Q~^T, the tile's query
//               rows against the table rows its distances select;
//   p2c:        P [Bk x rows] = K~ pos_query[c(band)]^T;
//   scores:     S^T[jLocal, iLocal] += C^T[u, iLocal] + P[jLocal, u],
//               u = iLocal - jLocal + Bk - 1 (the diagonal of the distance).
//
// Each band product costs (Bq + Bk - 1) / Bk times the tile's Q K^T, so the
// two terms about quadruple the score arithmetic (the target: within
// 2.5x of plain attention, whose P V is untouched). The generic layout (the
// scalar tile path) takes the dot products per score.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

/// The indices of row `row` of a DeBERTa table ([H x] 2k x D) at the task's
/// head.
static SmallVector<Value> tableIndex(const AttentionInfo &info,
                                     const QueryTileTask &task, Value table,
                                     Value row, Value d) {
  if (cast<RankedTensorType>(table.getType()).getRank() == 3)
    return {task.lead[info.n - 1], row, d};
  return {row, d};
}

/// table[(h,) row, d] in the compute type.
static Value loadTableElement(OpBuilder &b, Location loc,
                              const AttentionInfo &info,
                              const QueryTileTask &task, Value table,
                              Value row, Value d) {
  Value x = tensor::ExtractOp::create(b, loc, table,
                                      tableIndex(info, task, table, row, d));
  return castFloat(b, loc, x, info.c);
}

//===----------------------------------------------------------------------===//
// Generic layout
//===----------------------------------------------------------------------===//

Value posenc::decompose::addDebertaTerms(OpBuilder &b, Location loc,
                                         const AttentionInfo &info,
                                         const QueryTileTask &task, Value s,
                                         Value qTile, Value kTile,
                                         Value kStart) {
  // s[iLocal, jLocal] += sum_d q[iLocal, d] pos_key[c, d]
  //                          + k[jLocal, d] pos_query[c, d]  (loops i, j, d)
  MLIRContext *ctx = b.getContext();
  FusedAttentionOp op = info.op;
  FloatType c = info.c;
  Value posKey = op.getDebertaPosKey(), posQuery = op.getDebertaPosQuery();
  int64_t span = op.getDebertaSpan();
  std::optional<DebertaBucketParams> buckets = getDebertaBucketParams(op);
  return buildGeneric(
      b, loc, ValueRange{qTile, kTile}, s,
      {mapOf(ctx, 3, {0, 2}), mapOf(ctx, 3, {1, 2}), mapOf(ctx, 3, {0, 1})},
      iterators(2, 1), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value i = arith::AddIOp::create(b, loc, task.qStart,
                                        linalg::IndexOp::create(b, loc, 0));
        Value j = arith::AddIOp::create(b, loc, kStart,
                                        linalg::IndexOp::create(b, loc, 1));
        Value row = buildDisentangledIndex(b, loc, i, j, span, buckets);
        Value d = linalg::IndexOp::create(b, loc, 2);
        Value sum = a[2];
        auto addTerm = [&](Value x, Value table) {
          if (!table)
            return;
          Value t = loadTableElement(b, loc, info, task, table, row, d);
          sum = arith::AddFOp::create(
              b, loc, sum,
              arith::MulFOp::create(b, loc, castFloat(b, loc, x, c), t));
        };
        addTerm(a[0], posKey);   // c2p
        addTerm(a[1], posQuery); // p2c
        yieldValue(b, loc, sum);
      });
}

//===----------------------------------------------------------------------===//
// Vector layout
//===----------------------------------------------------------------------===//

Value VectorTileBuilder::buildDebertaIndexRow(Value kStart) {
  // Band row u holds the distance i - j = qStart - kStart + u - (tk - 1).
  // Rows of padded query rows or keys (dropped or masked) still get an
  // index in [0, 2k): buildDisentangledIndex clamps.
  FusedAttentionOp op = info.op;
  int64_t span = op.getDebertaSpan();
  std::optional<DebertaBucketParams> buckets = getDebertaBucketParams(op);
  Value first = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, task.qStart, kStart),
      indexConst(b, loc, tk - 1));
  Type i32 = b.getI32Type();
  return buildGeneric(
      b, loc, ValueRange(),
      tensor::EmptyOp::create(
          b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(debertaBandRows)}, i32),
      {id1}, iterators(1), [&](OpBuilder &b, Location loc, ValueRange) {
        Value dist = arith::AddIOp::create(b, loc, first,
                                           linalg::IndexOp::create(b, loc, 0));
        Value row = buildDisentangledIndex(b, loc, dist, zeroIdx, span,
                                           buckets);
        yieldValue(b, loc, arith::IndexCastOp::create(b, loc, i32, row));
      });
}

Value VectorTileBuilder::gatherDebertaRows(Value table, Value indexRow) {
  // rows[u, d] = table[(h,) c(u), d]: [debertaBandRows x D].
  Value rows = buildGeneric(
      b, loc, ValueRange(),
      tensor::EmptyOp::create(
          b, loc,
          ArrayRef<OpFoldResult>{b.getIndexAttr(debertaBandRows), dq}, c),
      {id2}, iterators(2), [&](OpBuilder &b, Location loc, ValueRange) {
        Value at = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(
                b, loc, indexRow,
                ValueRange{linalg::IndexOp::create(b, loc, 0)}));
        yieldValue(b, loc,
                   loadTableElement(b, loc, info, task, table, at,
                                    linalg::IndexOp::create(b, loc, 1)));
      });
  markVectorTile(rows, {1, 0});
  return rows;
}

void VectorTileBuilder::buildDebertaBands(Value kStart, Value kTile) {
  FusedAttentionOp op = info.op;
  // Padded to whole register tiles; the pad rows are never read.
  debertaBandRows = llvm::alignTo(tq + tk - 1, 16);
  OpFoldResult rowsI = b.getIndexAttr(debertaBandRows);
  Value indexRow = buildDebertaIndexRow(kStart);
  if (Value posKey = op.getDebertaPosKey()) {
    // C^T [rows x tq] = pos_key[c(band)] Q~^T  (loops u, i, d)
    debertaC2P = contract(b, loc, c, gatherDebertaRows(posKey, indexRow),
                          {0, 2}, qT, {2, 1}, filled({rowsI, tqI}, 0.0));
    markVectorTile(debertaC2P, {8, divisorAtMost(tq, 32), 1});
  }
  if (Value posQuery = op.getDebertaPosQuery()) {
    // P [tk x rows] = K~ pos_query[c(band)]^T  (loops j, u, d)
    debertaP2C = contract(b, loc, c, kTile, {0, 2},
                          gatherDebertaRows(posQuery, indexRow), {1, 2},
                          filled({tkI, rowsI}, 0.0));
    markVectorTile(debertaP2C, {divisorAtMost(tk, 8),
                                divisorAtMost(debertaBandRows, 32), 1});
  }
}

Value VectorTileBuilder::addDebertaTerms(OpBuilder &b, Location loc,
                                         Value score) {
  // S^T[jLocal, iLocal] += C^T[u, iLocal] + P[jLocal, u],
  // u = iLocal - jLocal + tk - 1.
  Value iLocal = linalg::IndexOp::create(b, loc, 1);
  Value jLocal = linalg::IndexOp::create(b, loc, 0);
  Value u = arith::AddIOp::create(b, loc,
                                  arith::SubIOp::create(b, loc, iLocal, jLocal),
                                  indexConst(b, loc, tk - 1));
  if (debertaC2P)
    score = arith::AddFOp::create(
        b, loc, score,
        tensor::ExtractOp::create(b, loc, debertaC2P, ValueRange{u, iLocal}));
  if (debertaP2C)
    score = arith::AddFOp::create(
        b, loc, score,
        tensor::ExtractOp::create(b, loc, debertaP2C, ValueRange{jLocal, u}));
  return score;
}
