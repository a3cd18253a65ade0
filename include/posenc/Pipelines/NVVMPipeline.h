//===- NVVMPipeline.h - posenc to NVVM (NVIDIA GPU) pipeline ----*- C++ -*-===//
//
// The GPU twin of the CPU pipeline: the same posenc programs, compiled for
// NVIDIA GPUs (PTX, cubin or fatbin embedded in a `gpu.binary`), with host code
// in the LLVM dialect that launches them through the `mgpu*` runtime entry
// points (lib/Runtime/CUDA, libposenc_cuda_runtime.so).
//
// Attention takes the CPU's fused path (posenc.fused_attention, decomposed
// flash-style) and runs as one kernel per attention: one thread block per
// (batch, head, query tile), K/V tiles in shared memory, the online-softmax
// state of a query row in the private memory of its thread
// (posenc-gpu-map-attention). The standalone ops and, with `fused=false`,
// attention itself go through the reference lowering, one thread per output
// element. f16/bf16 attention runs on tensor cores (mma.sync m16n8k16 with
// f32 accumulation, posenc-gpu-tensor-core-attention); see docs/gpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_PIPELINES_NVVMPIPELINE_H
#define POSENC_PIPELINES_NVVMPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace posenc {

/// Options of `--posenc-to-nvvm="..."`.
struct PosencNVVMPipelineOptions
    : public mlir::PassPipelineOptions<PosencNVVMPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU architecture (sm_80, "
                                          "sm_90, ...)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX target features; the PTX ISA version must be one "
                     "that ptxas accepts for `chip` (sm_90 needs +ptx80)"),
      llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("Optimization level of the NVPTX backend "
                                      "and of ptxas (0-3)"),
                       llvm::cl::init(2)};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc(
          "What the gpu.binary holds: `isa` (PTX text), `bin` (cubin, needs "
          "ptxas), `fatbin` (cubin + PTX, needs ptxas and fatbinary), `llvm` "
          "(LLVM bitcode) or `auto` (fatbin when ptxas is found in the CUDA "
          "toolkit or on PATH, isa otherwise)"),
      llvm::cl::init("auto")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root, for libdevice (math functions), "
                     "ptxas and fatbinary. Empty: $CUDA_ROOT, $CUDA_HOME, "
                     "$CUDA_PATH, then /usr/local/cuda"),
      llvm::cl::init("")};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the elementwise kernels"),
      llvm::cl::init(256)};
  Option<bool> fused{
      *this, "fused",
      llvm::cl::desc("Attention as one flash-attention kernel (fuse, "
                     "decompose, map tiles to blocks and threads); false: "
                     "the reference lowering's kernels, which materialize "
                     "the Sq x Sk scores"),
      llvm::cl::init(true)};
  Option<int64_t> queryTile{
      *this, "query-tile",
      llvm::cl::desc("Fused attention: query rows per thread block, one per "
                     "thread (the block size of the attention kernel)"),
      llvm::cl::init(64)};
  Option<int64_t> keyTile{
      *this, "key-tile",
      llvm::cl::desc("Fused attention: key/value rows per shared-memory tile"),
      llvm::cl::init(32)};
  Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Fused attention with f16/bf16 operands on tensor cores "
                     "(posenc-gpu-tensor-core-attention: mma.sync, f32 "
                     "accumulation, sm_80+); false: the FMA kernel for every "
                     "element type"),
      llvm::cl::init(true)};
  Option<bool> warpgroupMma{
      *this, "warpgroup-mma",
      llvm::cl::desc("With tensor-cores on chip sm_90a: warpgroup MMA "
                     "(wgmma.mma_async, one warpgroup of 64 query rows per "
                     "block, operands in shared memory) instead of mma.sync. "
                     "Other chips have no wgmma (sm_90 without the `a` is "
                     "the portable target) and ignore it"),
      llvm::cl::init(true)};
  Option<bool> decode{
      *this, "decode",
      llvm::cl::desc("Fused attention with a static Sq <= 16 (decode): the "
                     "decode schedule (docs/gpu.md) on the FMA kernel, "
                     "every type: the query heads of a GQA group packed "
                     "into one block (at most query-tile rows), the keys "
                     "split across blocks, a log-sum-exp merge; false: the "
                     "prefill kernels for every Sq"),
      llvm::cl::init(true)};
  Option<int64_t> decodeBlocks{
      *this, "decode-blocks",
      llvm::cl::desc("Decode schedule: split the keys until the grid has at "
                     "least this many blocks (default 264: two per SM of a "
                     "132-SM H100), none shorter than 4 key tiles"),
      llvm::cl::init(264)};
  Option<int64_t> decodeSplits{
      *this, "decode-splits",
      llvm::cl::desc("Decode schedule: split the keys into exactly this "
                     "many ranges (overrides decode-blocks); 0: from the "
                     "shapes"),
      llvm::cl::init(0)};
  Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("First raise linalg/tensor attention and RoPE subgraphs "
                     "into posenc ops (--posenc-raise; exact rewrites)"),
      llvm::cl::init(true)};
};

/// posenc (and upstream tensor-level dialects) down to host code in the LLVM
/// dialect plus one `gpu.binary` per kernel for NVIDIA GPUs. Run the result
/// with mlir-runner and `-shared-libs=libposenc_cuda_runtime.so,...`.
///
/// Memory model: every buffer the program allocates (including copies of the
/// constants it uses) is CUDA managed memory (`gpu.alloc host_shared`), so
/// both the host code and the kernels can read it and returned memrefs are
/// readable from the host. Memrefs passed in by an external caller must be
/// device-accessible (managed, `cuMemHostRegister`ed, or any memory on a
/// system with heterogeneous memory management); see docs/gpu.md.
void buildPosencToNVVMPipeline(mlir::OpPassManager &pm,
                               const PosencNVVMPipelineOptions &options);

/// The CUDA toolkit root the pipeline uses when `cuda-path` is empty: the
/// first of $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH and /usr/local/cuda that is a
/// directory, or "" when there is none.
std::string findCUDAToolkitPath();

/// Registers `--posenc-to-nvvm` with the global pass registry (the passes
/// it is made of are registered with their groups; see
/// posenc/InitAllPasses.h).
void registerPosencNVVMPipeline();

} // namespace posenc

#endif // POSENC_PIPELINES_NVVMPIPELINE_H
