//===- InterleavedPrefetch.cpp - decode prefetches among the scores -------===//
//
// A decode key step prefetches the K/V rows of the next key tile
// (DecodeSchedule.cpp, prefetchKeyTile). Issued as one burst at the start
// of the step (a few hundred to a thousand prefetcht0, one per line), they
// fill the core's line-fill buffers and the reorder buffer behind them: the
// step's compute waits until the burst drains, and the step takes about the
// sum of its memory and compute time (docs/pipelines.md, "Where a decode
// step's time goes"). For tiles whose score contraction keeps the head dim
// on the lanes (4 rows and fewer) the contraction is cut here into its
// register tiles of keys, and each is preceded by the prefetches of the same
// keys' K and V rows of the next tile (into L2: the next step reads them,
// the current tile holds L1): a few dozen prefetches between a hundred or
// more FMAs. Tiles of 4 rows with half-precision K/V only: with f32 K/V,
// and for 1-row tiles, the interleaved form measured slower than the burst
// (docs/pipelines.md has the ratios). With the spread prefetches
// (SpreadPrefetches.cpp, the default) this form is off: clumps of a register
// tile's 32-64 lines still stall the loads behind them, a line or two per
// loop iteration do not.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

/// The rows [from, to) of the next key tile that the register tile of keys
/// [j0, j0 + keys) prefetches: clamped to `rows`, the next tile's rows
/// before the task's key end. Named one after the other: the order of a
/// call's arguments is unspecified, and the IR must not depend on the host
/// compiler.
static std::pair<Value, Value> clampedNextRows(OpBuilder &b, Location loc,
                                               Value rows, int64_t j0,
                                               int64_t keys) {
  Value from = arith::MinSIOp::create(b, loc, indexConst(b, loc, j0), rows);
  Value to =
      arith::MinSIOp::create(b, loc, indexConst(b, loc, j0 + keys), rows);
  return {from, to};
}

/// K~'s rows [j0, j0 + keys), all D columns: one register tile's keys.
static Value keyRowsOf(OpBuilder &b, Location loc, Value kTile, int64_t j0,
                       int64_t keys, OpFoldResult dq) {
  OpFoldResult one = b.getIndexAttr(1);
  return tensor::ExtractSliceOp::create(
             b, loc, kTile,
             ArrayRef<OpFoldResult>{b.getIndexAttr(j0), b.getIndexAttr(0)},
             ArrayRef<OpFoldResult>{b.getIndexAttr(keys), dq},
             ArrayRef<OpFoldResult>{one, one})
      .getResult();
}

/// An allocated f32 tile (not tensor.empty, whose slices fold into tensors
/// of their own, each a buffer and a copy after bufferization); moved out
/// of the key loop by buffer-loop-hoisting like every tile of the step.
static Value allocatedTile(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                           Type c) {
  return bufferization::AllocTensorOp::create(
             b, loc, RankedTensorType::get(shape, c), ValueRange{})
      .getResult();
}

bool VectorTileBuilder::interleavesPrefetches() const {
  // Tiles of 4 rows: a register tile of 1 row (MHA, Sq = 1) covers 16
  // keys, 8 FMAs per K row against 16-32 prefetches, and measured slower.
  auto kType = cast<RankedTensorType>(info.k.getType());
  return prefetchInterleaved && prefetchTiles > 0 && scoreDimLanes &&
         tq >= 4 &&
         kType.getElementType().getIntOrFloatBitWidth() <
             c.getIntOrFloatBitWidth();
}

Value VectorTileBuilder::scoresInterleavingPrefetches(Value kTile,
                                                      Value kStart) {
  auto [next, rows] = nextKeyTileRows(kStart);
  // Keys per block of the lane reduction's tree, and per register tile of
  // the partial products (which divides it).
  int64_t block = divisorAtMost(tk, scoreDimLanes);
  int64_t keys = divisorAtMost(block, lanePartialKeys());
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  // The slice [0, col, 0...] of `tile` of `sizes`, and its insertion back:
  // each piece is computed in place in the tile it is a part of (its fill
  // zeroes the slice; no buffer and copy of its own after bufferization).
  auto offsetsAt = [&](int64_t rank, int64_t col) {
    SmallVector<OpFoldResult> offsets(rank, zero);
    offsets[1] = b.getIndexAttr(col);
    return offsets;
  };
  auto sliceOf = [&](Value tile, int64_t col, ArrayRef<int64_t> sizes) {
    return tensor::ExtractSliceOp::create(
               b, loc, tile, offsetsAt(sizes.size(), col),
               getAsIndexOpFoldResult(ctx, sizes),
               SmallVector<OpFoldResult>(sizes.size(), one))
        .getResult();
  };
  auto insertAt = [&](Value piece, Value tile, int64_t col) {
    auto type = cast<RankedTensorType>(piece.getType());
    return tensor::InsertSliceOp::create(
               b, loc, piece, tile, offsetsAt(type.getRank(), col),
               getAsIndexOpFoldResult(ctx, type.getShape()),
               SmallVector<OpFoldResult>(type.getRank(), one))
        .getResult();
  };
  auto tile = [&](ArrayRef<int64_t> shape) {
    return allocatedTile(b, loc, shape, c);
  };
  Value s = tile({tq, tk});
  for (int64_t k0 = 0; k0 < tk; k0 += block) {
    Value partial = tile({tq, block, scoreDimLanes});
    for (int64_t j0 = k0; j0 < k0 + block; j0 += keys) {
      // The next tile's rows of these keys, those before the key end.
      auto [from, to] = clampedNextRows(b, loc, rows, j0, keys);
      prefetchKeyRows(next, from, to, /*locality=*/2);
      Value kRows = keyRowsOf(b, loc, kTile, j0, keys, dq);
      Value into =
          sliceOf(partial, j0 - k0, {tq, keys, scoreDimLanes});
      partial = insertAt(lanePartials(kRows, keys, into), partial, j0 - k0);
    }
    s = insertAt(laneScores(partial, block, sliceOf(s, k0, {tq, block})), s,
                 k0);
  }
  return s;
}
