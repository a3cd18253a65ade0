//===- Passes.td - rewrites inside the posenc dialect ------*- tablegen -*-===//

#ifndef POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD
#define POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PosencFuseAttentionPass : Pass<"posenc-fuse-attention"> {
  let summary = "Fuse position encodings into posenc.fused_attention";
  let description = [{
    Rewrites every `posenc.attention` and `posenc.rel_pos_attention` into
    `posenc.fused_attention`, folding the position encodings that feed it:

    - a `posenc.rope` producing `query` and/or `key` becomes the op's
      `q_rope`/`k_rope` prologue (RoPE applied to tiles as they are loaded);
    - a `posenc.alibi_bias` producing `bias` becomes a `score_mod` region
      computing `slope[h] * (j - i')` (or `-slope * |j - i'|`) from the
      indices, with the slopes as a small constant (or the op's `slopes`);
    - any other `bias` tensor is read per element inside `score_mod`;
    - `posenc.rel_pos_attention` becomes a `score_mod` that gathers the
      `[..., Sq, 2K+1]` product `q . rel_key` per (i, j), plus the op's
      `rel_value` term.

    A producer is folded only when the attention is its only user; otherwise
    it stays (its result is still read by the fused op), so nothing is
    computed twice. RoPE with a sequence-length-dependent scaling (dynamic
    NTK, LongRoPE) is not folded. Run `posenc-decompose-attention` next.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD
