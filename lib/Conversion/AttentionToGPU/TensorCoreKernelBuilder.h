//===- TensorCoreKernelBuilder.h - builder of the tensor-core kernel -*- C++ -*-===//
//
// The builder of posenc-gpu-tensor-core-attention's kernel, private to
// lib/Conversion/AttentionToGPU. Its phases (TensorCoreKernel.cpp) are the
// kernel's: host setup, the launch, Q staging, the key-tile step, the
// epilogue; the products are either mma.sync on register fragments
// (MmaSyncFragments.cpp) or wgmma on shared-memory operands
// (WarpgroupMma.cpp). The algorithm is described in TensorCoreAttention.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TENSORCOREKERNELBUILDER_H
#define POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TENSORCOREKERNELBUILDER_H

#include "posenc/Conversion/AttentionToGPU/TensorCoreAttention.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>

namespace posenc {
namespace tensor_core {

/// Threads of a warp.
inline constexpr int64_t kLanes = 32;
/// Padding of a shared-memory tile row, in elements: rows 16 bytes apart in
/// bank order, so the 8 row addresses of one ldmatrix hit distinct banks.
inline constexpr int64_t kRowPad = 8;

/// Shared-memory bytes of the warpgroup-MMA kernel: Q [64 x D], K [Bn x D]
/// (P [64 x Bn] over it), V^T [Dv x Bn], 16-bit elements.
int64_t warpgroupTileBytes(int64_t d, int64_t dv, int64_t bn);

/// Static size of dim `dim` of the shaped value `v`.
inline int64_t staticDim(mlir::Value v, int64_t dim) {
  return mlir::cast<mlir::ShapedType>(v.getType()).getDimSize(dim);
}

/// Builds the kernel of one op. Index arithmetic is on `index`; fragments
/// are SSA values unrolled over the static tile (D, Dv, key tile).
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc, FusedAttentionOp op,
                const TensorCoreAttentionOptions &o);

  /// Builds the launch before the op; returns the result tensor.
  mlir::Value build();

private:
  //===--------------------------------------------------------------------===//
  // Small builders.
  //===--------------------------------------------------------------------===//

  mlir::Value c(int64_t v) { return indexConst(b, loc, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
  mlir::Value divu(mlir::Value x, int64_t y) {
    return mlir::arith::DivUIOp::create(b, loc, x, c(y));
  }
  mlir::Value remu(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, c(y));
  }
  mlir::Value f32(double v) { return floatConst(b, loc, b.getF32Type(), v); }
  /// Result `result` of `map` applied to `operands`.
  mlir::Value apply(mlir::AffineMap map, unsigned result,
                    mlir::ValueRange operands) {
    return mlir::affine::AffineApplyOp::create(b, loc, map.getSubMap({result}),
                                               operands);
  }

  //===--------------------------------------------------------------------===//
  // Phases of build() (TensorCoreKernel.cpp), in the order they run.
  //===--------------------------------------------------------------------===//

  /// Host side: run-time checks, operand buffers, RoPE tables, score_mod
  /// operands, sizes, the result buffer, tile counts.
  void buildHostSetup();
  /// The shared-memory tiles as private workgroup memref.globals.
  void declareSharedTiles();
  /// The gpu.launch, guarded against an empty grid; leaves the insertion
  /// point in its body after the thread, tile and lead-index values. Returns
  /// the guard.
  mlir::scf::IfOp buildLaunch();
  /// Q staged into shared memory (mma.sync: its A fragments loaded).
  void stageQuery();
  /// The key tiles the block visits: all, or (causal) up to its last row.
  mlir::Value keyTileCount();
  /// The loop over key tiles; its results are the running max and sum of
  /// rows g and g+8, then the O fragments.
  mlir::scf::ForOp buildKeyLoop(mlir::Value upper);
  /// One key tile at key `k0`, from the loop state `iter`: stage K and V,
  /// S = Q K^T, scores, online softmax, O += P V. Returns the next state.
  llvm::SmallVector<mlir::Value> buildKeyTileStep(mlir::Value k0,
                                                  mlir::ValueRange iter);
  /// The scores of the S fragments `s` of key tile `k0`, 4 per 8-key block
  /// in C-fragment order: times `scaleV`, score_mod, -inf where masked. `rowMax` (from -inf) receives the lane's maximum of rows g and
  /// g+8.
  llvm::SmallVector<std::array<mlir::Value, 4>>
  buildScores(llvm::ArrayRef<mlir::Value> s, mlir::Value k0,
              mlir::Value scaleV, mlir::Value (&rowMax)[2]);
  /// The online-softmax update of the running max `m` and sum `l` of rows g
  /// and g+8 by the scores `x`, whose lane maxima are `rowMax`: `acc` is
  /// rescaled, `p` receives exp(x - max) (4 per 8-key block) and `next` the
  /// new max and sum.
  void buildSoftmaxUpdate(mlir::Value (&m)[2], mlir::Value (&l)[2],
                          llvm::ArrayRef<std::array<mlir::Value, 4>> x,
                          mlir::Value (&rowMax)[2],
                          llvm::SmallVectorImpl<mlir::Value> &acc,
                          llvm::SmallVectorImpl<mlir::Value> &p,
                          llvm::SmallVectorImpl<mlir::Value> &next);
  /// O / l rounded to the element type, written from the fragments.
  void buildEpilogue(mlir::scf::ForOp keyLoop);

  //===--------------------------------------------------------------------===//
  // Shared pieces (TensorCoreKernel.cpp).
  //===--------------------------------------------------------------------===//

  mlir::Value toBuffer(mlir::Value tensor);
  /// Buffers of the [S x R/2] cos and sin tables of `rope` at `positions`.
  std::pair<mlir::Value, mlir::Value> rotaryTables(RotaryAttr rope,
                                                   mlir::Value positions);
  /// How a staged tile is stored: [rows][cols + pad] (ldmatrix), in the
  /// wgmma K-major layout with rows on M/N, or transposed (V^T: cols on N).
  enum class TileLayout { Padded, Warpgroup, WarpgroupTransposed };
  /// Stages rows [rowStart, rowStart + rows) of `src` (zeros past `seqLen`)
  /// into the shared `tile`, rotated with the `cosT`/`sinT` tables when
  /// `rope` is set.
  void stageTile(mlir::Value src, llvm::ArrayRef<mlir::Value> lead,
                 mlir::Value rowStart, mlir::Value seqLen, int64_t rows,
                 int64_t cols, RotaryAttr rope, mlir::Value cosT,
                 mlir::Value sinT, mlir::Value tile,
                 TileLayout layout = TileLayout::Padded);
  /// The score_mod region applied to score `s` of query row `i`, key `j`.
  mlir::Value scoreMod(mlir::Value s, llvm::ArrayRef<mlir::Value> lead,
                       mlir::Value i, mlir::Value j);

  //===--------------------------------------------------------------------===//
  // mma.sync on register fragments (MmaSyncFragments.cpp).
  //===--------------------------------------------------------------------===//

  mlir::Value ldmatrix(mlir::Value tile, mlir::Value row, mlir::Value col,
                       int64_t tiles, bool transpose);
  mlir::Value mma(mlir::Value a, mlir::Value bFrag, mlir::Value acc);
  /// Max or sum of `v` over the four lanes that hold one row.
  mlir::Value quadReduce(mlir::Value v, bool isMax);
  /// The A fragments of the warp's 16 query rows from the staged Q tile.
  void loadQueryFragments();
  /// S = Q K^T of the staged K tile, one accumulator per 8 keys.
  llvm::SmallVector<mlir::Value> mmaSyncScores();
  /// acc += P V from the probabilities `p` (4 per 8-key block) and the
  /// staged V tile.
  void mmaSyncAccumulate(llvm::ArrayRef<mlir::Value> p,
                         llvm::SmallVectorImpl<mlir::Value> &acc);

  //===--------------------------------------------------------------------===//
  // wgmma on shared-memory operands (WarpgroupMma.cpp).
  //===--------------------------------------------------------------------===//

  /// The window of the four operands, one private workgroup global.
  void declareWarpgroupWindow();
  /// The window's address and the Q, K, P and V^T views of it.
  void viewWarpgroupWindow();
  /// Indices of element (row, col) of a wgmma operand buffer.
  llvm::SmallVector<mlir::Value> warpgroupIndex(mlir::Value row,
                                                mlir::Value col);
  /// Makes generic-proxy stores to shared memory visible to wgmma (the
  /// async proxy), then a block barrier.
  void fenceForWarpgroupMma();
  /// The wgmma matrix descriptor of the K-major operand at byte `offset` of
  /// the shared window, `cols` (K) columns wide.
  mlir::Value descriptor(int64_t offset, int64_t cols);
  /// acc += A B^T: one wgmma.mma_async m64n{nDim}k16 batch over `steps` k16
  /// steps (fence, the wgmmas, commit, wait 0). A and B are K-major at byte
  /// offsets `aOff` and `bOff`, `aCols` and `bCols` columns wide. `acc`
  /// holds nDim / 8 accumulator vectors in the mma.sync C layout.
  llvm::SmallVector<mlir::Value>
  warpgroupMma(int64_t aOff, int64_t aCols, int64_t bOff, int64_t bCols,
               int64_t nDim, int64_t steps, llvm::ArrayRef<mlir::Value> acc);
  /// S = Q K^T by wgmma, one accumulator per 8 keys.
  llvm::SmallVector<mlir::Value> warpgroupScores();
  /// acc += P V by wgmma, P stored over the K tile.
  void warpgroupAccumulate(llvm::ArrayRef<mlir::Value> p,
                           llvm::SmallVectorImpl<mlir::Value> &acc);

  mlir::OpBuilder &b;
  mlir::Location loc;
  FusedAttentionOp op;
  const TensorCoreAttentionOptions &o;

  //===--------------------------------------------------------------------===//
  // Static shape of the kernel.
  //===--------------------------------------------------------------------===//

  mlir::RankedTensorType qType;
  mlir::Type elemType;
  /// Rank of Q, number of lead dims, head dims, block rows, key-tile rows.
  int64_t rank, n, d, dv, bm, bn;
  /// wgmma: byte offsets in the shared window (P over K).
  int64_t qOff, kOff, vOff;
  bool wg, causal;
  double scale;
  RotaryAttr qRope, kRope;
  /// Type of an accumulator fragment and its zero.
  mlir::VectorType accType;
  mlir::Value zeroAcc;

  //===--------------------------------------------------------------------===//
  // Host values (buildHostSetup, declareSharedTiles).
  //===--------------------------------------------------------------------===//

  mlir::Value qBuf, kBuf, vBuf;
  mlir::Value qCos, qSin, kCos, kSin;
  /// score_mod operands inside the kernel: buffers for tensors.
  llvm::SmallVector<mlir::Value> mods;
  llvm::SmallVector<mlir::Value> qSizes;
  mlir::Value sq, sk, group, out;
  mlir::Value numQTiles, numLead, numKTiles;
  /// Sk - Sq: the causal mask's diagonal offset.
  mlir::Value shift;
  mlir::memref::GlobalOp kGlobal, vGlobal, windowGlobal;

  //===--------------------------------------------------------------------===//
  // Kernel values (buildLaunch and after).
  //===--------------------------------------------------------------------===//

  mlir::Value threadId, lane, warp;
  /// wgmma: the address of the shared window, as i64.
  mlir::Value windowAddr;
  mlir::Value qTile, kTile, pTile, vTile;
  /// First query row of the block.
  mlir::Value q0;
  /// Lead indices of the block (innermost fastest) and of its K/V head.
  llvm::SmallVector<mlir::Value> lead, kvLead;
  /// mma.sync: the warp's Q A fragments, one per 16 dims.
  llvm::SmallVector<mlir::Value> qFrags;
  /// The query row of accumulator register i and the column (within an
  /// 8-key block) of element i of this lane.
  mlir::Value rows[2], cols[2];
};

} // namespace tensor_core
} // namespace posenc

#endif // POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TENSORCOREKERNELBUILDER_H
