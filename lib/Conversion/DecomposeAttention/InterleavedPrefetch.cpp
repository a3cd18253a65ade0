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
// more FMAs. Half-precision K/V only: with f32 K/V the interleaved form
// measured slower than the burst (docs/pipelines.md has the ratios).
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

bool VectorTileBuilder::interleavesPrefetches() const {
  auto kType = cast<RankedTensorType>(info.k.getType());
  return prefetchInterleaved && prefetchTiles > 0 && scoreDimLanes &&
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
  auto slice = [&](Value source, Value into, int64_t row, int64_t col) {
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), zero);
    offsets[1] = b.getIndexAttr(col);
    offsets[0] = b.getIndexAttr(row);
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(b.getIndexAttr(size));
    return tensor::InsertSliceOp::create(
               b, loc, source, into, offsets, sizes,
               SmallVector<OpFoldResult>(type.getRank(), one))
        .getResult();
  };
  Value s = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{tq, tk}, c);
  for (int64_t k0 = 0; k0 < tk; k0 += block) {
    Value partial = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{tq, block, scoreDimLanes}, c);
    for (int64_t j0 = k0; j0 < k0 + block; j0 += keys) {
      // The next tile's rows of these keys, those before the key end.
      auto clamped = [&](int64_t row) -> Value {
        return arith::MinSIOp::create(b, loc, indexConst(b, loc, row), rows);
      };
      prefetchKeyRows(next, clamped(j0), clamped(j0 + keys), /*locality=*/2);
      Value kRows = tensor::ExtractSliceOp::create(
          b, loc, kTile, ArrayRef<OpFoldResult>{b.getIndexAttr(j0), zero},
          ArrayRef<OpFoldResult>{b.getIndexAttr(keys), dq},
          ArrayRef<OpFoldResult>{one, one});
      partial = slice(lanePartials(kRows, keys), partial, 0, j0 - k0);
    }
    s = slice(laneScores(partial, block), s, 0, k0);
  }
  return s;
}
