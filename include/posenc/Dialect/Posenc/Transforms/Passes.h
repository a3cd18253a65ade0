//===- Passes.h - rewrites inside the posenc dialect ------------*- C++ -*-===//

#ifndef POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_H
#define POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace posenc {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "posenc/Dialect/Posenc/Transforms/Passes.h.inc"

/// Patterns that rewrite posenc.attention / posenc.rel_pos_attention (with
/// the rope, alibi_bias and bias producers that feed them) into
/// posenc.fused_attention, and posenc.xl_attention and (with
/// `disentangled`) posenc.disentangled_attention into its terms. See the
/// posenc-fuse-attention pass.
void populatePosencFusionPatterns(mlir::RewritePatternSet &patterns,
                                  bool disentangled = true);

/// Patterns that raise linalg/tensor subgraphs (as ML front ends emit them)
/// into posenc.rope and posenc.attention; see the posenc-raise pass for the
/// accepted forms. With `emitRemarks`, every raised op gets a remark.
void populatePosencRaisingPatterns(mlir::RewritePatternSet &patterns,
                                   bool emitRemarks = false);

} // namespace posenc

#endif // POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_H
