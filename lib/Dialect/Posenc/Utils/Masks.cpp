//===- Masks.cpp - causal and KV-cache masks ------------------------------===//
//
// The causal mask, the keys a row block may see, and the masks of
// attention over a KV cache (AttentionUtils.h, "Masks and relative
// positions"); the rules are those of SPEC.md / the op descriptions.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace posenc;

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Masks and relative positions
//===----------------------------------------------------------------------===//

Value posenc::buildRelativeDistance(OpBuilder &b, Location loc, Value i,
                                    Value j, Value shift) {
  Value qpos = arith::AddIOp::create(b, loc, i, shift);
  return arith::SubIOp::create(b, loc, j, qpos);
}

Value posenc::buildCausalMask(OpBuilder &b, Location loc, Value i, Value j,
                              Value shift) {
  Value limit = arith::AddIOp::create(b, loc, i, shift);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, limit);
}

Value posenc::buildMaskedScore(OpBuilder &b, Location loc, Value masked,
                               Value score) {
  return arith::SelectOp::create(
      b, loc, masked, floatConst(b, loc, score.getType(), kNegInf), score);
}

Value posenc::buildCausalKeyBound(OpBuilder &b, Location loc, Value rowEnd,
                                  Value shift) {
  Value lastAllowed = arith::AddIOp::create(b, loc, rowEnd, shift);
  return arith::MaxSIOp::create(b, loc, lastAllowed, indexConst(b, loc, 0));
}

CacheKeyRange posenc::buildCacheKeyRange(OpBuilder &b, Location loc,
                                         Value lengthElement, Value sq) {
  CacheKeyRange r;
  r.length =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), lengthElement);
  r.shift = arith::SubIOp::create(b, loc, r.length, sq);
  return r;
}

CacheKeyRange posenc::buildCacheKeyRangeOfBatch(OpBuilder &b, Location loc,
                                                Value kvLengths, Value batch,
                                                Value sq) {
  Value element = tensor::ExtractOp::create(b, loc, kvLengths, batch);
  return buildCacheKeyRange(b, loc, element, sq);
}

Value posenc::buildPastLengthMask(OpBuilder &b, Location loc, Value j,
                                  Value length) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, length);
}

Value posenc::buildCacheMask(OpBuilder &b, Location loc, Value i, Value j,
                             const CacheKeyRange &range, bool causal) {
  // Causal: j > i + length - Sq already excludes every j >= length.
  if (causal)
    return buildCausalMask(b, loc, i, j, range.shift);
  return buildPastLengthMask(b, loc, j, range.length);
}
