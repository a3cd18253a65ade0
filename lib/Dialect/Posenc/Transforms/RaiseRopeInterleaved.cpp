//===- RaiseRopeInterleaved.cpp - pairwise RoPE -> posenc.rope interleaved ===//
//
// The interleaved layout as exporters write Meta's LLaMA / GPT-J rotation in
// real arithmetic: the pairs split off by a reshape,
//
//   xr = expand_shape x : [..., S, D] -> [..., S, D/2, 2]
//   a = xr[..., 0:1],  b = xr[..., 1:2]
//   out = collapse_shape concat(a*cos - b*sin, a*sin + b*cos) -> [..., S, D]
//
// with cos/sin = cos/sin(float(positions) * inv_freq) of shape [S, D/2]
// (plus unit dims), read along (S, pair). That is posenc.rope's
// (a, b) -> (a cos - b sin, a sin + b cos) on the pairs (2p, 2p+1).
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// Whether `map` reads a table along loop dims (pairDim - 1, pairDim) = (S,
/// pair) of an iteration space of rank `rank`, broadcast over the others.
static bool isPairTableMap(AffineMap map, ShapedType type, int64_t rank,
                           int64_t pairDim) {
  int64_t n = map.getNumResults();
  if (n < rank - pairDim + 1 || n > rank || n != type.getRank())
    return false;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = rank - n + k;
    AffineExpr e = map.getResult(k);
    bool isDim = e == getAffineDimExpr(i, map.getContext());
    if (i == pairDim - 1 || i == pairDim) {
      if (!isDim)
        return false;
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (type.getDimSize(k) != 1 || (!(c && c.getValue() == 0) && !isDim))
      return false;
  }
  return true;
}

/// A product `a * t` (either order) with `a` read whole and `t` a pair table
/// (pairs along loop dim `rank - fromEnd`): returns (a, t).
static std::optional<std::pair<Value, Value>>
matchScaledByTable(Value v, int64_t fromEnd) {
  std::optional<Elementwise> mul = matchElementwiseOf<arith::MulFOp>(v);
  if (!mul)
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const Elementwise::Arg &x = mul->args[i], &t = mul->args[1 - i];
    if (mul->isIdentity(x) && t.input &&
        isPairTableMap(mul->map(t), cast<ShapedType>(t.input->get().getType()),
                       mul->rank(), mul->rank() - fromEnd))
      return std::make_pair(x.input->get(), t.input->get());
  }
  return std::nullopt;
}

/// The angles of a `math.cos`/`math.sin` table.
template <typename TrigOp>
static Value matchTrig(Value table) {
  std::optional<Elementwise> trig =
      matchElementwiseOf<TrigOp>(peelUnitReshapes(table));
  if (!trig || !trig->isIdentity(trig->args[0]))
    return Value();
  return peelUnitReshapes(trig->args[0].input->get());
}

std::optional<PairRotation>
raise::matchPairRotation(Value first, Value second, int64_t pairDimFromEnd) {
  std::optional<Elementwise> sub = matchElementwiseOf<arith::SubFOp>(first);
  std::optional<Elementwise> add = matchElementwiseOf<arith::AddFOp>(second);
  if (!sub || !add || !sub->isIdentity(sub->args[0]) ||
      !sub->isIdentity(sub->args[1]) || !add->isIdentity(add->args[0]) ||
      !add->isIdentity(add->args[1]))
    return std::nullopt;
  auto aCos = matchScaledByTable(sub->args[0].input->get(), pairDimFromEnd);
  auto bSin = matchScaledByTable(sub->args[1].input->get(), pairDimFromEnd);
  auto p = matchScaledByTable(add->args[0].input->get(), pairDimFromEnd);
  auto q = matchScaledByTable(add->args[1].input->get(), pairDimFromEnd);
  if (!aCos || !bSin || !p || !q)
    return std::nullopt;
  // The second part is a*sin + b*cos, its terms in either order.
  auto [aSin, bCos] = p->first == aCos->first ? std::make_pair(*p, *q)
                                               : std::make_pair(*q, *p);
  if (aSin.first != aCos->first || bCos.first != bSin->first ||
      aSin.second != bSin->second || bCos.second != aCos->second)
    return std::nullopt;
  PairRotation rot{aCos->first, bSin->first, Value(), aCos->second,
                   bSin->second};
  Value angles = matchTrig<math::CosOp>(aCos->second);
  if (angles && matchTrig<math::SinOp>(bSin->second) == angles)
    rot.angles = angles;
  return rot;
}

RopeMatch raise::pairTableForm(const PairRotation &rot, Value x,
                               std::string why) {
  RopeMatch m;
  m.input = x;
  m.cosTable = rot.cos;
  m.sinTable = rot.sin;
  if (isa<BlockArgument>(peelUnitReshapes(rot.cos)) &&
      isa<BlockArgument>(peelUnitReshapes(rot.sin)))
    m.tableFormReason = "the cos/sin tables are function arguments";
  else if (!rot.angles)
    m.tableFormReason =
        "a and b are not rotated by cos and sin of one angle tensor";
  else
    m.tableFormReason = std::move(why);
  return m;
}

/// Matches `out` (see the file header). `why` is empty for a non-candidate.
static std::optional<RopeMatch> matchInterleavedRope(Value out,
                                                     std::string &why) {
  why = "";
  auto collapse = out.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices().back().size() != 2 ||
      collapse.getSrcType().getShape().back() != 2)
    return std::nullopt;
  auto halves = matchHalvesConcat(collapse.getSrc());
  if (!halves)
    return std::nullopt;
  why = "the pairs are not (a cos - b sin, a sin + b cos) of a = x[..., 0], "
        "b = x[..., 1] with cos/sin tables read along (S, pair)";
  std::optional<PairRotation> rot =
      matchPairRotation(halves->first, halves->second, /*pairDimFromEnd=*/2);
  if (!rot)
    return std::nullopt;
  Value xr = matchLastDimSlice(rot->a, 0, 1);
  auto expand = xr ? xr.getDefiningOp<tensor::ExpandShapeOp>()
                   : tensor::ExpandShapeOp();
  if (!expand || matchLastDimSlice(rot->b, 1, 1) != xr ||
      expand.getReassociationIndices().back().size() != 2 ||
      expand.getSrc().getType() != out.getType())
    return std::nullopt;
  RopeMatch m;
  m.input = expand.getSrc();
  if (rot->angles && matchRopeAngles(rot->angles, m.input, m, why))
    return m;
  // Whatever the tables are, the graph is the pairwise rotation by them:
  // the table form (RaiseRopePairTables.cpp), with the reason kept.
  return pairTableForm(*rot, m.input, why);
}

namespace {

struct RaiseInterleavedRope : OpRewritePattern<tensor::CollapseShapeOp> {
  RaiseInterleavedRope(MLIRContext *ctx, bool remarks)
      : OpRewritePattern(ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<RopeMatch> m = matchInterleavedRope(op.getResult(), why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why);
    if (m->isTableForm())
      return replaceWithPairTableRope(rewriter, op, *m, Layout::interleaved,
                                      remarks);
    return replaceWithRope(rewriter, op, *m, Layout::interleaved, remarks);
  }

  bool remarks;
};

} // namespace

std::optional<std::string> raise::explainInterleavedRope(Operation *op) {
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
  if (!collapse)
    return std::string();
  std::string why;
  if (matchInterleavedRope(collapse.getResult(), why))
    return std::nullopt;
  return why;
}

void raise::populateRaiseInterleavedRopePatterns(RewritePatternSet &patterns,
                                                 bool emitRemarks) {
  patterns.add<RaiseInterleavedRope>(patterns.getContext(), emitRemarks);
}
