//===- XPosDecay.cpp - xPos's decay of RoPE's cos and sin -----------------===//
//
// See AttentionUtils.h ("xPos decay"); the math is #posenc.xpos's. Every
// lowering of an xPos rope (reference, standalone loops, fused attention)
// scales RoPE's cos and sin by the decay here, so the rotation code is
// shared unchanged.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace posenc;

Value posenc::buildXPosLogDecayConstant(OpBuilder &b, Location loc,
                                        XPosAttr xpos, int64_t rotaryDim,
                                        FloatType c) {
  return constantTable(b, loc, computeXPosLogDecay(xpos, rotaryDim), c);
}

Value posenc::buildXPosDecay(OpBuilder &b, Location loc, Value position,
                            Value center, Value logDecay) {
  Type i64 = b.getI64Type();
  Type offsetType = i64;
  if (auto vt = dyn_cast<VectorType>(position.getType())) {
    offsetType = vt.clone(i64);
    center = vector::BroadcastOp::create(b, loc, offsetType, center);
  }
  Value pos = position.getType() == offsetType
                  ? position
                  : arith::ExtSIOp::create(b, loc, offsetType, position);
  // pos - center in i64 (exact), then in the compute type.
  Value offset = arith::SubIOp::create(b, loc, pos, center);
  Value offsetF = arith::SIToFPOp::create(b, loc, logDecay.getType(), offset);
  return math::ExpOp::create(b, loc,
                             arith::MulFOp::create(b, loc, offsetF, logDecay));
}

std::pair<Value, Value> posenc::applyXPosDecay(OpBuilder &b, Location loc,
                                               Value cos, Value sin,
                                               Value position, Value center,
                                               Value logDecay) {
  Value decay = buildXPosDecay(b, loc, position, center, logDecay);
  return {arith::MulFOp::create(b, loc, cos, decay),
          arith::MulFOp::create(b, loc, sin, decay)};
}
