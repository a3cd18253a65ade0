//===- RaiseRope.cpp - x*cos + rotate_half(x)*sin -> posenc.rope ----------===//
//
// The half-layout RoPE of HuggingFace's `apply_rotary_pos_emb`, as TOSA and
// torch-mlir export it:
//
//   rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])
//   emb = concat(f, f),  f = float(positions) * inv_freq
//   out = x * cos(emb) + rotate_half(x) * sin(emb)
//
// which is posenc.rope's (a, b) -> (a cos - b sin, b cos + a sin) on the
// pairs (p, p + D/2). The tables broadcast over x's leading dims. Also here:
// moving a flattening of leading dims above the rope (the attention raising
// flattens (batch, head) dims; fusion wants the rope to feed it directly).
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// `v` = rotate_half(x): returns x.
static Value matchRotateHalf(Value v) {
  auto halves = matchHalvesConcat(v);
  if (!halves)
    return Value();
  int64_t half = cast<ShapedType>(v.getType()).getShape().back() / 2;
  std::optional<Elementwise> neg =
      matchElementwiseOf<arith::NegFOp>(halves->first);
  if (!neg || !neg->isIdentity(neg->args[0]))
    return Value();
  Value x = matchLastDimSlice(neg->args[0].input->get(), half, half);
  if (!x || matchLastDimSlice(halves->second, 0, half) != x)
    return Value();
  return x;
}

/// Whether `map` reads a table `[1..., S, D]` along the last two of `rank`
/// loop dims, broadcast over the others (right-aligned).
static bool isTableMap(AffineMap map, ShapedType type, int64_t rank) {
  int64_t n = map.getNumResults();
  if (n < 2 || n > rank || n != type.getRank())
    return false;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = rank - n + k;
    AffineExpr e = map.getResult(k);
    if (i >= rank - 2) {
      if (e != getAffineDimExpr(i, map.getContext()))
        return false;
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (type.getDimSize(k) != 1 ||
        (!(c && c.getValue() == 0) && e != getAffineDimExpr(i, map.getContext())))
      return false;
  }
  return true;
}

/// The table `a` reads when it reads one along (S, D) (isTableMap).
static Value matchTable(const Elementwise &mul, const Elementwise::Arg &a) {
  if (!a.input || !isTableMap(mul.map(a), cast<ShapedType>(a.input->get().getType()),
                              mul.rank()))
    return Value();
  return a.input->get();
}

/// `table` without an elementwise product by a float splat (yarn's and
/// longrope's attention factor: HuggingFace multiplies cos and sin by it);
/// `scale` gets the splat, 1 when there is none.
static Value peelTableScale(Value table, double &scale) {
  scale = 1.0;
  std::optional<Elementwise> mul = matchElementwiseOf<arith::MulFOp>(table);
  if (!mul || mul->args.size() != 2)
    return table;
  for (int i = 0; i < 2; ++i) {
    const Elementwise::Arg &t = mul->args[i];
    std::optional<double> splat = getSplatValue(mul->args[1 - i]);
    if (splat && t.input && mul->isIdentity(t)) {
      scale = *splat;
      return t.input->get();
    }
  }
  return table;
}

/// `v` without a generic that copies its one input element by element (what
/// HuggingFace's `cos * attention_scaling` becomes once arith folds the
/// multiplication by 1.0 in its body).
static Value peelCopy(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumResults() != 1 ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return v;
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 1 ||
      cast<linalg::YieldOp>(body.getTerminator()).getValues().front() !=
          body.getArgument(0))
    return v;
  return g.getDpsInputs()[0];
}

/// The angle tensor `emb` of a `math.cos`/`math.sin` table read by `a`,
/// possibly times a constant `scale`.
template <typename TrigOp>
static Value matchTrigTable(const Elementwise &mul, const Elementwise::Arg &a,
                            double &scale) {
  Value table = matchTable(mul, a);
  if (!table)
    return Value();
  // f16/bf16 graphs round the f32 tables to the input's type
  // (HuggingFace: `cos.to(x.dtype)`).
  table = peelCast<arith::TruncFOp>(peelUnitReshapes(table));
  std::optional<Elementwise> trig = matchElementwiseOf<TrigOp>(peelCopy(
      peelUnitReshapes(peelTableScale(peelUnitReshapes(table), scale))));
  if (!trig || !trig->isIdentity(trig->args[0]))
    return Value();
  return peelUnitReshapes(trig->args[0].input->get());
}

/// `f = float(positions) * inv_freq`: fills the positions and returns the
/// inverse frequencies (or fails with `why`).
static std::optional<SmallVector<double>>
matchAngles(Value f, RopeMatch &m, std::string &why) {
  std::optional<Elementwise> mul = matchElementwiseOf<arith::MulFOp>(f);
  why = "the angles are not float(positions) * inv_freq";
  if (!mul || !mul->args[0].input || !mul->args[1].input)
    return std::nullopt;
  int64_t rank = mul->rank();
  for (int i = 0; i < 2; ++i) {
    const Elementwise::Arg &pos = mul->args[i], &freq = mul->args[1 - i];
    AffineMap posMap = mul->map(pos), freqMap = mul->map(freq);
    // inv_freq varies along the last dim only, positions along dim -2 only.
    if (!freqMap.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !posMap.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !freqMap.isFunctionOfDim(rank - 1) || posMap.isFunctionOfDim(rank - 1) ||
        !posMap.isFunctionOfDim(rank - 2))
      continue;
    auto fType = cast<ShapedType>(f.getType());
    bool freqOnlyLast = true, posOnlySeq = true;
    for (int64_t d = 0; d < rank - 1; ++d)
      freqOnlyLast &= !freqMap.isFunctionOfDim(d) || fType.getDimSize(d) == 1;
    for (int64_t d = 0; d < rank - 2; ++d)
      posOnlySeq &= !posMap.isFunctionOfDim(d) || fType.getDimSize(d) == 1;
    std::optional<SmallVector<double>> invFreq =
        getConstantValues(freq.input->get());
    if (!freqOnlyLast || !posOnlySeq || !invFreq)
      continue;
    Value p = pos.input->get();
    if (std::optional<Elementwise> cast = matchElementwiseOf<arith::SIToFPOp>(p);
        cast && cast->isIdentity(cast->args[0])) {
      m.positions = peelUnitReshapes(cast->args[0].input->get());
    } else if (std::optional<SmallVector<double>> values = getConstantValues(p);
               values && llvm::all_of(*values, [](double v) {
                 return v == std::trunc(v) && std::abs(v) < (1 << 24);
               })) {
      SmallVector<int32_t> ints(values->begin(), values->end());
      m.constantPositions = DenseElementsAttr::get(
          RankedTensorType::get({(int64_t)ints.size()},
                                IntegerType::get(f.getContext(), 32)),
          ArrayRef<int32_t>(ints));
    } else {
      why = "the positions are neither sitofp of an integer tensor nor an "
            "integral float constant";
      return std::nullopt;
    }
    return invFreq;
  }
  return std::nullopt;
}

bool raise::matchRopeAngles(Value f, Value x, RopeMatch &m, std::string &why) {
  std::optional<SmallVector<double>> invFreq = matchAngles(f, m, why);
  if (!invFreq)
    return false;
  auto type = cast<RankedTensorType>(x.getType());
  if (!getElementTypeOrSelf(f.getType()).isF32()) {
    why = "the angles are not computed in f32";
    return false;
  }
  if (!isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType()) ||
      static_cast<int64_t>(invFreq->size()) * 2 != type.getShape().back()) {
    why = "only f32/f16/bf16 inputs with one inverse frequency per pair are "
          "raised";
    return false;
  }
  std::optional<RopeFrequencies> freqs =
      recoverRopeFrequencies(*invFreq, f.getContext(), why);
  if (!freqs)
    return false;
  m.frequencies = *freqs;
  return true;
}

/// Matches `out` = x*cos(emb) + rotate_half(x)*sin(emb) (see the header).
static std::optional<RopeMatch> matchRope(Value out, std::string &why) {
  std::optional<Elementwise> add = matchElementwiseOf<arith::AddFOp>(out);
  why = "";
  if (!add || !add->isIdentity(add->args[0]) || !add->isIdentity(add->args[1]))
    return std::nullopt;
  std::optional<Elementwise> muls[2] = {
      matchElementwiseOf<arith::MulFOp>(add->args[0].input->get()),
      matchElementwiseOf<arith::MulFOp>(add->args[1].input->get())};
  if (!muls[0] || !muls[1])
    return std::nullopt;
  // A candidate multiplies a concatenation of two halves (rotate_half).
  if (llvm::none_of(muls, [](const std::optional<Elementwise> &mul) {
        return llvm::any_of(mul->args, [](const Elementwise::Arg &a) {
          return a.input && matchHalvesConcat(a.input->get());
        });
      }))
    return std::nullopt;
  // Find (x, cos table) in one product and (rotate_half(x), sin table) in
  // the other, each product's operands in either order.
  RopeMatch m;
  Value cosEmb, sinEmb, cosTable, sinTable;
  double cosScale = 1.0, sinScale = 1.0;
  for (int c = 0; c < 2 && !m.input; ++c)
    for (int i = 0; i < 2 && !m.input; ++i)
      for (int j = 0; j < 2 && !m.input; ++j) {
        const Elementwise &cosMul = *muls[c], &sinMul = *muls[1 - c];
        const Elementwise::Arg &x = cosMul.args[i], &rot = sinMul.args[j];
        if (!cosMul.isIdentity(x) || !sinMul.isIdentity(rot))
          continue;
        Value rotated = matchRotateHalf(rot.input->get());
        if (!rotated || rotated != x.input->get())
          continue;
        cosEmb = matchTrigTable<math::CosOp>(cosMul, cosMul.args[1 - i],
                                             cosScale);
        sinEmb = matchTrigTable<math::SinOp>(sinMul, sinMul.args[1 - j],
                                             sinScale);
        cosTable = matchTable(cosMul, cosMul.args[1 - i]);
        sinTable = matchTable(sinMul, sinMul.args[1 - j]);
        m.input = rotated;
        // What the products read as tables, for the table form.
        const Elementwise::Arg &ct = cosMul.args[1 - i], &st = sinMul.args[1 - j];
        if (ct.input && st.input) {
          m.cosTable = ct.input->get();
          m.sinTable = st.input->get();
          m.cosMap = cosMul.map(ct);
          m.sinMap = sinMul.map(st);
        }
      }
  if (!m.input) {
    why = "no product is rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2]) "
          "times a table while the other is x times a table";
    return std::nullopt;
  }
  // Whatever the tables are, the graph is x*cos + rotate_half(x)*sin: when
  // they match no formula it is the table form, exactly
  // (RaiseRopeTableForm.cpp), with the reason kept for the remark.
  auto tableForm = [&]() -> std::optional<RopeMatch> {
    if (!m.isTableForm())
      return std::nullopt;
    int64_t rank = cast<ShapedType>(m.input.getType()).getRank();
    if (!isBroadcastRopeTable(m.cosTable, m.cosMap, rank) ||
        !isBroadcastRopeTable(m.sinTable, m.sinMap, rank)) {
      why += "; nor are cos and sin [..., S, D] tables broadcast over the "
             "leading dims (the table form)";
      return std::nullopt;
    }
    RopeMatch t;
    t.input = m.input;
    t.cosTable = m.cosTable;
    t.sinTable = m.sinTable;
    t.cosMap = m.cosMap;
    t.sinMap = m.sinMap;
    t.tableFormReason = why;
    why.clear();
    return t;
  };
  auto formOf = [](Value table) {
    return peelUnitReshapes(peelLeadingReshapes(table));
  };
  if (m.isTableForm() && isa<BlockArgument>(formOf(m.cosTable)) &&
      isa<BlockArgument>(formOf(m.sinTable))) {
    why = "the cos/sin tables are function arguments";
    return tableForm();
  }
  // Tables known at compile time (folded by the exporter, or a sliced
  // buffer): matched by value (RaiseRopeTables.cpp).
  if ((!cosEmb || !sinEmb) && cosTable && sinTable &&
      (matchConstantRopeTables(cosTable, sinTable, m.input, m, why) ||
       !why.empty())) {
    if (why.empty()) {
      m.cosTable = m.sinTable = Value();
      return m;
    }
    return tableForm();
  }
  if (!cosEmb || !sinEmb || cosEmb != sinEmb) {
    why = "x is not multiplied by cos(emb) and rotate_half(x) by sin(emb) of "
          "one angle tensor emb read along (S, D)";
    return tableForm();
  }
  auto halves = matchHalvesConcat(cosEmb);
  if (!halves || halves->first != halves->second) {
    why = "the angles are not concat(f, f) along the last dim";
    return tableForm();
  }
  if (cosScale != sinScale) {
    why = "cos and sin are multiplied by different constants";
    return tableForm();
  }
  if (!matchRopeAngles(halves->first, m.input, m, why))
    return tableForm();
  m.tableScale = cosScale;
  m.cosTable = m.sinTable = Value();
  return m;
}

/// The positions as the 1-D `tensor<S x iN>` posenc.rope takes.
static FailureOr<Value> buildPositions(OpBuilder &b, Location loc,
                                       const RopeMatch &m, int64_t seqLen) {
  if (m.constantPositions)
    return arith::ConstantOp::create(b, loc, m.constantPositions).getResult();
  auto type = cast<RankedTensorType>(m.positions.getType());
  if (type.getRank() == 1)
    return m.positions;
  int64_t nonUnit = 0;
  for (int64_t d : type.getShape())
    nonUnit += d != 1;
  // Per-batch positions [B, S] of an input [B, ..., S, D] (SPEC.md).
  auto input = cast<RankedTensorType>(m.input.getType());
  if (nonUnit > 1 && type.getRank() == 2 && input.getRank() >= 3 &&
      type.getShape() == ArrayRef<int64_t>{input.getDimSize(0), seqLen})
    return m.positions;
  if (nonUnit > 1 || (ShapedType::isDynamic(seqLen) && type.hasStaticShape()))
    return failure();
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(
             b, loc, m.positions, SmallVector<ReassociationIndices>{all})
      .getResult();
}

/// The op's `attention_factor` attribute: none when the recovered
/// scaling's own factor (yarn's 0.1 ln(factor) + 1, else 1) is the graph's
/// table scale within 2 f32 ulps; the graph's scale otherwise (e.g. 1 for
/// yarn frequencies with unscaled tables).
static FloatAttr attentionFactorAttr(OpBuilder &b, const RopeMatch &m) {
  RopeScalingAttr scaling = m.frequencies.scaling;
  double implied = scaling ? scaling.getEffectiveAttentionFactor() : 1.0;
  if (std::abs(implied - m.tableScale) <= 2.0 * 0x1p-23 * std::abs(implied))
    return FloatAttr();
  return b.getF64FloatAttr(m.tableScale);
}

LogicalResult raise::replaceWithRope(PatternRewriter &rewriter, Operation *root,
                                    const RopeMatch &m, Layout layout,
                                    bool emitRemark) {
  FailureOr<Value> rope = buildRope(rewriter, root, m, layout, emitRemark);
  if (failed(rope))
    return failure();
  rewriter.replaceOp(root, *rope);
  return success();
}

FailureOr<Value> raise::buildRope(PatternRewriter &rewriter, Operation *root,
                                  const RopeMatch &m, Layout layout,
                                  bool emitRemark) {
  auto type = cast<RankedTensorType>(m.input.getType());
  int64_t seqLen = type.getDimSize(type.getRank() - 2);
  auto posType = dyn_cast<RankedTensorType>(
      m.constantPositions ? m.constantPositions.getType()
                          : m.positions.getType());
  bool perBatch = posType && posType.getRank() == 2 && type.getRank() >= 3 &&
                  posType.getShape() ==
                      ArrayRef<int64_t>{type.getDimSize(0), seqLen};
  if (!posType || (posType.hasStaticShape() && !perBatch &&
                   posType.getNumElements() != seqLen))
    return rewriter.notifyMatchFailure(root, "positions are not one per row");
  FailureOr<Value> positions =
      buildPositions(rewriter, root->getLoc(), m, seqLen);
  if (failed(positions))
    return rewriter.notifyMatchFailure(root, "positions vary along a batch dim");
  MLIRContext *ctx = root->getContext();
  auto rope = RopeOp::create(
      rewriter, root->getLoc(), type, m.input, *positions,
      LayoutAttr::get(ctx, layout),
      rewriter.getF64FloatAttr(m.frequencies.base), IntegerAttr(),
      m.frequencies.scaling, attentionFactorAttr(rewriter, m),
      AnglePrecisionAttr::get(ctx, AnglePrecision::fast), XPosAttr());
  if (emitRemark)
    rope->emitRemark("raised to posenc.rope (")
        << stringifyLayout(layout) << " layout)";
  return rope.getResult();
}

namespace {

struct RaiseRope : OpRewritePattern<linalg::GenericOp> {
  RaiseRope(MLIRContext *ctx, bool remarks)
      : OpRewritePattern(ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return failure();
    std::string why;
    std::optional<RopeMatch> m = matchRope(op->getResult(0), why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why);
    if (m->isTableForm() && isPendingOuterProduct(m->cosTable))
      return rewriter.notifyMatchFailure(op, "the angles are still a matmul");
    if (m->isTableForm())
      return replaceWithTableRope(rewriter, op, *m, Layout::half, remarks);
    return replaceWithRope(rewriter, op, *m, Layout::half, remarks);
  }

  bool remarks;
};

/// collapse_shape(rope(x)) -> rope(collapse_shape(x)) when the collapse only
/// merges leading dims: 1-D positions broadcast over any leading dims.
struct CollapseAboveRope : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto rope = collapse.getSrc().getDefiningOp<RopeOp>();
    if (!rope || !rope->hasOneUse() || !reshapesOnlyLeadingDims(collapse))
      return failure();
    // Table form: tables [1..., S, D] become [S, D]; per-batch tables
    // [B, 1, S, D] would not follow a merged (B, H): they stay below.
    if (rope.hasTables()) {
      auto tableType = cast<RankedTensorType>(rope.getCos().getType());
      if (llvm::any_of(tableType.getShape().drop_back(2),
                       [](int64_t d) { return d != 1; }))
        return failure();
    } else if (cast<ShapedType>(rope.getPositions().getType()).getRank() != 1) {
      return failure();
    }
    auto input = tensor::CollapseShapeOp::create(
        rewriter, collapse.getLoc(), rope.getInput(),
        collapse.getReassociationIndices());
    auto moved = cast<RopeOp>(rewriter.clone(*rope));
    moved.getInputMutable().assign(input);
    if (rope.hasTables()) {
      int64_t tRank = cast<RankedTensorType>(rope.getCos().getType()).getRank();
      ReassociationIndices seq;
      for (int64_t k = 0; k + 1 < tRank; ++k)
        seq.push_back(k);
      SmallVector<ReassociationIndices> groups = {seq, {tRank - 1}};
      for (OpOperand *table : {&moved.getCosMutable()[0], &moved.getSinMutable()[0]})
        if (tRank > 2)
          table->set(tensor::CollapseShapeOp::create(
              rewriter, collapse.getLoc(), table->get(), groups));
    }
    moved.getResult().setType(collapse.getResultType());
    rewriter.replaceOp(collapse, moved.getResult());
    return success();
  }
};

/// The expanded half layout some exporters write instead of rotate_half
/// (e.g. GPT-NeoX-style code and hand-written kernels):
/// concat(x1*cos - x2*sin, x2*cos + x1*sin) with x1 = x[..., :D/2],
/// x2 = x[..., D/2:] and cos/sin of f = float(positions) * inv_freq
/// ([S, D/2], no duplication): posenc.rope's half layout, pairs (p, p+D/2).
struct RaiseExpandedRope : RewritePattern {
  RaiseExpandedRope(MLIRContext *ctx, bool remarks)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<tensor::ConcatOp, tensor::InsertSliceOp>(op))
      return failure();
    Value out = op->getResult(0);
    std::optional<std::pair<Value, Value>> halves = matchHalvesConcat(out);
    std::optional<PairRotation> rot =
        halves ? matchPairRotation(halves->first, halves->second, 1)
               : std::nullopt;
    // D = 2 would also be the inner concat of the interleaved layout's
    // (re, im) lanes, which RaiseInterleavedRope raises whole.
    int64_t half = cast<ShapedType>(out.getType()).getShape().back() / 2;
    if (!rot || half < 2)
      return failure();
    Value x = matchLastDimSlice(rot->a, 0, half);
    if (!x || matchLastDimSlice(rot->b, half, half) != x ||
        x.getType() != out.getType())
      return rewriter.notifyMatchFailure(op, "not x[..., :D/2], x[..., D/2:]");
    RopeMatch m;
    m.input = x;
    std::string why;
    if (rot->angles && matchRopeAngles(rot->angles, x, m, why))
      return replaceWithRope(rewriter, op, m, Layout::half, remarks);
    // Any tables: the table form (RaiseRopePairTables.cpp).
    return replaceWithPairTableRope(rewriter, op, pairTableForm(*rot, x, why),
                                    Layout::half, remarks);
  }

  bool remarks;
};

/// concat(rope(x[..., :R]), x[..., R:]) -> rope(x) {rotary_dim = R}: the
/// partial rotary of GPT-NeoX, Phi and GLM (HuggingFace rotates q_rot and
/// concatenates q_pass back). posenc.rope's rotary_dim rotates the first R
/// dims with the pairing and the inverse frequencies of an R-dim rotation,
/// which is what the inner rope, raised on the R-wide slice, computes.
struct PartialRotaryConcat : RewritePattern {
  PartialRotaryConcat(MLIRContext *ctx, bool remarks)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<tensor::ConcatOp, tensor::InsertSliceOp>(op))
      return failure();
    std::optional<std::pair<Value, Value>> parts =
        matchLastDimConcat(op->getResult(0));
    auto rope = parts ? parts->first.getDefiningOp<RopeOp>() : RopeOp();
    if (!rope || !rope->hasOneUse() || rope.getRotaryDim())
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t d = type.getShape().back();
    int64_t r = rope.getType().getShape().back();
    Value x = matchLastDimSlice(rope.getInput(), 0, r);
    if (!x || matchLastDimSlice(parts->second, r, d - r) != x ||
        x.getType() != type)
      return failure();
    auto moved = cast<RopeOp>(rewriter.clone(*rope));
    moved.getInputMutable().assign(x);
    moved.setRotaryDimAttr(rewriter.getI64IntegerAttr(r));
    moved.getResult().setType(type);
    if (remarks)
      moved->emitRemark("raised to posenc.rope with rotary_dim ") << r;
    rewriter.replaceOp(op, moved.getResult());
    rewriter.eraseOp(rope);
    return success();
  }

  bool remarks;
};

} // namespace

std::optional<std::string> raise::explainRope(Operation *op) {
  if (op->getNumResults() != 1 || !isa<linalg::GenericOp>(op))
    return std::string();
  std::string why;
  if (matchRope(op->getResult(0), why))
    return std::nullopt;
  return why;
}

void raise::populateRaiseRopePatterns(RewritePatternSet &patterns,
                                      bool emitRemarks) {
  patterns.add<RaiseRope>(patterns.getContext(), emitRemarks);
  patterns.add<CollapseAboveRope>(patterns.getContext());
  patterns.add<PartialRotaryConcat>(patterns.getContext(), emitRemarks);
  patterns.add<RaiseExpandedRope>(patterns.getContext(), emitRemarks);
}
