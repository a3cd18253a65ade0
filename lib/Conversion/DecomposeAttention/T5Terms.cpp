//===- T5Terms.cpp - T5's bucketed bias on the tiles ----------------------===//
//
// posenc.fused_attention's t5_table term, s += table[bucket(j - i'), h]
// after the scale, with T5's bucket of AttentionUtils (buildT5Bucket) and
// never an H x Sq x Sk bias (SPEC.md's posenc.t5_bias):
//
//   generic layout: the bucket per score element, then the table load (what
//                   the GPU's FMA kernel maps onto threads);
//   vector layout:  the bucket of every distance j - i' in [1 - Sk, Sq - 1]
//                   once per op ([Sq + Sk - 1] i32: the logarithms leave the
//                   tiles), per key tile the table entries of the tile's
//                   Bq + Bk - 1 diagonals, and per score element a load from
//                   that row, contiguous along the query lanes.
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

/// table[bucket, h] in the compute type `c`.
static Value loadT5Entry(OpBuilder &b, Location loc, Value table, Value bucket,
                         Value head, FloatType c) {
  Value entry =
      tensor::ExtractOp::create(b, loc, table, ValueRange{bucket, head});
  return castFloat(b, loc, entry, c);
}

//===----------------------------------------------------------------------===//
// Generic layout
//===----------------------------------------------------------------------===//

Value posenc::decompose::addT5ScoreTerm(OpBuilder &b, Location loc,
                                        const AttentionInfo &info,
                                        const QueryTileTask &task, Value score,
                                        Value i, Value j) {
  FusedAttentionOp op = info.op;
  Value dist = buildRelativeDistance(b, loc, i, j, task.shift);
  Value bucket = buildT5Bucket(b, loc, dist, getT5BucketParams(op));
  return arith::AddFOp::create(b, loc, score,
                               loadT5Entry(b, loc, op.getT5Table(), bucket,
                                           task.lead[info.n - 1], info.c));
}

//===----------------------------------------------------------------------===//
// Vector layout
//===----------------------------------------------------------------------===//

Value posenc::decompose::prepareT5Buckets(OpBuilder &b, Location loc,
                                          const AttentionInfo &info, Value sq,
                                          Value sk) {
  T5BucketParams params = getT5BucketParams(info.op);
  return buildPerDistanceTable(
      b, loc, sq, sk, [&](OpBuilder &b, Location loc, Value dist) {
        return buildT5Bucket(b, loc, dist, params);
      });
}

Value VectorTileBuilder::buildT5TileRow(Value kStart) {
  // row[u] for u = iLocal - jLocal + (tk - 1): the distance is
  // j - i' = (kStart - qStart - shift + tk - 1) - u, its bucket at index
  // distance + Sk - 1 = kStart - qStart + Sq + tk - 2 - u of the buckets.
  // Padded query rows and keys fall outside [0, Sq + Sk - 2]; they are
  // dropped or masked, the clamp keeps their loads in bounds.
  Value buckets = tables.t5Buckets;
  FusedAttentionOp op = info.op;
  Value table = op.getT5Table();
  Value head = task.lead[info.n - 1];
  Value first = arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, kStart, task.qStart),
      arith::AddIOp::create(b, loc, task.sq, indexConst(b, loc, tk - 2)));
  Value last = arith::SubIOp::create(b, loc,
                                     tensor::DimOp::create(b, loc, buckets, 0),
                                     indexConst(b, loc, 1));
  Value row = filled({b.getIndexAttr(tk + tq - 1)}, 0.0);
  return buildGeneric(
      b, loc, ValueRange(), row, {id1}, iterators(1),
      [&](OpBuilder &b, Location loc, ValueRange) {
        Value at = arith::SubIOp::create(b, loc, first,
                                         linalg::IndexOp::create(b, loc, 0));
        at = arith::MaxSIOp::create(
            b, loc, arith::MinSIOp::create(b, loc, at, last),
            indexConst(b, loc, 0));
        Value bucket = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(b, loc, buckets, at));
        yieldValue(b, loc, loadT5Entry(b, loc, table, bucket, head, c));
      });
}

Value VectorTileBuilder::addT5Term(OpBuilder &b, Location loc, Value score) {
  // S^T[jLocal, iLocal] += row[iLocal - jLocal + tk - 1].
  Value u = arith::AddIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, linalg::IndexOp::create(b, loc, 1),
                            linalg::IndexOp::create(b, loc, 0)),
      indexConst(b, loc, tk - 1));
  return arith::AddFOp::create(b, loc, score,
                               tensor::ExtractOp::create(b, loc, t5Row, u));
}
