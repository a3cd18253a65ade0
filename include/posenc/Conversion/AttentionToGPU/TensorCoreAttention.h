//===- TensorCoreAttention.h - f16/bf16 attention on tensor cores -*- C++ -*-===//
//
// posenc.fused_attention with f16 or bf16 operands as one flash-attention
// kernel on NVIDIA tensor cores (warp-level mma.sync m16n8k16, f32
// accumulation). See PosencGpuTensorCoreAttentionPass in
// posenc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_CONVERSION_ATTENTIONTOGPU_TENSORCOREATTENTION_H
#define POSENC_CONVERSION_ATTENTIONTOGPU_TENSORCOREATTENTION_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace posenc {

/// Marks the gpu.launch of a tensor-core attention kernel (for
/// posenc-gpu-emulate-tensor-cores).
inline constexpr llvm::StringLiteral kTensorCoreKernelAttr =
    "posenc.tensor_core_kernel";

/// Shape of the tensor-core kernel.
struct TensorCoreAttentionOptions {
  /// Warps per block; each warp owns 16 query rows, so a block covers
  /// 16 * warps query rows.
  int64_t warps = 4;
  /// Key/value rows per shared-memory tile (a multiple of 16).
  int64_t keyTile = 64;
  /// Static shared memory available to one block, in bytes.
  int64_t maxWorkgroupBytes = 48 * 1024;
  /// Warpgroup MMA (wgmma.mma_async, sm_90a only) instead of mma.sync: one
  /// warpgroup (4 warps, 64 query rows) per block, Q, K, P and V^T in shared
  /// memory in the no-swizzle K-major core-matrix layout.
  bool warpgroupMma = false;
  /// Ops whose Sq is static and at most this many rows are left to the
  /// decode schedule of the decomposition (0: none).
  int64_t leaveDecodeRows = 0;
};

/// Byte offset of element (row, col) in a no-swizzle K-major wgmma operand
/// of `cols` columns (K) and 16-bit elements: 8 x 8 core matrices of 128
/// contiguous bytes (8 rows of 16 bytes), core matrix (row / 8, col / 8) at
/// ((row / 8) * (cols / 8) + col / 8) * 128. Adjacent core matrices along K
/// are 128 bytes apart (the descriptor's leading byte offset), along M/N
/// (cols / 8) * 128 bytes (its stride byte offset).
/// The map (row, col) -> (row / 8, col / 8, row % 8, col % 8): the index of
/// the element in a [rows / 8, cols / 8, 8, 8] buffer, whose row-major
/// order is that layout.
mlir::AffineMap getWarpgroupOperandIndexMap(mlir::MLIRContext *ctx);

/// The fragment loads of the kernel (nvgpu.ldmatrix from shared memory).
enum class TensorCoreLoad {
  /// x4, not transposed: the A fragment of a 16x16 block of the Q tile.
  QueryA,
  /// x2, not transposed: the B fragment (K^T) of 8 key rows x 16 dims.
  KeyB,
  /// x2, transposed: the B fragment of 16 key rows x 8 dims of the V tile.
  ValueB,
};

/// (lane) -> (row, col): the shared-memory element, relative to the block's
/// first row and column, whose address lane `lane` gives to the ldmatrix of
/// `load` (lanes 8m..8m+7 address the rows of 8x8 matrix m). The kernel
/// builds its addresses from these maps; the unit tests check them against
/// ldmatrix's definition and upstream's mma.sync fragment layouts.
mlir::AffineMap getTensorCoreLoadAddressMap(mlir::MLIRContext *ctx,
                                            TensorCoreLoad load);

/// (lane, register, element) -> (row, col): where element `element` of
/// register `register` (the vector<2x2xf32> accumulator of an m16n8 tile)
/// of lane `lane` sits in the 16x8 tile.
mlir::AffineMap getTensorCoreAccumulatorMap(mlir::MLIRContext *ctx);

/// Why `op` cannot take the tensor-core kernel with `options` (empty when it
/// can): element types other than f16/bf16, head dims that are dynamic, not
/// multiples of 16 (D) / 8 (Dv) or above 128, a rel_value term, a score_mod
/// region with ops other than scalar arithmetic and tensor.extract of its
/// tensor operands, tiles that do not fit in shared memory.
std::string whyNotTensorCores(FusedAttentionOp op,
                              const TensorCoreAttentionOptions &options);

/// Rewrites each supported posenc.fused_attention into a gpu.launch (on
/// buffers of its operands, `bufferization.to_buffer`) that computes it with
/// mma.sync, and a `bufferization.to_tensor` of the result buffer.
/// Unsupported ops are left for the FMA kernel (decomposition + mapping).
void populatePosencGpuTensorCoreAttentionPatterns(
    mlir::RewritePatternSet &patterns,
    const TensorCoreAttentionOptions &options);

/// Declares gpu.barrier's memory effects (reads and writes) and
/// nvvm.mma.sync's (none), so that the
/// buffer deallocation pipeline accepts the kernels this pass builds on
/// tensors. The pass adds it to the context itself (dependent dialects).
void registerTensorCoreAttentionExternalModels(mlir::DialectRegistry &registry);

} // namespace posenc

#endif // POSENC_CONVERSION_ATTENTIONTOGPU_TENSORCOREATTENTION_H
