//===- AttentionToGPU.h - flash attention onto GPU threads ------*- C++ -*-===//
//-*-===//
//
// Maps the bufferized loop nest of --posenc-decompose-attention onto a GPU:
// one thread block per (lead dims, query tile), the tile ops onto threads,
// tile buffers into private or workgroup (shared) memory.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_CONVERSION_ATTENTIONTOGPU_ATTENTIONTOGPU_H
#define POSENC_CONVERSION_ATTENTIONTOGPU_ATTENTIONTOGPU_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// How `mapAttentionForallToGPU` maps a tile loop nest.
struct AttentionGPUMappingOptions {
  /// Threads per block; a tile op whose first parallel dimension is bounded
  /// by it runs one row per thread.
  int64_t blockSize = 64;
  /// Keep the forall and run each mapped op as a sequential loop over the
  /// thread ids (host buffers), instead of a gpu.launch (for CPU tests).
  bool emulateOnCPU = false;
  /// Upper limit of the static shared memory of one block, in bytes.
  int64_t maxWorkgroupBytes = 48 * 1024;
};

/// Rewrites `forall` (memref semantics, normalized, no results: the
/// (lead dims, query tile) loop of a decomposed fused attention) into a
/// gpu.launch with one block per iteration, see PosencGpuMapAttentionPass in
/// posenc/Conversion/Passes.td. Reports an error on `forall` and fails when a
/// tile buffer cannot be bounded or placed.
mlir::LogicalResult
mapAttentionForallToGPU(mlir::RewriterBase &rewriter,
                        mlir::scf::ForallOp forall,
                        const AttentionGPUMappingOptions &options);

} // namespace posenc

#endif // POSENC_CONVERSION_ATTENTIONTOGPU_ATTENTIONTOGPU_H
