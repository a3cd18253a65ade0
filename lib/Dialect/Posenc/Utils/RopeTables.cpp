//===- RopeTables.cpp - RoPE frequency and cos/sin tables -----------------===//
//
// The RoPE inverse-frequency table (constant or dynamic-NTK at run time),
// the cos/sin tables of positions, and the element indices of the table
// form (AttentionUtils.h, "RoPE tables").
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;

//===----------------------------------------------------------------------===//
// RoPE tables
//===----------------------------------------------------------------------===//

FloatType posenc::rotaryAngleType(MLIRContext *ctx, AnglePrecision precision) {
  if (precision == AnglePrecision::exact)
    return Float64Type::get(ctx);
  return Float32Type::get(ctx);
}

Value posenc::buildRotaryInvFreqConstant(OpBuilder &b, Location loc,
                                         RotaryAttr rope, FloatType angleType) {
  return constantTable(b, loc,
                       computeRopeInvFreq(rope.getBaseValue(),
                                          rope.getRotaryDim(),
                                          rope.getScaling()),
                       angleType);
}

/// The run-time sequence length L = max(positions) + 1 as an f64.
static Value buildSequenceLength(OpBuilder &b, Location loc, Value positions) {
  auto posType = cast<RankedTensorType>(positions.getType());
  Type intType = posType.getElementType();
  MLIRContext *ctx = b.getContext();
  Value zero =
      arith::ConstantOp::create(b, loc, intType, b.getIntegerAttr(intType, 0));
  Value init0 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
  Value init = linalg::FillOp::create(b, loc, zero, init0).getResult(0);
  // Per-batch positions [B, S]: L over every sequence, as the reference.
  int64_t rank = posType.getRank();
  Value maxPos = buildGeneric(
      b, loc, positions, init,
      {AffineMap::getMultiDimIdentityMap(rank, ctx),
       AffineMap::get(rank, 0, {}, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value m = arith::MaxSIOp::create(b, loc, args[0], args[1]);
        yieldValue(b, loc, m);
      });
  Value maxScalar = tensor::ExtractOp::create(b, loc, maxPos, ValueRange{});
  Value len = arith::SIToFPOp::create(b, loc, b.getF64Type(), maxScalar);
  return arith::AddFOp::create(b, loc, len,
                               floatConst(b, loc, b.getF64Type(), 1.0));
}

/// Dynamic NTK's table from L: base' = base * (factor * max(L, orig) / orig
/// - (factor - 1))^(R / (R - 2)), inv_freq[p] = base'^(-2p/R), in f64.
static Value buildDynamicNtkInvFreq(OpBuilder &b, Location loc,
                                    RopeScalingAttr scaling, double base,
                                    int64_t rotaryDim, Value seqLen,
                                    FloatType angleType) {
  double orig = static_cast<double>(scaling.getOriginalMaxPosition());
  Type f64 = b.getF64Type();
  double factor = scaling.getFactorValue();
  double r = static_cast<double>(rotaryDim);
  Value len =
      arith::MaximumFOp::create(b, loc, seqLen, floatConst(b, loc, f64, orig));
  Value ratio = arith::MulFOp::create(b, loc, len,
                                      floatConst(b, loc, f64, factor / orig));
  ratio = arith::SubFOp::create(b, loc, ratio,
                                floatConst(b, loc, f64, factor - 1.0));
  Value expo = math::PowFOp::create(b, loc, ratio,
                                    floatConst(b, loc, f64, r / (r - 2.0)));
  Value newBase =
      arith::MulFOp::create(b, loc, expo, floatConst(b, loc, f64, base));
  Value logBase = math::LogOp::create(b, loc, newBase);
  int64_t half = rotaryDim / 2;
  MLIRContext *ctx = b.getContext();
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{half}, angleType);
  return buildGeneric(
      b, loc, ValueRange{}, init, {AffineMap::getMultiDimIdentityMap(1, ctx)},
      iterators(1), [&](OpBuilder &b, Location loc, ValueRange) {
        Value p = linalg::IndexOp::create(b, loc, 0);
        Value pi = arith::IndexCastOp::create(b, loc, b.getI64Type(), p);
        Value pf = arith::SIToFPOp::create(b, loc, f64, pi);
        // exponent = -2p/R * ln(base')
        Value e = arith::MulFOp::create(b, loc, pf,
                                        floatConst(b, loc, f64, -2.0 / r));
        e = arith::MulFOp::create(b, loc, e, logBase);
        Value inv = math::ExpOp::create(b, loc, e);
        yieldValue(b, loc, castFloat(b, loc, inv, angleType));
      });
}

Value posenc::buildRopeInvFreqTable(OpBuilder &b, Location loc, RopeOp op,
                                    Value positions, FloatType angleType) {
  double base = op.getBase().convertToDouble();
  int64_t rotaryDim = op.getRotaryDimOrDefault();
  RopeScalingAttr scaling = op.getScalingAttr();
  if (!scaling || !scaling.dependsOnSequenceLength())
    return constantTable(b, loc, computeRopeInvFreq(base, rotaryDim, scaling),
                         angleType);

  Value seqLen = buildSequenceLength(b, loc, positions);
  if (scaling.getKind() != RopeScalingKind::longrope)
    return buildDynamicNtkInvFreq(b, loc, scaling, base, rotaryDim, seqLen,
                                  angleType);
  // LongRoPE: both tables are compile-time constants; L picks one.
  Value shortTable = constantTable(
      b, loc, computeRopeInvFreq(base, rotaryDim, scaling, 0), angleType);
  Value longTable =
      constantTable(b, loc,
                    computeRopeInvFreq(base, rotaryDim, scaling,
                                       scaling.getOriginalMaxPosition() + 1),
                    angleType);
  double orig = static_cast<double>(scaling.getOriginalMaxPosition());
  Value isLong =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, seqLen,
                            floatConst(b, loc, b.getF64Type(), orig));
  return arith::SelectOp::create(b, loc, isLong, longTable, shortTable);
}

std::pair<Value, Value> posenc::buildRotaryTables(OpBuilder &b, Location loc,
                                                  RotaryAttr rope,
                                                  Value positions,
                                                  Value invFreq, FloatType c) {
  MLIRContext *ctx = b.getContext();
  int64_t half = rope.getRotaryDim() / 2;
  FloatType angleType = cast<FloatType>(
      cast<RankedTensorType>(invFreq.getType()).getElementType());
  double attentionFactor = rope.getEffectiveAttentionFactor();
  // [S] or per batch [B, S] positions: one table row per position.
  int64_t posRank = cast<RankedTensorType>(positions.getType()).getRank();
  int64_t rank = posRank + 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, positions);
  sizes.push_back(b.getIndexAttr(half));
  Value cosInit = tensor::EmptyOp::create(b, loc, sizes, c);
  Value sinInit = tensor::EmptyOp::create(b, loc, sizes, c);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap byRow = id.dropResult(posRank);
  auto byPair = AffineMap::get(rank, 0, {getAffineDimExpr(posRank, ctx)}, ctx);
  auto tables = linalg::GenericOp::create(
      b, loc, TypeRange{cosInit.getType(), sinInit.getType()},
      ValueRange{positions, invFreq}, ValueRange{cosInit, sinInit},
      ArrayRef<AffineMap>{byRow, byPair, id, id}, iterators(rank),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        auto [cs, sn] = buildRotaryCosSin(b, loc, a[0], a[1], angleType, c,
                                          attentionFactor);
        linalg::YieldOp::create(b, loc, ValueRange{cs, sn});
      });
  return {tables.getResult(0), tables.getResult(1)};
}

SmallVector<Value> posenc::ropeTableIndices(OpBuilder &b, Location loc,
                                            Value table, ArrayRef<Value> ivs,
                                            Value column) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t tRank = type.getRank(), rank = ivs.size();
  SmallVector<Value> at;
  for (int64_t k = 0; k + 1 < tRank; ++k)
    at.push_back(type.getDimSize(k) == 1 && k + 2 < tRank
                     ? indexConst(b, loc, 0)
                     : ivs[rank - tRank + k]);
  at.push_back(column);
  return at;
}
