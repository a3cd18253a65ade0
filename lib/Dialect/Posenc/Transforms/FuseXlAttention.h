//===- FuseXlAttention.h - Transformer-XL attention, fused ------*- C++ -*-===//
//
// Internal to lib/Dialect/Posenc/Transforms: the posenc-fuse-attention
// pattern that turns posenc.xl_attention into posenc.fused_attention with
// the xl term (FuseXlAttention.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_POSENC_TRANSFORMS_FUSEXLATTENTION_H
#define LIB_DIALECT_POSENC_TRANSFORMS_FUSEXLATTENTION_H

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// Adds the pattern posenc.xl_attention -> posenc.fused_attention(xl).
void populateXlAttentionFusionPatterns(mlir::RewritePatternSet &patterns);

} // namespace posenc

#endif // LIB_DIALECT_POSENC_TRANSFORMS_FUSEXLATTENTION_H
