//===- RaiseRopeComplex.cpp - Meta's complex RoPE -> posenc.rope ----------===//
//
// Meta's LLaMA reference code rotates q and k as complex numbers:
//
//   xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
//   freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
//   out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
//
// torch-mlir's TorchToLinalg writes view_as_complex as a generic without
// inputs whose body extracts xr[i..., 0] and xr[i..., 1] of the reshaped x
// and makes a complex.create; the product as an elementwise complex.mul
// generic, freqs_cis broadcast through its indexing map; view_as_real as a
// generic over [..., P, 2] that selects complex.re at index 0 and
// complex.im at index 1 of the new last dim; flatten as a collapse_shape.
// Since (a + ib)(cos + i sin) = (a cos - b sin) + i(a sin + b cos), that is
// posenc.rope's interleaved rotation of the pairs (2p, 2p+1).
//
// freqs_cis is `complex.create(r cos(t), r sin(t))` with r = 1 (polar, the
// magnitude multiply optional), or `complex.create(c, s)` of two real
// tables (torch.complex(cos, sin)). When t (or c, s = cos(t), sin(t)) is a
// posenc formula, the attribute form; otherwise the table form with the
// graph's own cos/sin, each pair's entry in both of its lanes (SPEC.md:
// interleaved tables hold column 2p and 2p+1 of the pair).
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

static Value peelTensorCast(Value v) {
  while (auto c = v.getDefiningOp<tensor::CastOp>())
    v = c.getSource();
  return v;
}

/// `v`'s single-result, all-parallel generic with an identity output map.
static linalg::GenericOp parallelGeneric(Value v) {
  auto g = peelTensorCast(v).getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return linalg::GenericOp();
  return g;
}

static Value yielded(linalg::GenericOp g) {
  return cast<linalg::YieldOp>(g.getBody()->getTerminator()).getValues()[0];
}

static bool isIndex(Value v, int64_t dim) {
  auto index = v.getDefiningOp<linalg::IndexOp>();
  return index && static_cast<int64_t>(index.getDim()) == dim;
}

static bool isConstantIndex(Value v, int64_t k) {
  std::optional<int64_t> c = getConstantIntValue(v);
  return c && *c == k;
}

/// view_as_real: `v` [..., P, 2] = select(index(last) == 0, re(z), im(z))
/// of a complex<f32> `z` [..., P] read along the leading loops. Returns z;
/// `why` says what differs for a generic shaped like one.
static Value matchViewAsReal(Value v, std::string &why) {
  linalg::GenericOp g = parallelGeneric(v);
  if (!g || g.getNumDpsInputs() != 1)
    return Value();
  OpOperand *in = g.getDpsInputOperand(0);
  auto zType = dyn_cast<RankedTensorType>(in->get().getType());
  int64_t rank = g.getNumLoops();
  if (!zType || zType.getElementType() !=
                    ComplexType::get(Float32Type::get(g.getContext())) ||
      zType.getRank() != rank - 1 ||
      g.getMatchingIndexingMap(in) !=
          AffineMap::getMultiDimIdentityMap(rank, g.getContext())
              .getMajorSubMap(rank - 1))
    return Value();
  why = "the real view does not yield re(z) at index 0 and im(z) at index 1 "
        "of the last dim";
  auto select = yielded(g).getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                    : arith::CmpIOp();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return Value();
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (!(isIndex(lhs, rank - 1) && isConstantIndex(rhs, 0)) &&
      !(isIndex(rhs, rank - 1) && isConstantIndex(lhs, 0)))
    return Value();
  auto re = select.getTrueValue().getDefiningOp<complex::ReOp>();
  auto im = select.getFalseValue().getDefiningOp<complex::ImOp>();
  if (!re || !im || re.getComplex() != g.getBody()->getArgument(0) ||
      im.getComplex() != re.getComplex())
    return Value();
  why.clear();
  return in->get();
}

/// view_as_complex (torch-mlir): a generic without inputs over [..., P]
/// whose body is complex.create(xr[i..., 0], xr[i..., 1]). Returns xr
/// ([..., P, 2]).
static Value matchViewAsComplex(Value v) {
  linalg::GenericOp g = parallelGeneric(v);
  if (!g || g.getNumDpsInputs() != 0)
    return Value();
  auto create = yielded(g).getDefiningOp<complex::CreateOp>();
  int64_t rank = g.getNumLoops();
  auto shape = cast<ShapedType>(g.getResultTypes()[0]).getShape();
  // linalg.index of a unit dim folds to the constant 0.
  auto isLoopIndex = [&](Value v, int64_t d) {
    return isIndex(v, d) || (shape[d] == 1 && isConstantIndex(v, 0));
  };
  auto lane = [&](Value part, int64_t k) -> Value {
    auto extract = part.getDefiningOp<tensor::ExtractOp>();
    if (!extract ||
        static_cast<int64_t>(extract.getIndices().size()) != rank + 1)
      return Value();
    for (int64_t d = 0; d < rank; ++d)
      if (!isLoopIndex(extract.getIndices()[d], d))
        return Value();
    if (!isConstantIndex(extract.getIndices()[rank], k))
      return Value();
    return extract.getTensor();
  };
  Value xr = create ? lane(create.getReal(), 0) : Value();
  if (!xr || lane(create.getImaginary(), 1) != xr)
    return Value();
  auto pairShape = cast<ShapedType>(xr.getType()).getShape();
  if (pairShape.back() != 2 || pairShape.drop_back() != shape)
    return Value();
  return xr;
}

/// What freqs_cis is made of: polar(1, angles), or complex(cos, sin).
struct CisTables {
  Value angles;
  Value cos, sin;
};

/// `part` = cos(t) / sin(t), or it times a magnitude (either order):
/// returns t and sets `magnitude`.
template <typename TrigOp>
static Value polarPart(Value part, Value &magnitude) {
  if (auto trig = part.getDefiningOp<TrigOp>())
    return trig.getOperand();
  auto mul = part.getDefiningOp<arith::MulFOp>();
  for (int i = 0; mul && i < 2; ++i)
    if (auto trig = mul->getOperand(i).getDefiningOp<TrigOp>()) {
      magnitude = mul->getOperand(1 - i);
      return trig.getOperand();
    }
  return Value();
}

static std::optional<CisTables> matchCis(Value v, std::string &why) {
  why = "freqs_cis is neither complex.create(cos(t), sin(t)) (torch.polar "
        "with magnitude 1) nor complex.create of two real tables, element by "
        "element";
  linalg::GenericOp g = parallelGeneric(v);
  auto create = g ? yielded(g).getDefiningOp<complex::CreateOp>()
                  : complex::CreateOp();
  if (!create)
    return std::nullopt;
  auto shape = cast<ShapedType>(g.getResultTypes()[0]).getShape();
  // The input a body value reads, when read element by element.
  auto inputOf = [&](Value s) -> Value {
    auto arg = dyn_cast<BlockArgument>(s);
    if (!arg || arg.getOwner() != g.getBody() ||
        arg.getArgNumber() >= g.getNumDpsInputs())
      return Value();
    OpOperand *in = g.getDpsInputOperand(arg.getArgNumber());
    if (!g.getMatchingIndexingMap(in).isIdentity() ||
        cast<ShapedType>(in->get().getType()).getShape() != shape)
      return Value();
    return in->get();
  };
  Value c = inputOf(create.getReal()), s = inputOf(create.getImaginary());
  if (c && s)
    return CisTables{Value(), c, s};
  Value rCos, rSin;
  Value t = polarPart<math::CosOp>(create.getReal(), rCos);
  if (!t || polarPart<math::SinOp>(create.getImaginary(), rSin) != t ||
      rCos != rSin || !inputOf(t))
    return std::nullopt;
  if (rCos) {
    Value r = inputOf(rCos);
    std::optional<SmallVector<double>> ones =
        r ? getConstantValues(r) : std::nullopt;
    bool isOne = r ? ones && llvm::all_of(*ones, [](double x) { return x == 1; })
                   : matchPattern(rCos, m_OneFloat());
    if (!isOne) {
      why = "freqs_cis = polar(r, t) with a magnitude r that is not the "
            "constant 1";
      return std::nullopt;
    }
  }
  return CisTables{inputOf(t), Value(), Value()};
}

namespace {
/// A matched complex rotation of `x`.
struct ComplexRope {
  Value x;
  CisTables cis;
  /// How a product over the loops of x transposed by `permutation` (S at
  /// dim -2) reads freqs_cis.
  AffineMap cisMap;
  int64_t rank; ///< of the product's loops ([..., S, D/2])
  /// Empty when S is x's dim -2; else the swap of S's dim with dim -2
  /// (Meta's [B, S, H, D]: [0, 2, 1, 3]).
  SmallVector<int64_t> permutation;
};
} // namespace

/// freqs_cis viewed with unit dims inserted (Meta's reshape_for_broadcast,
/// `view(1, S, 1, D/2)`) and read through `map`: the table before the view
/// and the map reading it (each group's one non-unit dim's result; the
/// unit dims' results read index 0 only, so dropping them is exact).
static std::pair<Value, AffineMap> peelUnitView(Value table, AffineMap map) {
  auto expand = table.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || !expand.getResultType().hasStaticShape())
    return {table, map};
  ArrayRef<int64_t> shape = expand.getResultType().getShape();
  SmallVector<AffineExpr> results;
  for (const ReassociationIndices &group :
       expand.getReassociationIndices()) {
    int64_t kept = group.front();
    for (int64_t d : group)
      if (shape[d] != 1) {
        if (shape[kept] != 1 && kept != d)
          return {table, map}; // a group splits a dim: not a view
        kept = d;
      }
    results.push_back(map.getResult(kept));
  }
  return {expand.getSrc(), AffineMap::get(map.getNumDims(), 0, results,
                                           map.getContext())};
}

/// Where the sequence dim of the product's loops is when it reads freqs_cis
/// `table` through `map` as a RoPE table: broadcast over every loop but S
/// and the pairs (the last loop). S at loop -2 is posenc.rope's layout;
/// elsewhere (Meta's `[B, S, H, D/2]`, freqs_cis viewed as [1, S, 1, D/2])
/// the product reads the table as a rope over x with S swapped to dim -2
/// would: returns that swap and the map in the swapped loops. A permutation
/// of the loops is exact, so `transpose(rope(transpose(x)))` is the same
/// function. None when the table varies along another loop too, or its
/// columns are not the last loop.
static std::optional<std::pair<AffineMap, SmallVector<int64_t>>>
ropeTableLoops(Value table, AffineMap map, int64_t rank) {
  if (isBroadcastRopeTable(table, map, rank))
    return std::make_pair(map, SmallVector<int64_t>());
  for (int64_t s = 0; s + 2 < rank; ++s) {
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swap[s], swap[rank - 2]);
    AffineMap swapped = map.compose(
        AffineMap::getPermutationMap(swap, map.getContext()));
    if (isBroadcastRopeTable(table, swapped, rank))
      return std::make_pair(swapped, swap);
  }
  return std::nullopt;
}

/// How `x` becomes the result of the flatten `collapse` when it also
/// merged leading dims (the canonicalization folds a following flattening
/// of (batch, head) into it): its groups with the pair group [P, 2] as x's
/// last dim; none unless S and the pairs are groups of their own.
static std::optional<SmallVector<ReassociationIndices>>
leadingMerge(tensor::CollapseShapeOp collapse) {
  SmallVector<ReassociationIndices> groups =
      collapse.getReassociationIndices();
  int64_t n = groups.size();
  if (n < 2 || groups[n - 2].size() != 1)
    return std::nullopt;
  groups.back() = {groups[n - 2][0] + 1};
  return groups;
}

/// Matches `out` (see the file header); `why` is empty for a non-candidate.
static std::optional<ComplexRope> matchComplexRope(Value out,
                                                   std::string &why) {
  why = "";
  auto collapse = out.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices().back().size() != 2 ||
      collapse.getSrcType().getShape().back() != 2)
    return std::nullopt;
  Value z = matchViewAsReal(collapse.getSrc(), why);
  if (!z)
    return std::nullopt;
  why = "the complex tensor viewed as real is not view_as_complex(x) times a "
        "freqs_cis table read along (S, pair)";
  std::optional<Elementwise> mul = matchElementwiseOf<complex::MulOp>(z);
  for (int i = 0; mul && i < 2; ++i) {
    const Elementwise::Arg &xa = mul->args[i], &ta = mul->args[1 - i];
    Value xr = mul->isIdentity(xa) ? matchViewAsComplex(xa.input->get())
                                   : Value();
    if (!xr || !ta.input)
      continue;
    auto [table, tableMap] = peelUnitView(ta.input->get(), mul->map(ta));
    auto loops = ropeTableLoops(table, tableMap, mul->rank());
    if (!loops)
      continue;
    auto expand = xr.getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || expand.getReassociationIndices().back().size() != 2 ||
        expand.getResultType().getRank() != expand.getSrcType().getRank() + 1 ||
        (expand.getSrc().getType() != out.getType() &&
         (!loops->second.empty() || !leadingMerge(collapse)))) {
      why = "view_as_complex does not read x reshaped to [..., D/2, 2]";
      return std::nullopt;
    }
    std::optional<CisTables> cis = matchCis(table, why);
    if (!cis)
      return std::nullopt;
    why.clear();
    return ComplexRope{expand.getSrc(), *cis, loops->first, mul->rank(),
                       loops->second};
  }
  return std::nullopt;
}

/// The angles of complex(cos(t), sin(t)) built from two trig generics.
static Value commonAngles(const CisTables &cis) {
  if (cis.angles)
    return cis.angles;
  std::optional<Elementwise> c =
      matchElementwiseOf<math::CosOp>(peelUnitReshapes(cis.cos));
  std::optional<Elementwise> s =
      matchElementwiseOf<math::SinOp>(peelUnitReshapes(cis.sin));
  if (!c || !s || !c->isIdentity(c->args[0]) || !s->isIdentity(s->args[0]) ||
      c->args[0].input->get() != s->args[0].input->get())
    return Value();
  return c->args[0].input->get();
}

/// An elementwise `TrigOp` of `angles` (the graph's own cos/sin of them).
template <typename TrigOp>
static Value buildTrig(OpBuilder &b, Location loc, Value angles) {
  auto type = cast<RankedTensorType>(angles.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, angles), type.getElementType());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, angles, init, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       TrigOp::create(nb, l, args[0]).getResult());
             })
      .getResult(0);
}

namespace {

struct RaiseComplexRope : OpRewritePattern<tensor::CollapseShapeOp> {
  RaiseComplexRope(MLIRContext *ctx, bool remarks)
      : OpRewritePattern(ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<ComplexRope> c = matchComplexRope(op.getResult(), why);
    if (!c)
      return rewriter.notifyMatchFailure(op, why);
    RopeMatch m;
    Value angles = commonAngles(c->cis);
    Operation *root = splitLeadingMerge(rewriter, op, c->x);
    // x with S at dim -2 (Meta's [B, S, H, D] transposed to [B, H, S, D]).
    m.input = c->permutation.empty()
                  ? c->x
                  : buildTranspose(rewriter, op.getLoc(), c->x, c->permutation);
    FailureOr<Value> rope = failure();
    if (angles && matchRopeAngles(angles, m.input, m, why)) {
      rope = buildRope(rewriter, root, m, Layout::interleaved, remarks);
      // The IR may have changed (splitLeadingMerge, the transpose): the
      // table form, which takes any positions, rather than a failure.
      if (failed(rope))
        why = "the positions are not one per row of x";
    }
    if (!angles)
      why = isa<BlockArgument>(peelUnitReshapes(c->cis.cos)) &&
                    isa<BlockArgument>(peelUnitReshapes(c->cis.sin))
                ? "the cos/sin tables are function arguments"
                : "cos and sin are not math.cos/math.sin of one angle tensor";
    else if (isa<BlockArgument>(peelUnitReshapes(angles)))
      why = "the angles are a function argument";
    if (failed(rope))
      rope = buildTables(rewriter, root->getLoc(), m.input, *c, why);
    // Back to x's order: the transpose a following transpose(1, 2) cancels.
    rewriter.replaceOp(root, c->permutation.empty()
                                 ? *rope
                                 : buildTranspose(rewriter, op.getLoc(), *rope,
                                                  c->permutation));
    return success();
  }

  /// The flatten of the pairs alone (to x's type), its result collapsed
  /// further to `op`'s type when `op` also merged leading dims: the rope
  /// replaces the former.
  static Operation *splitLeadingMerge(PatternRewriter &rewriter,
                                      tensor::CollapseShapeOp op, Value x) {
    if (x.getType() == op.getType())
      return op;
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<ReassociationIndices> pairs;
    for (int64_t d = 0; d + 1 < xType.getRank(); ++d)
      pairs.push_back({d});
    pairs.push_back({xType.getRank() - 1, xType.getRank()});
    auto inner = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), xType,
                                                 op.getSrc(), pairs);
    auto outer = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), op.getType(), inner,
        *leadingMerge(op));
    rewriter.replaceOp(op, outer);
    return inner;
  }

  /// The table form on `x` (c.x, or it transposed by c.permutation): the
  /// graph's cos/sin, aligned to [..., S, D/2] and each entry duplicated
  /// into its pair's two lanes.
  Value buildTables(PatternRewriter &rewriter, Location loc, Value x,
                    const ComplexRope &c, const std::string &why) const {
    Value cos = c.cis.angles ? buildTrig<math::CosOp>(rewriter, loc, c.cis.angles)
                             : c.cis.cos;
    Value sin = c.cis.angles ? buildTrig<math::SinOp>(rewriter, loc, c.cis.angles)
                             : c.cis.sin;
    // The match checked the map (isBroadcastRopeTable): these cannot fail.
    cos = alignRopeTable(rewriter, loc, cos, c.cisMap, c.rank);
    sin = alignRopeTable(rewriter, loc, sin, c.cisMap, c.rank);
    // In sequence, not as call arguments (their order is unspecified).
    cos = duplicateLanes(rewriter, loc, cos);
    sin = duplicateLanes(rewriter, loc, sin);
    return buildTableRope(rewriter, loc, x, cos, sin, Layout::interleaved,
                          remarks ? "Meta's complex form: " + why
                                  : std::string());
  }

  bool remarks;
};

/// truncf(rope(extf(x))) -> rope(x) for an f16/bf16 x and the attribute
/// form: Meta's `.float()` ... `.type_as(xq)` around the rotation (also
/// truncf(transpose(rope(extf(x)))) -> transpose(rope(x)), the rope on
/// Meta's [B, S, H, D] when no transpose of the model meets its transpose
/// back). posenc.rope
/// on a half tensor extends each element to f32, rotates in f32 and
/// truncates the result once (SPEC.md; the lowering's casts are
/// arith.extf/truncf), which is exactly what the casts around the f32 rope
/// do; in this form the rope fuses into the attention that reads it.
struct RopeOnHalfInput : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return failure();
    Value result = op->getResult(0);
    std::optional<Elementwise> trunc = matchElementwiseOf<arith::TruncFOp>(result);
    if (!trunc || !trunc->args[0].input || !trunc->isIdentity(trunc->args[0]))
      return failure();
    Value r = trunc->args[0].input->get();
    auto transpose = r.getDefiningOp<linalg::TransposeOp>();
    if (transpose && transpose->hasOneUse())
      r = transpose.getInput();
    auto rope = r.getDefiningOp<RopeOp>();
    if (!rope || !rope->hasOneUse() || rope.hasTables())
      return failure();
    Value x = peelCast<arith::ExtFOp>(rope.getInput());
    Type elem = getElementTypeOrSelf(result.getType());
    if (x == rope.getInput() || getElementTypeOrSelf(x.getType()) != elem ||
        !isa<Float16Type, BFloat16Type>(elem))
      return failure();
    auto moved = cast<RopeOp>(rewriter.clone(*rope));
    moved.getInputMutable().assign(x);
    moved->getResult(0).setType(x.getType());
    Value out = moved->getResult(0);
    if (rope->getResult(0) != trunc->args[0].input->get())
      out = buildTranspose(rewriter, op.getLoc(), out,
                           transpose.getPermutation());
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

std::optional<std::string> raise::explainComplexRope(Operation *op) {
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
  if (!collapse)
    return std::string();
  std::string why;
  if (matchComplexRope(collapse.getResult(), why))
    return std::nullopt;
  return why;
}

void raise::populateRaiseComplexRopePatterns(RewritePatternSet &patterns,
                                             bool emitRemarks) {
  patterns.add<RaiseComplexRope>(patterns.getContext(), emitRemarks);
  patterns.add<RopeOnHalfInput>(patterns.getContext());
}
