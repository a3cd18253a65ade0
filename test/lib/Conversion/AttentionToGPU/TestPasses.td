//===- TestPasses.td - test-only passes of AttentionToGPU --*- tablegen -*-===//
//
// Passes that exist for the tests only: linked into posenc-opt, never into
// the installed libraries (test/lib mirrors lib/, as upstream's
// mlir/test/lib does).
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_TD
#define POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_TD

include "mlir/Pass/PassBase.td"

def PosencGpuEmulateTensorCoresPass
    : Pass<"posenc-gpu-emulate-tensor-cores", "::mlir::ModuleOp"> {
  let summary = "Testing: run the tensor-core attention kernel on the CPU, "
                "one OpenMP thread per GPU thread";
  let description = [{
    For tests on machines without a GPU. Runs right after
    `--posenc-gpu-tensor-core-attention` (on tensors) and turns each of its
    `gpu.launch` ops, as built, into host loops over the grid with an
    `scf.parallel` over the block's threads; followed by
    `--posenc-cpu-pipeline`, the parallel loop becomes an OpenMP team of one
    thread per GPU thread (`omp_set_num_threads(block size)` before each
    emulated launch; a run-time check fails, rather than deadlocks, if the
    runtime grants fewer). The warp-collective ops are
    emulated with block-shared scratch buffers and barriers (libomp's
    `GOMP_barrier`), from their definitions: `gpu.shuffle xor`;
    `nvgpu.ldmatrix` (PTX: lane l receives row l/4 of each 8x8 matrix whose
    rows lanes 8m..8m+7 address, columns 2(l%4), 2(l%4)+1; transposed:
    rows 2(l%4), 2(l%4)+1 of column l/4); `nvgpu.mma.sync` and
    `nvvm.mma.sync` m16n8k16 (fragments placed by upstream's
    `nvgpu::getLaneIdAndValueIdToOperandCoord`, products summed in f32);
    `gpu.barrier`; `nvvm.wgmma.mma_async` (f16/bf16 m64nNk16, f32
    accumulator, K-major A and B): each thread computes its accumulator
    elements (PTX: value i of lane l of warp w of the warpgroup at row 16w
    + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2) from operands read
    through the decoded matrix descriptors (start address, leading and
    stride byte offsets; element (r, k) at start + (r/8) SBO + (k/8) LBO +
    16 (r%8) + 2 (k%8)); swizzled descriptors fail a run-time check, other
    wgmma forms are rejected; `wgmma.fence`, `commit_group`, `wait_group`
    and `fence.proxy` emulate as nothing (the emulated wgmma is
    synchronous). Workgroup tiles become buffers shared by a block's
    threads; the kernel's address of a workgroup global (at most one per
    kernel, the wgmma window) is the stand-in 1024. The kernel's own
    addressing, masks, online softmax and prologues run unchanged, which is
    what the emulation checks.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_TD
