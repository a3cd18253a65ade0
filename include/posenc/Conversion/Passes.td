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

#endif // POSENC_CONVERSION_PASSES_TD
