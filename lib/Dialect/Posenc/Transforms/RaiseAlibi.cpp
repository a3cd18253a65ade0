//===- RaiseAlibi.cpp - a constant ALiBi score term -> posenc.alibi_bias ---===//
//
// ALiBi adds `slope[h] * (j - i')` to the scores. Front ends write it in two
// ways: the paper's (and ggml's) distance matrix, and BLOOM's
// `slope[h] * j` (build_alibi_tensor: slopes times the key positions, one
// row broadcast over the queries). The two differ by `slope[h] * i'`, a
// constant per score row, and softmax is invariant under adding a constant
// to a row: so a term is accepted when, for every flat (batch, head) index
// n, each of its rows is `c(n, i) + slope[n] * j` for one slope per n, and
// is replaced by posenc.alibi_bias. The rows' constants need not be the
// paper's; only exact arithmetic makes them vanish, so the raised program
// differs from the graph by the f32 rounding of the graph's own (larger)
// bias values, which is the raised side's advantage.
//
// The slopes are the graph's: the attribute form (num_heads, max_bias) is
// used only when SPEC.md's rule reproduces every slope within 2 f32 ulps
// for some max_bias (BLOOM's powf of a rounded base is the rule for a
// max_bias a few ulps off 8, which is recovered). Otherwise, or when a
// batch > 1 repeats the heads in the flattened dim, the graph's slopes
// become the explicit `slopes` operand.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// One unit in the last place of `x` as an f32.
static double ulpF32(double x) {
  float f = std::fabs(static_cast<float>(x));
  return std::nextafter(f, INFINITY) - f;
}

TermView::TermView(ArrayRef<double> values, RankedTensorType termType,
                   AffineMap map, ArrayRef<int64_t> loopShape)
    : values(values), loopShape(loopShape) {
  SmallVector<int64_t> termStrides(termType.getRank(), 1);
  for (int64_t d = termType.getRank() - 2; d >= 0; --d)
    termStrides[d] = termStrides[d + 1] * termType.getDimSize(d + 1);
  strides.assign(loopShape.size(), 0);
  for (auto [k, e] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      strides[dim.getPosition()] += termStrides[k];
}

int64_t TermView::numLead() const {
  int64_t n = 1;
  for (int64_t d : loopShape.drop_back(2))
    n *= d;
  return n;
}

double TermView::at(int64_t n, int64_t i, int64_t j) const {
  int64_t rank = loopShape.size();
  int64_t linear = i * strides[rank - 2] + j * strides[rank - 1];
  for (int64_t d = rank - 3; d >= 0; --d) {
    linear += (n % loopShape[d]) * strides[d];
    n /= loopShape[d];
  }
  return values[linear];
}

std::optional<SmallVector<double>> raise::matchAlibiSlopes(const TermView &t,
                                                           std::string &why) {
  int64_t rank = t.loopShape.size();
  int64_t rows = t.strides[rank - 2] == 0 ? 1 : t.loopShape[rank - 2];
  int64_t sk = t.loopShape[rank - 1];
  if (sk < 2 || t.strides[rank - 1] == 0)
    return std::nullopt;
  double maxAbs = 0;
  for (double v : t.values) {
    if (!std::isfinite(v))
      return std::nullopt;
    maxAbs = std::max(maxAbs, std::fabs(v));
  }
  // Masking values (-1e9, the lowest finite value) are not distances.
  if (maxAbs >= 0x1p32)
    return std::nullopt;
  // Each value is the graph's f32 rounding of c + slope * j: allow a few
  // ulps of the largest value for that rounding and for the fitted slope.
  double tol = 4 * ulpF32(maxAbs);
  SmallVector<double> slopes;
  for (int64_t n = 0, e = t.numLead(); n < e; ++n) {
    double slope = (t.at(n, 0, sk - 1) - t.at(n, 0, 0)) / (sk - 1);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < sk; ++j)
        if (std::fabs(t.at(n, i, j) - t.at(n, i, 0) - slope * j) > tol) {
          why = "the score term is not c(i) + slope * j in every row";
          return std::nullopt;
        }
    slopes.push_back(static_cast<float>(slope));
  }
  if (llvm::all_of(slopes, [](double s) { return s == 0.0; }))
    return std::nullopt;
  return slopes;
}

/// The max_bias for which SPEC.md's rule gives `slopes` (one period of
/// `heads` heads) within 2 f32 ulps each, if there is one.
static std::optional<double> matchAlibiRule(ArrayRef<double> slopes) {
  int64_t heads = slopes.size();
  int64_t c = 1;
  while (c * 2 <= heads)
    c *= 2;
  if (slopes[0] <= 0 || slopes[0] >= 1)
    return std::nullopt;
  double maxBias = -std::log2(slopes[0]) * c;
  double rounded = std::round(maxBias * 1e6) / 1e6;
  for (double candidate : {rounded, maxBias}) {
    SmallVector<double> rule = computeAlibiSlopes(heads, candidate);
    if (llvm::all_of(llvm::seq<int64_t>(0, heads), [&](int64_t h) {
          return std::fabs(rule[h] - slopes[h]) <= 2 * ulpF32(slopes[h]);
        }))
      return candidate;
  }
  return std::nullopt;
}

Value raise::buildAlibiBias(OpBuilder &b, Location loc,
                            ArrayRef<double> slopes, int64_t sq, int64_t sk,
                            Type elemType) {
  int64_t n = slopes.size();
  auto type = RankedTensorType::get({n, sq, sk}, elemType);
  if (std::optional<double> maxBias = matchAlibiRule(slopes)) {
    auto op = AlibiBiasOp::create(b, loc, type, ValueRange(), Value(),
                                  b.getF64FloatAttr(*maxBias), IntegerAttr(),
                                  b.getI64IntegerAttr(0), UnitAttr());
    return op.getResult();
  }
  auto slopeType = RankedTensorType::get({n}, b.getF32Type());
  SmallVector<float> values(slopes.begin(), slopes.end());
  Value slopesValue = arith::ConstantOp::create(
      b, loc, slopeType,
      DenseElementsAttr::get(slopeType, ArrayRef<float>(values)));
  return AlibiBiasOp::create(b, loc, type, ValueRange(), slopesValue,
                             b.getF64FloatAttr(8.0), IntegerAttr(),
                             b.getI64IntegerAttr(0), UnitAttr())
      .getResult();
}
