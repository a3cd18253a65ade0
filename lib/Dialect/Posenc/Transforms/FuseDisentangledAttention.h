//===- FuseDisentangledAttention.h - DeBERTa attention, fused ---*- C++ -*-===//
//
// Internal to lib/Dialect/Posenc/Transforms: the posenc-fuse-attention
// pattern that turns posenc.disentangled_attention into
// posenc.fused_attention with DeBERTa's terms (FuseDisentangledAttention.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_POSENC_TRANSFORMS_FUSEDISENTANGLEDATTENTION_H
#define LIB_DIALECT_POSENC_TRANSFORMS_FUSEDISENTANGLEDATTENTION_H

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// Adds the pattern posenc.disentangled_attention ->
/// posenc.fused_attention(deberta_pos_key, deberta_pos_query).
void populateDisentangledAttentionFusionPatterns(
    mlir::RewritePatternSet &patterns);

} // namespace posenc

#endif // LIB_DIALECT_POSENC_TRANSFORMS_FUSEDISENTANGLEDATTENTION_H
