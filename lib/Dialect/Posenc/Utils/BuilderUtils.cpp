//===- BuilderUtils.cpp - IR building blocks shared by the lowerings ------===//

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

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
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value posenc::floatConst(OpBuilder &b, Location loc, Type type, double value) {
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

posenc::RotaryPairIndex posenc::buildRotaryPairIndex(OpBuilder &b,
                                                     Location loc, Value d,
                                                     Layout layout,
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
    isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, d, half);
    Value up = arith::AddIOp::create(b, loc, d, half);
    Value down = arith::SubIOp::create(b, loc, d, half);
    partner = arith::SelectOp::create(b, loc, isFirst, up, down);
  }
  pair = arith::SelectOp::create(b, loc, inRotary, pair, zero);
  partner = arith::SelectOp::create(b, loc, inRotary, partner, d);
  return {pair, isFirst, partner, inRotary};
}

std::pair<Value, Value>
posenc::buildRotaryCosSin(OpBuilder &b, Location loc, Value position,
                          Value invFreq, FloatType angleType,
                          FloatType computeType, double attentionFactor) {
  Value pos = arith::SIToFPOp::create(b, loc, angleType, position);
  Value theta = arith::MulFOp::create(b, loc, pos, invFreq);
  Value c =
      castFloat(b, loc, math::CosOp::create(b, loc, theta), computeType);
  Value s =
      castFloat(b, loc, math::SinOp::create(b, loc, theta), computeType);
  if (attentionFactor != 1.0) {
    Value af = floatConst(b, loc, computeType, attentionFactor);
    c = arith::MulFOp::create(b, loc, c, af);
    s = arith::MulFOp::create(b, loc, s, af);
  }
  return {c, s};
}

Value posenc::buildRotatedElement(OpBuilder &b, Location loc, Value x, Value y,
                                  Value cos, Value sin, Value isFirst) {
  Value xc = arith::MulFOp::create(b, loc, x, cos);
  Value ys = arith::MulFOp::create(b, loc, y, sin);
  Value first = arith::SubFOp::create(b, loc, xc, ys);
  Value second = arith::AddFOp::create(b, loc, xc, ys);
  return arith::SelectOp::create(b, loc, isFirst, first, second);
}
