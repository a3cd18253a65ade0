//===- DecomposeAttention.cpp - flash-style lowering of fused attention ---===//
//
// Lowers posenc.fused_attention (see its description for the math) to a
// flash-attention loop nest on tensors:
//
//   scf.forall (lead dims..., query tile) {
//     Q~ = prologue(Q tile)                    // RoPE once per query tile
//     scf.for key tile (up to the causal diagonal) iter_args(m, l, acc) {
//       K~ = prologue(K tile)                  // RoPE as the tile is loaded
//       S  = scale * Q~ K~^T; S = score_mod(S); causal mask
//       m' = max(m, rowmax S); P = exp(S - m'); a = exp(m - m')
//       l' = a l + rowsum P; acc' = a acc + P (V [+ rel_value[r]])
//     }
//     out = acc / l  (0 for fully masked rows)
//   }
//
// Every intermediate is a tile: nothing Sq x Sk, no rotated copy of Q or K.
// Tiles are linalg.generic ops on tensor slices so that upstream tiling and
// vectorization can take them further.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace posenc {
#define GEN_PASS_DEF_POSENCDECOMPOSEATTENTIONPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

using utils::IteratorType;

static AffineMap mapOf(MLIRContext *ctx, int64_t numDims,
                       ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// A tile-shaped tensor filled with `value`.
static Value filledTile(OpBuilder &b, Location loc,
                        ArrayRef<OpFoldResult> sizes, Type type,
                        double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type);
  return linalg::FillOp::create(b, loc, floatConst(b, loc, type, value), empty)
      .getResult(0);
}

/// The static size of an OpFoldResult, or dynamic.
static int64_t staticSize(OpFoldResult ofr) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return *c;
  return ShapedType::kDynamic;
}

/// Extracts the 2-d tile [lead..., start : start+size, 0 : cols] of `source`
/// as a rank-reduced tensor<size x cols>.
static Value extractRowTile(OpBuilder &b, Location loc, Value source,
                            ArrayRef<Value> lead, Value start, Value size) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (Value l : lead) {
    offsets.push_back(l);
    sizes.push_back(b.getIndexAttr(1));
  }
  offsets.append({start, b.getIndexAttr(0)});
  OpFoldResult cols = tensor::getMixedSize(b, loc, source, rank - 1);
  OpFoldResult rows = getAsOpFoldResult(size);
  sizes.append({rows, cols});
  auto tileType = RankedTensorType::get(
      {staticSize(rows), type.getDimSize(rank - 1)}, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, tileType, source, offsets,
                                        sizes, strides);
}


/// The attribute by which the CPU vector layout asks
/// --posenc-vectorize-attention-tiles to register-tile an op (one size per
/// loop, 0 = untiled) and vectorize it.
static constexpr StringLiteral kVectorTileAttr = "posenc.vector_tile";

static void markVectorTile(Value result, ArrayRef<int64_t> sizes) {
  if (Operation *op = result.getDefiningOp())
    op->setAttr(kVectorTileAttr,
                DenseI64ArrayAttr::get(op->getContext(), sizes));
}

/// The largest divisor of `n` that is at most `bound` (1 when `n` is
/// dynamic): register tiles must divide the static tile so that every
/// register tile is static and vectorizes.
static int64_t divisorAtMost(int64_t n, int64_t bound) {
  if (ShapedType::isDynamic(n))
    return 1;
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// RoPE in `half` layout on a [rows x D] tile from [rows x R/2] slices of
/// buildRotaryTables: one generic per half (x_p, x_{p+R/2} are contiguous
/// slices, no partner gather), each writing its own slice of the result so
/// that both bufferize in place. Same math and roundings as
/// applyRotaryToTile.
static Value applyHalfRotaryBySlices(OpBuilder &b, Location loc, Value tile,
                                     RotaryAttr rope, Value cosTile,
                                     Value sinTile, FloatType c) {
  auto tileType = cast<RankedTensorType>(tile.getType());
  Type elemType = tileType.getElementType();
  MLIRContext *ctx = b.getContext();
  int64_t half = rope.getRotaryDim() / 2;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tile);
  Value out = tensor::EmptyOp::create(b, loc, sizes, c);
  OpFoldResult rows = sizes[0];
  auto slice = [&](Value source, int64_t col, OpFoldResult width) -> Value {
    SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(col)};
    SmallVector<OpFoldResult> szs = {rows, width};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, source, offs, szs, strides);
  };
  auto insert = [&](Value part, Value into, int64_t col) -> Value {
    SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(col)};
    SmallVector<OpFoldResult> szs = tensor::getMixedSizes(b, loc, part);
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, part, into, offs, szs,
                                         strides);
  };
  OpFoldResult h = b.getIndexAttr(half);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  Value x1 = slice(tile, 0, h), x2 = slice(tile, half, h);
  // first: x1 cos - x2 sin, second: x2 cos + x1 sin (buildRotatedElement).
  for (bool first : {true, false}) {
    Value rotated = buildGeneric(
        b, loc, ValueRange{x1, x2, cosTile, sinTile},
        slice(out, first ? 0 : half, h), {id, id, id, id, id}, iterators(2),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          Value x = castFloat(b, loc, a[first ? 0 : 1], c);
          Value y = castFloat(b, loc, a[first ? 1 : 0], c);
          Value xc = arith::MulFOp::create(b, loc, x, a[2]);
          Value ys = arith::MulFOp::create(b, loc, y, a[3]);
          Value r = first ? Value(arith::SubFOp::create(b, loc, xc, ys))
                          : Value(arith::AddFOp::create(b, loc, xc, ys));
          // posenc.rope stores its result in the element type.
          yieldValue(b, loc,
                     castFloat(b, loc, castFloat(b, loc, r, elemType), c));
        });
    markVectorTile(rotated, {1, 0});
    out = insert(rotated, out, first ? 0 : half);
  }
  int64_t d = tileType.getDimSize(1);
  if (ShapedType::isDynamic(d) || d > 2 * half) {
    // Dimensions past rotary_dim pass through (converted to `c`).
    Value rest = slice(tile, 2 * half,
                       b.createOrFold<arith::SubIOp>(
                           loc, tensor::DimOp::create(b, loc, tile, 1),
                           indexConst(b, loc, 2 * half)));
    Value restOut = slice(out, 2 * half,
                          tensor::getMixedSize(b, loc, rest, 1));
    Value copied = buildGeneric(
        b, loc, rest, restOut, {id, id}, iterators(2),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, castFloat(b, loc, a[0], c));
        });
    markVectorTile(copied, {1, 0});
    out = insert(copied, out, 2 * half);
  }
  return out;
}

/// The Q or K prologue on a [rows x D] tile: converts it to the compute type
/// `c`, rotating it first when `rope` is set (posenc.rope's math, with the
/// result rounded to the element type as posenc.rope would store it).
/// With `cosTile`/`sinTile` the angles are read from those [rows x R/2]
/// slices of buildRotaryTables instead.
static Value applyRotaryToTile(OpBuilder &b, Location loc, Value tile,
                               RotaryAttr rope, Value posTile, Value invFreq,
                               FloatType c, Value cosTile = Value(),
                               Value sinTile = Value()) {
  auto tileType = cast<RankedTensorType>(tile.getType());
  Type elemType = tileType.getElementType();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tile);
  Value init = tensor::EmptyOp::create(b, loc, sizes, c);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  if (!rope)
    return buildGeneric(b, loc, tile, init, {id, id}, iterators(2),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          yieldValue(b, loc, castFloat(b, loc, args[0], c));
                        });
  int64_t rotaryDim = rope.getRotaryDim();
  bool fromTables = cosTile && sinTile;
  FloatType angleType =
      fromTables ? c
                 : cast<FloatType>(
                       cast<RankedTensorType>(invFreq.getType())
                           .getElementType());
  double attentionFactor = rope.getEffectiveAttentionFactor();
  SmallVector<Value> inputs = {tile};
  SmallVector<AffineMap> maps = {id};
  if (!fromTables) {
    inputs.push_back(posTile);
    maps.push_back(mapOf(ctx, 2, {0}));
  }
  maps.push_back(id);
  return buildGeneric(
      b, loc, inputs, init, maps, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value row = linalg::IndexOp::create(b, loc, 0);
        Value d = linalg::IndexOp::create(b, loc, 1);
        RotaryPairIndex idx =
            buildRotaryPairIndex(b, loc, d, rope.getLayout(), rotaryDim);
        Value isFirst = idx.isFirst, inRotary = idx.inRotary;
        Value x = castFloat(b, loc, args[0], c);
        Value y = castFloat(
            b, loc,
            tensor::ExtractOp::create(b, loc, tile, ValueRange{row, idx.partner}),
            c);
        Value cs, sn;
        if (fromTables) {
          cs = tensor::ExtractOp::create(b, loc, cosTile,
                                         ValueRange{row, idx.pair});
          sn = tensor::ExtractOp::create(b, loc, sinTile,
                                         ValueRange{row, idx.pair});
        } else {
          Value inv = tensor::ExtractOp::create(b, loc, invFreq, idx.pair);
          std::tie(cs, sn) = buildRotaryCosSin(b, loc, args[1], inv,
                                               angleType, c, attentionFactor);
        }
        Value rotated = buildRotatedElement(b, loc, x, y, cs, sn, isFirst);
        // posenc.rope stores its result in the element type.
        rotated = castFloat(b, loc, castFloat(b, loc, rotated, elemType), c);
        yieldValue(b, loc, arith::SelectOp::create(b, loc, inRotary, rotated, x));
      });
}

/// Loads a [size x D] tile of Q or K at rows [start, start+size) and applies
/// the prologue.
static Value loadTile(OpBuilder &b, Location loc, Value source,
                      ArrayRef<Value> lead, Value start, Value size,
                      RotaryAttr rope, Value positions, Value invFreq,
                      FloatType c) {
  Value tile = extractRowTile(b, loc, source, lead, start, size);
  Value posTile;
  if (rope) {
    auto posType = cast<RankedTensorType>(positions.getType());
    posTile = tensor::ExtractSliceOp::create(
        b, loc,
        RankedTensorType::get({staticSize(size)}, posType.getElementType()),
        positions, ArrayRef<OpFoldResult>{start}, ArrayRef<OpFoldResult>{size},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }
  return applyRotaryToTile(b, loc, tile, rope, posTile, invFreq, c);
}

/// Pads the rows of a [size x cols] tile with zeros to `rows` (static).
static Value padRows(OpBuilder &b, Location loc, Value tile, int64_t rows) {
  auto type = cast<RankedTensorType>(tile.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = rows;
  SmallVector<Value> dynDims;
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynDims.push_back(tensor::DimOp::create(b, loc, tile, d));
  Type elem = type.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
  return tensor::createPadHighOp(RankedTensorType::get(shape, elem), tile,
                                 zero, /*nofold=*/false, loc, b, dynDims);
}

/// cos and sin of the RoPE angles of every position in `positions`, as two
/// [S x R/2] tensors of the compute type with the attention factor applied
/// (buildRotaryCosSin's math). Position-only, not a rotated copy of K: built
/// once per call so that the K prologue, which every query tile repeats,
/// is multiplies only.
static std::pair<Value, Value> rotaryTables(OpBuilder &b, Location loc,
                                            RotaryAttr rope, Value positions,
                                            Value invFreq, FloatType c) {
  MLIRContext *ctx = b.getContext();
  int64_t half = rope.getRotaryDim() / 2;
  FloatType angleType = cast<FloatType>(
      cast<RankedTensorType>(invFreq.getType()).getElementType());
  double attentionFactor = rope.getEffectiveAttentionFactor();
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(b, loc, positions, 0), b.getIndexAttr(half)};
  Value cosInit = tensor::EmptyOp::create(b, loc, sizes, c);
  Value sinInit = tensor::EmptyOp::create(b, loc, sizes, c);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  auto tables = linalg::GenericOp::create(
      b, loc, TypeRange{cosInit.getType(), sinInit.getType()},
      ValueRange{positions, invFreq}, ValueRange{cosInit, sinInit},
      ArrayRef<AffineMap>{mapOf(ctx, 2, {0}), mapOf(ctx, 2, {1}), id, id},
      iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
        auto [cs, sn] = buildRotaryCosSin(b, loc, a[0], a[1], angleType, c,
                                          attentionFactor);
        linalg::YieldOp::create(b, loc, ValueRange{cs, sn});
      });
  markVectorTile(tables.getResult(0), {1, 0});
  return {tables.getResult(0), tables.getResult(1)};
}

/// The Q/K prologue of the CPU vector layout on a [rows x D] tile with static
/// rows: nothing for an f32 tile without RoPE, the slice form of RoPE for
/// `half`, the generic (gathering) form for `interleaved`, both reading cos
/// and sin from [rows x R/2] slices of buildRotaryTables; every op marked
/// for vectorization.
static Value vectorPrologue(OpBuilder &b, Location loc, Value tile,
                            RotaryAttr rope, Value cosTile, Value sinTile,
                            FloatType c) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (!rope && type.getElementType() == c)
    return tile;
  if (rope && rope.getLayout() == Layout::half)
    return applyHalfRotaryBySlices(b, loc, tile, rope, cosTile, sinTile, c);
  Value result = applyRotaryToTile(b, loc, tile, rope, Value(), Value(), c,
                                   cosTile, sinTile);
  markVectorTile(result, {1, 0});
  return result;
}

/// The Shaw key term as FuseAttention writes it for posenc.rel_pos_attention:
/// mods = (qr, Sk - Sq) where qr[lead..., i, r] = query_i . rel_key[r] is the
/// up-front [Sq, 2K+1] table, and score_mod = s + scale * qr[lead..., i,
/// clamp(j - (i + shift), -K, K) + K]. Recognized exactly (operands, maps,
/// body) so that the CPU vector layout can compute the table per query tile
/// as a small vectorized contraction instead of reading the table.
struct ShawKeyTerm {
  Value relKey;             // [2K+1, D]
  int64_t maxDist = 0;      // K
  linalg::GenericOp table;  // the up-front table, dead once recognized
};

static bool isIndexConst(Value v, int64_t value) {
  auto c = v.getDefiningOp<arith::ConstantIndexOp>();
  return c && c.value() == value;
}

static bool isDimOf(Value v, Value source, int64_t dim) {
  auto d = v.getDefiningOp<tensor::DimOp>();
  if (!d || d.getSource() != source)
    return false;
  std::optional<int64_t> idx = d.getConstantIndex();
  return idx && *idx == dim;
}

static std::optional<ShawKeyTerm> matchShawKeyTerm(FusedAttentionOp op) {
  if (op.getQRopeAttr() || op.getModOperands().size() != 2)
    return std::nullopt;
  Value q = op.getQuery(), k = op.getKey();
  auto qType = cast<RankedTensorType>(q.getType());
  int64_t rank = qType.getRank(), n = rank - 2;
  FloatType c = op.getComputeType();
  Value table = op.getModOperands()[0], shiftV = op.getModOperands()[1];
  // shift = dim(k, n) - dim(q, n), or that constant for static sizes.
  auto kType = cast<RankedTensorType>(k.getType());
  if (auto shiftOp = shiftV.getDefiningOp<arith::SubIOp>()) {
    if (!isDimOf(shiftOp.getLhs(), k, n) || !isDimOf(shiftOp.getRhs(), q, n))
      return std::nullopt;
  } else if (qType.isDynamicDim(n) || kType.isDynamicDim(n) ||
             !isIndexConst(shiftV, kType.getDimSize(n) - qType.getDimSize(n))) {
    return std::nullopt;
  }
  // The table: generic(q, rel_key) -> fill(0) with maps (lead, i, d),
  // (r, d), (lead, i, r) and body acc + q * rk in the compute type.
  auto gen = table.getDefiningOp<linalg::GenericOp>();
  if (!gen || gen.getNumDpsInputs() != 2 || gen.getNumDpsInits() != 1 ||
      gen.getDpsInputs()[0] != q)
    return std::nullopt;
  auto tableType = dyn_cast<RankedTensorType>(table.getType());
  if (!tableType || tableType.getElementType() != c ||
      tableType.getRank() != rank || tableType.isDynamicDim(n + 1))
    return std::nullopt;
  Value relKey = gen.getDpsInputs()[1];
  auto rkType = dyn_cast<RankedTensorType>(relKey.getType());
  int64_t buckets = tableType.getDimSize(n + 1);
  if (!rkType || rkType.getRank() != 2 || rkType.getDimSize(0) != buckets ||
      buckets % 2 != 1 || buckets < 3)
    return std::nullopt;
  int64_t maxDist = (buckets - 1) / 2;
  auto fill = gen.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  auto zero = fill.getInputs()[0].getDefiningOp<arith::ConstantFloatOp>();
  if (!zero || !zero.value().isZero())
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  int64_t loops = n + 3;
  SmallVector<AffineMap, 3> want = shawKeyTermIndexingMaps(ctx, n);
  if (gen.getIndexingMapsArray() != ArrayRef<AffineMap>(want))
    return std::nullopt;
  SmallVector<utils::IteratorType> its = gen.getIteratorTypesArray();
  for (int64_t l = 0; l < loops; ++l)
    if (its[l] != (l == loops - 1 ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel))
      return std::nullopt;
  Block &gb = gen.getRegion().front();
  auto gy = cast<linalg::YieldOp>(gb.getTerminator());
  auto add = gy.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || add.getLhs() != gb.getArgument(2))
    return std::nullopt;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  auto isCastOf = [&](Value v, Value arg) {
    if (v == arg)
      return true;
    Operation *d = v.getDefiningOp();
    return d && isa<arith::ExtFOp>(d) && d->getOperand(0) == arg;
  };
  if (!isCastOf(mul.getLhs(), gb.getArgument(0)) ||
      !isCastOf(mul.getRhs(), gb.getArgument(1)))
    return std::nullopt;
  for (Operation &o : gb.without_terminator())
    if (&o != add && &o != mul && o.getParentOp() == gen &&
        !(isa<arith::ExtFOp>(o)))
      return std::nullopt;

  // The score_mod body.
  Block &mb = op.getScoreModBlock();
  Value score = mb.getArgument(0), iArg = mb.getArgument(1 + n),
        jArg = mb.getArgument(2 + n), tArg = mb.getArgument(1 + rank),
        sArg = mb.getArgument(2 + rank);
  auto sum = cast<YieldOp>(mb.getTerminator()).getValue()
                 .getDefiningOp<arith::AddFOp>();
  if (!sum || sum.getLhs() != score)
    return std::nullopt;
  auto scaled = sum.getRhs().getDefiningOp<arith::MulFOp>();
  if (!scaled)
    return std::nullopt;
  auto scaleC = scaled.getRhs().getDefiningOp<arith::ConstantFloatOp>();
  if (!scaleC)
    return std::nullopt;
  {
    APFloat want(op.getScaleOrDefault());
    bool lost;
    want.convert(scaleC.value().getSemantics(), APFloat::rmNearestTiesToEven,
                 &lost);
    if (!want.bitwiseIsEqual(scaleC.value()))
      return std::nullopt;
  }
  auto ext = scaled.getLhs().getDefiningOp<tensor::ExtractOp>();
  if (!ext || ext.getTensor() != tArg ||
      ext.getIndices().size() != static_cast<size_t>(rank))
    return std::nullopt;
  for (int64_t l = 0; l < n; ++l)
    if (ext.getIndices()[l] != mb.getArgument(1 + l))
      return std::nullopt;
  if (ext.getIndices()[n] != iArg)
    return std::nullopt;
  auto bucket = ext.getIndices()[n + 1].getDefiningOp<arith::AddIOp>();
  if (!bucket || !isIndexConst(bucket.getRhs(), maxDist))
    return std::nullopt;
  auto hiClamp = bucket.getLhs().getDefiningOp<arith::MinSIOp>();
  if (!hiClamp || !isIndexConst(hiClamp.getRhs(), maxDist))
    return std::nullopt;
  auto loClamp = hiClamp.getLhs().getDefiningOp<arith::MaxSIOp>();
  if (!loClamp || !isIndexConst(loClamp.getRhs(), -maxDist))
    return std::nullopt;
  auto dist = loClamp.getLhs().getDefiningOp<arith::SubIOp>();
  if (!dist || dist.getLhs() != jArg)
    return std::nullopt;
  auto qpos = dist.getRhs().getDefiningOp<arith::AddIOp>();
  if (!qpos || qpos.getLhs() != iArg || qpos.getRhs() != sArg)
    return std::nullopt;
  // Nothing else in the body but the constants these ops use.
  for (Operation &o : mb.without_terminator())
    if (!isa<arith::ConstantOp>(o) &&
        !llvm::is_contained(SmallVector<Operation *>{sum, scaled, ext, bucket,
                                                     hiClamp, loClamp, dist,
                                                     qpos},
                            &o))
      return std::nullopt;
  return ShawKeyTerm{relKey, maxDist, gen};
}

/// What both tile builders read off the op.
struct AttentionInfo {
  explicit AttentionInfo(FusedAttentionOp op)
      : op(op), q(op.getQuery()), k(op.getKey()), v(op.getValue()),
        rank(cast<RankedTensorType>(q.getType()).getRank()), n(rank - 2),
        elemType(cast<RankedTensorType>(q.getType()).getElementType()),
        c(op.getComputeType()), scale(op.getScaleOrDefault()),
        causal(op.getCausal()), relValue(op.getRelValue()),
        maxDist(op.getMaxRelativeDistance()), qRope(op.getQRopeAttr()),
        kRope(op.getKRopeAttr()) {}

  FusedAttentionOp op;
  Value q, k, v;
  /// Rank of Q; n = rank - 2 lead dims.
  int64_t rank, n;
  Type elemType;
  /// The compute type.
  FloatType c;
  double scale;
  bool causal;
  Value relValue;
  int64_t maxDist;
  RotaryAttr qRope, kRope;
};

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The end of the keys a query tile reads: Sk, or (causal) the diagonal of
/// its last row, min(Sk, max(0, qStart + qSize + Sk - Sq)); keys past it are
/// never read.
static Value keyLoopEnd(OpBuilder &b, Location loc, bool causal, Value qStart,
                        Value qSize, Value shift, Value sk) {
  if (!causal)
    return sk;
  Value lastAllowed = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, qStart, qSize), shift);
  lastAllowed =
      arith::MaxSIOp::create(b, loc, lastAllowed, indexConst(b, loc, 0));
  return arith::MinSIOp::create(b, loc, lastAllowed, sk);
}

/// A row with no unmasked entry yet has max m' = -inf; subtracting 0 instead
/// keeps exp(-inf - m') = 0 rather than NaN.
static Value safeMax(OpBuilder &b, Location loc, FloatType c, Value m) {
  Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                                      floatConst(b, loc, c, kNegInf));
  return arith::SelectOp::create(b, loc, isInf, floatConst(b, loc, c, 0.0), m);
}

/// The op's score_mod region (cloned) applied to `score` of query row `i`
/// and key `j` at lead indices `lead`.
static Value applyScoreMod(OpBuilder &b, FusedAttentionOp op, Value score,
                           ArrayRef<Value> lead, Value i, Value j) {
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
  Value qpos = arith::AddIOp::create(b, loc, i, shift);
  Value dist = arith::SubIOp::create(b, loc, j, qpos);
  Value r =
      arith::MaxSIOp::create(b, loc, dist, indexConst(b, loc, -info.maxDist));
  r = arith::MinSIOp::create(b, loc, r, indexConst(b, loc, info.maxDist));
  r = arith::AddIOp::create(b, loc, r, indexConst(b, loc, info.maxDist));
  Value rv = tensor::ExtractOp::create(b, loc, info.relValue, ValueRange{r, x});
  return arith::AddFOp::create(b, loc, val, castFloat(b, loc, rv, info.c));
}

/// init + lhs rhs over the loops (i, j, k) of a contraction: `lhs` and
/// `rhs` indexed by the loop dims `lhsDims` and `rhsDims`, `init` by (i, j);
/// rhs converted to the compute type `c`.
static Value contract(OpBuilder &b, Location loc, FloatType c, Value lhs,
                      ArrayRef<int64_t> lhsDims, Value rhs,
                      ArrayRef<int64_t> rhsDims, Value init) {
  MLIRContext *ctx = b.getContext();
  return buildGeneric(
      b, loc, ValueRange{lhs, rhs}, init,
      {mapOf(ctx, 3, lhsDims), mapOf(ctx, 3, rhsDims), mapOf(ctx, 3, {0, 1})},
      iterators(2, 1), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value prod =
            arith::MulFOp::create(b, loc, a[0], castFloat(b, loc, a[1], c));
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[2], prod));
      });
}

/// acc' = acc + P (V [+ rel_value[r(i, j)]]) over the loops (i, x, j): `p`
/// read through `pMap` ((i, x, j) -> its index), V [keys x Dv] and the
/// accumulator [rows x Dv]; with `withRelValue`, Shaw's value term per
/// element (addRelValue).
static Value accumulatePV(OpBuilder &b, Location loc, const AttentionInfo &info,
                          Value p, AffineMap pMap, Value vTile, Value acc,
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

/// How a layout holds the score tile: `statMap` maps its 2-d index to the
/// query row (row statistics m, l, alpha), `reductionIterators` reduce it
/// over the keys, `accRowMap` maps the [rows x Dv] accumulator's index to
/// the query row; `mark` annotates each op for the vectorizer (or not).
struct ScoreLayout {
  AffineMap statMap;
  SmallVector<IteratorType> reductionIterators;
  AffineMap accRowMap;
  std::function<void(Value, ArrayRef<int64_t>)> mark;
  /// Register tile of the key reductions.
  int64_t reductionTile;
};

struct SoftmaxStep {
  Value mNew, lNew, p, accScaled, alpha;
};

/// The online-softmax update of one key tile, on the scores `s`: tile max,
/// alpha = exp(m - m') from the old m, m' over m, P = exp(S - m') in place
/// of S, l' = alpha l + rowsum P, acc scaled by alpha (P V is added by the
/// caller). The running statistics are updated in place (the loop's
/// iter_args bufferize to one buffer each). `rows`: the query rows.
static SoftmaxStep buildSoftmaxStep(OpBuilder &b, Location loc, FloatType c,
                                    Value s, Value m, Value l, Value acc,
                                    OpFoldResult rows,
                                    const ScoreLayout &layout) {
  MLIRContext *ctx = b.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto mul = [](OpBuilder &b, Location loc, ValueRange a) {
    yieldValue(b, loc, arith::MulFOp::create(b, loc, a[0], a[1]));
  };
  auto max = [](OpBuilder &b, Location loc, ValueRange a) {
    yieldValue(b, loc, arith::MaximumFOp::create(b, loc, a[0], a[1]));
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
        Value mNew = arith::MaximumFOp::create(b, loc, a[0], a[1]);
        Value diff =
            arith::SubFOp::create(b, loc, a[0], safeMax(b, loc, c, mNew));
        yieldValue(b, loc, math::ExpOp::create(b, loc, diff));
      });
  layout.mark(r.alpha, {0});
  r.mNew = buildGeneric(b, loc, ValueRange{tileMax}, m, {id1, id1},
                        iterators(1), max);
  layout.mark(r.mNew, {0});
  r.p =
      buildGeneric(b, loc, ValueRange{r.mNew}, s, {layout.statMap, id2},
                   iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
                     Value diff = arith::SubFOp::create(
                         b, loc, a[1], safeMax(b, loc, c, a[0]));
                     yieldValue(b, loc, math::ExpOp::create(b, loc, diff));
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

/// out = acc / l rounded to the element type; a fully masked row (l = 0)
/// yields zeros. `sizes`: [rows, Dv].
static Value normalizeOutput(OpBuilder &b, Location loc,
                             const AttentionInfo &info, Value l, Value acc,
                             ArrayRef<OpFoldResult> sizes) {
  MLIRContext *ctx = b.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  FloatType c = info.c;
  Type elemType = info.elemType;
  return buildGeneric(b, loc, ValueRange{l, acc},
                      tensor::EmptyOp::create(b, loc, sizes, elemType),
                      {mapOf(ctx, 2, {0}), id2, id2}, iterators(2),
                      [&](OpBuilder &b, Location loc, ValueRange v) {
                        Value zero = floatConst(b, loc, c, 0.0);
                        Value empty = arith::CmpFOp::create(
                            b, loc, arith::CmpFPredicate::OEQ, v[0], zero);
                        Value o = arith::DivFOp::create(b, loc, v[1], v[0]);
                        o = arith::SelectOp::create(b, loc, empty, zero, o);
                        yieldValue(b, loc, castFloat(b, loc, o, elemType));
                      });
}

/// Inserts the [qSize x Dv] output `tile` at (lead..., qStart, 0) of the
/// forall's shared output.
static void insertOutputTile(OpBuilder &b, Location loc, scf::ForallOp forall,
                             ArrayRef<Value> lead, Value qStart, Value qSize,
                             OpFoldResult dv, Value tile) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  int64_t rank = lead.size() + 2;
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (Value l : lead) {
    offsets.push_back(l);
    sizes.push_back(b.getIndexAttr(1));
  }
  offsets.append({qStart, b.getIndexAttr(0)});
  sizes.append({qSize, dv});
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, forall.getRegionIterArgs()[0], offsets, sizes, strides);
}

struct DecomposeFusedAttention : OpRewritePattern<FusedAttentionOp> {
  DecomposeFusedAttention(MLIRContext *ctx, int64_t queryTile,
                          int64_t keyTile, bool vectorLayout)
      : OpRewritePattern(ctx), queryTile(queryTile), keyTile(keyTile),
        vectorLayout(vectorLayout) {}

  LogicalResult matchAndRewrite(FusedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (queryTile <= 0 || keyTile <= 0)
      return rewriter.notifyMatchFailure(op, "tile sizes must be > 0");
    if (!describeUnloweredKVCacheForm(op).empty())
      return rewriter.notifyMatchFailure(op, "KV-cache form not lowered yet");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AttentionInfo info(op);
    Value q = info.q, k = info.k, v = info.v;
    int64_t rank = info.rank, n = info.n;
    Type elemType = info.elemType;
    FloatType c = info.c;

    buildFusedAttentionRuntimeChecks(rewriter, op);

    Value sq = tensor::DimOp::create(rewriter, loc, q, n);
    Value sk = tensor::DimOp::create(rewriter, loc, k, n);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    Value group;
    if (rank >= 3) {
      Value hq = tensor::DimOp::create(rewriter, loc, q, n - 1);
      Value hkv = tensor::DimOp::create(rewriter, loc, k, n - 1);
      group = arith::DivUIOp::create(rewriter, loc, hq, hkv);
    }
    Value tq = indexConst(rewriter, loc, queryTile);
    Value tk = indexConst(rewriter, loc, keyTile);
    Value numQTiles = arith::CeilDivUIOp::create(rewriter, loc, sq, tq);

    RotaryAttr qRope = info.qRope, kRope = info.kRope;
    auto angleTypeOf = [&](RotaryAttr rope) -> FloatType {
      return rope.getPrecision() == AnglePrecision::exact
                 ? rewriter.getF64Type()
                 : rewriter.getF32Type();
    };
    Value qInvFreq = qRope ? buildRotaryInvFreqConstant(rewriter, loc, qRope,
                                               angleTypeOf(qRope))
                           : Value();
    Value kInvFreq = kRope ? buildRotaryInvFreqConstant(rewriter, loc, kRope,
                                               angleTypeOf(kRope))
                           : Value();

    RankedTensorType resultType = op.getResult().getType();
    SmallVector<OpFoldResult> resultSizes = tensor::getMixedSizes(rewriter, loc, q);
    resultSizes.back() = tensor::getMixedSize(rewriter, loc, v, n + 1);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultSizes, elemType);
    if (init.getType() != resultType)
      init = tensor::CastOp::create(rewriter, loc, resultType, init);

    // The vector layout reads K's RoPE angles from position-only tables
    // built once here instead of recomputing them for every query tile.
    Value qCos, qSin, kCos, kSin;
    if (vectorLayout && kRope)
      std::tie(kCos, kSin) = rotaryTables(
          rewriter, loc, kRope, op.getKPositions(), kInvFreq, c);
    if (vectorLayout && qRope) {
      if (qRope == kRope && op.getQPositions() == op.getKPositions())
        std::tie(qCos, qSin) = std::make_pair(kCos, kSin);
      else
        std::tie(qCos, qSin) = rotaryTables(
            rewriter, loc, qRope, op.getQPositions(), qInvFreq, c);
    }

    // Shaw's key term (recognized FuseAttention form): the vector layout
    // computes q . rel_key per query tile from rel_key in the compute type,
    // its rows zero-padded to a multiple of 8 (whole register tiles).
    std::optional<ShawKeyTerm> shaw;
    Value relKeyP;
    if (vectorLayout && (shaw = matchShawKeyTerm(op))) {
      Value rk = shaw->relKey;
      auto rkType = cast<RankedTensorType>(rk.getType());
      if (rkType.getElementType() != c)
        rk = buildGeneric(
            rewriter, loc, ValueRange{rk},
            tensor::EmptyOp::create(rewriter, loc,
                                    tensor::getMixedSizes(rewriter, loc, rk),
                                    c),
            {AffineMap::getMultiDimIdentityMap(2, ctx),
             AffineMap::getMultiDimIdentityMap(2, ctx)},
            iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
              yieldValue(b, loc, castFloat(b, loc, a[0], c));
            });
      // Causal: unmasked entries have j - i' <= 0, so only buckets 0..K are
      // ever read (half the contraction).
      int64_t used = info.causal ? shaw->maxDist + 1 : 2 * shaw->maxDist + 1;
      if (used != 2 * shaw->maxDist + 1) {
        SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc,
                                                                rk);
        sizes[0] = rewriter.getIndexAttr(used);
        rk = tensor::ExtractSliceOp::create(
            rewriter, loc, rk,
            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                                   rewriter.getIndexAttr(0)},
            sizes,
            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                   rewriter.getIndexAttr(1)});
      }
      relKeyP = padRows(rewriter, loc, rk, llvm::alignTo(used, 8));
    }

    SmallVector<OpFoldResult> ubs(resultSizes.begin(), resultSizes.begin() + n);
    ubs.push_back(numQTiles);
    auto forall = scf::ForallOp::create(rewriter, loc, ubs, ValueRange{init},
                                        std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    OpBuilder &b = rewriter;

    SmallVector<Value> ivs(forall.getInductionVars());
    SmallVector<Value> lead(ivs.begin(), ivs.begin() + n);
    SmallVector<Value> kvLead(lead);
    if (rank >= 3)
      kvLead[n - 1] = arith::DivUIOp::create(b, loc, lead[n - 1], group);
    Value qStart = arith::MulIOp::create(b, loc, ivs[n], tq);
    Value qSize = arith::MinUIOp::create(
        b, loc, tq, arith::SubIOp::create(b, loc, sq, qStart));

    if (vectorLayout) {
      buildVectorLayoutTile(b, loc, info, forall, lead, kvLead, qStart, qSize,
                            sq, sk, shift, qCos, qSin, kCos, kSin, relKeyP,
                            shaw ? shaw->maxDist : 0);
      rewriter.replaceOp(op, forall.getResult(0));
      if (shaw && shaw->table->use_empty()) {
        // The up-front table is dead: erase it with its init.
        Operation *fill = shaw->table.getDpsInits()[0].getDefiningOp();
        rewriter.eraseOp(shaw->table);
        if (fill && fill->use_empty()) {
          Operation *empty = fill->getOperand(1).getDefiningOp();
          rewriter.eraseOp(fill);
          if (empty && empty->use_empty())
            rewriter.eraseOp(empty);
        }
      }
      return success();
    }

    Value qTile = loadTile(b, loc, q, lead, qStart, qSize, qRope,
                           op.getQPositions(), qInvFreq, c);

    Value kEnd = keyLoopEnd(b, loc, info.causal, qStart, qSize, shift, sk);

    OpFoldResult dv = tensor::getMixedSize(b, loc, v, n + 1);
    Value m0 = filledTile(b, loc, {qSize}, c, kNegInf);
    Value l0 = filledTile(b, loc, {qSize}, c, 0.0);
    Value acc0 = filledTile(b, loc, {qSize, dv}, c, 0.0);

    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row2 = mapOf(ctx, 2, {0});
    bool identityMod = op.hasIdentityScoreMod();
    // S [query rows x keys]: row statistics reduce dim 1.
    ScoreLayout layout{row2,
                       {IteratorType::parallel, IteratorType::reduction},
                       row2,
                       [](Value, ArrayRef<int64_t>) {},
                       1};

    auto forOp = scf::ForOp::create(
        b, loc, indexConst(b, loc, 0), kEnd, tk, ValueRange{m0, l0, acc0},
        [&](OpBuilder &b, Location loc, Value kStart, ValueRange iter) {
          Value m = iter[0], l = iter[1], acc = iter[2];
          Value kSize = arith::MinUIOp::create(
              b, loc, tk, arith::SubIOp::create(b, loc, kEnd, kStart));
          Value kTile = loadTile(b, loc, k, kvLead, kStart, kSize, kRope,
                                 op.getKPositions(), kInvFreq, c);
          Value vTile = extractRowTile(b, loc, v, kvLead, kStart, kSize);

          // S = Q~ K~^T  (loops i, j, d)
          Value s0 = filledTile(b, loc, {qSize, kSize}, c, 0.0);
          Value s = contract(b, loc, c, qTile, {0, 2}, kTile, {1, 2}, s0);

          // S = causal(score_mod(scale * S)), elementwise with absolute i, j.
          s = buildGeneric(
              b, loc, ValueRange{}, s, {id2}, iterators(2),
              [&](OpBuilder &b, Location loc, ValueRange args) {
                Value score = arith::MulFOp::create(
                    b, loc, args[0], floatConst(b, loc, c, info.scale));
                Value i = arith::AddIOp::create(
                    b, loc, qStart, linalg::IndexOp::create(b, loc, 0));
                Value j = arith::AddIOp::create(
                    b, loc, kStart, linalg::IndexOp::create(b, loc, 1));
                if (!identityMod)
                  score = applyScoreMod(b, op, score, lead, i, j);
                if (info.causal) {
                  Value limit = arith::AddIOp::create(b, loc, i, shift);
                  Value masked = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::sgt, j, limit);
                  score = arith::SelectOp::create(
                      b, loc, masked, floatConst(b, loc, c, kNegInf), score);
                }
                yieldValue(b, loc, score);
              });

          SoftmaxStep step =
              buildSoftmaxStep(b, loc, c, s, m, l, acc, qSize, layout);
          // acc' = alpha acc + P (V [+ rel_value[r(i, j)]])  (loops i, x, j)
          Value accNew = accumulatePV(
              b, loc, info, step.p, mapOf(ctx, 3, {0, 2}), vTile,
              step.accScaled, qStart, kStart, shift, bool(info.relValue));
          scf::YieldOp::create(b, loc,
                               ValueRange{step.mNew, step.lNew, accNew});
        });

    Value outTile = normalizeOutput(b, loc, info, forOp.getResult(1),
                                    forOp.getResult(2), {qSize, dv});
    insertOutputTile(b, loc, forall, lead, qStart, qSize, dv, outTile);
    rewriter.replaceOp(op, forall.getResult(0));
    return success();
  }

  /// The body of the (lead dims, query tile) forall in the CPU vector
  /// layout. Differences from the generic layout, all for upstream
  /// vectorization: tiles have static rows (a partial last query tile and
  /// the last key tile are zero-padded; padded keys are masked, padded query
  /// rows dropped), full key tiles run in a loop of their own without
  /// padding, the scores are kept transposed (S^T: [keys x queries]) so that
  /// the softmax reductions over keys are elementwise across vector lanes and
  /// both contractions broadcast a scalar against contiguous rows (Q^T is
  /// built once per query tile), and each op carries the register tile
  /// --posenc-vectorize-attention-tiles uses.
  void buildVectorLayoutTile(OpBuilder &b, Location loc,
                             const AttentionInfo &info, scf::ForallOp forall,
                             ArrayRef<Value> lead, ArrayRef<Value> kvLead,
                             Value qStart, Value qSize, Value sq, Value sk,
                             Value shift, Value qCos, Value qSin, Value kCos,
                             Value kSin, Value relKeyP,
                             int64_t shawDist) const {
    MLIRContext *ctx = b.getContext();
    FusedAttentionOp op = info.op;
    Value q = info.q, k = info.k, v = info.v;
    int64_t n = info.n;
    FloatType c = info.c;
    bool causal = info.causal;
    Value relValue = info.relValue;
    int64_t maxDist = info.maxDist;
    int64_t tq = queryTile, tk = keyTile;
    Value tkV = indexConst(b, loc, tk);
    Value zeroIdx = indexConst(b, loc, 0);
    OpFoldResult dq = tensor::getMixedSize(b, loc, q, n + 1);
    OpFoldResult dv = tensor::getMixedSize(b, loc, v, n + 1);
    int64_t dvStatic = cast<RankedTensorType>(v.getType()).getDimSize(n + 1);

    // Q~ once per query tile, then Q~^T [D x tq].
    auto qRows = [&](Value source, ArrayRef<Value> at) {
      return padRows(b, loc, extractRowTile(b, loc, source, at, qStart, qSize),
                     tq);
    };
    Value qTile = vectorPrologue(b, loc, qRows(q, lead), info.qRope,
                                 qCos ? qRows(qCos, {}) : Value(),
                                 qSin ? qRows(qSin, {}) : Value(), c);
    Value qT = buildGeneric(
        b, loc, qTile,
        tensor::EmptyOp::create(b, loc,
                                ArrayRef<OpFoldResult>{dq, b.getIndexAttr(tq)},
                                c),
        {mapOf(ctx, 2, {1, 0}), AffineMap::getMultiDimIdentityMap(2, ctx)},
        iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, a[0]);
        });
    markVectorTile(qT, {16, 16});

    // Shaw's key term: qr^T [2K+1 (padded) x tq] = rel_key Q~^T, one small
    // contraction per query tile (vectorized like S^T) instead of the
    // up-front [Sq, 2K+1] table.
    Value qrT;
    int64_t qrRows = 0;
    if (relKeyP) {
      int64_t rows = cast<RankedTensorType>(relKeyP.getType()).getDimSize(0);
      qrRows = rows;
      Value init = filledTile(b, loc, {b.getIndexAttr(rows),
                                       b.getIndexAttr(tq)},
                              c, 0.0);
      markVectorTile(init, {1, 0});
      qrT = contract(b, loc, c, relKeyP, {0, 2}, qT, {2, 1}, init);
      markVectorTile(qrT, {divisorAtMost(rows, 8), divisorAtMost(tq, 32), 1});
    }

    Value kEnd = keyLoopEnd(b, loc, causal, qStart, qSize, shift, sk);
    Value fullEnd = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, kEnd, tkV), tkV);

    auto filled = [&](ArrayRef<OpFoldResult> sizes, double value) {
      Value f = filledTile(b, loc, sizes, c, value);
      SmallVector<int64_t> tiles(sizes.size(), 0);
      if (sizes.size() == 2)
        tiles[0] = 1;
      markVectorTile(f, tiles);
      return f;
    };
    OpFoldResult tqI = b.getIndexAttr(tq), tkI = b.getIndexAttr(tk);
    Value m0 = filled({tqI}, kNegInf);
    Value l0 = filled({tqI}, 0.0);
    Value acc0 = filled({tqI, dv}, 0.0);

    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap col2 = mapOf(ctx, 2, {1});
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    // The recognized Shaw score_mod is replaced by the qr^T term below.
    bool identityMod = op.hasIdentityScoreMod() || qrT;
    int64_t redTile = divisorAtMost(tk, 8);
    // Shaw's value term as bucket sums of P (needs K >= 1: two distinct
    // edge buckets).
    bool bucketed = relValue && maxDist >= 1;
    // Causal: buckets past K (j > i') are masked, so the hi edge is always
    // zero and only the K inner buckets 1..K are carried.
    int64_t innerRows = causal ? maxDist : 2 * maxDist - 1;

    // S^T [keys x query rows]: the query-row statistics reduce dim 0,
    // elementwise across vector lanes.
    ScoreLayout layout{col2,
                       {IteratorType::reduction, IteratorType::parallel},
                       mapOf(ctx, 2, {0}),
                       [](Value value, ArrayRef<int64_t> tiles) {
                         markVectorTile(value, tiles);
                       },
                       redTile};

    // One key tile of the online softmax; `tail`: the last, partial tile.
    auto keyStep = [&](OpBuilder &b, Location loc, Value kStart,
                       ValueRange iter, bool tail) {
      Value m = iter[0], l = iter[1], acc = iter[2];
      Value edgeLo = bucketed ? iter[3] : Value();
      Value edgeHi = bucketed ? iter[4] : Value();
      Value inner = bucketed ? iter[5] : Value();
      Value kSize = tail ? arith::SubIOp::create(b, loc, kEnd, kStart)
                         : tkV;
      auto rowsOf = [&](Value source) {
        // K/V carry the lead dims, the RoPE tables only rows.
        ArrayRef<Value> at =
            cast<RankedTensorType>(source.getType()).getRank() == 2
                ? ArrayRef<Value>()
                : kvLead;
        Value t = extractRowTile(b, loc, source, at, kStart, kSize);
        return tail ? padRows(b, loc, t, tk) : t;
      };
      Value kTile = vectorPrologue(b, loc, rowsOf(k), info.kRope,
                                   kCos ? rowsOf(kCos) : Value(),
                                   kSin ? rowsOf(kSin) : Value(), c);
      Value vTile = rowsOf(v);

      // S^T = K~ Q~^T  (loops j, i, d)
      Value s = contract(b, loc, c, kTile, {0, 2}, qT, {2, 1},
                         filled({tkI, tqI}, 0.0));
      markVectorTile(s, {divisorAtMost(tk, 8), divisorAtMost(tq, 32), 1});

      // S^T[j, i] += qr^T[r(i, j), i] for Shaw's key term (unscaled: the
      // scale applies to both terms). The bucket is constant over a key tile
      // that lies entirely outside the band |j - i'| < K: an edge row
      // broadcast over the keys; only tiles that reach the band look the
      // bucket up per element. Either way inside the score generic below.
      int64_t kd = shawDist;
      // j - (i + shift) of key kStart + jLocal, query row qStart + iLocal.
      auto distAt = [&](OpBuilder &b, Location loc, Value jLocal,
                        Value iLocal) -> Value {
        Value j = arith::AddIOp::create(b, loc, kStart, jLocal);
        Value i = arith::AddIOp::create(b, loc, qStart, iLocal);
        return arith::SubIOp::create(b, loc, j,
                                     arith::AddIOp::create(b, loc, i, shift));
      };
      // The tile's lowest and highest j - (i + shift), and whether some lies
      // in the band (-K, K).
      struct Band {
        Value lowest, highest, reached;
      };
      auto band = [&](int64_t bandK) {
        Band r;
        r.lowest = distAt(b, loc, zeroIdx, indexConst(b, loc, tq - 1));
        r.highest = distAt(b, loc, indexConst(b, loc, tk - 1), zeroIdx);
        r.reached = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r.lowest,
                                  indexConst(b, loc, bandK)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, r.highest,
                                  indexConst(b, loc, -bandK)));
        return r;
      };
      Band keyBand;
      if (qrT)
        keyBand = band(kd);

      // S^T = causal(score_mod(scale * S^T)); padded keys masked.
      // `row`: an edge row of qr^T added per query; `gather`: per element.
      auto scoreGeneric = [&](OpBuilder &b, Location loc, Value sIn,
                              Value row, bool gather) -> Value {
        SmallVector<Value> scoreIns;
        SmallVector<AffineMap> scoreMaps;
        if (row) {
          scoreIns.push_back(row);
          scoreMaps.push_back(col2);
        }
        scoreMaps.push_back(id2);
        Value r = buildGeneric(
            b, loc, scoreIns, sIn, scoreMaps, iterators(2),
            [&](OpBuilder &b, Location loc, ValueRange a) {
            Value sv = a.back();
            if (row)
              sv = arith::AddFOp::create(b, loc, sv, a[0]);
            if (gather) {
              Value iLocal = linalg::IndexOp::create(b, loc, 1);
              Value d = distAt(b, loc, linalg::IndexOp::create(b, loc, 0),
                               iLocal);
              Value rb = arith::MaxSIOp::create(b, loc, d,
                                                indexConst(b, loc, -kd));
              rb = arith::MinSIOp::create(b, loc, rb, indexConst(b, loc, kd));
              rb = arith::AddIOp::create(b, loc, rb, indexConst(b, loc, kd));
              // Causal: buckets past K are masked below; stay in bounds of
              // the rows computed.
              if (2 * kd + 1 > qrRows)
                rb = arith::MinSIOp::create(b, loc, rb,
                                            indexConst(b, loc, qrRows - 1));
              Value rel = tensor::ExtractOp::create(b, loc, qrT,
                                                    ValueRange{rb, iLocal});
              sv = arith::AddFOp::create(b, loc, sv, rel);
            }
            Value score = arith::MulFOp::create(
                b, loc, sv, floatConst(b, loc, c, info.scale));
            Value i = arith::AddIOp::create(b, loc, qStart,
                                            linalg::IndexOp::create(b, loc, 1));
            Value j = arith::AddIOp::create(b, loc, kStart,
                                            linalg::IndexOp::create(b, loc, 0));
            if (!identityMod) {
              // Padded rows/keys are dropped/masked; clamping keeps the
              // region's reads of `mods` operands in bounds for them.
              Value one = indexConst(b, loc, 1);
              Value iIn = arith::MinSIOp::create(
                  b, loc, i, arith::SubIOp::create(b, loc, sq, one));
              Value jIn = arith::MinSIOp::create(
                  b, loc, j, arith::SubIOp::create(b, loc, sk, one));
              score = applyScoreMod(b, op, score, lead, iIn, jIn);
            }
            Value masked;
            if (causal)
              masked = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sgt, j,
                  arith::AddIOp::create(b, loc, i, shift));
            if (tail) {
              Value past =
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, sk);
              masked = masked ? arith::OrIOp::create(b, loc, masked, past)
                              : past;
            }
            if (masked)
              score = arith::SelectOp::create(
                  b, loc, masked, floatConst(b, loc, c, kNegInf), score);
            yieldValue(b, loc, score);
          });
        markVectorTile(r, {1, 0});
        return r;
      };
      if (qrT) {
        Value sIn = s;
        auto relIf = scf::IfOp::create(
            b, loc, keyBand.reached,
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(
                  b, loc, scoreGeneric(b, loc, sIn, Value(), /*gather=*/true));
            },
            [&](OpBuilder &b, Location loc) {
              // Entirely below the band: bucket 0; above: bucket 2K.
              Value below = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sle, keyBand.highest,
                  indexConst(b, loc, -kd));
              Value bucket = arith::SelectOp::create(
                  b, loc, below, zeroIdx,
                  indexConst(b, loc, std::min(2 * kd, qrRows - 1)));
              Value row = tensor::ExtractSliceOp::create(
                  b, loc, RankedTensorType::get({tq}, c), qrT,
                  ArrayRef<OpFoldResult>{bucket, b.getIndexAttr(0)},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(1), tqI},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                                         b.getIndexAttr(1)});
              scf::YieldOp::create(
                  b, loc, scoreGeneric(b, loc, sIn, row, /*gather=*/false));
            });
        s = relIf.getResult(0);
      } else {
        s = scoreGeneric(b, loc, s, Value(), /*gather=*/false);
      }

      // Column (= query row) statistics: reductions over keys, dim 0.
      SoftmaxStep step = buildSoftmaxStep(b, loc, c, s, m, l, acc, tqI, layout);
      Value p = step.p, alpha = step.alpha;
      // acc' = alpha acc + P (V [+ rel_value[r(i, j)]])  (loops i, x, j)
      // P^T is [keys x rows].
      Value accNew = accumulatePV(b, loc, info, p, mapOf(ctx, 3, {2, 0}), vTile,
                                  step.accScaled, qStart, kStart, shift,
                                  relValue && !bucketed);
      markVectorTile(accNew,
                     {divisorAtMost(tq, 8), divisorAtMost(dvStatic, 32), 1});
      if (!bucketed) {
        scf::YieldOp::create(b, loc, ValueRange{step.mNew, step.lNew, accNew});
        return;
      }

      // Shaw's value term as bucket sums of P (SPEC.md): per query row, the
      // probabilities of the keys in each bucket r(i, j), rescaled with the
      // accumulator. The edge buckets (dist <= -K, dist >= K) are masked
      // sums over the tile; inner bucket r (0 < r < 2K) holds the one key
      // j = i + shift + r - K, read only by tiles that reach the band.
      auto rescaled = [&](Value t) {
        Value r = buildGeneric(
            b, loc, ValueRange{alpha}, t, {id1, id1}, iterators(1),
            [&](OpBuilder &b, Location loc, ValueRange a) {
              yieldValue(b, loc, arith::MulFOp::create(b, loc, a[0], a[1]));
            });
        markVectorTile(r, {0});
        return r;
      };
      // Causal: the hi edge (j - i' >= K > 0) is masked, and the lo edge is
      // not summed per tile: every probability lies in bucket 0..K, so after
      // the loops lo = l - sum of the K inner buckets.
      Value edgeLoNew = edgeLo, edgeHiNew = edgeHi;
      if (!causal) {
        edgeLo = rescaled(edgeLo);
        edgeHi = rescaled(edgeHi);
        auto edges = linalg::GenericOp::create(
            b, loc, TypeRange{edgeLo.getType(), edgeHi.getType()},
            ValueRange{p}, ValueRange{edgeLo, edgeHi},
            ArrayRef<AffineMap>{id2, col2, col2},
            {IteratorType::reduction, IteratorType::parallel},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              Value d = distAt(b, loc, linalg::IndexOp::create(b, loc, 0),
                               linalg::IndexOp::create(b, loc, 1));
              Value zero = floatConst(b, loc, c, 0.0);
              Value lo = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sle, d,
                  indexConst(b, loc, -maxDist));
              Value hi = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sge, d,
                  indexConst(b, loc, maxDist));
              Value sumLo = arith::AddFOp::create(
                  b, loc, a[1],
                  arith::SelectOp::create(b, loc, lo, a[0], zero));
              Value sumHi = arith::AddFOp::create(
                  b, loc, a[2],
                  arith::SelectOp::create(b, loc, hi, a[0], zero));
              linalg::YieldOp::create(b, loc, ValueRange{sumLo, sumHi});
            });
        markVectorTile(edges.getResult(0), {redTile, 0});
        edgeLoNew = edges.getResult(0);
        edgeHiNew = edges.getResult(1);
      }

      AffineMap bucketCol = mapOf(ctx, 2, {1});
      // Inner buckets are rescaled only from the first tile that reaches the
      // band on: key tiles come in increasing order and only band tiles add
      // to them, so before the band they are still all zero.
      auto scaleInner = [&](OpBuilder &b, Location loc) {
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
      Band valueBand = band(maxDist);
      auto bandIf = scf::IfOp::create(
          b, loc, valueBand.reached,
          [&](OpBuilder &b, Location loc) {
            // inner' = alpha inner + P gathered, in one pass.
            Value gathered = buildGeneric(
                b, loc, ValueRange{alpha}, inner, {bucketCol, id2},
                iterators(2),
                [&](OpBuilder &b, Location loc, ValueRange a) {
                  // j - kStart for bucket r = rIdx + 1: i + shift + r - K.
                  Value rIdx = linalg::IndexOp::create(b, loc, 0);
                  Value iLocal = linalg::IndexOp::create(b, loc, 1);
                  Value jLocal = arith::SubIOp::create(
                      b, loc,
                      arith::AddIOp::create(
                          b, loc,
                          arith::AddIOp::create(b, loc, qStart, iLocal),
                          arith::AddIOp::create(
                              b, loc, shift,
                              arith::AddIOp::create(
                                  b, loc, rIdx,
                                  indexConst(b, loc, 1 - maxDist)))),
                      kStart);
                  Value inTile = arith::AndIOp::create(
                      b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            jLocal, zeroIdx),
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            jLocal, tkV));
                  Value jIn = arith::MinSIOp::create(
                      b, loc,
                      arith::MaxSIOp::create(b, loc, jLocal, zeroIdx),
                      indexConst(b, loc, tk - 1));
                  Value pj = tensor::ExtractOp::create(
                      b, loc, p, ValueRange{jIn, iLocal});
                  pj = arith::SelectOp::create(b, loc, inTile, pj,
                                               floatConst(b, loc, c, 0.0));
                  Value scaled = arith::MulFOp::create(b, loc, a[0], a[1]);
                  yieldValue(b, loc, arith::AddFOp::create(b, loc, scaled, pj));
                });
            markVectorTile(gathered, {1, 0});
            scf::YieldOp::create(b, loc, gathered);
          },
          [&](OpBuilder &b, Location loc) {
            // Past the band (non-causal only): rescale; before it: zeros.
            if (causal) {
              scf::YieldOp::create(b, loc, inner);
              return;
            }
            Value past = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::sge, valueBand.lowest,
                indexConst(b, loc, maxDist));
            auto after = scf::IfOp::create(
                b, loc, past,
                [&](OpBuilder &b, Location loc) {
                  scf::YieldOp::create(b, loc, scaleInner(b, loc));
                },
                [&](OpBuilder &b, Location loc) {
                  scf::YieldOp::create(b, loc, inner);
                });
            scf::YieldOp::create(b, loc, after.getResult(0));
          });
      scf::YieldOp::create(b, loc,
                           ValueRange{step.mNew, step.lNew, accNew, edgeLoNew,
                                      edgeHiNew, bandIf.getResult(0)});
    };

    SmallVector<Value> init = {m0, l0, acc0};
    if (bucketed) {
      init.push_back(filled({tqI}, 0.0));
      init.push_back(filled({tqI}, 0.0));
      init.push_back(filled({b.getIndexAttr(innerRows), tqI}, 0.0));
    }
    auto mainLoop = scf::ForOp::create(
        b, loc, zeroIdx, fullEnd, tkV, init,
        [&](OpBuilder &b, Location loc, Value kStart, ValueRange iter) {
          keyStep(b, loc, kStart, iter, /*tail=*/false);
        });
    auto tailLoop = scf::ForOp::create(
        b, loc, fullEnd, kEnd, tkV, mainLoop.getResults(),
        [&](OpBuilder &b, Location loc, Value kStart, ValueRange iter) {
          keyStep(b, loc, kStart, iter, /*tail=*/true);
        });

    Value lFinal = tailLoop.getResult(1), accFinal = tailLoop.getResult(2);
    if (bucketed) {
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
      Value edgeLoFinal = tailLoop.getResult(3);
      if (causal) {
        // lo = l - sum_r inner[r] (every unmasked key is in bucket 0..K).
        edgeLoFinal = buildGeneric(
            b, loc, ValueRange{tailLoop.getResult(5)}, lFinal,
            {id2, col2}, {IteratorType::reduction, IteratorType::parallel},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              yieldValue(b, loc, arith::SubFOp::create(b, loc, a[1], a[0]));
            });
        markVectorTile(edgeLoFinal, {divisorAtMost(innerRows, 8), 0});
      }
      bucketSums = insertRows(asRow(edgeLoFinal), bucketSums, 0, 1);
      bucketSums = insertRows(tailLoop.getResult(5), bucketSums, 1,
                              innerRows);
      Value relValueUsed = relValue;
      if (causal) {
        relValueUsed = tensor::ExtractSliceOp::create(
            b, loc, relValue,
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(buckets), dv}, strides2);
      } else {
        bucketSums = insertRows(asRow(tailLoop.getResult(4)), bucketSums,
                                buckets - 1, 1);
      }
      accFinal = contract(b, loc, c, bucketSums, {2, 0}, relValueUsed, {2, 1},
                          accFinal);
      markVectorTile(accFinal,
                     {divisorAtMost(tq, 8), divisorAtMost(dvStatic, 32), 1});
    }
    Value outTile = normalizeOutput(b, loc, info, lFinal, accFinal, {tqI, dv});
    markVectorTile(outTile, {1, 0});
    SmallVector<OpFoldResult> strides2(2, b.getIndexAttr(1));
    outTile = tensor::ExtractSliceOp::create(
        b, loc, outTile,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{qSize, dv}, strides2);
    insertOutputTile(b, loc, forall, lead, qStart, qSize, dv, outTile);
  }

  int64_t queryTile, keyTile;
  bool vectorLayout;
};

struct PosencDecomposeAttentionPass
    : posenc::impl::PosencDecomposeAttentionPassBase<
          PosencDecomposeAttentionPass> {
  using PosencDecomposeAttentionPassBase::PosencDecomposeAttentionPassBase;

  void runOnOperation() override {
    if (queryTile <= 0 || keyTile <= 0) {
      getOperation()->emitError("posenc-decompose-attention: query-tile (")
          << queryTile << ") and key-tile (" << keyTile << ") must be > 0";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateDecomposeAttentionPatterns(patterns, queryTile, keyTile,
                                       vectorLayout);
    // Only the fused ops are rewritten; nothing else is folded on the way.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](FusedAttentionOp op) {
      if (succeeded(rejectUnloweredKVCacheForm(op)))
        op.emitOpError("could not be decomposed");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void posenc::populateDecomposeAttentionPatterns(RewritePatternSet &patterns,
                                                int64_t queryTile,
                                                int64_t keyTile,
                                                bool vectorLayout) {
  patterns.add<DecomposeFusedAttention>(patterns.getContext(), queryTile,
                                        keyTile, vectorLayout);
}

void posenc::buildFusedAttentionRuntimeChecks(OpBuilder &b,
                                              FusedAttentionOp op) {
  Location loc = op.getLoc();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  int64_t n = rank - 2;
  auto assertEq = [&](Value a, int64_t da, Value bv, int64_t db,
                      StringRef msg) {
    assertDimsEqual(b, loc, a, da, bv, db, msg);
  };
  for (int64_t i = 0; i < n; ++i) {
    if (rank >= 3 && i == n - 1)
      continue;
    assertEq(q, i, k, i,
             "posenc.fused_attention: batch dim of 'key' differs from "
             "'query'");
    assertEq(q, i, v, i,
             "posenc.fused_attention: batch dim of 'value' differs from "
             "'query'");
  }
  assertEq(q, n + 1, k, n + 1,
           "posenc.fused_attention: head dim D of 'key' differs from "
           "'query'");
  assertEq(k, n, v, n,
           "posenc.fused_attention: sequence dim of 'value' differs from "
           "'key'");
  if (Value p = op.getQPositions())
    assertEq(p, 0, q, n,
             "posenc.fused_attention: length of 'q_positions' differs from "
             "the sequence dim of 'query'");
  if (Value p = op.getKPositions())
    assertEq(p, 0, k, n,
             "posenc.fused_attention: length of 'k_positions' differs from "
             "the sequence dim of 'key'");
  if (rank >= 3)
    assertEq(k, n - 1, v, n - 1,
             "posenc.fused_attention: heads of 'value' differ from 'key'");
}

/// The RoPE inverse-frequency table tensor<R/2 x angleType>, a compile-time
/// constant (the verifier rejects sequence-length-dependent scalings).
Value posenc::buildRotaryInvFreqConstant(OpBuilder &b, Location loc,
                                         RotaryAttr rope, FloatType angleType) {
  return constantTable(b, loc,
                       computeRopeInvFreq(rope.getBaseValue(),
                                          rope.getRotaryDim(),
                                          rope.getScaling()),
                       angleType);
}

std::pair<Value, Value> posenc::buildRotaryTables(OpBuilder &b, Location loc,
                                                  RotaryAttr rope,
                                                  Value positions,
                                                  Value invFreq, FloatType c) {
  return rotaryTables(b, loc, rope, positions, invFreq, c);
}
