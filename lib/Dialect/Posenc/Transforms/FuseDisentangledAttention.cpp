//===- FuseDisentangledAttention.cpp - DeBERTa attention, fused -----------===//
//
// posenc.disentangled_attention becomes posenc.fused_attention with
// DeBERTa's terms (pos_key and pos_query as the deberta_pos_key and
// deberta_pos_query operands, the bucket attributes as deberta_*). The op's
// scale (its default 1/sqrt(D (1 + terms)), DisentangledAttentionOp::
// getScaleOrDefault) becomes the fused op's explicit scale, inside which
// fused_attention adds the terms; both ops mask j > i + (Sk - Sq) and take
// the relative position i - j of the row index, so the rewrite is a renaming.
// The decomposition computes both terms per tile as band products gathered
// by the bucket index (docs/design.md, "DeBERTa's band products").
//
// As for Transformer-XL (FuseXlAttention.cpp), a term of fused_attention
// rather than a decomposition of its own: the terms only change how a
// tile's scores are formed.
//
//===----------------------------------------------------------------------===//

#include "FuseDisentangledAttention.h"

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

using namespace mlir;
using namespace posenc;

namespace {

struct DisentangledAttentionToFused
    : OpRewritePattern<DisentangledAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DisentangledAttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto fused = FusedAttentionOp::create(
        rewriter, op.getLoc(), op.getResult().getType(), op.getQuery(),
        op.getKey(), op.getValue(), ValueRange(),
        rewriter.getF64FloatAttr(op.getScaleOrDefault()), op.getCausal());
    if (Value posKey = op.getPosKey())
      fused.getDebertaPosKeyMutable().assign(posKey);
    if (Value posQuery = op.getPosQuery())
      fused.getDebertaPosQueryMutable().assign(posQuery);
    if (op.getPositionBuckets() > 0) {
      fused.setDebertaPositionBuckets(op.getPositionBuckets());
      fused.setDebertaMaxRelativePositionsAttr(op.getMaxRelativePositionsAttr());
    }
    rewriter.replaceOp(op, fused.getResult());
    return success();
  }
};

} // namespace

void posenc::populateDisentangledAttentionFusionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DisentangledAttentionToFused>(patterns.getContext());
}
