//===- NVVMPipeline.cpp - posenc to NVVM (NVIDIA GPU) pipeline ------------===//
//
// posenc -> (attention: posenc.fused_attention, decomposed flash-style as on
// the CPU) -> linalg (the CPU's reference lowering for everything else) ->
// buffers -> attention: one thread block per (lead dims, query tile) by
// posenc-gpu-map-attention; other parallel loop nests: one GPU thread per
// iteration -> outlined kernels -> NVVM -> PTX / cubin in a gpu.binary, with
// host code calling the mgpu* runtime.
//
// The GPU preparation passes it runs (posenc-gpu-fuse-elementwise,
// -copy-constants, -map-parallel-loops, -managed-allocs) are in
// lib/Conversion/GPUPreparation; the tensor lowering and bufferization it
// shares with the CPU pipeline in PipelineUtils.cpp.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/NVVMPipeline.h"
#include "PipelineUtils.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Pipelines/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

/// The most query rows of the decode schedule (posenc-decompose-attention's
/// kMaxDecodeRows): the tensor-core kernel leaves such ops to it.
constexpr int64_t kGpuMaxDecodeRows = 16;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

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
// Option errors
//===----------------------------------------------------------------------===//

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
  else if (options.decodeBlocks < 1)
    os << "decode-blocks (" << static_cast<int64_t>(options.decodeBlocks)
       << ") must be >= 1";
  else if (options.decodeSplits < 0)
    os << "decode-splits (" << static_cast<int64_t>(options.decodeSplits)
       << ") must be >= 0 (0: from the shapes)";
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
    PosencToNVVMConfigErrorPassOptions errorOptions;
    errorOptions.message = error;
    pm.addPass(createPosencToNVVMConfigErrorPass(errorOptions));
    return;
  }
  if (options.raise)
    pm.addPass(createPosencRaisePass());

  // Tensor level: the CPU pipeline's passes. Attention (with the encodings
  // it absorbs) as posenc.fused_attention, decomposed flash-style into a
  // forall over (lead dims, query tile); everything else the reference
  // lowering and elementwise fusion, which on the fused path stays outside
  // the attention tiles.
  if (options.fused) {
    // Transformer-XL and DeBERTa fuse too: the FMA kernel takes their
    // position terms as a dot product per score (docs/gpu.md).
    pm.addPass(createPosencFuseAttentionPass());
    // f16/bf16 attention: one tensor-core kernel, built on tensors; what it
    // does not take (f32, rel_value, ...) goes on to the decomposition.
    if (options.tensorCores) {
      PosencGpuTensorCoreAttentionPassOptions tensorCoreOptions;
      tensorCoreOptions.warpgroupMma =
          options.warpgroupMma && options.chip == "sm_90a";
      // Decode shapes take the decode schedule (split-K keeps every SM
      // busy; a 64-row tensor-core tile would be mostly padding).
      if (options.decode)
        tensorCoreOptions.leaveDecodeRows = kGpuMaxDecodeRows;
      pm.addPass(createPosencGpuTensorCoreAttentionPass(tensorCoreOptions));
    }
    PosencDecomposeAttentionPassOptions decomposeOptions;
    decomposeOptions.queryTile = options.queryTile;
    decomposeOptions.keyTile = options.keyTile;
    decomposeOptions.genericDecode = options.decode;
    decomposeOptions.splitKTasks = options.decodeBlocks;
    decomposeOptions.splitKMaxKeys = 0;
    decomposeOptions.splitKCount = options.decodeSplits;
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
  PosencGpuMapParallelLoopsPassOptions mapLoopsOptions;
  mapLoopsOptions.blockSize = options.blockSize;
  pm.addPass(createPosencGpuMapParallelLoopsPass(mapLoopsOptions));
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
  PassPipelineRegistration<PosencNVVMPipelineOptions>(
      "posenc-to-nvvm",
      "Lower posenc programs to NVIDIA GPU kernels (gpu.binary with PTX, "
      "cubin or fatbin) and LLVM-dialect host code that launches them "
      "through the mgpu* runtime (libposenc_cuda_runtime)",
      buildPosencToNVVMPipeline);
}
