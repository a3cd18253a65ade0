//===- NVVMPipeline.cpp - posenc to NVVM (NVIDIA GPU) pipeline ------------===//
//
// posenc -> (attention: posenc.fused_attention, decomposed flash-style as on
// the CPU) -> linalg (the CPU's reference lowering for everything else) ->
// buffers -> attention: one thread block per (lead dims, query tile) by
// posenc-gpu-map-attention; other parallel loop nests: one GPU thread per
// iteration -> outlined kernels -> NVVM -> PTX / cubin in a gpu.binary, with
// host code calling the mgpu* runtime.
//
// Three small preparation passes live here because no upstream pass does what
// the pipeline needs:
//  - posenc-gpu-copy-constants: constants (memref.get_global) are host
//    read-only data that kernels cannot read; they are copied into fresh
//    buffers, which the deallocation pipeline then frees like any other.
//  - posenc-gpu-map-parallel-loops: upstream gpu-map-parallel-loops maps the
//    first three dimensions of a loop nest to blocks and launches one thread
//    per block, with further dimensions sequential in that thread. Here the
//    whole iteration space is linearized and cut into blocks of `block-size`
//    threads, the innermost dimension fastest so that neighbouring threads
//    touch neighbouring elements.
//  - posenc-gpu-managed-allocs: every buffer becomes CUDA managed memory, so
//    that host code (copies, scalar reads, printing, the caller) and kernels
//    share it without explicit transfers.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/NVVMPipeline.h"
#include "PipelineUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Host functions: `func.func` ops that are not inside a `gpu.module`.
static SmallVector<func::FuncOp> getHostFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> functions;
  module.walk([&](func::FuncOp func) {
    if (!func->getParentOfType<gpu::GPUModuleOp>())
      functions.push_back(func);
  });
  return functions;
}

std::string posenc::findCUDAToolkitPath() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var))
      if (*value && llvm::sys::fs::is_directory(value))
        return value;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

/// Whether `tool` is executable in `<toolkit>/bin` or on PATH (the places
/// gpu-module-to-binary looks first).
static bool hasCUDATool(StringRef toolkit, StringRef tool) {
  if (!toolkit.empty()) {
    SmallString<256> path(toolkit);
    llvm::sys::path::append(path, "bin", tool);
    if (llvm::sys::fs::can_execute(path))
      return true;
  }
  return static_cast<bool>(llvm::sys::findProgramByName(tool));
}

//===----------------------------------------------------------------------===//
// posenc-gpu-fuse-elementwise
//===----------------------------------------------------------------------===//

namespace {
/// Upstream's linalg-fuse-elementwise-ops (producer into consumer, single-use
/// producers), except into the tile ops of a decomposed attention (inside an
/// scf.forall): fusing the K prologue (RoPE, conversion) into the Q.K^T
/// contraction would recompute it for every query row from global memory,
/// where posenc-gpu-map-attention computes a K tile once into shared memory.
struct PosencGpuFuseElementwisePass
    : public PassWrapper<PosencGpuFuseElementwisePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PosencGpuFuseElementwisePass)

  StringRef getArgument() const override {
    return "posenc-gpu-fuse-elementwise";
  }
  StringRef getDescription() const override {
    return "Fuse elementwise linalg ops as linalg-fuse-elementwise-ops does, "
           "except inside the tiles of a decomposed attention (scf.forall)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !fused->getOwner()->getParentOfType<scf::ForallOp>();
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};
} // namespace

std::unique_ptr<Pass> posenc::createPosencGpuFuseElementwisePass() {
  return std::make_unique<PosencGpuFuseElementwisePass>();
}

//===----------------------------------------------------------------------===//
// posenc-gpu-copy-constants
//===----------------------------------------------------------------------===//

namespace {
struct PosencGpuCopyConstantsPass
    : public PassWrapper<PosencGpuCopyConstantsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PosencGpuCopyConstantsPass)

  StringRef getArgument() const override { return "posenc-gpu-copy-constants"; }
  StringRef getDescription() const override {
    return "Copy the constant globals that host functions use into "
           "allocated buffers (which the GPU pipeline makes device-visible)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<memref::MemRefDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : getHostFunctions(module)) {
      SmallVector<memref::GetGlobalOp> reads;
      // Reads inside a gpu.launch are the kernel's own (workgroup memory
      // tiles of the tensor-core attention kernel), not host data.
      func.walk([&](memref::GetGlobalOp op) {
        if (!op->getParentOfType<gpu::LaunchOp>())
          reads.push_back(op);
      });
      for (memref::GetGlobalOp read : reads) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            read, read.getNameAttr());
        MemRefType type = read.getType();
        if (!global || !global.getConstant()) {
          // A mutable global would need to live in device memory itself;
          // nothing posenc lowers to creates one.
          read.emitWarning("mutable global is not made device-accessible; "
                           "a kernel reading it will fault");
          continue;
        }
        if (!type.getLayout().isIdentity() || !type.hasStaticShape()) {
          read.emitError("constant global with a non-identity layout or a "
                         "dynamic shape is not supported by the GPU pipeline");
          return signalPassFailure();
        }
        rewriter.setInsertionPointAfter(read);
        auto copyBuffer =
            memref::AllocOp::create(rewriter, read.getLoc(), type);
        auto copy = memref::CopyOp::create(rewriter, read.getLoc(),
                                           read.getResult(), copyBuffer);
        rewriter.replaceAllUsesExcept(read.getResult(), copyBuffer.getResult(),
                                      copy);
      }
    }
  }
};
} // namespace

std::unique_ptr<Pass> posenc::createPosencGpuCopyConstantsPass() {
  return std::make_unique<PosencGpuCopyConstantsPass>();
}

//===----------------------------------------------------------------------===//
// posenc-gpu-map-parallel-loops
//===----------------------------------------------------------------------===//

namespace {
/// Rewrites the outermost parallel loop
///
///   scf.parallel (%i0, ..., %in) = (lb...) to (ub...) step (st...) { body }
///
/// into a block loop and a thread loop over the linearized iteration space
///
///   %total = prod_k ceildiv(max(ub_k - lb_k, 0), st_k)
///   scf.parallel (%b) = (0) to (ceildiv(%total, B)) step (1) {    // block_x
///     scf.parallel (%t) = (0) to (B) step (1) {                  // thread_x
///       %l = %b * B + %t
///       scf.if %l < %total { %i_k = lb_k + delinearize(%l)_k * st_k; body }
///     }
///   }
///
/// Parallel loops nested in `body` run sequentially inside the thread.
struct PosencGpuMapParallelLoopsPass
    : public PassWrapper<PosencGpuMapParallelLoopsPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PosencGpuMapParallelLoopsPass)

  PosencGpuMapParallelLoopsPass() = default;
  PosencGpuMapParallelLoopsPass(const PosencGpuMapParallelLoopsPass &other)
      : PassWrapper(other) {}
  explicit PosencGpuMapParallelLoopsPass(int64_t blockSize) {
    this->blockSize = blockSize;
  }

  StringRef getArgument() const override {
    return "posenc-gpu-map-parallel-loops";
  }
  StringRef getDescription() const override {
    return "Map each outermost scf.parallel of the host functions to GPU "
           "blocks and threads, one thread per iteration";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect, scf::SCFDialect>();
  }

  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError()
          << "block-size (" << static_cast<int64_t>(blockSize)
          << ") must be in [1, 1024]";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : getHostFunctions(getOperation())) {
      SmallVector<scf::ParallelOp> outermost;
      func.walk([&](scf::ParallelOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>() &&
            !loop->getParentOfType<gpu::LaunchOp>() &&
            !loop->hasAttr(gpu::getMappingAttrName()))
          outermost.push_back(loop);
      });
      for (scf::ParallelOp loop : outermost)
        mapToBlocksAndThreads(rewriter, loop);
    }
  }

  void mapToBlocksAndThreads(IRRewriter &rewriter, scf::ParallelOp loop) {
    // A loop with reductions stays on the host (the linalg lowering emits
    // reductions as scf.for inside the parallel loop, so none is expected).
    if (loop.getNumResults() != 0 || loop.getNumLoops() == 0)
      return;
    MLIRContext *ctx = rewriter.getContext();
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
    SmallVector<Value> tripCounts;
    Value total =
        posenc::buildParallelLoopTripCounts(rewriter, loc, loop, tripCounts);
    Value blocks = arith::CeilDivUIOp::create(rewriter, loc, total, threads);

    auto blockLoop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{blocks}, ValueRange{one});
    rewriter.setInsertionPointToStart(blockLoop.getBody());
    auto threadLoop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{threads}, ValueRange{one});
    rewriter.setInsertionPointToStart(threadLoop.getBody());
    Value linear = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, blockLoop.getInductionVars()[0],
                              threads),
        threadLoop.getInductionVars()[0]);
    Value inBounds = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, linear, total);
    auto guard = scf::IfOp::create(rewriter, loc, inBounds,
                                   /*withElseRegion=*/false);

    // Delinearize, innermost dimension fastest.
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
    SmallVector<Value> ivs =
        posenc::delinearizeParallelLoop(rewriter, loc, linear, loop, tripCounts);

    // Move the body (without its scf.reduce terminator) into the guard.
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, guard.thenBlock()->getTerminator(), ivs);
    rewriter.eraseOp(loop);

    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto dimMapping = [&](gpu::Processor processor) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity,
                                                  identity);
    };
    (void)gpu::setMappingAttr(blockLoop, {dimMapping(gpu::Processor::BlockX)});
    (void)gpu::setMappingAttr(threadLoop,
                              {dimMapping(gpu::Processor::ThreadX)});
    guard.walk([&](scf::ParallelOp nested) {
      SmallVector<gpu::ParallelLoopDimMappingAttr> sequential(
          nested.getNumLoops(), dimMapping(gpu::Processor::Sequential));
      (void)gpu::setMappingAttr(nested, sequential);
    });
  }
};
} // namespace

std::unique_ptr<Pass>
posenc::createPosencGpuMapParallelLoopsPass(int64_t blockSize) {
  return std::make_unique<PosencGpuMapParallelLoopsPass>(blockSize);
}

//===----------------------------------------------------------------------===//
// posenc-gpu-managed-allocs
//===----------------------------------------------------------------------===//

namespace {
struct PosencGpuManagedAllocsPass
    : public PassWrapper<PosencGpuManagedAllocsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PosencGpuManagedAllocsPass)

  StringRef getArgument() const override { return "posenc-gpu-managed-allocs"; }
  StringRef getDescription() const override {
    return "Allocate the host functions' buffers as CUDA managed memory "
           "(gpu.alloc host_shared), readable by host and kernels";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect>();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto tokenType = gpu::AsyncTokenType::get(&getContext());
    for (func::FuncOp func : getHostFunctions(getOperation())) {
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
            !op->getParentOfType<gpu::LaunchOp>())
          ops.push_back(op);
      });
      for (Operation *op : ops) {
        rewriter.setInsertionPoint(op);
        if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
          MemRefType type = alloc.getType();
          if (!type.getLayout().isIdentity() || type.getMemorySpace())
            continue;
          auto managed = gpu::AllocOp::create(
              rewriter, alloc.getLoc(), type, /*asyncToken=*/Type(),
              /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
              alloc.getSymbolOperands(), /*hostShared=*/true);
          rewriter.replaceOp(alloc, managed.getMemref());
          continue;
        }
        // gpu.dealloc only lowers in its async form: free on a fresh stream
        // and wait for it.
        auto dealloc = cast<memref::DeallocOp>(op);
        Location loc = dealloc.getLoc();
        auto stream =
            gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{});
        auto free = gpu::DeallocOp::create(rewriter, loc, tokenType,
                                           ValueRange{stream.getAsyncToken()},
                                           dealloc.getMemref());
        gpu::WaitOp::create(rewriter, loc, Type(),
                            ValueRange{free.getAsyncToken()});
        rewriter.eraseOp(dealloc);
      }
    }
  }
};
} // namespace

std::unique_ptr<Pass> posenc::createPosencGpuManagedAllocsPass() {
  return std::make_unique<PosencGpuManagedAllocsPass>();
}

//===----------------------------------------------------------------------===//
// Option errors
//===----------------------------------------------------------------------===//

namespace {
/// Stands in for the whole pipeline when its options are unusable: a pipeline
/// builder cannot fail, so the error is reported when the pipeline runs.
struct PosencNVVMConfigErrorPass
    : public PassWrapper<PosencNVVMConfigErrorPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PosencNVVMConfigErrorPass)

  explicit PosencNVVMConfigErrorPass(std::string message)
      : message(std::move(message)) {}

  StringRef getArgument() const override {
    return "posenc-to-nvvm-config-error";
  }
  void runOnOperation() override {
    getOperation()->emitError() << "posenc-to-nvvm: " << message;
    signalPassFailure();
  }

  std::string message;
};
} // namespace

/// Why the pipeline cannot run with `options` (and the resolved toolkit and
/// format), or "" when it can.
static std::string
diagnoseOptions(const posenc::PosencNVVMPipelineOptions &options,
                StringRef toolkit, StringRef format) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (!llvm::is_contained({"isa", "assembly", "bin", "binary", "fatbin",
                           "fatbinary", "llvm", "offloading"},
                          format))
    os << "format (" << format
       << ") must be one of auto, isa, bin, fatbin, llvm";
  else if (options.blockSize < 1 || options.blockSize > 1024)
    os << "block-size (" << static_cast<int64_t>(options.blockSize)
       << ") must be in [1, 1024]";
  else if (options.queryTile < 1 || options.queryTile > 1024)
    os << "query-tile (" << static_cast<int64_t>(options.queryTile)
       << ") must be in [1, 1024] (it is the attention kernel's block size)";
  else if (options.keyTile < 1)
    os << "key-tile (" << static_cast<int64_t>(options.keyTile)
       << ") must be >= 1";
  else if (options.optLevel < 0 || options.optLevel > 3)
    os << "opt-level (" << static_cast<int>(options.optLevel)
       << ") must be in [0, 3]";
  else if (format != "llvm" && format != "offloading") {
    // The kernels' sin/cos/exp/... become libdevice calls; without libdevice
    // gpu-module-to-binary only warns and leaves them unresolved in the PTX.
    SmallString<256> libdevice(toolkit);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (toolkit.empty())
      os << "no CUDA toolkit found (its libdevice implements the kernels' "
            "math functions); pass cuda-path=<CUDA toolkit root> or set "
            "CUDA_HOME";
    else if (!llvm::sys::fs::is_regular_file(libdevice))
      os << "libdevice not found at " << libdevice
         << " (it implements the kernels' math functions); pass "
            "cuda-path=<CUDA toolkit root>";
  }
  return message;
}

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

void posenc::buildPosencToNVVMPipeline(
    OpPassManager &pm, const PosencNVVMPipelineOptions &options) {
  std::string toolkit = options.cudaPath.empty()
                            ? findCUDAToolkitPath()
                            : std::string(options.cudaPath);
  std::string format = options.format;
  if (format == "auto") {
    if (!hasCUDATool(toolkit, "ptxas"))
      format = "isa";
    else
      format = hasCUDATool(toolkit, "fatbinary") ? "fatbin" : "bin";
  }
  std::string error = diagnoseOptions(options, toolkit, format);
  if (!error.empty()) {
    pm.addPass(std::make_unique<PosencNVVMConfigErrorPass>(error));
    return;
  }

  // Tensor level: the CPU pipeline's passes. Attention (with the encodings
  // it absorbs) as posenc.fused_attention, decomposed flash-style into a
  // forall over (lead dims, query tile); everything else the reference
  // lowering and elementwise fusion, which on the fused path stays outside
  // the attention tiles.
  if (options.fused) {
    pm.addPass(createPosencFuseAttentionPass());
    // f16/bf16 attention: one tensor-core kernel, built on tensors; what it
    // does not take (f32, rel_value, ...) goes on to the decomposition.
    if (options.tensorCores) {
      PosencGpuTensorCoreAttentionPassOptions tensorCoreOptions;
      tensorCoreOptions.warpgroupMma =
          options.warpgroupMma && options.chip == "sm_90a";
      pm.addPass(createPosencGpuTensorCoreAttentionPass(tensorCoreOptions));
    }
    PosencDecomposeAttentionPassOptions decomposeOptions;
    decomposeOptions.queryTile = options.queryTile;
    decomposeOptions.keyTile = options.keyTile;
    pm.addPass(createPosencDecomposeAttentionPass(decomposeOptions));
  }
  // The fused path's fusion stays out of the attention tiles (see
  // posenc-gpu-fuse-elementwise); the reference path fuses as on the CPU.
  addPosencTensorLoweringPasses(pm, /*fuseIntoAttentionTiles=*/!options.fused);

  // Buffers, before the mapping: identity-layout memrefs at function
  // boundaries, constants copied so that they can become device-visible.
  addPosencBufferizationPasses(pm, /*eliminateEmptyTensors=*/false,
                               [](OpPassManager &pm) {
                                 pm.addPass(createPosencGpuCopyConstantsPass());
                               });

  // Fused attention onto the GPU: each forall becomes a gpu.launch, one block
  // per (lead dims, query tile), one thread per query row.
  if (options.fused) {
    PosencGpuMapAttentionPassOptions mapOptions;
    mapOptions.blockSize = options.queryTile;
    pm.addPass(createPosencGpuMapAttentionPass(mapOptions));
    // The per-thread rows in registers, not local memory.
    pm.addPass(createPosencGpuUnrollPrivateLoopsPass());
  }

  // Loops onto the GPU: one thread per iteration of each parallel loop nest.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createPosencGpuMapParallelLoopsPass(options.blockSize));
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createPosencGpuManagedAllocsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Outlining copies the workgroup-memory globals of the tensor-core kernels
  // into their gpu.module; the host's originals are now unused (and have no
  // host address space).
  pm.addPass(createSymbolDCEPass());

  // From here on upstream's buildLowerToNVVMPassPipeline, with the toolkit
  // path passed down (libdevice, ptxas) and posenc's option names.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.features = options.features;
  targetOptions.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.toolkitPath = toolkit;
  binaryOptions.compilationTarget = format;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));

  // What is left on the host: math (through intrinsics, then libm), and the
  // function declarations libm calls introduce.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void posenc::registerPosencNVVMPipeline() {
  PassRegistration<PosencGpuFuseElementwisePass>();
  PassRegistration<PosencGpuCopyConstantsPass>();
  PassRegistration<PosencGpuMapParallelLoopsPass>();
  PassRegistration<PosencGpuManagedAllocsPass>();
  PassPipelineRegistration<PosencNVVMPipelineOptions>(
      "posenc-to-nvvm",
      "Lower posenc programs to NVIDIA GPU kernels (gpu.binary with PTX, "
      "cubin or fatbin) and LLVM-dialect host code that launches them "
      "through the mgpu* runtime (libposenc_cuda_runtime)",
      buildPosencToNVVMPipeline);
}
