//===- DecomposeAttention.h - flash-style attention lowering ----*- C++ -*-===//

#ifndef POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
#define POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// The RoPE inverse-frequency table of `rope` as a constant
/// tensor<R/2 x angleType> (the fused op's verifier rejects
/// sequence-length-dependent scalings, so it is known at compile time).
mlir::Value buildRotaryInvFreqConstant(mlir::OpBuilder &b, mlir::Location loc,
                                       RotaryAttr rope,
                                       mlir::FloatType angleType);

/// cos and sin of the RoPE angles of every position in `positions`
/// (tensor<S x iN>), as two tensor<S x R/2 x c> with the attention factor
/// applied (buildRotaryCosSin's math), from `invFreq`
/// (buildRotaryInvFreqConstant). Position-only tables: a tile prologue reads
/// them instead of evaluating cos and sin for every tile it rotates.
std::pair<mlir::Value, mlir::Value>
buildRotaryTables(mlir::OpBuilder &b, mlir::Location loc, RotaryAttr rope,
                  mlir::Value positions, mlir::Value invFreq,
                  mlir::FloatType c);

/// Run-time checks (cf.assert with the op's message) of the sizes of `op`
/// that its verifier could only check as compatible (dynamic dims): lead
/// dims, D, the key/value sequence and head dims, the positions' lengths.
/// Every lowering of posenc.fused_attention emits them before its loops.
void buildFusedAttentionRuntimeChecks(mlir::OpBuilder &b, FusedAttentionOp op);

/// Patterns lowering posenc.fused_attention to a flash-style loop nest on
/// tensors (scf.forall over lead dims and query tiles of `queryTile` rows,
/// scf.for over key/value tiles of `keyTile` rows, online softmax).
/// Flash-style decomposition of posenc.fused_attention. `vectorLayout`
/// selects the CPU vector layout (static padded tiles, transposed scores,
/// ops marked for --posenc-vectorize-attention-tiles); the default layout
/// is the one the GPU mapping consumes.
void populateDecomposeAttentionPatterns(mlir::RewritePatternSet &patterns,
                                        int64_t queryTile = 32,
                                        int64_t keyTile = 64,
                                        bool vectorLayout = false);

} // namespace posenc

#endif // POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
