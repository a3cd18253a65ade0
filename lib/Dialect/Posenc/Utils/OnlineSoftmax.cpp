//===- OnlineSoftmax.cpp - the online-softmax step ------------------------===//
//
// Safe row max, exp against it and the final division of the online
// softmax (AttentionUtils.h), shared by every flash-style lowering.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace posenc;

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Online softmax
//===----------------------------------------------------------------------===//

Value posenc::buildSafeRowMax(OpBuilder &b, Location loc, Value m) {
  Type type = m.getType();
  Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                                      floatConst(b, loc, type, kNegInf));
  return arith::SelectOp::create(b, loc, isInf, floatConst(b, loc, type, 0.0),
                                 m);
}

Value posenc::buildOnlineSoftmaxExp(OpBuilder &b, Location loc, Value x,
                                    Value mNew) {
  Value diff = arith::SubFOp::create(b, loc, x, buildSafeRowMax(b, loc, mNew));
  return math::ExpOp::create(b, loc, diff);
}

Value posenc::buildSoftmaxNormalize(OpBuilder &b, Location loc, Value acc,
                                    Value l) {
  Value zero = floatConst(b, loc, l.getType(), 0.0);
  Value empty =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, zero);
  Value o = arith::DivFOp::create(b, loc, acc, l);
  return arith::SelectOp::create(b, loc, empty, zero, o);
}
