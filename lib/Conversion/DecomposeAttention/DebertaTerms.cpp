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
//   rows:       the table rows c(r) of the tile's distances, gathered by
//               the per-op index (prepareDebertaIndex: one bucket per
//               distance of the op, its logarithm out of the tiles);
//   c2p:        C^T [rows x Bq] = pos_key[c(band)] Q~^T, the tile's query
//               rows against the table rows its distances select;
//   p2c:        P [Bk x rows] = K~ pos_query[c(band)]^T;
//   scores:     S^T[jLocal, iLocal] += C^T[u, iLocal] + P[jLocal, u],
//               u = iLocal - jLocal + Bk - 1 (the diagonal of the distance).
//
// Each band product costs (Bq + Bk - 1) / Bk times the tile's Q K^T, so the
// two terms about quadruple the score arithmetic (the target: within
// 2.5x of plain attention, whose P V is untouched). The generic layout (the
// scalar tile path, the GPU's FMA kernel) takes the dot products per score,
// with log buckets read from the same per-op index.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
                                         Value kStart, Value index) {
  // s[iLocal, jLocal] += sum_d q[iLocal, d] pos_key[c, d]
  //                          + k[jLocal, d] pos_query[c, d]  (loops i, j, d)
  // with c = index[i - j + Sk - 1] (in bounds: the tiles have no padded
  // rows or keys) or computed here.
  MLIRContext *ctx = b.getContext();
  FusedAttentionOp op = info.op;
  FloatType c = info.c;
  Value posKey = op.getDebertaPosKey(), posQuery = op.getDebertaPosQuery();
  int64_t span = op.getDebertaSpan();
  std::optional<DebertaBucketParams> buckets = getDebertaBucketParams(op);
  Value skMinusOne =
      arith::SubIOp::create(b, loc, task.sk, indexConst(b, loc, 1));
  auto tableRow = [&](OpBuilder &b, Location loc, Value i, Value j) -> Value {
    if (!index)
      return buildDisentangledIndex(b, loc, i, j, span, buckets);
    Value p = arith::AddIOp::create(b, loc, arith::SubIOp::create(b, loc, i, j),
                                    skMinusOne);
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        tensor::ExtractOp::create(b, loc, index, ValueRange{p}));
  };
  return buildGeneric(
      b, loc, ValueRange{qTile, kTile}, s,
      {mapOf(ctx, 3, {0, 2}), mapOf(ctx, 3, {1, 2}), mapOf(ctx, 3, {0, 1})},
      iterators(2, 1), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value i = arith::AddIOp::create(b, loc, task.qStart,
                                        linalg::IndexOp::create(b, loc, 0));
        Value j = arith::AddIOp::create(b, loc, kStart,
                                        linalg::IndexOp::create(b, loc, 1));
        Value row = tableRow(b, loc, i, j);
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

Value posenc::decompose::prepareDebertaIndex(OpBuilder &b, Location loc,
                                             const AttentionInfo &info,
                                             Value sq, Value sk) {
  // Entry p: the row c(r) of the distance r = i - j = p - (Sk - 1), for
  // r in [1 - Sk, Sq - 1]; none when Sq or Sk is 0.
  FusedAttentionOp op = info.op;
  int64_t span = op.getDebertaSpan();
  std::optional<DebertaBucketParams> buckets = getDebertaBucketParams(op);
  return buildPerDistanceTable(
      b, loc, sq, sk, [&](OpBuilder &b, Location loc, Value dist) {
        return buildDisentangledIndex(b, loc, dist, indexConst(b, loc, 0),
                                      span, buckets);
      });
}

Value VectorTileBuilder::debertaFirstEntry(Value kStart) {
  // r = qStart - kStart - (tk - 1) at u = 0, entry r + Sk - 1.
  return arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, task.qStart, kStart),
      arith::SubIOp::create(b, loc, task.sk, tkV));
}

Value VectorTileBuilder::debertaRowsUniform(Value kStart, int64_t numRows) {
  // All of index[clamp(first + u)], u < numRows, equal to the first: a
  // scalar loop over the entries, not an argument from the bucket
  // function's monotonicity, so that it holds for any index.
  Value index = tables.debertaIndex;
  Value first = debertaFirstEntry(kStart);
  Value last = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, index, 0), indexConst(b, loc, 1));
  auto entry = [&](OpBuilder &b, Value u) {
    Value p = arith::AddIOp::create(b, loc, first, u);
    p = arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, p, last),
                               zeroIdx);
    return tensor::ExtractOp::create(b, loc, index, ValueRange{p}).getResult();
  };
  Value row0 = entry(b, zeroIdx);
  Value all = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 1), indexConst(b, loc, numRows),
      indexConst(b, loc, 1), ValueRange{all},
      [&](OpBuilder &b, Location loc, Value u, ValueRange acc) {
        Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           entry(b, u), row0);
        scf::YieldOp::create(
            b, loc, ValueRange{arith::AndIOp::create(b, loc, acc[0], same)});
      });
  return loop.getResult(0);
}

Value VectorTileBuilder::broadcastFirst(Value t, int64_t dim, Value dest) {
  // dest[x0, x1] = t[x0, x1] with index `dim` replaced by 0.
  if (dim == 1) {
    // Along the rows' vectors: one scalar load per row, then a broadcast.
    // Read through a map (d0, d1) -> (d0, 0) the row's transfer_read lowers
    // to a loop inserting one lane at a time through the stack, which perf
    // found taking two thirds of the kernel (S = 2048, D = 64: most key
    // tiles are far, and take this branch).
    Value out =
        buildGeneric(b, loc, ValueRange(), dest, {id2}, iterators(2),
                     [&](OpBuilder &b, Location loc, ValueRange) {
                       Value row = linalg::IndexOp::create(b, loc, 0);
                       yieldValue(b, loc,
                                  tensor::ExtractOp::create(
                                      b, loc, t, ValueRange{row, zeroIdx}));
                     });
    markVectorTile(out, {1, 0});
    return out;
  }
  SmallVector<AffineExpr> read = {getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(1, ctx)};
  read[dim] = getAffineConstantExpr(0, ctx);
  Value out =
      buildGeneric(b, loc, t, dest, {AffineMap::get(2, 0, read, ctx), id2},
                   iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
                     yieldValue(b, loc, a[0]);
                   });
  markVectorTile(out, {1, 0});
  return out;
}

Value VectorTileBuilder::gatherDebertaRows(Value table, Value kStart,
                                           int64_t numRows) {
  // rows[u, d] = table[(h,) c(r), d], r = i - j = qStart - kStart + u -
  // (tk - 1): [debertaBandRows x D]. Its row of the per-op index is
  // r + Sk - 1; padded query rows and keys (dropped or masked) and the pad
  // rows fall outside [0, Sq + Sk - 2], the clamp keeps their loads in
  // bounds.
  Value index = tables.debertaIndex;
  Value first = debertaFirstEntry(kStart);
  Value last = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, index, 0), indexConst(b, loc, 1));
  Value rows = buildGeneric(
      b, loc, ValueRange(),
      tensor::EmptyOp::create(
          b, loc,
          ArrayRef<OpFoldResult>{
              b.getIndexAttr(numRows ? numRows : debertaBandRows), dq},
          c),
      {id2}, iterators(2), [&](OpBuilder &b, Location loc, ValueRange) {
        Value p = arith::AddIOp::create(b, loc, first,
                                        linalg::IndexOp::create(b, loc, 0));
        p = arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, p, last),
                                   zeroIdx);
        Value at = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(b, loc, index, ValueRange{p}));
        yieldValue(b, loc,
                   loadTableElement(b, loc, info, task, table, at,
                                    linalg::IndexOp::create(b, loc, 1)));
      });
  markVectorTile(rows, {1, 0});
  return rows;
}

Value VectorTileBuilder::zeroedInto(Value dest) {
  Value f = linalg::FillOp::create(b, loc, floatConst(b, loc, c, 0.0), dest)
                .getResult(0);
  markVectorTile(f, {1, 0});
  return f;
}

Value VectorTileBuilder::ownAccumulatorTile(int64_t rows, int64_t cols) {
  // The vector hoisting keeps no accumulator in registers whose buffer is a
  // view (a band's rows) or a loop-carried band: storing every accumulator
  // per reduction step cost about a quarter of the kernel (perf, S = 1024,
  // D = 64). So products are computed here and copied (copiedInto).
  return zeroedInto(bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get({rows, cols}, c), ValueRange()));
}

Value VectorTileBuilder::copiedInto(Value tile, Value dest) {
  Value copied = linalg::CopyOp::create(b, loc, tile, dest).getResult(0);
  markVectorTile(copied, {1, 0});
  return copied;
}

Value VectorTileBuilder::buildDebertaC2PRows(Value kStart, int64_t numRows,
                                             Value dest) {
  // C^T [numRows x tq] = pos_key[c(band)] Q~^T  (loops u, i, d)
  // With `dest`, the product goes into a tile of its own and is then
  // copied (ownAccumulatorTile).
  FusedAttentionOp op = info.op;
  int64_t rowCount = numRows ? numRows : debertaBandRows;
  Value rows = gatherDebertaRows(op.getDebertaPosKey(), kStart, numRows);
  Value init = dest ? ownAccumulatorTile(rowCount, tq)
                    : filled({b.getIndexAttr(rowCount), tqI}, 0.0);
  Value band = contract(b, loc, c, rows, {0, 2}, qT, {2, 1}, init);
  markVectorTile(band, {8, divisorAtMost(tq, 32), 1});
  return dest ? copiedInto(band, dest) : band;
}

Value VectorTileBuilder::nextDebertaC2P(Value kStart) {
  // The next key tile's distances are this tile's minus tk: its band rows
  // [tk, rows) are this band's rows [0, rows - tk) (copied out first, to a
  // buffer of its own: the two ranges overlap, and a tensor.empty would be
  // replaced by the destination's slice), only its first tk rows are new. One tk-row product
  // per key tile instead of a band's; the band stays in the loop's buffer.
  Value band = debertaC2P;
  int64_t keptRows = debertaBandRows - tk;
  SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
  OpFoldResult zero = b.getIndexAttr(0), keptI = b.getIndexAttr(keptRows);
  Value kept = tensor::ExtractSliceOp::create(
      b, loc, band, ArrayRef<OpFoldResult>{zero, zero},
      ArrayRef<OpFoldResult>{keptI, tqI}, ones);
  kept = buildGeneric(
      b, loc, kept,
      bufferization::AllocTensorOp::create(
          b, loc, RankedTensorType::get({keptRows, tq}, c), ValueRange()),
      {id2, id2}, iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, a[0]);
      });
  markVectorTile(kept, {1, 0});
  band = tensor::InsertSliceOp::create(b, loc, kept, band,
                                       ArrayRef<OpFoldResult>{tkI, zero},
                                       ArrayRef<OpFoldResult>{keptI, tqI}, ones);
  // The new rows, written in place into the band's first tk rows (both
  // branches into one destination, so that the if's buffer is the band's).
  // One table row for all of them (a far tile: every distance past the span
  // or in the last log bucket) needs 8 rows of the product, not tk.
  Value dest = tensor::ExtractSliceOp::create(
      b, loc, band, ArrayRef<OpFoldResult>{zero, zero},
      ArrayRef<OpFoldResult>{tkI, tqI}, ones);
  Value next = arith::AddIOp::create(b, loc, kStart, tkV);
  int64_t fewRows = std::min<int64_t>(tk, 8);
  auto fresh = scf::IfOp::create(
      b, loc, debertaRowsUniform(next, tk),
      [&](OpBuilder &, Location) {
        Value few = buildDebertaC2PRows(next, fewRows, Value());
        scf::YieldOp::create(b, loc, broadcastFirst(few, 0, dest));
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, buildDebertaC2PRows(next, tk, dest));
      });
  return tensor::InsertSliceOp::create(b, loc, fresh.getResult(0), band,
                                       ArrayRef<OpFoldResult>{zero, zero},
                                       ArrayRef<OpFoldResult>{tkI, tqI}, ones);
}

void VectorTileBuilder::buildDebertaBands(Value kStart, Value kTile,
                                          Value carried) {
  FusedAttentionOp op = info.op;
  if (op.getDebertaPosKey())
    debertaC2P = carried;
  if (!op.getDebertaPosQuery())
    return;
  // One table row for the whole band (a far tile): a 16-column product
  // whose first column is every column. Both branches write one
  // destination, so that the if's buffer has its identity layout (the
  // diagonal reads of addDebertaTerms become gathers, which need it).
  Value dest = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{tkI, b.getIndexAttr(debertaBandRows)}, c);
  int64_t fewRows = std::min<int64_t>(debertaBandRows, 16);
  auto p2c = scf::IfOp::create(
      b, loc, debertaRowsUniform(kStart, tq + tk - 1),
      [&](OpBuilder &, Location) {
        Value few =
            buildDebertaP2C(kStart, kTile, fewRows,
                            filled({tkI, b.getIndexAttr(fewRows)}, 0.0));
        scf::YieldOp::create(b, loc, broadcastFirst(few, 1, dest));
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, buildDebertaP2CBand(kStart, kTile, dest));
      });
  debertaP2C = p2c.getResult(0);
}

Value VectorTileBuilder::gatherDebertaRowsT(Value kStart, int64_t numRows) {
  // The rows transposed, [D x rows], so that the product's vector lanes
  // (the band rows) read contiguous memory, as S^T's read Q~^T.
  OpFoldResult rowsI = b.getIndexAttr(numRows);
  Value rows = gatherDebertaRows(FusedAttentionOp(info.op).getDebertaPosQuery(),
                                 kStart, numRows);
  Value rowsT = buildGeneric(
      b, loc, rows,
      tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{dq, rowsI}, c),
      {mapOf(ctx, 2, {1, 0}), id2}, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, a[0]);
      });
  markVectorTile(rowsT, {16, 16});
  return rowsT;
}

Value VectorTileBuilder::buildDebertaP2C(Value kStart, Value kTile,
                                         int64_t numRows, Value init) {
  // P [tk x rows] = K~ pos_query[c(band)]^T  (loops j, u, d)
  Value p = contract(b, loc, c, kTile, {0, 2},
                     gatherDebertaRowsT(kStart, numRows), {2, 1}, init);
  markVectorTile(p, {divisorAtMost(tk, 8), divisorAtMost(numRows, 32), 1});
  return p;
}

Value VectorTileBuilder::buildDebertaP2CBand(Value kStart, Value kTile,
                                             Value dest) {
  // Key jLocal reads band rows u = iLocal - jLocal + tk - 1 only: the first
  // h = tk/2 keys rows u >= tk - h, the others rows u < tq + tk - h - 1.
  // Two [h x ~(tq + h)] products cover every row read, a quarter fewer
  // FMAs than the [tk x rows] one at tq = tk (the rows no key reads are
  // left unwritten). Each goes into a buffer of its own and is copied
  // (ownAccumulatorTile).
  int64_t rowsAll = debertaBandRows, h = tk / 2;
  if (tk < 16 || tk % 2)
    return buildDebertaP2C(kStart, kTile, rowsAll, zeroedInto(dest));
  Value rowsT = gatherDebertaRowsT(kStart, rowsAll);
  int64_t lowCols = std::min<int64_t>(rowsAll, llvm::alignTo(tq + tk - h - 1, 16));
  struct Part {
    int64_t key0, col0, cols;
  };
  SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
  for (Part part : {Part{0, tk - h, rowsAll - (tk - h)}, Part{h, 0, lowCols}}) {
    OpFoldResult hI = b.getIndexAttr(h), colsI = b.getIndexAttr(part.cols);
    OpFoldResult key0 = b.getIndexAttr(part.key0), col0 = b.getIndexAttr(part.col0);
    OpFoldResult zero = b.getIndexAttr(0);
    Value keys = tensor::ExtractSliceOp::create(
        b, loc, kTile, ArrayRef<OpFoldResult>{key0, zero},
        ArrayRef<OpFoldResult>{hI, dq}, ones);
    Value cols = tensor::ExtractSliceOp::create(
        b, loc, rowsT, ArrayRef<OpFoldResult>{zero, col0},
        ArrayRef<OpFoldResult>{dq, colsI}, ones);
    Value own = ownAccumulatorTile(h, part.cols);
    Value p = contract(b, loc, c, keys, {0, 2}, cols, {2, 1}, own);
    markVectorTile(p, {divisorAtMost(h, 8), divisorAtMost(part.cols, 32), 1});
    Value into = tensor::ExtractSliceOp::create(
        b, loc, dest, ArrayRef<OpFoldResult>{key0, col0},
        ArrayRef<OpFoldResult>{hI, colsI}, ones);
    Value copied = copiedInto(p, into);
    dest = tensor::InsertSliceOp::create(b, loc, copied, dest,
                                         ArrayRef<OpFoldResult>{key0, col0},
                                         ArrayRef<OpFoldResult>{hI, colsI}, ones);
  }
  return dest;
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
