//===- FuseAttention.cpp - fold position encodings into attention ---------===//
//
// Rewrites posenc.attention / posenc.rel_pos_attention into
// posenc.fused_attention: RoPE producers become the Q/K prologue, ALiBi and
// other biases become the score_mod region, Shaw's relative key and value
// terms the rel_key and rel_value operands, T5's bias the t5_table operand
// (FuseT5Bias.cpp), posenc.xl_attention the xl term (FuseXlAttention.cpp),
// posenc.disentangled_attention DeBERTa's terms (FuseDisentangledAttention.cpp).
// The math is that of the
// ops' descriptions; see posenc.fused_attention for the fused form.
//
//===----------------------------------------------------------------------===//

#include "FuseDisentangledAttention.h"
#include "FuseT5Bias.h"
#include "FuseXlAttention.h"

#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCFUSEATTENTIONPASS
#include "posenc/Dialect/Posenc/Transforms/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

/// The RoPE prologue a posenc.rope contributes, when it can be folded: the
/// attention is its only user and its frequencies are compile-time constants.
struct FoldableRope {
  RotaryAttr attr;
  Value input, positions;
  RopeOp op;
  /// The table form's cos/sin, as the fused op takes them ([S, R] or per
  /// batch [B, S, R]); null for the attribute form.
  Value cos, sin;
};

/// The fused op's form of a table-form rope's `table` ([..., S, R],
/// right-aligned against `input`): [S, R] when every leading dim is 1, [B, S,
/// R] when only dim 0 of an input-rank table is not (per batch), built with
/// a collapse_shape before `rope`; null when the table varies along other
/// dims (per head: the rope stays standalone).
static Value fusedRopeTable(OpBuilder &b, RopeOp rope, Value table) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t tRank = type.getRank();
  int64_t rank = cast<RankedTensorType>(rope.getInput().getType()).getRank();
  bool perBatch = tRank == rank && rank >= 3 && type.getDimSize(0) != 1;
  for (int64_t k = perBatch ? 1 : 0; k + 2 < tRank; ++k)
    if (type.getDimSize(k) != 1)
      return Value();
  int64_t keep = perBatch ? 3 : 2;
  if (tRank == keep)
    return table;
  // Merge the unit dims into the sequence dim's group.
  SmallVector<ReassociationIndices> groups;
  if (perBatch)
    groups.push_back({0});
  ReassociationIndices seq;
  for (int64_t k = perBatch ? 1 : 0; k + 1 < tRank; ++k)
    seq.push_back(k);
  groups.push_back(seq);
  groups.push_back({tRank - 1});
  // Q's and K's ropes usually share the tables: reuse the collapse made for
  // the other, so that the decomposition sees one table for both.
  for (Operation *user : table.getUsers())
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(user))
      if (collapse->getBlock() == rope->getBlock() &&
          collapse->isBeforeInBlock(rope) &&
          collapse.getReassociationIndices() == groups)
        return collapse.getResult();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(rope);
  return tensor::CollapseShapeOp::create(b, rope.getLoc(), table, groups);
}

static std::optional<FoldableRope> matchFoldableRope(Value v,
                                                     OpBuilder &b) {
  auto rope = v.getDefiningOp<RopeOp>();
  if (!rope || !rope->hasOneUse())
    return std::nullopt;
  if (rope.hasTables()) {
    auto attr = RotaryAttr::get(rope.getContext(), rope.getLayout(),
                                FloatAttr(), rope.getRotaryDimOrDefault(),
                                RopeScalingAttr(), FloatAttr(),
                                AnglePrecision::fast, XPosAttr());
    Value cos = fusedRopeTable(b, rope, rope.getCos());
    Value sin = cos ? fusedRopeTable(b, rope, rope.getSin()) : Value();
    if (!cos || !sin)
      return std::nullopt;
    return FoldableRope{attr, rope.getInput(), Value(), rope, cos, sin};
  }
  RopeScalingAttr scaling = rope.getScalingAttr();
  if (scaling && scaling.dependsOnSequenceLength())
    return std::nullopt;
  MLIRContext *ctx = rope.getContext();
  FloatAttr attentionFactor;
  if (std::optional<APFloat> f = rope.getAttentionFactor())
    attentionFactor = FloatAttr::get(Float64Type::get(ctx), *f);
  auto attr = RotaryAttr::get(ctx, rope.getLayout(), rope.getBaseAttr(),
                              rope.getRotaryDimOrDefault(), scaling,
                              attentionFactor, rope.getPrecision(),
                              rope.getXposAttr());
  return FoldableRope{attr, rope.getInput(), rope.getPositions(), rope,
                      Value(), Value()};
}

/// Rounds a compute-type value through `elemType` and back (the reference
/// lowering materializes biases in the bias element type).
static Value roundThrough(OpBuilder &b, Location loc, Value v, Type elemType) {
  if (v.getType() == elemType)
    return v;
  return castFloat(b, loc, castFloat(b, loc, v, elemType), v.getType());
}

/// Emits a run-time check that two index sizes agree, unless both static.
static void assertSizesEqual(OpBuilder &b, Location loc, OpFoldResult a,
                             OpFoldResult c, StringRef message) {
  if (isa<Attribute>(a) && isa<Attribute>(c))
    return;
  Value va = getValueOrCreateConstantIndexOp(b, loc, a);
  Value vc = getValueOrCreateConstantIndexOp(b, loc, c);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, va, vc);
  cf::AssertOp::create(b, loc, eq, b.getStringAttr(message));
}

/// Sk - Sq as an index value.
static Value buildShift(OpBuilder &b, Location loc, Value q, Value k) {
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  Value sq = tensor::DimOp::create(b, loc, q, rank - 2);
  Value sk = tensor::DimOp::create(b, loc, k, rank - 2);
  return arith::SubIOp::create(b, loc, sk, sq);
}

/// Creates the fused op (identity score_mod) and hands the score_mod block,
/// with the builder at its start, to `buildMod`, which returns the new score.
static FusedAttentionOp
createFused(PatternRewriter &rewriter, Location loc, Type resultType, Value q,
            Value k, Value v, const std::optional<FoldableRope> &qRope,
            const std::optional<FoldableRope> &kRope, ValueRange mods,
            Value relKey, Value relValue, std::optional<APFloat> scale,
            bool causal, function_ref<Value(OpBuilder &, Block &)> buildMod) {
  FloatAttr scaleAttr;
  if (scale)
    scaleAttr = rewriter.getF64FloatAttr(scale->convertToDouble());
  auto fused = FusedAttentionOp::create(rewriter, loc, resultType, q, k, v,
                                        mods, scaleAttr, causal);
  if (qRope) {
    fused.setQRopeAttr(qRope->attr);
    if (qRope->positions)
      fused.getQPositionsMutable().assign(qRope->positions);
    if (qRope->cos) {
      fused.getQCosMutable().assign(qRope->cos);
      fused.getQSinMutable().assign(qRope->sin);
    }
  }
  if (kRope) {
    fused.setKRopeAttr(kRope->attr);
    if (kRope->positions)
      fused.getKPositionsMutable().assign(kRope->positions);
    if (kRope->cos) {
      fused.getKCosMutable().assign(kRope->cos);
      fused.getKSinMutable().assign(kRope->sin);
    }
  }
  if (relKey)
    fused.getRelKeyMutable().assign(relKey);
  if (relValue)
    fused.getRelValueMutable().assign(relValue);
  if (buildMod) {
    Block &block = fused.getScoreModBlock();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(block.getTerminator());
    Value score = buildMod(rewriter, block);
    cast<YieldOp>(block.getTerminator()).getValueMutable().assign(score);
  }
  return fused;
}

//===----------------------------------------------------------------------===//
// posenc.attention
//===----------------------------------------------------------------------===//

/// The ALiBi bias as a function of (head, i, j), when `bias` is a foldable
/// posenc.alibi_bias: only user is the attention, the head dim aligns with
/// the attention's (or is 1) and its Sq/Sk dims are not broadcast.
static bool isFoldableAlibi(AlibiBiasOp alibi, RankedTensorType qType,
                            RankedTensorType kType) {
  if (!alibi || !alibi->hasOneUse())
    return false;
  RankedTensorType bt = alibi.getResult().getType();
  int64_t rank = qType.getRank();
  if (bt.getRank() > rank)
    return false;
  int64_t bsq = bt.getDimSize(bt.getRank() - 2),
          bsk = bt.getDimSize(bt.getRank() - 1);
  int64_t sq = qType.getDimSize(rank - 2), sk = kType.getDimSize(rank - 2);
  // A broadcast Sq or Sk dim (size 1 against a larger one) would change i'.
  if ((bsq == 1 && sq != 1) || (bsk == 1 && sk != 1))
    return false;
  return true;
}

struct AttentionToFused : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<FoldableRope> qRope = matchFoldableRope(op.getQuery(), rewriter);
    std::optional<FoldableRope> kRope = matchFoldableRope(op.getKey(), rewriter);
    // xPos folds only as a query/key pair (re-centered per tile); any other
    // xPos rope stays a standalone op.
    if (!describeXPosPairMismatch(qRope ? qRope->attr : RotaryAttr(),
                                  kRope ? kRope->attr : RotaryAttr())
             .empty()) {
      if (qRope && qRope->attr.getXpos())
        qRope.reset();
      if (kRope && kRope->attr.getXpos())
        kRope.reset();
    }
    Value q = qRope ? qRope->input : op.getQuery();
    Value k = kRope ? kRope->input : op.getKey();
    Value v = op.getValue();
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2;
    FloatType f = qType.getElementType().isF64() ? rewriter.getF64Type()
                                                 : rewriter.getF32Type();

    SmallVector<Value> mods;
    function_ref<Value(OpBuilder &, Block &)> buildMod = nullptr;
    std::function<Value(OpBuilder &, Block &)> modFn;
    Value bias = op.getBias();
    auto alibi = bias ? bias.getDefiningOp<AlibiBiasOp>() : AlibiBiasOp();
    T5BiasOp t5 = matchFoldableT5Bias(op);
    if (bias && isFoldableAlibi(alibi, qType, kType)) {
      RankedTensorType bt = alibi.getResult().getType();
      int64_t br = bt.getRank();
      // The bias' Sq/Sk must be the attention's (the reference asserts it).
      SmallVector<OpFoldResult> biasSizes;
      unsigned dyn = 0;
      for (int64_t d = 0; d < br; ++d)
        biasSizes.push_back(
            bt.isDynamicDim(d)
                ? OpFoldResult(alibi.getDynamicSizes()[dyn++])
                : OpFoldResult(rewriter.getIndexAttr(bt.getDimSize(d))));
      assertSizesEqual(rewriter, loc, biasSizes[br - 2],
                       tensor::getMixedSize(rewriter, loc, q, n),
                       "posenc.attention: 'bias' dim Sq does not match the "
                       "scores");
      assertSizesEqual(rewriter, loc, biasSizes[br - 1],
                       tensor::getMixedSize(rewriter, loc, k, n),
                       "posenc.attention: 'bias' dim Sk does not match the "
                       "scores");
      Value slopes = alibi.getSlopes();
      if (!slopes) {
        SmallVector<double> all = computeAlibiSlopes(
            alibi.getNumHeadsOrDefault(), alibi.getMaxBias().convertToDouble());
        ArrayRef<double> local = ArrayRef<double>(all).slice(
            alibi.getHeadOffset(), alibi.getNumLocalHeads());
        auto type = RankedTensorType::get({static_cast<int64_t>(local.size())},
                                          rewriter.getF32Type());
        SmallVector<float> values(local.begin(), local.end());
        slopes = arith::ConstantOp::create(
            rewriter, loc, type,
            DenseElementsAttr::get(type, ArrayRef<float>(values)));
      }
      mods = {slopes, buildShift(rewriter, loc, q, k)};
      // Head index of the bias: the attention's head (lead dim n-1) unless
      // the bias has a single, broadcast head.
      bool headBroadcast =
          bt.getDimSize(br - 3) == 1 && qType.getDimSize(n - 1) != 1;
      bool symmetric = alibi.getSymmetric();
      Type biasElem = bt.getElementType();
      modFn = [=](OpBuilder &b, Block &block) -> Value {
        Value score = block.getArgument(0);
        Value h = headBroadcast ? indexConst(b, loc, 0)
                                : block.getArgument(1 + n - 1);
        Value i = block.getArgument(1 + n), j = block.getArgument(2 + n);
        Value slopesArg = block.getArgument(1 + rank);
        Value shift = block.getArgument(2 + rank);
        Value slope = tensor::ExtractOp::create(b, loc, slopesArg, h);
        Value qpos = arith::AddIOp::create(b, loc, i, shift);
        Value dist = arith::SubIOp::create(b, loc, j, qpos);
        Value distI = arith::IndexCastOp::create(b, loc, b.getI64Type(), dist);
        Value distF = arith::SIToFPOp::create(b, loc, b.getF32Type(), distI);
        Value biasV;
        if (symmetric) {
          Value absD = math::AbsFOp::create(b, loc, distF);
          biasV = arith::NegFOp::create(
              b, loc, arith::MulFOp::create(b, loc, slope, absD));
        } else {
          biasV = arith::MulFOp::create(b, loc, slope, distF);
        }
        biasV = castFloat(b, loc, castFloat(b, loc, biasV, biasElem), f);
        return arith::AddFOp::create(b, loc, score, biasV);
      };
    } else if (bias && !t5) {
      // A general bias tensor, read per element (numpy broadcasting, right
      // aligned against [..., Hq, Sq, Sk]).
      auto bt = cast<RankedTensorType>(bias.getType());
      int64_t br = bt.getRank();
      int64_t lead = rank - br;
      SmallVector<int64_t> scoreShape(qType.getShape().drop_back());
      scoreShape.push_back(kType.getDimSize(n));
      SmallVector<bool> broadcast;
      for (int64_t d = 0; d < br; ++d) {
        bool bc = bt.getDimSize(d) == 1 && scoreShape[lead + d] != 1;
        broadcast.push_back(bc);
        if (bc)
          continue;
        OpFoldResult scoreSize =
            lead + d == n + 1
                ? tensor::getMixedSize(rewriter, loc, k, n)
                : tensor::getMixedSize(rewriter, loc, q, lead + d);
        assertSizesEqual(rewriter, loc,
                         tensor::getMixedSize(rewriter, loc, bias, d),
                         scoreSize,
                         "posenc.attention: 'bias' dim does not match the "
                         "scores");
      }
      mods = {bias};
      modFn = [=](OpBuilder &b, Block &block) -> Value {
        SmallVector<Value> idx;
        for (int64_t d = 0; d < br; ++d)
          idx.push_back(broadcast[d] ? indexConst(b, loc, 0)
                                     : block.getArgument(1 + lead + d));
        Value biasV =
            tensor::ExtractOp::create(b, loc, block.getArgument(1 + rank), idx);
        return arith::AddFOp::create(b, loc, block.getArgument(0),
                                     castFloat(b, loc, biasV, f));
      };
    }
    if (modFn)
      buildMod = modFn;

    FusedAttentionOp fused = createFused(
        rewriter, loc, op.getResult().getType(), q, k, v, qRope, kRope, mods,
        Value(), Value(), op.getScale(), op.getCausal(), buildMod);
    if (Value lengths = op.getKvLengths())
      fused.getKvLengthsMutable().assign(lengths);
    if (t5)
      foldT5Bias(rewriter, t5, fused, q, k);
    rewriter.replaceOp(op, fused.getResult());
    if (qRope)
      rewriter.eraseOp(qRope->op);
    if (kRope)
      rewriter.eraseOp(kRope->op);
    if (alibi && alibi->use_empty())
      rewriter.eraseOp(alibi);
    if (t5 && t5->use_empty())
      rewriter.eraseOp(t5);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// posenc.rel_pos_attention
//===----------------------------------------------------------------------===//

struct RelPosAttentionToFused : OpRewritePattern<RelPosAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RelPosAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Value relKey = op.getRelKey();
    auto qType = cast<RankedTensorType>(q.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2;
    assertSizesEqual(rewriter, loc,
                     tensor::getMixedSize(rewriter, loc, relKey, 1),
                     tensor::getMixedSize(rewriter, loc, q, n + 1),
                     "posenc.rel_pos_attention: dim 1 of 'rel_key' differs "
                     "from the head dim of 'query'");
    if (Value relValue = op.getRelValue())
      assertSizesEqual(rewriter, loc,
                       tensor::getMixedSize(rewriter, loc, relValue, 1),
                       tensor::getMixedSize(rewriter, loc, v, n + 1),
                       "posenc.rel_pos_attention: dim 1 of 'rel_value' "
                       "differs from the head dim of 'value'");

    // Shaw's key term is the rel_key operand: the lowerings form
    // q . rel_key per query tile (SPEC.md's memory bound), no table here.
    FusedAttentionOp fused = createFused(
        rewriter, loc, op.getResult().getType(), q, k, v, std::nullopt,
        std::nullopt, ValueRange(), relKey, op.getRelValue(),
        APFloat(op.getScaleOrDefault()), op.getCausal(), nullptr);
    rewriter.replaceOp(op, fused.getResult());
    return success();
  }
};

struct PosencFuseAttentionPass
    : posenc::impl::PosencFuseAttentionPassBase<PosencFuseAttentionPass> {
  using PosencFuseAttentionPassBase::PosencFuseAttentionPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePosencFusionPatterns(patterns, disentangled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void posenc::populatePosencFusionPatterns(RewritePatternSet &patterns,
                                          bool disentangled) {
  patterns.add<AttentionToFused, RelPosAttentionToFused>(patterns.getContext());
  populateXlAttentionFusionPatterns(patterns);
  if (disentangled)
    populateDisentangledAttentionFusionPatterns(patterns);
}
