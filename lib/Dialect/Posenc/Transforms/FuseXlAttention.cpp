//===- FuseXlAttention.cpp - Transformer-XL attention, fused --------------===//
//
// posenc.xl_attention becomes posenc.fused_attention with the xl term (its
// rel, content bias u and position bias v as the xl_rel, xl_content_bias
// and xl_position_bias operands). Both ops place query i at i' = i + (Sk -
// Sq) and add the same terms inside the scale, so the rewrite is a renaming;
// the decomposition then computes the position term per tile as a band
// product (docs/design.md, "Transformer-XL's band product").
//
// Why a term of posenc.fused_attention rather than a decomposition of its
// own: the term only changes how a tile's scores are formed (u once per
// query tile, a band product per key tile); the grid, the key loops, the
// online softmax, the masks and the output are those of every fused
// attention, and RoPE or a score_mod could be combined with it as with the
// other terms.
//
//===----------------------------------------------------------------------===//

#include "FuseXlAttention.h"

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

using namespace mlir;
using namespace posenc;

namespace {

struct XlAttentionToFused : OpRewritePattern<XlAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(XlAttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto fused = FusedAttentionOp::create(
        rewriter, op.getLoc(), op.getResult().getType(), op.getQuery(),
        op.getKey(), op.getValue(), ValueRange(),
        rewriter.getF64FloatAttr(op.getScaleOrDefault()), op.getCausal());
    fused.getXlRelMutable().assign(op.getRel());
    fused.getXlContentBiasMutable().assign(op.getContentBias());
    fused.getXlPositionBiasMutable().assign(op.getPositionBias());
    rewriter.replaceOp(op, fused.getResult());
    return success();
  }
};

} // namespace

void posenc::populateXlAttentionFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<XlAttentionToFused>(patterns.getContext());
}
