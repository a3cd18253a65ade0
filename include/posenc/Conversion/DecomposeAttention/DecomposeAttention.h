//===- DecomposeAttention.h - flash-style attention lowering ----*- C++ -*-===//

#ifndef POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
#define POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// Patterns lowering posenc.fused_attention to a flash-style loop nest on
/// tensors (scf.forall over lead dims and query tiles of `queryTile` rows,
/// scf.for over key/value tiles of `keyTile` rows, online softmax).
/// `vectorLayout` selects the CPU vector layout (static padded tiles,
/// transposed scores, ops marked for --posenc-vectorize-attention-tiles);
/// the default layout is the one the GPU mapping consumes. `queryTile` 0
/// chooses the schedule by shape (the pass's description):
/// with the vector layout, the decode schedule (GQA packing, split-K with
/// `splitKTasks` / `splitKMaxKeys`, the score layout by `vectorBits`, 0:
/// the host's vector width) for Sq <= 16.
void populateDecomposeAttentionPatterns(mlir::RewritePatternSet &patterns,
                                        int64_t queryTile = 0,
                                        int64_t keyTile = 64,
                                        bool vectorLayout = false,
                                        int64_t splitKTasks = 0,
                                        int64_t splitKMaxKeys = 8192,
                                        int64_t vectorBits = 0);

} // namespace posenc

#endif // POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
