//===- Pipelines.cpp - posenc pass pipelines ------------------------------===//

#include "posenc/Pipelines/Pipelines.h"
#include "posenc/Pipelines/NVVMPipeline.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void posenc::buildPosencCPUPipeline(OpPassManager &pm,
                                    const PosencCPUPipelineOptions &options) {
  if (!options.reference) {
    // Fused path: encodings folded into posenc.fused_attention, lowered to
    // flash-style tiled loops; what is left (rope/sinusoidal/alibi not
    // feeding attention) goes through the reference lowering.
    pm.addPass(createPosencFuseAttentionPass());
    PosencDecomposeAttentionPassOptions decomposeOptions;
    decomposeOptions.queryTile = options.attentionQueryTile;
    decomposeOptions.keyTile = options.attentionKeyTile;
    pm.addPass(createPosencDecomposeAttentionPass(decomposeOptions));
  }
  pm.addPass(createPosencToLinalgPass());
  // Elementwise arith/math on whole tensors (e.g. `x + sinusoidal table`)
  // becomes linalg so that it fuses and bufferizes like the rest.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());

  // Tensors to buffers; function boundaries get identity-layout memrefs so
  // that callers (mlir-runner, the C API, numpy) pass plain dense buffers.
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  bufferization::BufferDeallocationPipelineOptions deallocOptions;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOptions);
  // Copies bufferization inserts (e.g. for a returned argument or constant).
  pm.addPass(createConvertBufferizationToMemRefPass());

  // scf.forall (the fused path's parallel loops) -> scf.parallel, which
  // scf-to-cf lowers to sequential loops.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void posenc::registerPosencPipelines() {
  PassPipelineRegistration<PosencCPUPipelineOptions>(
      "posenc-cpu-pipeline",
      "Lower posenc programs to the LLVM dialect for the host CPU",
      buildPosencCPUPipeline);
  registerPosencNVVMPipeline();
}
