//===- PipelineUtils.h - pass sequences the pipelines share -----*- C++ -*-===//
//
// The tensor-level lowering and the bufferization that both the CPU and the
// GPU pipeline run, in one place (they differ only where noted). The CPU
// pipeline (Pipelines.cpp) and the GPU pipeline (NVVMPipeline.cpp) share
// code only through this header (PipelineUtils.cpp), never call each other's
// builders.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_PIPELINES_PIPELINEUTILS_H
#define POSENC_LIB_PIPELINES_PIPELINEUTILS_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace posenc {

/// What is left of posenc after the fused path (or everything, on the
/// reference path) to linalg on tensors, elementwise arith/math on whole
/// tensors to linalg, canonicalization, elementwise fusion, CSE.
/// `fuseIntoAttentionTiles` = false: the GPU's fusion, which leaves the tile
/// ops of a decomposed attention alone (posenc-gpu-fuse-elementwise).
void addPosencTensorLoweringPasses(mlir::OpPassManager &pm,
                                   bool fuseIntoAttentionTiles);

/// One-shot bufferization with identity-layout memrefs at function
/// boundaries (callers pass plain dense buffers), `afterBufferize` (e.g. the
/// GPU's constant copies), the ownership-based deallocation pipeline, and
/// the bufferization-to-memref conversion of the copies bufferization makes.
/// `eliminateEmptyTensors`: a result materialized into a destination buffer
/// is computed there rather than in a new buffer that is then copied.
void addPosencBufferizationPasses(
    mlir::OpPassManager &pm, bool eliminateEmptyTensors,
    llvm::function_ref<void(mlir::OpPassManager &)> afterBufferize = {});

} // namespace posenc

#endif // POSENC_LIB_PIPELINES_PIPELINEUTILS_H
