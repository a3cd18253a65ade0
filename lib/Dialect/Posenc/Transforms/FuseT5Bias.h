//===- FuseT5Bias.h - T5's bias as a fused score term -----------*- C++ -*-===//
//
// Internal to lib/Dialect/Posenc/Transforms: how posenc-fuse-attention turns
// a posenc.t5_bias feeding posenc.attention's bias into the t5_table term of
// posenc.fused_attention (FuseT5Bias.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_POSENC_TRANSFORMS_FUSET5BIAS_H
#define LIB_DIALECT_POSENC_TRANSFORMS_FUSET5BIAS_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// The posenc.t5_bias that defines `op`'s bias, when it can become the
/// fused op's t5_table term: the attention is its only user, has no
/// kv_lengths and at least a head dim, and the bias' head, Sq and Sk dims
/// are the scores' (not broadcast). Null otherwise.
T5BiasOp matchFoldableT5Bias(AttentionOp op);

/// Makes `t5`'s table and attributes the t5_table term of `fused` (which
/// replaces `t5`'s attention, reading query `q` and key `k`), with run-time
/// checks that the bias' dynamic Sq and Sk are the scores'.
void foldT5Bias(mlir::PatternRewriter &rewriter, T5BiasOp t5,
                FusedAttentionOp fused, mlir::Value q, mlir::Value k);

} // namespace posenc

#endif // LIB_DIALECT_POSENC_TRANSFORMS_FUSET5BIAS_H
