//===- Pipelines.h - posenc pass pipelines ----------------------*- C++ -*-===//
//
// Pipelines are library functions so that posenc-opt, the C API and Python
// run the same definition.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_PIPELINES_PIPELINES_H
#define POSENC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace posenc {

/// Options of the CPU pipeline (`--posenc-cpu-pipeline="..."`).
struct PosencCPUPipelineOptions
    : public mlir::PassPipelineOptions<PosencCPUPipelineOptions> {
  Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("Lower through the materializing reference lowering "
                     "only (--posenc-to-linalg); the default is the fused "
                     "path (--posenc-fuse-attention, "
                     "--posenc-decompose-attention)"),
      llvm::cl::init(false)};
  Option<int64_t> attentionQueryTile{
      *this, "attention-query-tile",
      llvm::cl::desc("Fused path: query rows per attention tile for every "
                     "Sq (0: by shape, docs/pipelines.md: the decode "
                     "schedule for Sq <= 16, else 64, the fastest of "
                     "32/64/128 measured on the AVX-512 host)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionKeyTile{
      *this, "attention-key-tile",
      llvm::cl::desc("Fused path: key/value rows per attention tile"),
      llvm::cl::init(64)};
  Option<int64_t> attentionSplitKTasks{
      *this, "attention-split-k-tasks",
      llvm::cl::desc("Fused path, decode schedule: split the keys until the "
                     "grid has this many tasks (0: twice the OpenMP "
                     "runtime's thread count, read at run time)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionSplitKMaxKeys{
      *this, "attention-split-k-max-keys",
      llvm::cl::desc("Fused path, decode schedule: the most keys one task "
                     "reads (0: no limit)"),
      llvm::cl::init(8192)};
  Option<int64_t> attentionPrefetchTiles{
      *this, "attention-prefetch-tiles",
      llvm::cl::desc("Fused path, decode schedule: software-prefetch the "
                     "K/V rows this many key tiles ahead (0: none)"),
      llvm::cl::init(1)};
  Option<bool> attentionPrefetchInterleaved{
      *this, "attention-prefetch-interleaved",
      llvm::cl::desc("Fused path, decode tiles of at most 4 rows, f16/bf16 "
                     "K/V: issue the prefetches among the score "
                     "contraction's register tiles instead of in one burst "
                     "per key step"),
      llvm::cl::init(true)};
  Option<int64_t> attentionKeyRegions{
      *this, "attention-key-regions",
      llvm::cl::desc("Fused path, decode schedule: visit a task's full key "
                     "tiles interleaved over this many regions of its keys "
                     "(1: in order)"),
      llvm::cl::init(1)};
  Option<bool> attentionScoreDimsOnLanes{
      *this, "attention-score-dims-on-lanes",
      llvm::cl::desc("Fused path, decode tiles of at most 4 rows: the "
                     "score contraction keeps the head dim on the lanes "
                     "and reduces each score once (false: transposes K in "
                     "registers)"),
      llvm::cl::init(true)};
  Option<bool> attentionWidenKeys{
      *this, "attention-widen-keys",
      llvm::cl::desc("Fused path, decode tiles of more than 16 rows (the "
                     "rows on the lanes), and of 16 rows with 512-bit "
                     "vectors: f16/bf16 K converted to f32 once per key "
                     "tile (false: per broadcast element, per register "
                     "tile of 16 keys for 16 rows)"),
      llvm::cl::init(true)};
  Option<int64_t> attentionRows16KeyTile{
      *this, "attention-rows16-key-tile",
      llvm::cl::desc("Fused path, decode tiles of 16 rows (Sq = 4 with GQA "
                     "4, Sq = 16 MHA): key/value rows per attention tile "
                     "(0: attention-key-tile)"),
      llvm::cl::init(64)};
  Option<int64_t> attentionRows4KeyTile{
      *this, "attention-rows4-key-tile",
      llvm::cl::desc("Fused path, decode tiles of at most 4 rows (Sq = 1, "
                     "Sq = 4 MHA): key/value rows per attention tile (0: "
                     "attention-key-tile)"),
      llvm::cl::init(16)};
  Option<bool> attentionSpreadPrefetches{
      *this, "attention-spread-prefetches",
      llvm::cl::desc("Fused path, decode schedule: spread each key step's "
                     "prefetches of the next key tile over the step's "
                     "contraction loops (--posenc-spread-decode-prefetches) "
                     "instead of one burst at its start (512-bit vectors; "
                     "not 1-row tiles with f32 K/V)"),
      llvm::cl::init(true)};
  Option<bool> attentionPrefetchBetweenContractions{
      *this, "attention-prefetch-between-contractions",
      llvm::cl::desc("Fused path, decode tiles of at most 4 rows with "
                     "spread prefetches: also issue some of a key step's "
                     "prefetches among its softmax ops between the score "
                     "contraction and P V (docs/pipelines.md, \"Prefetches "
                     "between the contractions\")"),
      llvm::cl::init(true)};
  Option<bool> attentionPrefetchAlternateKV{
      *this, "attention-prefetch-alternate-kv",
      llvm::cl::desc("Fused path, decode tiles of at most 4 rows with "
                     "spread prefetches: prefetch the next key tile's K and "
                     "V rows alternately instead of K's first "
                     "(docs/pipelines.md, \"K and V lines in turn\")"),
      llvm::cl::init(true)};
  Option<std::string> ompSchedule{
      *this, "omp-schedule",
      llvm::cl::desc("The schedule of the parallel loops' OpenMP threads "
                     "(--posenc-omp-schedule): dynamic (a thread takes the "
                     "next task when it finishes one), static, guided or "
                     "auto"),
      llvm::cl::init("dynamic")};
  Option<bool> fastRope{
      *this, "fast-rope",
      llvm::cl::desc("Fused path: lower posenc.rope not feeding attention "
                     "with --posenc-lower-rope (false: reference lowering)"),
      llvm::cl::init(true)};
  Option<int64_t> ropeBlockRows{
      *this, "rope-block-rows",
      llvm::cl::desc("Fused path: sequence rows per parallel block of "
                     "--posenc-lower-rope (0: automatic)"),
      llvm::cl::init(0)};
  Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("First raise linalg/tensor attention and RoPE subgraphs "
                     "into posenc ops (--posenc-raise; exact rewrites)"),
      llvm::cl::init(true)};
  Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("LLVM target features the code may use, applied on top "
                     "of the host CPU's (e.g. -avx512f: AVX2 code on an "
                     "AVX-512 host); recorded for the JIT "
                     "(--posenc-target-features). Empty: the host's"),
      llvm::cl::init("")};
  Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Width of the f32 vector registers the register tiles "
                     "are sized for (0: from the host's features and "
                     "target-features: 512 with AVX-512, 256 with AVX2)"),
      llvm::cl::init(0)};
};

/// posenc (and upstream tensor-level dialects) down to the LLVM dialect for
/// the host CPU, runnable with mlir-runner or the ExecutionEngine. Functions
/// take and return memrefs; add `llvm.emit_c_interface` to a function to get
/// a `_mlir_ciface_` wrapper.
void buildPosencCPUPipeline(mlir::OpPassManager &pm,
                            const PosencCPUPipelineOptions &options);

/// TOSA to linalg/tensor/arith with upstream's conversions (MLIR's
/// tosa-to-linalg pipeline, then tosa-to-tensor and tosa-to-arith), then
/// canonicalize + cse: the form posenc-raise recognizes. Run it before
/// posenc-cpu-pipeline or posenc-to-nvvm to take TOSA input.
void buildPosencImportTosaPipeline(mlir::OpPassManager &pm);

/// Registers the posenc pipelines with the global pass registry.
void registerPosencPipelines();

} // namespace posenc

#endif // POSENC_PIPELINES_PIPELINES_H
