//===- RaiseSinusoidal.cpp - x + sinusoidal table -> posenc.sinusoidal ----===//
//
// The absolute sinusoidal encoding of "Attention Is All You Need" reaches
// the compiler as a table added to the embeddings: a dense constant (the
// registered `pe` buffer of the PyTorch tutorial, `[max_len, D]`, sliced to
// the sequence) or sin/cos of positions times frequencies computed in the
// graph (tensor2tensor's concat(sin, cos)). Rooted at that add, the table is
// evaluated (RaiseConstants.cpp) and compared by value with
// posenc.sinusoidal for positions 0..S-1 in either layout; the base is
// recovered from row 1 (position 1, angles base^(-2p/D)) and then every
// entry is checked. The add stays; its table operand becomes
// posenc.sinusoidal, whose lowering fuses into the add (no S x D buffer).
//
// Tolerance: the graph's table is its own f32 evaluation, with angle error
// of a few ulps of the angle; an entry is accepted within
// 8 * 2^-24 * (1 + |angle|) of the float64 value. A wrong layout, base or
// position is off by O(1) already at position 1.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// Entry (s, p) of posenc.sinusoidal as `[sin, cos]` column indices.
static std::pair<int64_t, int64_t> sinCosColumns(Layout layout, int64_t d,
                                                 int64_t p) {
  if (layout == Layout::interleaved)
    return {2 * p, 2 * p + 1};
  return {p, p + d / 2};
}

/// Whether the `[s, d]` table `t` is posenc.sinusoidal of positions
/// 0..s-1 for `layout` and some base; returns the base.
static std::optional<double> matchTable(ArrayRef<double> t, int64_t s,
                                        int64_t d, Layout layout) {
  int64_t half = d / 2;
  auto angle = [&](int64_t row, int64_t p) {
    auto [sc, cc] = sinCosColumns(layout, d, p);
    return std::atan2(t[row * d + sc], t[row * d + cc]);
  };
  if (s < 2 || std::fabs(angle(1, 0) - 1.0) > 1e-6)
    return std::nullopt; // pair 0 turns by 1 rad per position
  double base = 10000.0;
  if (half > 1) {
    double last = angle(1, half - 1);
    if (!(last > 0))
      return std::nullopt;
    base = std::pow(last, -static_cast<double>(d) / (d - 2));
  }
  double digits = std::pow(10.0, std::floor(std::log10(base)) - 5);
  for (double candidate : {std::round(base / digits) * digits, base}) {
    bool ok = true;
    for (int64_t row = 0; row < s && ok; ++row)
      for (int64_t p = 0; p < half && ok; ++p) {
        double theta = row * std::pow(candidate, -2.0 * p / d);
        double tol = 8 * 0x1p-24 * (1 + theta);
        auto [sc, cc] = sinCosColumns(layout, d, p);
        ok = std::fabs(t[row * d + sc] - std::sin(theta)) <= tol &&
             std::fabs(t[row * d + cc] - std::cos(theta)) <= tol;
      }
    if (ok)
      return candidate;
  }
  return std::nullopt;
}

namespace {

/// The table operand of an `x + table` add, when it is sinusoidal.
struct SinusoidalMatch {
  OpOperand *table;
  int64_t s, d;
  Layout layout;
  double base;
};

} // namespace

/// Matches `op` as `x + table` (either operand order), the table read along
/// the add's last two dims and broadcast over the rest (see file header).
static std::optional<SinusoidalMatch> matchSinusoidalAdd(Operation *op,
                                                         std::string &why) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  std::optional<Elementwise> add =
      matchElementwiseOf<arith::AddFOp>(op->getResult(0));
  if (!add || !add->args[0].input || !add->args[1].input)
    return std::nullopt;
  int64_t rank = add->rank();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (rank < 2 || !resultType.getElementType().isF32())
    return std::nullopt;
  int64_t s = resultType.getDimSize(rank - 2), d = resultType.getDimSize(rank - 1);
  for (int k = 0; k < 2; ++k) {
    const Elementwise::Arg &table = add->args[k];
    auto type = cast<RankedTensorType>(table.input->get().getType());
    AffineMap map = add->map(table);
    // [..., S, D] right-aligned, every leading dim of the table a unit dim.
    if (type.getRank() < 2 || ShapedType::isDynamic(s) ||
        ShapedType::isDynamic(d) || d % 2 != 0 ||
        type.getDimSize(type.getRank() - 2) != s ||
        type.getDimSize(type.getRank() - 1) != d ||
        type.getNumElements() != s * d ||
        map.getResult(map.getNumResults() - 1) !=
            getAffineDimExpr(rank - 1, op->getContext()) ||
        map.getResult(map.getNumResults() - 2) !=
            getAffineDimExpr(rank - 2, op->getContext()))
      continue;
    std::optional<SmallVector<double>> values =
        getConstantValues(table.input->get());
    if (!values || llvm::any_of(*values, [](double v) {
          return !(std::fabs(v) <= 1.0);
        }))
      continue;
    for (Layout layout : {Layout::interleaved, Layout::half})
      if (std::optional<double> base = matchTable(*values, s, d, layout))
        return SinusoidalMatch{table.input, s, d, layout, *base};
    why = "the constant table in [-1, 1] matches posenc.sinusoidal of "
          "positions 0..S-1 in neither layout for any base";
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

struct RaiseSinusoidal : RewritePattern {
  RaiseSinusoidal(MLIRContext *ctx, bool remarks)
      : RewritePattern(linalg::GenericOp::getOperationName(), 1, ctx),
        remarks(remarks) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<SinusoidalMatch> m = matchSinusoidalAdd(op, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op->getLoc();
    SmallVector<int32_t> positions(m->s);
    for (int64_t i = 0; i < m->s; ++i)
      positions[i] = static_cast<int32_t>(i);
    auto posType = RankedTensorType::get({m->s}, rewriter.getI32Type());
    Value pos = arith::ConstantOp::create(
        rewriter, loc, posType,
        DenseElementsAttr::get(posType, ArrayRef<int32_t>(positions)));
    auto tableType = RankedTensorType::get({m->s, m->d}, rewriter.getF32Type());
    auto table = SinusoidalOp::create(
        rewriter, loc, tableType, pos, rewriter.getF64FloatAttr(m->base),
        LayoutAttr::get(rewriter.getContext(), m->layout));
    Value replacement = table.getResult();
    auto oldType = cast<RankedTensorType>(m->table->get().getType());
    if (oldType.getRank() != 2) {
      ReassociationIndices lead;
      for (int64_t k = 0; k + 1 < oldType.getRank(); ++k)
        lead.push_back(k);
      replacement = tensor::ExpandShapeOp::create(
          rewriter, loc, oldType, replacement,
          SmallVector<ReassociationIndices>{lead, {oldType.getRank() - 1}});
    }
    if (remarks)
      table->emitRemark("raised to posenc.sinusoidal");
    rewriter.modifyOpInPlace(op, [&] { m->table->set(replacement); });
    return success();
  }

  bool remarks;
};

} // namespace

std::optional<std::string> raise::explainSinusoidal(Operation *op) {
  std::string why;
  if (matchSinusoidalAdd(op, why))
    return std::nullopt;
  return why;
}

void raise::populateRaiseSinusoidalPatterns(RewritePatternSet &patterns,
                                            bool emitRemarks) {
  patterns.add<RaiseSinusoidal>(patterns.getContext(), emitRemarks);
}
