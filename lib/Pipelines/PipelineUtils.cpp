//===- PipelineUtils.cpp - pass sequences the pipelines share -------------===//
//
// Called by the CPU pipeline (Pipelines.cpp) and the GPU pipeline
// (NVVMPipeline.cpp); neither calls the other.
//
//===----------------------------------------------------------------------===//

#include "PipelineUtils.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Pipelines/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void posenc::addPosencTensorLoweringPasses(OpPassManager &pm,
                                           bool fuseIntoAttentionTiles) {
  pm.addPass(createPosencToLinalgPass());
  // linalg.softmax that raising left alone: generics the loop lowering
  // reaches.
  pm.addNestedPass<func::FuncOp>(createPosencDecomposeAggregatesPass());
  // Elementwise arith/math on whole tensors (e.g. `x + sinusoidal table`)
  // becomes linalg so that it fuses and bufferizes like the rest.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (fuseIntoAttentionTiles)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  else
    pm.addPass(createPosencGpuFuseElementwisePass());
  pm.addPass(createCSEPass());
}

void posenc::addPosencBufferizationPasses(
    OpPassManager &pm, bool eliminateEmptyTensors,
    llvm::function_ref<void(OpPassManager &)> afterBufferize) {
  if (eliminateEmptyTensors)
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  if (afterBufferize)
    afterBufferize(pm);
  bufferization::BufferDeallocationPipelineOptions deallocOptions;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOptions);
  // Copies bufferization inserts (e.g. for a returned argument or constant).
  pm.addPass(createConvertBufferizationToMemRefPass());
}
