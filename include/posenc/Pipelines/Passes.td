//===- Passes.td - passes of the posenc pipelines ----------*- tablegen -*-===//
//
// Passes that belong to a pipeline rather than to a lowering.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_PIPELINES_PASSES_TD
#define POSENC_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def PosencToNVVMConfigErrorPass : Pass<"posenc-to-nvvm-config-error"> {
  let summary = "Report unusable options of --posenc-to-nvvm when the "
                "pipeline runs";
  let description = [{
    A pipeline builder cannot fail, so when the options of
    `--posenc-to-nvvm` are unusable (an unknown `format`, a `block-size`,
    `query-tile`, `key-tile` or `opt-level` out of range, no CUDA toolkit or
    no libdevice where the binary format needs one) the builder adds this
    pass alone instead of the pipeline. It emits
    `posenc-to-nvvm: <message>` on the operation it runs on, the message
    naming the option and its expected and actual value, and fails.
  }];
  let options = [
    Option<"message", "message", "std::string", /*default=*/"\"\"",
           "What is wrong with the options (emitted after "
           "`posenc-to-nvvm: `)">
  ];
}

def PosencDecomposeAggregatesPass
    : Pass<"posenc-decompose-aggregates", "mlir::func::FuncOp"> {
  let summary = "Decompose linalg's aggregated ops (linalg.softmax) into "
                "generics";
  let description = [{
    `linalg.softmax` (and any op implementing linalg's
    `AggregatedOpInterface`) has no lowering to loops of its own: both
    pipelines run this pass before bufferization so that a softmax that
    `posenc-raise` did not fold into `posenc.attention` (raising off, or a
    near miss it declined) still compiles. Each op is replaced by what its
    `decomposeOperation` builds (upstream's max, sub, exp, sum and divide
    generics), the same computation. Upstream has the decomposition only as
    a transform-dialect op (`transform.structured.decompose_interface`), not
    as a pass, hence this one.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect"];
}

def PosencVectorizeCopiesPass
    : Pass<"posenc-vectorize-copies", "mlir::func::FuncOp"> {
  let summary = "Copy strided memrefs with vector loads and stores instead "
                "of the runtime's element-by-element memrefCopy";
  let description = [{
    Upstream's LLVM lowering of `memref.copy` emits an `llvm.memcpy` only
    when both sides are contiguous (identity layout, or a static shape in
    row-major order); every other copy becomes a call to the runtime's
    `memrefCopy`, which walks the elements one by one and calls `memcpy`
    for each. The fused attention kernel makes such copies for every tile
    whose size is not static (a query tile read from a `[.., S, D]` tensor
    into its padded buffer, the output tile written back, a table tile), and
    measured that loop as a fifth of the kernel's time.

    This pass rewrites a `memref.copy` that upstream would hand to
    `memrefCopy`, and whose innermost dimension is static with unit stride
    on both sides, into an `scf.for` nest over the outer dimensions that
    copies each row with 1-D `vector.transfer_read`/`transfer_write`s of at
    most `max-vector-bits` bits (the row length's largest power-of-two
    divisor that fits). Same elements, same order of writes per row; copies
    it cannot rewrite (dynamic or strided innermost dimension, element
    types vectors cannot hold) are left to upstream.
  }];
  let options = [
    Option<"maxVectorBits", "max-vector-bits", "int64_t",
           /*default=*/"4096",
           "The widest vector one read/write moves (a multiple of the "
           "element width; LLVM splits it into the target's registers)">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // POSENC_PIPELINES_PASSES_TD
