//===- RaiseMask.cpp - what an additive score term means to attention -----===//
//
// A constant mask equal to the bottom-right causal mask becomes `causal`.
// With -inf entries both forms give masked keys a weight of exactly 0. With
// HuggingFace's lowest finite value m (for f32, -3.40282347e38): s + m
// rounds to m for every |s| < 2^103, and exp(m - rowmax) is 0 because the
// row max is the finite score of a kept key; every row keeps key 0 when
// Sq <= Sk (bottom-right alignment), so no row degenerates to the uniform
// weights an all-m row would give. With Sq > Sk that fails, so such masks
// are left as biases (and only then if no row is entirely -inf, where the
// unraised graph gives NaN and posenc.attention zeros).
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// Whether `v` hides a key: -inf or the lowest finite value of `elemType`.
static bool isMaskedValue(double v, Type elemType) {
  if (std::isinf(v) && v < 0)
    return true;
  auto floatType = dyn_cast<FloatType>(elemType);
  return floatType &&
         v == APFloat::getLargest(floatType.getFloatSemantics(), true)
                  .convertToDouble();
}

/// Whether `values` ([sq, sk], row-major) is the bottom-right causal mask.
static bool isCausalMask(ArrayRef<double> values, int64_t sq, int64_t sk,
                         Type elemType) {
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < sk; ++j) {
      double v = values[i * sk + j];
      if (j <= i + sk - sq ? v != 0.0 : !isMaskedValue(v, elemType))
        return false;
    }
  return true;
}

/// Whether `map` reads a term of `type` right-aligned against the loop dims
/// of `loopShape` (each result the matching loop dim, or 0 on a unit dim);
/// `leadVaries` says whether it varies along a leading (batch, head) dim.
static bool isRightAligned(RankedTensorType type, AffineMap map,
                           ArrayRef<int64_t> loopShape, bool &leadVaries) {
  int64_t rank = type.getRank(), loopRank = loopShape.size();
  if (map.getNumResults() != rank || rank > loopRank)
    return false;
  leadVaries = false;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t i = loopRank - rank + k;
    AffineExpr e = map.getResult(k);
    auto c = dyn_cast<AffineConstantExpr>(e);
    bool unit = type.getDimSize(k) == 1;
    if (c && c.getValue() == 0 && unit)
      continue;
    if (e != getAffineDimExpr(i, map.getContext()))
      return false;
    bool leadingFlatDim = loopRank == 3 && rank == 3 && i == 0;
    leadVaries |= i < loopRank - 2 && !unit && !leadingFlatDim;
  }
  return true;
}

/// classifyBias for scores of dynamic length (see there).
static FailureOr<BiasClass>
classifyDynamicBias(Value bias, RankedTensorType type, bool leadVaries,
                    Type elemType, std::optional<ConstantTensor> values,
                    bool equalLengths, std::string &why) {
  std::string evalWhy;
  if (!values)
    values = evaluateDiagonalTerm(bias, evalWhy);
  if (leadVaries) {
    why = "the bias varies along the leading (batch, head) dims before "
          "they are flattened";
    return failure();
  }
  if (!values)
    return BiasClass{BiasKind::Operand, {}}; // a run-time mask
  int64_t rank = values->shape.size();
  bool square = rank >= 2 && type.isDynamicDim(rank - 2) &&
                type.isDynamicDim(rank - 1);
  int64_t n = values->shape.back();
  if (square && isCausalMask(values->values, n, n, elemType)) {
    if (equalLengths)
      return BiasClass{BiasKind::Causal, {}};
    why = "the mask hides j > i, which is the bottom-right causal mask only "
          "when Sq == Sk, and the dynamic lengths are not provably equal";
    return failure();
  }
  if (llvm::any_of(values->values,
                   [](double v) { return std::isinf(v) && v < 0; })) {
    why = "a dynamic-size mask with -inf entries that is not causal (a row "
          "may hide every key: the graph gives NaN there, "
          "posenc.attention zeros)";
    return failure();
  }
  return BiasClass{BiasKind::Operand, {}};
}

FailureOr<BiasClass>
raise::classifyBias(Value bias, AffineMap map, ArrayRef<int64_t> loopShape,
                    Type elemType, std::optional<ConstantTensor> constant,
                    bool equalLengths, std::string &why) {
  auto type = cast<RankedTensorType>(bias.getType());
  int64_t rank = type.getRank(), loopRank = loopShape.size();
  int64_t sq = loopShape[loopRank - 2], sk = loopShape[loopRank - 1];
  bool leadVaries;
  if (!isRightAligned(type, map, loopShape, leadVaries)) {
    why = "the bias is not broadcast to the scores by a right-aligned map";
    return failure();
  }
  if (ShapedType::isDynamic(sq) || ShapedType::isDynamic(sk))
    return classifyDynamicBias(bias, type, leadVaries, elemType,
                               std::move(constant), equalLengths, why);
  std::optional<SmallVector<double>> values;
  if (constant)
    values = std::move(constant->values);
  else
    values = getConstantValues(bias);
  if (values) {
    int64_t rows = rank >= 2 ? type.getDimSize(rank - 2) : 1;
    int64_t cols = rank >= 1 ? type.getDimSize(rank - 1) : 1;
    if (rows * cols == static_cast<int64_t>(values->size()) && rows == sq &&
        cols == sk && sq <= sk && isCausalMask(*values, sq, sk, elemType))
      return BiasClass{BiasKind::Causal, {}};
    std::string alibiWhy;
    if (std::optional<SmallVector<double>> slopes = matchAlibiSlopes(
            TermView(*values, type, map, loopShape), alibiWhy))
      return BiasClass{BiasKind::Alibi, std::move(*slopes)};
  }
  if (leadVaries) {
    why = "the bias varies along the leading (batch, head) dims before "
          "they are flattened";
    return failure();
  }
  if (!values || rank == 0)
    return BiasClass{BiasKind::Operand, {}}; // a run-time mask
  for (size_t r = 0; r + type.getDimSize(rank - 1) <= values->size();
       r += type.getDimSize(rank - 1)) {
    if (llvm::all_of(
            ArrayRef<double>(*values).slice(r, type.getDimSize(rank - 1)),
            [](double v) { return std::isinf(v) && v < 0; })) {
      why = "a row of the constant mask hides every key (the graph gives NaN "
            "there, posenc.attention zeros)";
      return failure();
    }
  }
  return BiasClass{BiasKind::Operand, {}};
}
