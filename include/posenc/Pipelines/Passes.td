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

def PosencResultsToDestinationsPass
    : Pass<"posenc-results-to-destinations", "mlir::ModuleOp"> {
  let summary = "Give a function one destination memref argument per tensor "
                "result, written in place (destination-passing calls)";
  let description = [{
    A function returning tensors returns buffers its code allocates: each
    call gets fresh result memory, which the operating system faults in page
    by page, and a caller that wants the result in its own array must copy
    it there. This pass rewrites the function named by `function`, whose
    results must all be statically shaped ranked tensors, to take one
    identity-layout `memref` argument per result after its own arguments and
    to return nothing: every `func.return %r...` becomes
    `bufferization.materialize_in_destination %r in restrict writable %out`
    per result. The body is unchanged, so the function computes the same
    values. With the empty-tensor elimination that both posenc pipelines
    run before bufferizing, the op that produces a result (a fused
    attention, a RoPE, any destination-style op on a `tensor.empty`) then
    writes straight into the caller's buffer; where it cannot (a result that
    is an argument or a constant), bufferization copies into it.

    Run it before a pipeline. The Python package does so for each compiled
    CPU function whose results are all static tensors (`out=` without a
    copy, docs/design.md "Calling compiled code"); from C, run it with
    `posencModuleRunPipeline` before the lowering. The caller must pass
    destinations that do not overlap the arguments (`restrict`). Fails with
    a diagnostic when the function is missing, is only a declaration, has a
    result that is not a static tensor, or is called inside the module
    (its call sites would keep the old signature).
  }];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "The function to rewrite (required)">
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def PosencOmpSchedulePass : Pass<"posenc-omp-schedule"> {
  let summary = "Give the OpenMP worksharing loops that have no schedule "
                "clause a schedule kind (dynamic by default)";
  let description = [{
    `convert-scf-to-openmp` makes each `scf.parallel` an `omp.wsloop`
    without a `schedule` clause, which libomp runs statically: each thread
    gets an equal, fixed share of the iterations before any starts. The
    CPU pipeline's parallel loops are few and coarse (the fused attention's
    tasks, one per query tile or decode key split, and the blocks of a
    standalone RoPE), so when one thread runs slower than the other (a
    virtual CPU sharing its core with another machine's work, another
    process on the same core) the call waits for the slow thread's whole
    share. With `schedule(dynamic)` a thread takes the next iteration when
    it finishes one, so the faster thread does more of them; the results do
    not depend on which thread runs an iteration (each writes its own
    output, and split-K partials are merged in split order after the loop).

    This pass sets `schedule-kind` on every `omp.wsloop` under the
    operation it runs on that has none (a loop with a schedule keeps it);
    `chunk` sets the chunk size too (0: the runtime's default, one
    iteration for dynamic). `--posenc-cpu-pipeline` runs it after
    `convert-scf-to-openmp` with its `omp-schedule` option. Fails with a
    diagnostic naming the option when `schedule` is not one of `static`,
    `dynamic`, `guided` or `auto`, or `chunk` is negative.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"dynamic\"",
           "The schedule kind: static, dynamic, guided or auto">,
    Option<"chunk", "chunk", "int64_t", /*default=*/"0",
           "Iterations a thread takes at a time (0: the runtime's default)">
  ];
  let dependentDialects = ["mlir::omp::OpenMPDialect",
                           "mlir::LLVM::LLVMDialect"];
}

#endif // POSENC_PIPELINES_PASSES_TD
