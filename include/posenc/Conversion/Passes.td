//===- Passes.td - passes that lower posenc out of itself --*- tablegen -*-===//

#ifndef POSENC_CONVERSION_PASSES_TD
#define POSENC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def PosencToLinalgPass : Pass<"posenc-to-linalg"> {
  let summary = "Reference lowering of every posenc op to linalg on tensors";
  let description = [{
    Lowers `posenc.sinusoidal`, `posenc.rope`, `posenc.alibi_bias`,
    `posenc.attention` and `posenc.rel_pos_attention` to `linalg.generic` ops
    on tensors, one op per formula of SPEC.md, materializing every
    intermediate (the full `Sq x Sk` score matrix, the rotated copy of the
    input, the Shaw `q . rel_key` table). It is the plain, obviously correct
    semantic baseline that fused lowerings are checked against, not a fast
    path.

    f16/bf16 operands are extended to f32 in the element computations and the
    results truncated back; softmax runs in f32 with max subtraction and a row
    whose keys are all masked yields zeros. RoPE inverse frequencies that are
    compile-time constants are folded into a constant table (f64 in exact
    mode); dynamic NTK and LongRoPE compute theirs at run time from
    L = max(positions) + 1.

    Run-time shape checks: when a dynamic size of one operand must equal a
    size of another (e.g. the length of `positions` and the sequence dim of
    the RoPE input), a `cf.assert` reports a mismatch at run time.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PosencDecomposeAttentionPass : Pass<"posenc-decompose-attention"> {
  let summary = "Flash-style lowering of posenc.fused_attention to tiled loops";
  let description = [{
    Lowers every `posenc.fused_attention` to a loop nest on tensors:
    `scf.forall` over the lead dims (batch, heads) and query tiles, and
    `scf.for` over key/value tiles with an online softmax (running row max
    and sum, rescaled f32 accumulator). The RoPE prologue rotates each query
    tile once and each key tile as it is loaded; the `score_mod` region is
    inlined into the score-tile computation; with `causal`, the key loop of a
    query tile stops at the diagonal, so tiles above it are never computed.
    Grouped-query attention reads key/value head `h / (Hq/Hkv)` in place.
    Every intermediate is a `linalg` op on a tile: no `Sq x Sk` tensor and
    no rotated copy of Q or K exists. Sizes that do not divide the tiles and
    dynamic sequence dims are handled with partial last tiles.
  }];
  let options = [
    Option<"queryTile", "query-tile", "int64_t", /*default=*/"32",
           "Rows of Q per tile (a parallel iteration)">,
    Option<"keyTile", "key-tile", "int64_t", /*default=*/"64",
           "Rows of K/V per tile (an iteration of the online softmax)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // POSENC_CONVERSION_PASSES_TD
