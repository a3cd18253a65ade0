//===- BuilderUtils.cpp - IR building blocks shared by the lowerings ------===//

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <tuple>

using namespace mlir;

FloatType posenc::computeTypeFor(Type elementType) {
  if (elementType.isF64())
    return Float64Type::get(elementType.getContext());
  return Float32Type::get(elementType.getContext());
}

Value posenc::castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  // Scalars or vectors of floats (the vector lowerings cast whole rows).
  if (cast<FloatType>(getElementTypeOrSelf(from)).getWidth() <
      cast<FloatType>(getElementTypeOrSelf(to)).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

void posenc::assertDimsEqual(OpBuilder &b, Location loc, Value a, int64_t da,
                             Value b2, int64_t db, const Twine &message) {
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b2.getType());
  if (!at.isDynamicDim(da) && !bt.isDynamicDim(db))
    return;
  Value sa = tensor::DimOp::create(b, loc, a, da);
  Value sb = tensor::DimOp::create(b, loc, b2, db);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sa, sb);
  cf::AssertOp::create(b, loc, eq, b.getStringAttr(message));
}

Value posenc::constantTable(OpBuilder &b, Location loc,
                            ArrayRef<double> values, FloatType elementType) {
  auto type =
      RankedTensorType::get({static_cast<int64_t>(values.size())}, elementType);
  SmallVector<Attribute> attrs;
  for (double v : values)
    attrs.push_back(b.getFloatAttr(elementType, v));
  return arith::ConstantOp::create(b, loc, type,
                                   DenseElementsAttr::get(type, attrs));
}

Value posenc::floatConst(OpBuilder &b, Location loc, Type type, double value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(shaped,
                               b.getFloatAttr(shaped.getElementType(), value)));
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value posenc::indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<utils::IteratorType> posenc::iterators(int64_t numParallel,
                                                   int64_t numReduction) {
  SmallVector<utils::IteratorType> its(numParallel,
                                       utils::IteratorType::parallel);
  its.append(numReduction, utils::IteratorType::reduction);
  return its;
}

Value posenc::buildGeneric(
    OpBuilder &b, Location loc, ValueRange inputs, Value init,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> its,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(b, loc, init.getType(), inputs,
                                   ValueRange{init}, maps, its, body)
      .getResult(0);
}

void posenc::yieldValue(OpBuilder &b, Location loc, Value v) {
  linalg::YieldOp::create(b, loc, ValueRange{v});
}

posenc::RotaryPairIndex posenc::buildRotaryPairIndex(OpBuilder &b, Location loc,
                                                     Value d, Layout layout,
                                                     int64_t rotaryDim) {
  Value zero = indexConst(b, loc, 0);
  Value inRotary = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, d,
                                         indexConst(b, loc, rotaryDim));
  Value pair, isFirst, partner;
  if (layout == Layout::interleaved) {
    // Pair (2p, 2p+1).
    Value two = indexConst(b, loc, 2);
    pair = arith::DivUIOp::create(b, loc, d, two);
    Value odd = arith::RemUIOp::create(b, loc, d, two);
    isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, odd, zero);
    Value next = arith::AddIOp::create(b, loc, d, indexConst(b, loc, 1));
    Value prev = arith::SubIOp::create(b, loc, d, indexConst(b, loc, 1));
    partner = arith::SelectOp::create(b, loc, isFirst, next, prev);
  } else {
    // Pair (p, p + R/2).
    Value half = indexConst(b, loc, rotaryDim / 2);
    pair = arith::RemUIOp::create(b, loc, d, half);
    isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, d, half);
    Value up = arith::AddIOp::create(b, loc, d, half);
    Value down = arith::SubIOp::create(b, loc, d, half);
    partner = arith::SelectOp::create(b, loc, isFirst, up, down);
  }
  pair = arith::SelectOp::create(b, loc, inRotary, pair, zero);
  partner = arith::SelectOp::create(b, loc, inRotary, partner, d);
  return {pair, isFirst, partner, inRotary};
}

/// cos and sin of an f32 angle (scalar or vector) with the argument reduced
/// in f64: theta = k pi/2 + r, |r| <= pi/4, then cos/sin of the f32 r and a
/// quadrant swap/negation. Polynomial cos/sin (the CPU vector lowering) lose
/// accuracy as |theta| grows; reduced this way their error stays that of
/// the f32 angle itself, as with libm's cosf/sinf of the same theta.
static std::pair<Value, Value> buildReducedCosSin(OpBuilder &b, Location loc,
                                                  Value theta) {
  Type f32 = theta.getType();
  Type f64 = b.getF64Type(), i32 = b.getI32Type();
  if (auto vt = dyn_cast<VectorType>(f32)) {
    f64 = vt.clone(f64);
    i32 = vt.clone(i32);
  }
  Value t = arith::ExtFOp::create(b, loc, f64, theta);
  Value k = math::RoundEvenOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, t,
                            posenc::floatConst(b, loc, f64, 2.0 / M_PI)));
  Value r = arith::SubFOp::create(
      b, loc, t,
      arith::MulFOp::create(b, loc, k,
                            posenc::floatConst(b, loc, f64, M_PI / 2.0)));
  r = arith::TruncFOp::create(b, loc, f32, r);
  Value cr = math::CosOp::create(b, loc, r);
  Value sr = math::SinOp::create(b, loc, r);
  // Quadrant q = k mod 4: sin = (s, c, -s, -c)[q], cos = (c, -s, -c, s)[q].
  Value q = arith::FPToSIOp::create(b, loc, i32, k);
  auto intConst = [&](int32_t v) -> Value {
    Attribute attr = b.getI32IntegerAttr(v);
    if (auto vt = dyn_cast<VectorType>(i32))
      attr = DenseElementsAttr::get(vt, attr);
    return arith::ConstantOp::create(b, loc, i32, cast<TypedAttr>(attr));
  };
  auto bit = [&](Value v, int32_t mask) -> Value {
    Value m = arith::AndIOp::create(b, loc, v, intConst(mask));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, m,
                                 intConst(0));
  };
  Value swap = bit(q, 1);
  Value sinBase = arith::SelectOp::create(b, loc, swap, cr, sr);
  Value cosBase = arith::SelectOp::create(b, loc, swap, sr, cr);
  Value one = intConst(1);
  Value sinNeg = bit(q, 2);
  Value cosNeg = bit(arith::AddIOp::create(b, loc, q, one), 2);
  Value s = arith::SelectOp::create(
      b, loc, sinNeg, arith::NegFOp::create(b, loc, sinBase), sinBase);
  Value c = arith::SelectOp::create(
      b, loc, cosNeg, arith::NegFOp::create(b, loc, cosBase), cosBase);
  return {c, s};
}

std::pair<Value, Value> posenc::buildRotaryCosSin(OpBuilder &b, Location loc,
                                                  Value position, Value invFreq,
                                                  FloatType angleType,
                                                  FloatType computeType,
                                                  double attentionFactor,
                                                  bool reduceAngleInF64) {
  // A vector of positions gives vectors of angles, cos and sin.
  Type angle = angleType, compute = computeType;
  if (auto vt = dyn_cast<VectorType>(position.getType())) {
    angle = vt.clone(angleType);
    compute = vt.clone(computeType);
  }
  Value pos = arith::SIToFPOp::create(b, loc, angle, position);
  Value theta = arith::MulFOp::create(b, loc, pos, invFreq);
  Value c, s;
  if (reduceAngleInF64 && angleType.isF32()) {
    std::tie(c, s) = buildReducedCosSin(b, loc, theta);
  } else {
    c = math::CosOp::create(b, loc, theta);
    s = math::SinOp::create(b, loc, theta);
  }
  c = castFloat(b, loc, c, compute);
  s = castFloat(b, loc, s, compute);
  if (attentionFactor != 1.0) {
    Value af = floatConst(b, loc, compute, attentionFactor);
    c = arith::MulFOp::create(b, loc, c, af);
    s = arith::MulFOp::create(b, loc, s, af);
  }
  return {c, s};
}

/// Whether the rotation subtracts the partner's sin term from x cos: for the
/// first element of a pair, (a, b) -> (a cos - b sin, a sin + b cos). The
/// one statement of the rotation's sign: every form below (the element, the
/// signed sin tables, the row helpers) takes it from here.
static bool negatesPartnerSin(bool isFirst) { return isFirst; }

/// x cos -/+ y sin from the products `xc` and `ys`.
static Value combineRotaryTerms(OpBuilder &b, Location loc, Value xc, Value ys,
                                bool isFirst) {
  if (negatesPartnerSin(isFirst))
    return arith::SubFOp::create(b, loc, xc, ys);
  return arith::AddFOp::create(b, loc, xc, ys);
}

Value posenc::buildRotatedElement(OpBuilder &b, Location loc, Value x, Value y,
                                  Value cos, Value sin, bool isFirst) {
  Value xc = arith::MulFOp::create(b, loc, x, cos);
  Value ys = arith::MulFOp::create(b, loc, y, sin);
  return combineRotaryTerms(b, loc, xc, ys, isFirst);
}

Value posenc::buildRotatedElement(OpBuilder &b, Location loc, Value x, Value y,
                                  Value cos, Value sin, Value isFirst) {
  Value xc = arith::MulFOp::create(b, loc, x, cos);
  Value ys = arith::MulFOp::create(b, loc, y, sin);
  Value first = combineRotaryTerms(b, loc, xc, ys, /*isFirst=*/true);
  Value second = combineRotaryTerms(b, loc, xc, ys, /*isFirst=*/false);
  return arith::SelectOp::create(b, loc, isFirst, first, second);
}

std::pair<Value, Value>
posenc::buildInterleavedRotaryLanes(OpBuilder &b, Location loc, Value cosPairs,
                                    Value sinPairs) {
  int64_t half = cast<VectorType>(cosPairs.getType()).getNumElements();
  // Lane 2p and 2p+1 both use pair p.
  SmallVector<int64_t> dup;
  for (int64_t p = 0; p < half; ++p)
    dup.append({p, p});
  Value c = vector::ShuffleOp::create(b, loc, cosPairs, cosPairs, dup);
  Value sn = vector::ShuffleOp::create(b, loc, sinPairs, sinPairs, dup);
  return {c, signRotaryLanes(b, loc, sn)};
}

Value posenc::signRotaryLanes(OpBuilder &b, Location loc, Value sinLanes) {
  // Negation is exact: x cos + y (-sin) is x cos - y sin, the same numbers
  // as buildRotatedElement.
  int64_t width = cast<VectorType>(sinLanes.getType()).getNumElements();
  SmallVector<bool> negated;
  for (int64_t l = 0; l < width; ++l)
    negated.push_back(negatesPartnerSin(/*isFirst=*/l % 2 == 0));
  Value negate = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({width}, b.getI1Type()),
                             ArrayRef<bool>(negated)));
  return arith::SelectOp::create(
      b, loc, negate, arith::NegFOp::create(b, loc, sinLanes), sinLanes);
}

Value posenc::swapRotaryPairLanes(OpBuilder &b, Location loc, Value x) {
  int64_t width = cast<VectorType>(x.getType()).getNumElements();
  SmallVector<int64_t> swap;
  for (int64_t l = 0; l < width; l += 2)
    swap.append({l + 1, l});
  return vector::ShuffleOp::create(b, loc, x, x, swap);
}

Value posenc::applyRotaryBySignedSin(OpBuilder &b, Location loc, Value x,
                                     Value partner, Value cos,
                                     Value signedSin) {
  return arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, cos),
      arith::MulFOp::create(b, loc, partner, signedSin));
}

Value posenc::buildParallelLoopTripCounts(OpBuilder &b, Location loc,
                                          scf::ParallelOp loop,
                                          SmallVectorImpl<Value> &tripCounts) {
  Value zero = indexConst(b, loc, 0);
  Value total = indexConst(b, loc, 1);
  for (auto [lb, ub, step] : llvm::zip_equal(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    Value extent = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ub, lb), zero);
    Value trips = arith::CeilDivUIOp::create(b, loc, extent, step);
    tripCounts.push_back(trips);
    total = arith::MulIOp::create(b, loc, total, trips);
  }
  return total;
}

SmallVector<Value> posenc::delinearizeParallelLoop(OpBuilder &b, Location loc,
                                                   Value linear,
                                                   scf::ParallelOp loop,
                                                   ArrayRef<Value> tripCounts) {
  int64_t rank = loop.getNumLoops();
  SmallVector<Value> ivs(rank);
  Value rest = linear;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value index = rest;
    if (d > 0) {
      index = arith::RemUIOp::create(b, loc, rest, tripCounts[d]);
      rest = arith::DivUIOp::create(b, loc, rest, tripCounts[d]);
    }
    Value scaled = arith::MulIOp::create(b, loc, index, loop.getStep()[d]);
    ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
  }
  return ivs;
}
