//===- RaiseAttention.cpp - batched matmul + softmax -> posenc.attention --===//
//
// Rooted at `P . V` (a linalg.batch_matmul with a zero init): P is a softmax
// over the key dim of the scores `Q . K^T`, scaled by constants and plus at
// most one additive bias. The batched matmuls flatten the (batch, head) dims;
// posenc.attention is built on the same flattened `[N, S, D]` operands, so
// the rewrite needs no reasoning about how the front end ordered them. GQA
// (K/V repeated by a broadcast right after the kv-head dim) stays GQA: flat
// query head n reads flat kv head n / rep, which is repeat_kv's pairing.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

namespace {

/// K or V as the flattened posenc.attention operand will read it.
struct KVOperand {
  Value base;                      ///< [lead..., S, D], before any GQA repeat
  SmallVector<int64_t> permutation; ///< transpose to apply first (empty: none)
  /// How to flatten `base` to [N/rep, S, D] (empty: merge the leading dims).
  SmallVector<ReassociationIndices> groups;
  int64_t repeat = 1;              ///< GQA repeat factor
};

/// An additive score term, as found on the elementwise add (or a
/// masked_fill, read as the additive mask it is equivalent to).
struct Bias {
  Value value;                    ///< as the add reads it
  AffineMap map;                  ///< its indexing map in the add
  SmallVector<int64_t> loopShape; ///< the add's iteration space
  /// masked_fill: the mask as an additive term (`value` is the condition).
  std::optional<ConstantTensor> values;
  /// Whether the scores' dynamic Sq and Sk are provably equal.
  bool equalLengths = false;
};

/// Everything the rewrite needs, found by matchAttention.
struct AttentionMatch {
  Value query;        ///< [lead..., Sq, D]
  KVOperand key, value;
  double scale = 1.0;
  SmallVector<Bias> terms;     ///< every additive term, as found
  std::optional<Bias> bias;    ///< the one that becomes the bias operand
  SmallVector<double> alibiSlopes; ///< or: an ALiBi term's flat-head slopes
  bool causal = false;
};

} // namespace

using Failure = std::string;

/// Multiplications and divisions by splat constants in front of `v`: folds
/// them into `scale` and returns the value they scale.
static Value peelScale(Value v, double &scale) {
  while (true) {
    v = peelLeadingReshapes(v);
    std::optional<Elementwise> e = matchElementwise(v);
    if (!e || e->args.size() != 2)
      return v;
    bool mul = isa<arith::MulFOp>(e->payload);
    if (!mul && !isa<arith::DivFOp>(e->payload))
      return v;
    int x = mul && getSplatValue(e->args[0]) ? 1 : 0;
    std::optional<double> c = getSplatValue(e->args[1 - x]);
    if (!c || !e->isIdentity(e->args[x]) || *c == 0.0)
      return v;
    scale = mul ? scale * *c : scale / *c;
    v = e->args[x].input->get();
  }
}

/// A broadcast copy: linalg.broadcast, or a linalg.generic that yields its
/// one input read through a monotonic projection (tosa.tile's lowering).
/// Returns the input and, in order, the result dims it varies along.
static std::optional<std::pair<Value, SmallVector<int64_t>>>
matchBroadcastCopy(Value v) {
  if (auto bcast = v.getDefiningOp<linalg::BroadcastOp>()) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0, r = bcast.getInit().getType().getRank(); d < r; ++d)
      if (!llvm::is_contained(bcast.getDimensions(), d))
        dims.push_back(d);
    return std::make_pair(bcast.getInput(), dims);
  }
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray()[1].isIdentity())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getValues().front() != body.getArgument(0))
    return std::nullopt;
  AffineMap map = generic.getIndexingMapsArray()[0];
  SmallVector<int64_t> dims;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || (!dims.empty() && d.getPosition() <= dims.back()))
      return std::nullopt;
    dims.push_back(d.getPosition());
  }
  return std::make_pair(generic.getDpsInputs()[0], dims);
}

/// A GQA repeat in front of the flattened K or V: a broadcast copy (then
/// possibly a collapse) whose new non-unit dims all sit in the leading
/// (batch, head) part after every non-unit dim of the kv tensor, so flat
/// head n reads kv head n / rep (HuggingFace repeat_kv, tosa.tile of a
/// unit dim after the kv heads). Updates `kv` when it finds one.
static void peelRepeat(KVOperand &kv) {
  Value v = kv.base;
  SmallVector<ReassociationIndices> groups;
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
    groups = collapse.getReassociationIndices();
    v = collapse.getSrc();
  }
  auto copy = matchBroadcastCopy(v);
  if (!copy)
    return;
  auto type = cast<RankedTensorType>(v.getType());
  if (groups.empty())
    for (int64_t d = 0; d < type.getRank(); ++d)
      groups.push_back({d});
  if (groups.size() < 3)
    return;
  SmallVector<int64_t> inputIndex(type.getRank(), -1);
  for (auto [k, d] : llvm::enumerate(copy->second))
    inputIndex[d] = k;
  // The kv input's dims regrouped as [leading, S, D].
  SmallVector<ReassociationIndices> inputGroups(3);
  int64_t repeat = 1;
  bool seenRepeat = false;
  for (auto [g, group] : llvm::enumerate(groups)) {
    size_t part = g + 2 < groups.size() ? 0 : g + 3 - groups.size();
    for (int64_t d : group) {
      bool unit = type.getDimSize(d) == 1;
      if (inputIndex[d] >= 0) {
        inputGroups[part].push_back(inputIndex[d]);
        if (!unit && seenRepeat && part == 0)
          return; // a kv dim varies faster than the repeat: not repeat_kv
      } else if (!unit) {
        if (part != 0)
          return;
        seenRepeat = true;
        repeat *= type.getDimSize(d);
      }
    }
  }
  if (repeat == 1 || llvm::any_of(inputGroups, [](auto &g) { return g.empty(); }))
    return;
  kv.base = copy->first;
  kv.groups = inputGroups;
  kv.repeat = repeat;
}

/// K from the right operand of `Q . K^T` ([N, D, Sk]). `K^T = transpose(X,
/// P)` gives `K = transpose(X, P')` with the last two entries of P swapped:
/// X itself when P' is the identity (the usual swap of the last two dims),
/// else a transpose the rewrite builds (two folded TOSA transposes). Without
/// a transpose the rewrite transposes the operand itself.
static KVOperand matchTransposedKey(Value rhs) {
  auto transpose = peelLeadingReshapes(rhs).getDefiningOp<linalg::TransposeOp>();
  if (!transpose) {
    int64_t rank = cast<ShapedType>(rhs.getType()).getRank();
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swap[rank - 1], swap[rank - 2]);
    return KVOperand{rhs, swap, {}, 1};
  }
  int64_t rank = transpose.getPermutation().size();
  KVOperand key;
  SmallVector<int64_t> perm(transpose.getPermutation());
  std::swap(perm[rank - 1], perm[rank - 2]);
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
    key.base = transpose.getInput();
    key.permutation = perm;
    return key;
  }
  key.base = peelLeadingReshapes(transpose.getInput());
  peelRepeat(key);
  return key;
}

/// Whether `v`, through reshapes and constant scalings, is a batch_matmul.
static bool reachesMatmul(Value v) {
  double ignored = 1.0;
  return peelScale(v, ignored).getDefiningOp<linalg::BatchMatmulOp>() !=
         nullptr;
}

/// Whether `v` hides a key when it replaces a score: -inf or the lowest
/// finite value of `elemType`.
static bool isMaskingValue(double v, Type elemType) {
  auto floatType = dyn_cast<FloatType>(elemType);
  return (std::isinf(v) && v < 0) ||
         (floatType &&
          v == APFloat::getLargest(floatType.getFloatSemantics(), true)
                   .convertToDouble());
}

/// Whether the last two dims (Sq, Sk) of `op`'s result are provably equal.
static bool equalLastDims(linalg::GenericOp op) {
  Value result = op->getResult(0);
  int64_t rank = cast<ShapedType>(result.getType()).getRank();
  return rank >= 2 &&
         provablyEqualSizes(result, rank - 2, result, rank - 1, op);
}

/// A masked_fill (`select(c, m, s)` or `select(c, s, m)`, m -inf or the
/// lowest finite value) on the scores `s`, with a mask `c` known at compile
/// time: recorded as the additive mask (m where masked, 0 elsewhere) it is
/// equivalent to (s + m rounds to m for |s| < 2^103, see RaiseMask.cpp).
static LogicalResult peelMaskedFill(const Elementwise &sel, AttentionMatch &m,
                                    Value &scores, Failure &why) {
  const Elementwise::Arg &c = sel.args[0];
  Type elemType = getElementTypeOrSelf(sel.generic.getResultTypes()[0]);
  int fill = -1;
  for (int k : {1, 2})
    if (std::optional<double> v = getSplatValue(sel.args[k]);
        v && isMaskingValue(*v, elemType))
      fill = k;
  const Elementwise::Arg &s = sel.args[fill == 1 ? 2 : 1];
  if (fill < 0 || !c.input || !s.input || !sel.isIdentity(s)) {
    why = "the select on the scores is not a masked_fill with -inf or the "
          "lowest finite value";
    return failure();
  }
  auto shape = cast<ShapedType>(sel.generic.getResultTypes()[0]).getShape();
  std::string dynamicWhy;
  std::optional<ConstantTensor> cond =
      ShapedType::isDynamicShape(shape)
          ? evaluateDiagonalTerm(c.input->get(), dynamicWhy)
          : evaluateConstant(c.input->get());
  if (!cond) {
    why = "the masked_fill's mask is not known at compile time";
    if (!dynamicWhy.empty())
      why += " (" + dynamicWhy + ")";
    return failure();
  }
  double masked = *getSplatValue(sel.args[fill]);
  for (double &v : cond->values)
    v = (v != 0.0) == (fill == 1) ? masked : 0.0;
  m.terms.push_back(Bias{c.input->get(), sel.map(c),
                         SmallVector<int64_t>(shape), std::move(cond),
                         equalLastDims(sel.generic)});
  scores = s.input->get();
  return success();
}

/// Walks the scores back from the softmax input to `Q . K^T`, collecting
/// the scale and the bias. Returns the QK matmul.
static FailureOr<linalg::BatchMatmulOp>
matchScores(Value scores, AttentionMatch &m, Failure &why) {
  bool scaled = false;
  while (true) {
    double before = m.scale;
    scores = peelScale(scores, m.scale);
    scaled |= before != m.scale;
    if (auto qk = scores.getDefiningOp<linalg::BatchMatmulOp>())
      return qk;
    if (scaled && (matchElementwiseOf<arith::AddFOp>(scores) ||
                   matchElementwiseOf<arith::SelectOp>(scores))) {
      why = "the scale multiplies the bias too (it is applied after the add)";
      return failure();
    }
    if (std::optional<Elementwise> sel =
            matchElementwiseOf<arith::SelectOp>(scores)) {
      if (failed(peelMaskedFill(*sel, m, scores, why)))
        return failure();
      continue;
    }
    std::optional<Elementwise> add = matchElementwiseOf<arith::AddFOp>(scores);
    if (!add) {
      std::optional<Elementwise> e = matchElementwise(scores);
      why = e && isa<arith::MulFOp, arith::DivFOp>(e->payload)
                ? "the scores are scaled by a tensor that is not one scalar"
                : "the softmax input is not scale * Q.K^T + bias";
      return failure();
    }
    // The scores are the operand that reaches Q.K^T, else the one read
    // whole (to report what stops the walk there).
    auto reaches = [&](int i) {
      return add->args[i].input && reachesMatmul(add->args[i].input->get());
    };
    int chain = reaches(0) ? 0 : reaches(1) ? 1 : add->isIdentity(add->args[0]) ? 0 : 1;
    const Elementwise::Arg &s = add->args[chain], &b = add->args[1 - chain];
    if (!s.input || !add->isIdentity(s) || !b.input) {
      why = "the softmax input is not scale * Q.K^T + bias";
      return failure();
    }
    auto shape = cast<ShapedType>(add->generic.getResultTypes()[0]).getShape();
    m.terms.push_back(Bias{b.input->get(), add->map(b),
                           SmallVector<int64_t>(shape), std::nullopt,
                           equalLastDims(add->generic)});
    scores = s.input->get();
  }
}

/// Classifies the collected score terms: at most one causal mask and at
/// most one other term (ALiBi or a bias operand).
static LogicalResult classifyTerms(AttentionMatch &m, Type elemType,
                                   Failure &why) {
  for (Bias &term : m.terms) {
    FailureOr<BiasClass> kind =
        classifyBias(term.value, term.map, term.loopShape, elemType,
                     term.values, term.equalLengths, why);
    if (failed(kind))
      return failure();
    if (kind->kind == BiasKind::Causal && !m.causal) {
      m.causal = true;
      continue;
    }
    if (term.values && kind->kind != BiasKind::Alibi) {
      why = "a masked_fill whose mask is not the bottom-right causal mask";
      return failure();
    }
    if (m.bias || !m.alibiSlopes.empty()) {
      why = "more than one additive term on the scores besides a causal mask";
      return failure();
    }
    if (kind->kind == BiasKind::Alibi)
      m.alibiSlopes = std::move(kind->slopes);
    else
      m.bias = term;
  }
  return success();
}

/// Matches the P.V matmul `pv` (see the file header).
static FailureOr<AttentionMatch> matchAttention(linalg::BatchMatmulOp pv,
                                                Failure &why) {
  std::string softmaxWhy;
  // f16/bf16 graphs take the softmax in f32: P = truncf(softmax(extf(s))).
  std::optional<SoftmaxMatch> softmax = matchSoftmax(
      peelCast<arith::TruncFOp>(peelLeadingReshapes(pv.getDpsInputs()[0])),
      softmaxWhy);
  if (!softmax) {
    why = softmaxWhy.empty() ? "" : "P is not a softmax: " + softmaxWhy;
    return failure();
  }
  auto scoresType = cast<RankedTensorType>(softmax->input.getType());
  if (softmax->dim != scoresType.getRank() - 1) {
    why = "the softmax is over dim " + std::to_string(softmax->dim) +
          ", not the key dim " + std::to_string(scoresType.getRank() - 1);
    return failure();
  }
  if (cast<linalg::LinalgOp>(pv.getOperation()).hasUserDefinedMaps() ||
      !isZeroFilled(pv.getDpsInits()[0])) {
    why = "P.V is not a plain batch_matmul into a zero-filled init";
    return failure();
  }
  AttentionMatch m;
  FailureOr<linalg::BatchMatmulOp> qk =
      matchScores(peelCast<arith::ExtFOp>(softmax->input), m, why);
  if (failed(qk))
    return failure();
  if (cast<linalg::LinalgOp>(qk->getOperation()).hasUserDefinedMaps() ||
      !isZeroFilled(qk->getDpsInits()[0])) {
    why = "Q.K^T is not a plain batch_matmul into a zero-filled init";
    return failure();
  }
  if (isTransposeOfRepeat(qk->getDpsInputs()[1]) ||
      isTransposeOfRepeat(pv.getDpsInputs()[1])) {
    why = "K or V is a transpose of a GQA repeat not yet moved above it";
    return failure();
  }
  m.query = peelScale(qk->getDpsInputs()[0], m.scale);
  m.key = matchTransposedKey(qk->getDpsInputs()[1]);
  m.value.base = peelLeadingReshapes(pv.getDpsInputs()[1]);
  peelRepeat(m.value);
  if (!m.key.permutation.empty() && m.value.repeat != 1)
    m.value = KVOperand{peelLeadingReshapes(pv.getDpsInputs()[1]), {}, {}, 1};
  if (m.key.repeat != m.value.repeat) {
    why = "K and V are repeated differently (" +
          std::to_string(m.key.repeat) + " vs " +
          std::to_string(m.value.repeat) + ")";
    return failure();
  }
  auto qkType = cast<RankedTensorType>(qk->getResult(0).getType());
  Type elem = getElementTypeOrSelf(m.query.getType());
  for (Value v : {m.query, m.key.base, m.value.base})
    if (getElementTypeOrSelf(v.getType()) != elem ||
        !isa<Float32Type, Float16Type, BFloat16Type>(elem)) {
      why = "Q, K and V are not all f32, all f16 or all bf16";
      return failure();
    }
  if (!isa<Float32Type>(getElementTypeOrSelf(softmax->input.getType())) &&
      getElementTypeOrSelf(softmax->input.getType()) != elem) {
    why = "the softmax is computed in a type other than f32 or the inputs'";
    return failure();
  }
  if (failed(classifyTerms(m, qkType.getElementType(), why)))
    return failure();
  return m;
}

/// The bias as posenc.attention reads it (broadcast to [N, Sq, Sk]): the
/// leading unit dims merged into the query dim.
static Value buildBias(OpBuilder &b, Location loc, const Bias &bias) {
  auto type = cast<RankedTensorType>(bias.value.getType());
  int64_t rank = type.getRank();
  if (rank <= 2 || (rank == 3 && bias.loopShape.size() == 3 &&
                    bias.map.getResult(0) == b.getAffineDimExpr(0)))
    return bias.value;
  ReassociationIndices leading;
  for (int64_t d = 0; d < rank - 1; ++d)
    leading.push_back(d);
  return tensor::CollapseShapeOp::create(
      b, loc, bias.value,
      SmallVector<ReassociationIndices>{leading, {rank - 1}});
}

/// K or V flattened to [N/rep, S, D].
static Value buildKV(OpBuilder &b, Location loc, const KVOperand &kv) {
  Value v = kv.base;
  if (!kv.permutation.empty())
    v = buildTranspose(b, loc, v, kv.permutation);
  if (kv.groups.empty() ||
      cast<RankedTensorType>(v.getType()).getRank() == 3)
    return collapseLeadingDims(b, loc, v);
  return tensor::CollapseShapeOp::create(b, loc, v, kv.groups);
}

namespace {

struct RaiseAttention : OpRewritePattern<linalg::BatchMatmulOp> {
  RaiseAttention(MLIRContext *ctx, bool remarks)
      : OpRewritePattern(ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(linalg::BatchMatmulOp pv,
                                PatternRewriter &rewriter) const override {
    Failure why;
    FailureOr<AttentionMatch> m = matchAttention(pv, why);
    if (failed(m))
      return rewriter.notifyMatchFailure(pv, why.empty() ? "no softmax" : why);
    Location loc = pv.getLoc();
    Value q = collapseLeadingDims(rewriter, loc, m->query);
    Value k = buildKV(rewriter, loc, m->key);
    Value v = buildKV(rewriter, loc, m->value);
    auto scoresType = cast<RankedTensorType>(pv.getDpsInputs()[0].getType());
    Value bias = m->bias ? buildBias(rewriter, loc, *m->bias) : Value();
    if (!m->alibiSlopes.empty())
      bias = buildAlibiBias(rewriter, loc, m->alibiSlopes,
                            scoresType.getDimSize(1), scoresType.getDimSize(2),
                            scoresType.getElementType());
    auto attention = AttentionOp::create(
        rewriter, loc, pv.getResult(0).getType(), q, k, v, bias,
        /*kv_lengths=*/Value(),
        rewriter.getF64FloatAttr(m->scale),
        m->causal ? rewriter.getUnitAttr() : UnitAttr());
    if (remarks)
      attention->emitRemark("raised to posenc.attention")
          << (m->causal ? " (causal)" : "")
          << (m->alibiSlopes.empty() ? "" : " with ALiBi")
          << (m->key.repeat > 1
                  ? " with GQA repeat " + std::to_string(m->key.repeat)
                  : std::string());
    rewriter.replaceOp(pv, attention.getResult());
    return success();
  }

  bool remarks;
};

} // namespace

std::optional<std::string> raise::explainAttention(Operation *op) {
  auto pv = dyn_cast<linalg::BatchMatmulOp>(op);
  if (!pv)
    return std::string();
  Failure why;
  if (succeeded(matchAttention(pv, why)))
    return std::nullopt;
  return why;
}

void raise::populateRaiseAttentionPatterns(RewritePatternSet &patterns,
                                           bool emitRemarks) {
  patterns.add<RaiseAttention>(patterns.getContext(), emitRemarks);
}
