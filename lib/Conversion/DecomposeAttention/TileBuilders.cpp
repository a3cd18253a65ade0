//===- TileBuilders.cpp - pieces of the flash-attention tiles -------------===//
//
// The tile plumbing both layouts of the decomposition share: slices and
// padding of row tiles, the contractions, the online-softmax step on a score
// tile and the normalized output tile (TileBuilders.h).
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

using utils::IteratorType;

AttentionInfo::AttentionInfo(FusedAttentionOp op)
    : op(op), q(op.getQuery()), k(op.getKey()), v(op.getValue()),
      rank(cast<RankedTensorType>(q.getType()).getRank()), n(rank - 2),
      elemType(cast<RankedTensorType>(q.getType()).getElementType()),
      c(op.getComputeType()), scale(op.getScaleOrDefault()),
      causal(op.getCausal()), relKey(op.getRelKey()),
      relValue(op.getRelValue()), maxDist(op.getMaxRelativeDistance()),
      qRope(op.getQRopeAttr()), kRope(op.getKRopeAttr()),
      kvLengths(op.getKvLengths()), xlRel(op.getXlRel()),
      xlContentBias(op.getXlContentBias()),
      xlPositionBias(op.getXlPositionBias()) {}

//===----------------------------------------------------------------------===//
// Tile plumbing
//===----------------------------------------------------------------------===//

AffineMap posenc::decompose::mapOf(MLIRContext *ctx, int64_t numDims,
                                   ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

Value posenc::decompose::filledTile(OpBuilder &b, Location loc,
                                    ArrayRef<OpFoldResult> sizes, Type type,
                                    double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type);
  return linalg::FillOp::create(b, loc, floatConst(b, loc, type, value), empty)
      .getResult(0);
}

int64_t posenc::decompose::staticSize(OpFoldResult ofr) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return *c;
  return ShapedType::kDynamic;
}

/// source[lead..., start : start+size, :] with the last lead dim `heads`
/// wide: rank-reduced to [size x cols] for one head, else [heads x size x
/// cols].
static Value extractRows(OpBuilder &b, Location loc, Value source,
                         ArrayRef<Value> lead, int64_t heads,
                         OpFoldResult start, OpFoldResult size) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (Value l : lead) {
    offsets.push_back(l);
    sizes.push_back(b.getIndexAttr(1));
  }
  SmallVector<int64_t> shape;
  if (heads != 1) {
    sizes.back() = b.getIndexAttr(heads);
    shape.push_back(heads);
  }
  offsets.append({start, b.getIndexAttr(0)});
  sizes.append({size, tensor::getMixedSize(b, loc, source, rank - 1)});
  shape.append({decompose::staticSize(size), type.getDimSize(rank - 1)});
  auto tileType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, tileType, source, offsets,
                                        sizes, strides);
}

Value posenc::decompose::extractRowTile(OpBuilder &b, Location loc,
                                        Value source, ArrayRef<Value> lead,
                                        Value start, Value size) {
  return extractRows(b, loc, source, lead, 1, start, getAsOpFoldResult(size));
}

Value posenc::decompose::extractHeadRowsTile(OpBuilder &b, Location loc,
                                             Value source, ArrayRef<Value> lead,
                                             int64_t heads, OpFoldResult start,
                                             OpFoldResult size) {
  return extractRows(b, loc, source, lead, heads, start, size);
}

SmallVector<Value> posenc::decompose::tableLead(Value table, int64_t perOpRank,
                                               ArrayRef<Value> lead) {
  if (cast<RankedTensorType>(table.getType()).getRank() == perOpRank)
    return {};
  return {lead.front()};
}

void posenc::decompose::markVectorTile(Value result, ArrayRef<int64_t> sizes) {
  if (Operation *op = result.getDefiningOp())
    op->setAttr(kVectorTileAttr,
                DenseI64ArrayAttr::get(op->getContext(), sizes));
}

void posenc::decompose::markExactVectorTile(Value result,
                                            ArrayRef<int64_t> sizes,
                                            bool fuseInit) {
  if (fuseInit)
    markVectorTileFusingInit(result, sizes);
  else
    markVectorTile(result, sizes);
  if (Operation *op = result.getDefiningOp())
    op->setAttr(kExactTileAttr, UnitAttr::get(op->getContext()));
}

void posenc::decompose::markVectorTileFusingInit(Value result,
                                                 ArrayRef<int64_t> sizes) {
  markVectorTile(result, sizes);
  if (Operation *op = result.getDefiningOp())
    op->setAttr(kFuseInitAttr, UnitAttr::get(op->getContext()));
}

int64_t posenc::decompose::divisorAtMost(int64_t n, int64_t bound) {
  if (ShapedType::isDynamic(n))
    return 1;
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

Value posenc::decompose::padRows(OpBuilder &b, Location loc, Value tile,
                                 int64_t rows) {
  auto type = cast<RankedTensorType>(tile.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = rows;
  SmallVector<Value> dynDims;
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynDims.push_back(tensor::DimOp::create(b, loc, tile, d));
  Type elem = type.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
  return tensor::createPadHighOp(RankedTensorType::get(shape, elem), tile, zero,
                                 /*nofold=*/false, loc, b, dynDims);
}

Value posenc::decompose::buildPerDistanceTable(
    OpBuilder &b, Location loc, Value sq, Value sk,
    function_ref<Value(OpBuilder &, Location, Value)> entry) {
  // Distances 1 - Sk .. Sq - 1; none when Sq or Sk is 0.
  Value one = indexConst(b, loc, 1);
  Value count = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, sq, sk), one),
      indexConst(b, loc, 0));
  Value lowest = arith::SubIOp::create(b, loc, one, sk);
  Type i32 = b.getI32Type();
  return buildGeneric(
      b, loc, ValueRange(),
      tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{count}, i32),
      {AffineMap::getMultiDimIdentityMap(1, b.getContext())}, iterators(1),
      [&](OpBuilder &b, Location loc, ValueRange) {
        Value dist = arith::AddIOp::create(b, loc, lowest,
                                           linalg::IndexOp::create(b, loc, 0));
        yieldValue(b, loc,
                   arith::IndexCastOp::create(b, loc, i32, entry(b, loc, dist)));
      });
}

OutputRows posenc::decompose::outputRows(OpBuilder &b,
                                         const QueryTileTask &task,
                                         OpFoldResult dv) {
  int64_t rank = task.lead.size() + 2;
  OutputRows rows;
  rows.strides.assign(rank, b.getIndexAttr(1));
  for (Value l : task.lead) {
    rows.offsets.push_back(l);
    rows.sizes.push_back(b.getIndexAttr(1));
  }
  rows.offsets.append({task.qStart, b.getIndexAttr(0)});
  rows.sizes.append({task.qSize, dv});
  return rows;
}

void posenc::decompose::insertOutputTile(OpBuilder &b, Location loc,
                                         const QueryTileTask &task,
                                         OpFoldResult dv, Value tile) {
  if (task.chunkOut) {
    Value row = arith::SubIOp::create(b, loc, task.qStart, task.chunkStart);
    SmallVector<OpFoldResult> offsets = {row, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {task.qSize, dv};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    Value into = tensor::InsertSliceOp::create(b, loc, tile, task.chunkOut,
                                               offsets, sizes, strides);
    scf::YieldOp::create(b, loc, into);
    return;
  }
  scf::ForallOp forall = task.forall;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  OutputRows rows = outputRows(b, task, dv);
  tensor::ParallelInsertSliceOp::create(b, loc, tile,
                                        forall.getRegionIterArgs()[0],
                                        rows.offsets, rows.sizes, rows.strides);
}

//===----------------------------------------------------------------------===//
// Score and softmax tiles
//===----------------------------------------------------------------------===//

Value posenc::decompose::applyScoreMod(OpBuilder &b, FusedAttentionOp op,
                                       Value score, ArrayRef<Value> lead,
                                       Value i, Value j) {
  Block &modBlock = op.getScoreModBlock();
  int64_t n = lead.size();
  IRMapping mapping;
  mapping.map(modBlock.getArgument(0), score);
  for (int64_t d = 0; d < n; ++d)
    mapping.map(modBlock.getArgument(1 + d), lead[d]);
  mapping.map(modBlock.getArgument(1 + n), i);
  mapping.map(modBlock.getArgument(2 + n), j);
  for (auto [idx, mod] : llvm::enumerate(op.getModOperands()))
    mapping.map(modBlock.getArgument(3 + n + idx), mod);
  for (Operation &inner : modBlock.without_terminator())
    b.clone(inner, mapping);
  return mapping.lookup(cast<YieldOp>(modBlock.getTerminator()).getValue());
}

/// `val` + rel_value[r(i, j), x] in the compute type, with Shaw's bucket
/// r(i, j) = clamp(j - (i + Sk - Sq), -K, K) + K.
static Value addRelValue(OpBuilder &b, Location loc, const AttentionInfo &info,
                         Value val, Value i, Value j, Value x, Value shift) {
  Value r = buildShawBucket(b, loc, buildRelativeDistance(b, loc, i, j, shift),
                            info.maxDist);
  Value rv = tensor::ExtractOp::create(b, loc, info.relValue, ValueRange{r, x});
  return arith::AddFOp::create(b, loc, val, castFloat(b, loc, rv, info.c));
}

Value posenc::decompose::contract(OpBuilder &b, Location loc, FloatType c,
                                  Value lhs, ArrayRef<int64_t> lhsDims,
                                  Value rhs, ArrayRef<int64_t> rhsDims,
                                  Value init) {
  MLIRContext *ctx = b.getContext();
  return buildGeneric(
      b, loc, ValueRange{lhs, rhs}, init,
      {mapOf(ctx, 3, lhsDims), mapOf(ctx, 3, rhsDims), mapOf(ctx, 3, {0, 1})},
      iterators(2, 1), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value prod = arith::MulFOp::create(b, loc, castFloat(b, loc, a[0], c),
                                           castFloat(b, loc, a[1], c));
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[2], prod));
      });
}

Value posenc::decompose::accumulatePV(OpBuilder &b, Location loc,
                                      const AttentionInfo &info, Value p,
                                      AffineMap pMap, Value vTile, Value acc,
                                      Value qStart, Value kStart, Value shift,
                                      bool withRelValue) {
  MLIRContext *ctx = b.getContext();
  FloatType c = info.c;
  return buildGeneric(
      b, loc, ValueRange{p, vTile}, acc,
      {pMap, mapOf(ctx, 3, {2, 1}), mapOf(ctx, 3, {0, 1})}, iterators(2, 1),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value val = castFloat(b, loc, args[1], c);
        if (withRelValue) {
          Value i = arith::AddIOp::create(b, loc, qStart,
                                          linalg::IndexOp::create(b, loc, 0));
          Value j = arith::AddIOp::create(b, loc, kStart,
                                          linalg::IndexOp::create(b, loc, 2));
          val = addRelValue(b, loc, info, val, i, j,
                            linalg::IndexOp::create(b, loc, 1), shift);
        }
        Value prod = arith::MulFOp::create(b, loc, args[0], val);
        yieldValue(b, loc, arith::AddFOp::create(b, loc, args[2], prod));
      });
}

SoftmaxStep posenc::decompose::buildSoftmaxStep(OpBuilder &b, Location loc,
                                                FloatType c, Value s, Value m,
                                                Value l, Value acc,
                                                OpFoldResult rows,
                                                const ScoreLayout &layout) {
  MLIRContext *ctx = b.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto mul = [](OpBuilder &b, Location loc, ValueRange a) {
    yieldValue(b, loc, arith::MulFOp::create(b, loc, a[0], a[1]));
  };
  // The row max with maxnumf, not maximumf: maximumf's NaN propagation
  // costs x86 six instructions per vector on the reduction's critical path
  // (maxnumf three), and the output is the same. A NaN score left out of
  // m still makes its row NaN: exp(NaN - m) is NaN, and with it the row's
  // sum l and accumulator (test_softmax_nan.py). Decode measured 0.96-1.00x
  // the time with the caches flushed, 0.93-0.97x in cache; prefill
  // 0.99x (docs/pipelines.md, "The row max with maxnumf").
  auto max = [](OpBuilder &b, Location loc, ValueRange a) {
    yieldValue(b, loc, arith::MaxNumFOp::create(b, loc, a[0], a[1]));
  };
  SoftmaxStep r;
  Value maxInit = filledTile(b, loc, {rows}, c, kNegInf);
  layout.mark(maxInit, {0});
  Value tileMax =
      buildGeneric(b, loc, ValueRange{s}, maxInit, {id2, layout.statMap},
                   layout.reductionIterators, max);
  layout.mark(tileMax, layout.reductionIterators[0] == IteratorType::reduction
                           ? ArrayRef<int64_t>{layout.reductionTile, 0}
                           : ArrayRef<int64_t>{0, layout.reductionTile});
  r.alpha = buildGeneric(
      b, loc, ValueRange{m, tileMax},
      tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{rows}, c),
      {id1, id1, id1}, iterators(1),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Value mNew = arith::MaxNumFOp::create(b, loc, a[0], a[1]);
        yieldValue(b, loc, buildOnlineSoftmaxExp(b, loc, a[0], mNew));
      });
  layout.mark(r.alpha, {0});
  r.mNew = buildGeneric(b, loc, ValueRange{tileMax}, m, {id1, id1},
                        iterators(1), max);
  layout.mark(r.mNew, {0});
  r.p = buildGeneric(
      b, loc, ValueRange{r.mNew}, s, {layout.statMap, id2}, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, buildOnlineSoftmaxExp(b, loc, a[1], a[0]));
      });
  layout.mark(r.p, {1, 0});
  Value lScaled = buildGeneric(b, loc, ValueRange{r.alpha}, l, {id1, id1},
                               iterators(1), mul);
  layout.mark(lScaled, {0});
  r.lNew = buildGeneric(
      b, loc, ValueRange{r.p}, lScaled, {id2, layout.statMap},
      layout.reductionIterators, [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[0], a[1]));
      });
  layout.mark(r.lNew, layout.reductionIterators[0] == IteratorType::reduction
                          ? ArrayRef<int64_t>{layout.reductionTile, 0}
                          : ArrayRef<int64_t>{0, layout.reductionTile});
  r.accScaled = buildGeneric(b, loc, ValueRange{r.alpha}, acc,
                             {layout.accRowMap, id2}, iterators(2), mul);
  layout.mark(r.accScaled, {1, 0});
  return r;
}

Value posenc::decompose::normalizeOutput(OpBuilder &b, Location loc,
                                         const AttentionInfo &info, Value l,
                                         Value acc,
                                         ArrayRef<OpFoldResult> sizes) {
  MLIRContext *ctx = b.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  Type elemType = info.elemType;
  return buildGeneric(b, loc, ValueRange{l, acc},
                      tensor::EmptyOp::create(b, loc, sizes, elemType),
                      {mapOf(ctx, 2, {0}), id2, id2}, iterators(2),
                      [&](OpBuilder &b, Location loc, ValueRange v) {
                        Value o = buildSoftmaxNormalize(b, loc, v[1], v[0]);
                        yieldValue(b, loc, castFloat(b, loc, o, elemType));
                      });
}
