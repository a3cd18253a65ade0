//===- RotaryPrologue.cpp - RoPE applied to Q and K tiles -----------------===//
//
// The Q/K prologue of the decomposition: each tile of Q or K is converted to
// the compute type and, with q_rope / k_rope, rotated exactly as posenc.rope
// would (result rounded to the element type as posenc.rope stores it). The
// generic layout computes the angles per element; the CPU vector layout
// reads them from position-only cos/sin tables built once per op, in the
// slice form for `half` (no partner gather). xPos scales cos and sin by
// its decay, re-centered per query tile (xposTileCenters), or per chunk of
// query tiles when K is rotated once per chunk (RotatedKeyChunks.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

/// Whether the cos/sin tile `table` holds one entry per rotated column
/// ([rows x R], the table form of posenc.rope) rather than one per pair
/// ([rows x R/2], buildRotaryTables).
static bool isFullWidthTable(Value table, RotaryAttr rope) {
  return cast<RankedTensorType>(table.getType()).getDimSize(1) ==
         rope.getRotaryDim();
}

/// RoPE in `half` layout on a [rows x D] tile from [rows x R/2] slices of
/// buildRotaryTables: one generic per half (x_p, x_{p+R/2} are contiguous
/// slices, no partner gather), each writing its own slice of the result so
/// that both bufferize in place. Same math and roundings as
/// applyRotaryToTile. A `decay` [R/2] (xPos, keyTileDecayFactor) scales
/// pair p's two results before they are rounded, as it would scale cos and
/// sin.
static Value applyHalfRotaryBySlices(OpBuilder &b, Location loc, Value tile,
                                     RotaryAttr rope, Value cosTile,
                                     Value sinTile, FloatType c, Value decay) {
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
  // Full-width tables (the table form, [rows x R]): each half reads its own
  // half of the tables; position tables [rows x R/2] serve both.
  bool fullWidth = isFullWidthTable(cosTile, rope);
  // first: x1 cos - x2 sin, second: x2 cos + x1 sin.
  for (bool first : {true, false}) {
    int64_t col = fullWidth && !first ? half : 0;
    Value cosHalf = fullWidth ? slice(cosTile, col, h) : cosTile;
    Value sinHalf = fullWidth ? slice(sinTile, col, h) : sinTile;
    SmallVector<Value> inputs = {x1, x2, cosHalf, sinHalf};
    SmallVector<AffineMap> maps(4, id);
    if (decay) {
      inputs.push_back(decay);
      maps.push_back(mapOf(ctx, 2, {1}));
    }
    maps.push_back(id);
    Value rotated = buildGeneric(
        b, loc, inputs, slice(out, first ? 0 : half, h), maps, iterators(2),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          Value x = castFloat(b, loc, a[first ? 0 : 1], c);
          Value y = castFloat(b, loc, a[first ? 1 : 0], c);
          Value r = buildRotatedElement(b, loc, x, y, a[2], a[3], first);
          if (decay)
            r = arith::MulFOp::create(b, loc, r, a[4]);
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
    Value restOut = slice(out, 2 * half, tensor::getMixedSize(b, loc, rest, 1));
    Value copied =
        buildGeneric(b, loc, rest, restOut, {id, id}, iterators(2),
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
                               Value sinTile = Value(),
                               Value logDecay = Value(),
                               Value xposCenter = Value(),
                               Value decay = Value()) {
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
      fromTables
          ? c
          : cast<FloatType>(
                cast<RankedTensorType>(invFreq.getType()).getElementType());
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
        Value y = castFloat(b, loc,
                            tensor::ExtractOp::create(
                                b, loc, tile, ValueRange{row, idx.partner}),
                            c);
        Value cs, sn;
        if (fromTables) {
          // Per-column tables (table form): the column's own entry (column
          // 0 past R, where the result passes through); else the pair's.
          Value col = isFullWidthTable(cosTile, rope)
                          ? arith::SelectOp::create(b, loc, inRotary, d,
                                                    indexConst(b, loc, 0))
                                .getResult()
                          : idx.pair;
          cs = castFloat(b, loc,
                         tensor::ExtractOp::create(b, loc, cosTile,
                                                   ValueRange{row, col}),
                         c);
          sn = castFloat(b, loc,
                         tensor::ExtractOp::create(b, loc, sinTile,
                                                   ValueRange{row, col}),
                         c);
          if (decay) {
            // xPos: the pair's factor (keyTileDecayFactor).
            Value f = tensor::ExtractOp::create(b, loc, decay, idx.pair);
            cs = arith::MulFOp::create(b, loc, cs, f);
            sn = arith::MulFOp::create(b, loc, sn, f);
          }
        } else {
          Value inv = tensor::ExtractOp::create(b, loc, invFreq, idx.pair);
          std::tie(cs, sn) = buildRotaryCosSin(b, loc, args[1], inv, angleType,
                                               c, attentionFactor);
          if (logDecay)
            std::tie(cs, sn) = applyXPosDecay(
                b, loc, cs, sn, args[1], xposCenter,
                tensor::ExtractOp::create(b, loc, logDecay, idx.pair));
        }
        Value rotated = buildRotatedElement(b, loc, x, y, cs, sn, isFirst);
        // posenc.rope stores its result in the element type.
        rotated = castFloat(b, loc, castFloat(b, loc, rotated, elemType), c);
        yieldValue(b, loc,
                   arith::SelectOp::create(b, loc, inRotary, rotated, x));
      });
}

/// The positions [start, start+size) of a tile at `lead`: of [S]
/// positions, or per batch [B, S] the row of this tile's batch.
static Value extractPositionTile(OpBuilder &b, Location loc, Value positions,
                                 ArrayRef<Value> lead, Value start,
                                 Value size) {
  auto posType = cast<RankedTensorType>(positions.getType());
  SmallVector<OpFoldResult> offsets, sizes;
  for (Value l : tableLead(positions, 1, lead)) {
    offsets.push_back(l);
    sizes.push_back(b.getIndexAttr(1));
  }
  offsets.push_back(start);
  // A constant size gives a static slice (staticSize below).
  sizes.push_back(getAsOpFoldResult(size));
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get({staticSize(size)}, posType.getElementType()),
      positions, offsets, sizes, strides);
}

Value posenc::decompose::loadTile(OpBuilder &b, Location loc, Value source,
                                  ArrayRef<Value> lead, Value start, Value size,
                                  RotaryAttr rope, Value positions,
                                  Value invFreq, FloatType c, Value logDecay,
                                  Value xposCenter, Value cosT, Value sinT) {
  Value tile = extractRowTile(b, loc, source, lead, start, size);
  if (rope && rope.isTableForm()) {
    // The table form: the tile's rows of the [S x R] ([B x S x R]) tables.
    SmallVector<Value> at = tableLead(cosT, 2, lead);
    return applyRotaryToTile(b, loc, tile, rope, Value(), Value(), c,
                             extractRowTile(b, loc, cosT, at, start, size),
                             extractRowTile(b, loc, sinT, at, start, size));
  }
  Value posTile;
  if (rope)
    posTile = extractPositionTile(b, loc, positions, lead, start, size);
  return applyRotaryToTile(b, loc, tile, rope, posTile, invFreq, c, Value(),
                           Value(), logDecay, xposCenter);
}

Value posenc::decompose::loadPackedQueryTile(
    OpBuilder &b, Location loc, Value source, ArrayRef<Value> lead,
    int64_t heads, int64_t rows, RotaryAttr rope, Value positions,
    Value invFreq, FloatType c) {
  // source[lead..., h0 : h0 + heads, 0 : rows, :] (all of Sq: contiguous
  // rows) seen as [heads * rows x D].
  Value slice = extractHeadRowsTile(b, loc, source, lead, heads,
                                    b.getIndexAttr(0), b.getIndexAttr(rows));
  Value tile = tensor::CollapseShapeOp::create(
      b, loc, slice, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value posTile;
  if (rope) {
    // Row r sits at position rows[r mod Sq] of its batch.
    Value perHead = extractPositionTile(b, loc, positions, lead,
                                        indexConst(b, loc, 0),
                                        indexConst(b, loc, rows));
    Type posElem = cast<RankedTensorType>(perHead.getType()).getElementType();
    Value init = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{heads * rows}, posElem);
    posTile = buildGeneric(
        b, loc, ValueRange{}, init,
        {AffineMap::getMultiDimIdentityMap(1, b.getContext())}, iterators(1),
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value row = arith::RemUIOp::create(
              b, loc, linalg::IndexOp::create(b, loc, 0),
              indexConst(b, loc, rows));
          yieldValue(b, loc, tensor::ExtractOp::create(b, loc, perHead, row));
        });
  }
  return applyRotaryToTile(b, loc, tile, rope, posTile, invFreq, c);
}

XPosTileCenters posenc::decompose::xposTileCenters(OpBuilder &b, Location loc,
                                                   const AttentionInfo &info,
                                                   ArrayRef<Value> lead,
                                                   Value qStart) {
  if (!info.qRope || !info.qRope.getXpos())
    return {};
  // The verifier guarantees a pair: k_rope carries xPos too.
  FusedAttentionOp op = info.op;
  Value positions = op.getQPositions();
  SmallVector<Value> at = tableLead(positions, 1, lead);
  at.push_back(qStart);
  Value first = tensor::ExtractOp::create(b, loc, positions, at);
  if (!first.getType().isInteger(64))
    first = arith::ExtSIOp::create(b, loc, b.getI64Type(), first);
  int64_t shift =
      info.kRope.getXpos().getCenter() - info.qRope.getXpos().getCenter();
  Value k = arith::AddIOp::create(
      b, loc, first,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(shift)));
  return {first, k};
}

/// Rows [start, start+size) of the [S x R/2] (per batch [B x S x R/2])
/// cos/sin tables at `lead`, each element times the decay `decayOf` builds
/// from the elements of `extra` (read through `extraMaps`), zero-padded to
/// `padTo` rows (0: not padded) after the scaling, so padded rows stay zero.
static std::pair<Value, Value>
scaleTableRows(OpBuilder &b, Location loc, Value cosT, Value sinT,
               ArrayRef<Value> lead, Value start, Value size, ValueRange extra,
               ArrayRef<AffineMap> extraMaps, int64_t padTo, FloatType c,
               function_ref<Value(OpBuilder &, Location, ValueRange)> decayOf) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> at = tableLead(cosT, 2, lead);
  Value cosRows = extractRowTile(b, loc, cosT, at, start, size);
  Value sinRows = extractRowTile(b, loc, sinT, at, start, size);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<Value> inputs = {cosRows, sinRows};
  llvm::append_range(inputs, extra);
  SmallVector<AffineMap> maps = {id, id};
  llvm::append_range(maps, extraMaps);
  maps.append({id, id});
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, cosRows);
  auto scaled = linalg::GenericOp::create(
      b, loc, TypeRange{cosRows.getType(), sinRows.getType()}, inputs,
      ValueRange{tensor::EmptyOp::create(b, loc, sizes, c),
                 tensor::EmptyOp::create(b, loc, sizes, c)},
      maps, iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value decay = decayOf(b, loc, a.slice(2, extra.size()));
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::MulFOp::create(b, loc, a[0], decay),
                       arith::MulFOp::create(b, loc, a[1], decay)});
      });
  markVectorTile(scaled.getResult(0), {1, 0});
  Value cosOut = scaled.getResult(0), sinOut = scaled.getResult(1);
  if (padTo > 0) {
    cosOut = padRows(b, loc, cosOut, padTo);
    sinOut = padRows(b, loc, sinOut, padTo);
  }
  return {cosOut, sinOut};
}

std::pair<Value, Value> posenc::decompose::decayedTableRows(
    OpBuilder &b, Location loc, Value cosT, Value sinT, Value positions,
    Value logDecay, Value center, ArrayRef<Value> lead, Value start,
    Value size, int64_t padTo, FloatType c) {
  MLIRContext *ctx = b.getContext();
  Value posTile = extractPositionTile(b, loc, positions, lead, start, size);
  return scaleTableRows(
      b, loc, cosT, sinT, lead, start, size, ValueRange{posTile, logDecay},
      {mapOf(ctx, 2, {0}), mapOf(ctx, 2, {1})}, padTo, c,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        return buildXPosDecay(b, loc, a[0], center, a[1]);
      });
}

std::pair<Value, Value>
posenc::decompose::rotaryTables(OpBuilder &b, Location loc, RotaryAttr rope,
                                Value positions, Value invFreq, FloatType c) {
  auto tables = buildRotaryTables(b, loc, rope, positions, invFreq, c);
  markVectorTile(tables.first, {1, 0});
  return tables;
}

Value posenc::decompose::vectorPrologue(OpBuilder &b, Location loc, Value tile,
                                        RotaryAttr rope, Value cosTile,
                                        Value sinTile, FloatType c,
                                        Value decay) {
  // Without RoPE a half K/V tile stays half: the contractions extend each
  // element in registers (no converted copy in memory).
  if (!rope)
    return tile;
  if (rope && rope.getLayout() == Layout::half)
    return applyHalfRotaryBySlices(b, loc, tile, rope, cosTile, sinTile, c,
                                   decay);
  Value result = applyRotaryToTile(b, loc, tile, rope, Value(), Value(), c,
                                   cosTile, sinTile, Value(), Value(), decay);
  markVectorTile(result, {1, 0});
  return result;
}

std::pair<Value, Value> posenc::decompose::decayKeyTablesPerTile(
    OpBuilder &b, Location loc, Value cosT, Value sinT, Value positions,
    Value logDecay, int64_t keyTile, FloatType c) {
  MLIRContext *ctx = b.getContext();
  auto tableType = cast<RankedTensorType>(cosT.getType());
  int64_t rank = tableType.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, cosT);
  auto scaled = linalg::GenericOp::create(
      b, loc, TypeRange{tableType, tableType}, ValueRange{cosT, sinT, logDecay},
      ValueRange{tensor::EmptyOp::create(b, loc, sizes, c),
                 tensor::EmptyOp::create(b, loc, sizes, c)},
      ArrayRef<AffineMap>{id, id, mapOf(ctx, rank, {rank - 1}), id, id},
      iterators(rank), [&](OpBuilder &b, Location loc, ValueRange a) {
        // Positions [S] or per batch [B, S]: the row's and its tile's first.
        SmallVector<Value> at;
        for (int64_t d = 0; d + 1 < rank; ++d)
          at.push_back(linalg::IndexOp::create(b, loc, d));
        Value pos = tensor::ExtractOp::create(b, loc, positions, at);
        Value row = at.back();
        Value tk = indexConst(b, loc, keyTile);
        at.back() = arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, row, tk), tk);
        Value first = tensor::ExtractOp::create(b, loc, positions, at);
        if (!first.getType().isInteger(64))
          first = arith::ExtSIOp::create(b, loc, b.getI64Type(), first);
        auto [cs, sn] = applyXPosDecay(b, loc, a[0], a[1], pos, first, a[2]);
        linalg::YieldOp::create(b, loc, ValueRange{cs, sn});
      });
  SmallVector<int64_t> tiles(rank, 1);
  tiles.back() = 0;
  markVectorTile(scaled.getResult(0), tiles);
  return {scaled.getResult(0), scaled.getResult(1)};
}

Value posenc::decompose::keyTileDecayFactor(OpBuilder &b, Location loc,
                                            Value positions, Value logDecay,
                                            Value center, ArrayRef<Value> lead,
                                            Value start, FloatType c) {
  MLIRContext *ctx = b.getContext();
  // exp((pos_start - center) logDecay): R/2 exps per key tile.
  SmallVector<Value> posAt = tableLead(positions, 1, lead);
  posAt.push_back(start);
  Value first = tensor::ExtractOp::create(b, loc, positions, posAt);
  int64_t half = cast<RankedTensorType>(logDecay.getType()).getDimSize(0);
  AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  Value factor = buildGeneric(
      b, loc, logDecay, tensor::EmptyOp::create(b, loc, {half}, c),
      {id1, id1}, iterators(1), [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, buildXPosDecay(b, loc, first, center, a[0]));
      });
  markVectorTile(factor, {0});
  return factor;
}
