//===- ShawTerms.cpp - Shaw's relative-position terms on the tiles --------===//
//
// Shaw et al.'s key and value terms (posenc.rel_pos_attention; SPEC.md's
// memory bound) in the CPU vector layout, with the bucket algebra
// r(i, j) = clamp(j - i', -K, K) + K of AttentionUtils:
//
//   key term:   qr^T = rel_key Q~^T per query tile ([2K+1 x tq], not the
//               [Sq, 2K+1] table); a key tile entirely outside the band
//               |j - i'| < K adds one edge row, a tile in the band gathers
//               qr^T[r(i, j), i] per element;
//   value term: per query row, the probabilities summed per bucket (edge
//               buckets as masked sums, inner buckets gathered from the band
//               tiles), rescaled with the accumulator; after the key loops
//               acc += B^T rel_value, one small contraction per query tile.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

using utils::IteratorType;

//===----------------------------------------------------------------------===//
// rel_key for the per-tile product
//===----------------------------------------------------------------------===//

Value posenc::decompose::prepareShawRelKey(OpBuilder &b, Location loc,
                                           const AttentionInfo &info,
                                           Value relKey, int64_t maxDist) {
  MLIRContext *ctx = b.getContext();
  FloatType c = info.c;
  Value rk = relKey;
  auto rkType = cast<RankedTensorType>(rk.getType());
  if (rkType.getElementType() != c)
    rk = buildGeneric(
        b, loc, ValueRange{rk},
        tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, rk), c),
        {AffineMap::getMultiDimIdentityMap(2, ctx),
         AffineMap::getMultiDimIdentityMap(2, ctx)},
        iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, castFloat(b, loc, a[0], c));
        });
  // Causal: unmasked entries have j - i' <= 0, so only buckets 0..K are
  // ever read (half the contraction).
  int64_t used = info.causal ? maxDist + 1 : 2 * maxDist + 1;
  if (used != 2 * maxDist + 1) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rk);
    sizes[0] = b.getIndexAttr(used);
    rk = tensor::ExtractSliceOp::create(
        b, loc, rk,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)}, sizes,
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  }
  return padRows(b, loc, rk, llvm::alignTo(used, 8));
}

//===----------------------------------------------------------------------===//
// The bucket band of a tile
//===----------------------------------------------------------------------===//

Value VectorTileBuilder::distAt(Value kStart, Value jLocal, Value iLocal) {
  Value j = arith::AddIOp::create(b, loc, kStart, jLocal);
  Value i = arith::AddIOp::create(b, loc, task.qStart, iLocal);
  return buildRelativeDistance(b, loc, i, j, task.shift);
}

VectorTileBuilder::Band VectorTileBuilder::band(Value kStart, int64_t bandK) {
  Band r;
  r.lowest = distAt(kStart, zeroIdx, indexConst(b, loc, tq - 1));
  r.highest = distAt(kStart, indexConst(b, loc, tk - 1), zeroIdx);
  r.reached = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r.lowest,
                            indexConst(b, loc, bandK)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, r.highest,
                            indexConst(b, loc, -bandK)));
  return r;
}

//===----------------------------------------------------------------------===//
// Key term
//===----------------------------------------------------------------------===//

void VectorTileBuilder::buildShawKeyTable() {
  Value relKeyP = tables.relKeyPadded;
  int64_t rows = cast<RankedTensorType>(relKeyP.getType()).getDimSize(0);
  qrRows = rows;
  Value init =
      filledTile(b, loc, {b.getIndexAttr(rows), b.getIndexAttr(tq)}, c, 0.0);
  markVectorTile(init, {1, 0});
  qrT = contract(b, loc, c, relKeyP, {0, 2}, qT, {2, 1}, init);
  markVectorTile(qrT, {divisorAtMost(rows, 8), divisorAtMost(tq, 32), 1});
}

Value VectorTileBuilder::modifyScoresWithShawKeyTerm(Value s, Value kStart,
                                                     bool tail) {
  // S^T[j, i] += qr^T[r(i, j), i] (unscaled: the scale applies to both
  // terms). The bucket is constant over a key tile that lies entirely
  // outside the band |j - i'| < K: an edge row broadcast over the keys; only
  // tiles that reach the band look the bucket up per element.
  int64_t kd = info.maxDist;
  Band keyBand = band(kStart, kd);
  auto relIf = scf::IfOp::create(
      b, loc, keyBand.reached,
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(
            b, loc, modifyScores(s, kStart, Value(), /*gather=*/true, tail));
      },
      [&](OpBuilder &, Location) {
        // Entirely below the band: bucket 0; above: bucket 2K.
        Value below =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                  keyBand.highest, indexConst(b, loc, -kd));
        Value bucket = arith::SelectOp::create(
            b, loc, below, zeroIdx,
            indexConst(b, loc, std::min(2 * kd, qrRows - 1)));
        Value row = tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get({tq}, c), qrT,
            ArrayRef<OpFoldResult>{bucket, b.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1), tqI},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
        scf::YieldOp::create(
            b, loc, modifyScores(s, kStart, row, /*gather=*/false, tail));
      });
  return relIf.getResult(0);
}

//===----------------------------------------------------------------------===//
// Value term
//===----------------------------------------------------------------------===//

SmallVector<Value, 3>
VectorTileBuilder::accumulateValueBuckets(Value kStart, Value p, Value alpha,
                                          Value edgeLo, Value edgeHi,
                                          Value inner) {
  int64_t maxDist = info.maxDist;
  // Per query row, the probabilities of the keys in each bucket r(i, j),
  // rescaled with the accumulator. The edge buckets (dist <= -K, dist >= K)
  // are masked sums over the tile; inner bucket r (0 < r < 2K) holds the one
  // key j = i + shift + r - K, read only by tiles that reach the band.
  auto rescaled = [&](Value t) {
    Value r = buildGeneric(
        b, loc, ValueRange{alpha}, t, {id1, id1}, iterators(1),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, arith::MulFOp::create(b, loc, a[0], a[1]));
        });
    markVectorTile(r, {0});
    return r;
  };
  // Causal: the hi edge (j - i' >= K > 0) is masked, and the lo edge is not
  // summed per tile: every probability lies in bucket 0..K, so after the
  // loops lo = l - sum of the K inner buckets.
  Value edgeLoNew = edgeLo, edgeHiNew = edgeHi;
  if (!info.causal) {
    edgeLo = rescaled(edgeLo);
    edgeHi = rescaled(edgeHi);
    auto edges = linalg::GenericOp::create(
        b, loc, TypeRange{edgeLo.getType(), edgeHi.getType()}, ValueRange{p},
        ValueRange{edgeLo, edgeHi}, ArrayRef<AffineMap>{id2, col2, col2},
        {IteratorType::reduction, IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange a) {
          Value d = distAt(kStart, linalg::IndexOp::create(b, loc, 0),
                           linalg::IndexOp::create(b, loc, 1));
          Value zero = floatConst(b, loc, c, 0.0);
          Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, d,
                                           indexConst(b, loc, -maxDist));
          Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, d,
                                           indexConst(b, loc, maxDist));
          Value sumLo = arith::AddFOp::create(
              b, loc, a[1], arith::SelectOp::create(b, loc, lo, a[0], zero));
          Value sumHi = arith::AddFOp::create(
              b, loc, a[2], arith::SelectOp::create(b, loc, hi, a[0], zero));
          linalg::YieldOp::create(b, loc, ValueRange{sumLo, sumHi});
        });
    markVectorTile(edges.getResult(0), {redTile, 0});
    edgeLoNew = edges.getResult(0);
    edgeHiNew = edges.getResult(1);
  }
  return {edgeLoNew, edgeHiNew,
          accumulateInnerBuckets(kStart, p, alpha, inner)};
}

Value VectorTileBuilder::accumulateInnerBuckets(Value kStart, Value p,
                                                Value alpha, Value inner) {
  int64_t maxDist = info.maxDist;
  AffineMap bucketCol = mapOf(ctx, 2, {1});
  // Inner buckets are rescaled only from the first tile that reaches the
  // band on: key tiles come in increasing order and only band tiles add to
  // them, so before the band they are still all zero.
  auto scaleInner = [&]() {
    Value r = buildGeneric(
        b, loc, ValueRange{alpha}, inner, {bucketCol, id2}, iterators(2),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, arith::MulFOp::create(b, loc, a[0], a[1]));
        });
    markVectorTile(r, {1, 0});
    return r;
  };
  // The tile reaches an inner bucket iff some j - (i + shift) lies in
  // (-K, K) for j in [kStart, kStart + tk), i in [qStart, qStart + tq).
  Band valueBand = band(kStart, maxDist);
  auto bandIf = scf::IfOp::create(
      b, loc, valueBand.reached,
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(
            b, loc, gatherInnerBuckets(kStart, p, alpha, inner, bucketCol));
      },
      [&](OpBuilder &, Location) {
        // Past the band (non-causal only): rescale; before it: zeros.
        if (info.causal) {
          scf::YieldOp::create(b, loc, inner);
          return;
        }
        Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                           valueBand.lowest,
                                           indexConst(b, loc, maxDist));
        auto after = scf::IfOp::create(
            b, loc, past,
            [&](OpBuilder &, Location) {
              scf::YieldOp::create(b, loc, scaleInner());
            },
            [&](OpBuilder &, Location) {
              scf::YieldOp::create(b, loc, inner);
            });
        scf::YieldOp::create(b, loc, after.getResult(0));
      });
  return bandIf.getResult(0);
}

Value VectorTileBuilder::gatherInnerBuckets(Value kStart, Value p, Value alpha,
                                            Value inner, AffineMap bucketCol) {
  int64_t maxDist = info.maxDist;
  Value qStart = task.qStart, shift = task.shift;
  // inner' = alpha inner + P gathered, in one pass.
  Value gathered = buildGeneric(
      b, loc, ValueRange{alpha}, inner, {bucketCol, id2}, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        // j - kStart for bucket r = rIdx + 1: i + shift + r - K.
        Value rIdx = linalg::IndexOp::create(b, loc, 0);
        Value iLocal = linalg::IndexOp::create(b, loc, 1);
        Value jLocal = arith::SubIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::AddIOp::create(b, loc, qStart, iLocal),
                arith::AddIOp::create(
                    b, loc, shift,
                    arith::AddIOp::create(b, loc, rIdx,
                                          indexConst(b, loc, 1 - maxDist)))),
            kStart);
        Value inTile = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, jLocal,
                                  zeroIdx),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, jLocal,
                                  tkV));
        Value jIn = arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, jLocal, zeroIdx),
            indexConst(b, loc, tk - 1));
        Value pj =
            tensor::ExtractOp::create(b, loc, p, ValueRange{jIn, iLocal});
        pj = arith::SelectOp::create(b, loc, inTile, pj,
                                     floatConst(b, loc, c, 0.0));
        Value scaled = arith::MulFOp::create(b, loc, a[0], a[1]);
        yieldValue(b, loc, arith::AddFOp::create(b, loc, scaled, pj));
      });
  markVectorTile(gathered, {1, 0});
  return gathered;
}

Value VectorTileBuilder::addValueBuckets(ValueRange results, Value lFinal,
                                         Value accFinal) {
  int64_t maxDist = info.maxDist;
  bool causal = info.causal;
  // acc += B^T rel_value with the [2K+1 x tq] bucket sums B: one small
  // contraction per query tile instead of a gather per (i, j).
  // Causal: buckets 0..K only (the rest are zero).
  int64_t buckets = causal ? maxDist + 1 : 2 * maxDist + 1;
  SmallVector<OpFoldResult> strides2(2, b.getIndexAttr(1));
  auto insertRows = [&](Value part, Value into, int64_t row,
                        int64_t rows) -> Value {
    return tensor::InsertSliceOp::create(
        b, loc, part, into,
        ArrayRef<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), tqI}, strides2);
  };
  auto asRow = [&](Value v) -> Value {
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1, tq}, c), v,
        ArrayRef<ReassociationIndices>{{0, 1}});
  };
  Value bucketSums = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(buckets), tqI}, c);
  Value edgeLoFinal = results[3];
  if (causal) {
    // lo = l - sum_r inner[r] (every unmasked key is in bucket 0..K).
    edgeLoFinal = buildGeneric(
        b, loc, ValueRange{results[5]}, lFinal, {id2, col2},
        {IteratorType::reduction, IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, arith::SubFOp::create(b, loc, a[1], a[0]));
        });
    markVectorTile(edgeLoFinal, {divisorAtMost(innerRows, 8), 0});
  }
  bucketSums = insertRows(asRow(edgeLoFinal), bucketSums, 0, 1);
  bucketSums = insertRows(results[5], bucketSums, 1, innerRows);
  Value relValueUsed = info.relValue;
  if (causal) {
    relValueUsed = tensor::ExtractSliceOp::create(
        b, loc, info.relValue,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(buckets), dv}, strides2);
  } else {
    bucketSums = insertRows(asRow(results[4]), bucketSums, buckets - 1, 1);
  }
  accFinal =
      contract(b, loc, c, bucketSums, {2, 0}, relValueUsed, {2, 1}, accFinal);
  markVectorTile(accFinal,
                 {divisorAtMost(tq, 8), divisorAtMost(dvStatic, 32), 1});
  return accFinal;
}
