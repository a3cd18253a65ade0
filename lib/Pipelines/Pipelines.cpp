//===- Pipelines.cpp - the posenc CPU pipeline ----------------------------===//
//
// The CPU pipeline, and the registration of every posenc pipeline. The pass
// sequences it shares with the GPU pipeline are in PipelineUtils.cpp.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Pipelines.h"
#include "PipelineUtils.h"
#include "posenc/Pipelines/NVVMPipeline.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Conversion/TargetVectorWidth.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Pipelines/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
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
  if (options.raise)
    pm.addPass(createPosencRaisePass());
  if (!options.reference) {
    // Fused path: encodings folded into posenc.fused_attention, lowered to
    // flash-style tiled loops; what is left (rope/sinusoidal/alibi not
    // feeding attention) goes through the reference lowering.
    pm.addPass(createPosencFuseAttentionPass());
    PosencDecomposeAttentionPassOptions decomposeOptions;
    decomposeOptions.queryTile = options.attentionQueryTile;
    decomposeOptions.keyTile = options.attentionKeyTile;
    decomposeOptions.vectorLayout = true;
    decomposeOptions.splitKTasks = options.attentionSplitKTasks;
    decomposeOptions.splitKMaxKeys = options.attentionSplitKMaxKeys;
    decomposeOptions.prefetchTiles = options.attentionPrefetchTiles;
    decomposeOptions.prefetchInterleaved =
        options.attentionPrefetchInterleaved;
    decomposeOptions.keyRegions = options.attentionKeyRegions;
    decomposeOptions.scoreDimsOnLanes = options.attentionScoreDimsOnLanes;
    decomposeOptions.widenKeys = options.attentionWidenKeys;
    decomposeOptions.rows16KeyTile = options.attentionRows16KeyTile;
    decomposeOptions.rows4KeyTile = options.attentionRows4KeyTile;
    decomposeOptions.spreadPrefetches = options.attentionSpreadPrefetches;
    decomposeOptions.prefetchBetweenContractions =
        options.attentionPrefetchBetweenContractions;
    decomposeOptions.prefetchAlternateKV = options.attentionPrefetchAlternateKV;
    // The target's vector width: the decode tiles' layout and the register
    // tiles below are chosen for it.
    int64_t vectorBits =
        options.vectorBits > 0
            ? int64_t(options.vectorBits)
            : getVectorBitsForFeatures(getHostCPUFeatures() + "," +
                                       options.targetFeatures.getValue());
    decomposeOptions.vectorBits = vectorBits;
    pm.addPass(createPosencDecomposeAttentionPass(decomposeOptions));
    // Register tiles and vectors for the tile ops, before the elementwise
    // fusion below could merge a prologue into a contraction; sized for the
    // target's vector registers.
    PosencVectorizeAttentionTilesPassOptions tileOptions;
    tileOptions.vectorBits = vectorBits;
    pm.addNestedPass<func::FuncOp>(
        createPosencVectorizeAttentionTilesPass(tileOptions));
    pm.addPass(createCanonicalizerPass());
    // RoPE not folded into attention: a parallel vector loop nest instead of
    // the reference's scalar generic.
    if (options.fastRope) {
      PosencLowerRopePassOptions ropeOptions;
      ropeOptions.blockRows = options.ropeBlockRows;
      pm.addPass(createPosencLowerRopePass(ropeOptions));
    }
  }
  if (!options.targetFeatures.empty()) {
    PosencTargetFeaturesPassOptions featureOptions;
    featureOptions.features = options.targetFeatures;
    pm.addPass(createPosencTargetFeaturesPass(featureOptions));
  }
  addPosencTensorLoweringPasses(pm, /*fuseIntoAttentionTiles=*/true);
  // Tile buffers allocated inside sequential loops (a decode task's score
  // tile, one per key tile) move out of them: once per task, not a
  // malloc/free per key tile (upstream buffer-loop-hoisting; it stops at
  // the parallel loops, so each task keeps its own buffers).
  addPosencBufferizationPasses(
      pm, /*eliminateEmptyTensors=*/true, [](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(
            bufferization::createBufferLoopHoistingPass());
      });
  // Tile copies as vector loops, not the runtime's per-element memrefCopy.
  pm.addNestedPass<func::FuncOp>(createPosencVectorizeCopiesPass());
  // Decode key steps' prefetch bursts marked by attention-spread-prefetches
  // go among their contraction loops (nothing marked: nothing changes).
  pm.addNestedPass<func::FuncOp>(createPosencSpreadDecodePrefetchesPass());

  // scf.forall (the fused path's (lead dims, query tile) loops) ->
  // scf.parallel -> omp.parallel + omp.wsloop: the OpenMP runtime (libomp,
  // OMP_NUM_THREADS threads) runs the tiles. The loops linalg-to-loops makes
  // are scf.for and stay sequential inside a tile.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  // The tasks taken as threads finish them, not split evenly up front.
  PosencOmpSchedulePassOptions scheduleOptions;
  scheduleOptions.schedule = options.ompSchedule;
  pm.addPass(createPosencOmpSchedulePass(scheduleOptions));
  // The fused path's vectors: accumulators hoisted into registers,
  // contractions to FMAs, exp/sin/cos as polynomials. The transfers first
  // address the buffers under their subviews: the hoisting does not see
  // through a subview (an accumulator tile initialized in place, decode).
  pm.addPass(memref::createFoldMemRefAliasOpsPass());
  pm.addNestedPass<func::FuncOp>(createPosencLowerAttentionVectorsPass());
  pm.addPass(createCanonicalizerPass());
  // n-D transfers to 1-D vector loads/stores (unrolled).
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertVectorToLLVMPassOptions vectorToLLVMOptions;
  vectorToLLVMOptions.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVMOptions.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVMOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Complex arithmetic (Meta's RoPE as torch-mlir lowers it, when not
  // raised): create/re/im/mul as LLVM structs of two floats.
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void posenc::buildPosencImportTosaPipeline(OpPassManager &pm) {
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void posenc::registerPosencPipelines() {
  PassPipelineRegistration<>(
      "posenc-import-tosa",
      "Convert TOSA to linalg/tensor/arith (upstream conversions) for "
      "posenc-raise and the posenc pipelines",
      buildPosencImportTosaPipeline);
  PassPipelineRegistration<PosencCPUPipelineOptions>(
      "posenc-cpu-pipeline",
      "Lower posenc programs to the LLVM dialect for the host CPU",
      buildPosencCPUPipeline);
  registerPosencNVVMPipeline();
}
