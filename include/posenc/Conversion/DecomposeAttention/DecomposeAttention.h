//===- DecomposeAttention.h - flash-style attention lowering ----*- C++ -*-===//

#ifndef POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
#define POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// The attribute the decode schedule of the generic layout puts on the tile
/// ops of its tasks: their tiles have few rows (Sq x packed heads), so
/// --posenc-gpu-map-attention spreads each one's elements over the block's
/// threads instead of running one row per thread.
constexpr llvm::StringLiteral kSpreadOverThreadsAttr =
    "posenc.spread_over_threads";

/// What the decomposition is given (the pass's options).
struct DecomposeAttentionOptions {
  /// Query rows per tile; 0: by shape (the pass's description). With
  /// `genericDecode`, the most rows of a decode tile (one GPU thread each
  /// in the prefill schedule).
  int64_t queryTile = 0;
  /// Key/value rows per iteration of the online softmax.
  int64_t keyTile = 64;
  /// The CPU vector layout (static padded tiles, transposed scores, ops
  /// marked for --posenc-vectorize-attention-tiles); else the layout the GPU
  /// mapping consumes.
  bool vectorLayout = false;
  /// Decode split-K: split the keys until the grid has at least this many
  /// tasks (0: vector layout, twice the OpenMP thread count at run time;
  /// generic layout, no split for the task count), no task with more than
  /// `splitKMaxKeys` keys (0: no limit), or exactly `splitKCount` splits
  /// when it is > 0.
  int64_t splitKTasks = 0, splitKMaxKeys = 8192, splitKCount = 0;
  /// The generic layout's decode schedule (the GPU's) for a static Sq <= 16.
  bool genericDecode = false;
  /// Vector layout, decode: the target's vector width in bits (0: the
  /// host's); a tile whose rows fit one vector of f32 puts the keys on the
  /// vector lanes (except 16 rows with f32 K at 512 bits), a taller one
  /// the rows.
  int64_t vectorBits = 0;
  /// Vector layout, decode: software-prefetch the K/V rows of the key tile
  /// this many tiles ahead (0: none).
  int64_t prefetchTiles = 1;
  /// Vector layout, decode tiles with the head dim on the lanes and
  /// half-precision K/V: the prefetches of each key step (into L2)
  /// interleaved with the score contraction's register tiles instead of
  /// one burst (into L1) at its start.
  bool prefetchInterleaved = true;
  /// Vector layout, decode: the full key tiles of a task visited
  /// interleaved over this many regions of its keys (1: in order).
  int64_t keyRegions = 1;
  /// Vector layout, decode, keys on the lanes: the score contraction keeps
  /// the head dim on the vector lanes (partial products reduced once per
  /// score) instead of transposing K in registers.
  bool scoreDimsOnLanes = true;
  /// Vector layout, decode tiles of more than 16 rows with the rows on the
  /// lanes, and of 16 rows with 512-bit vectors: f16/bf16 K converted to
  /// f32 once per key tile rather than per element the score contraction
  /// broadcasts (per register tile for 16 rows).
  bool widenKeys = true;
  /// Vector layout, decode tiles of 16 rows: key/value rows per tile in
  /// place of `keyTile` (0: keyTile). 64 measured faster than 128 for f32 K
  /// and level for f16/bf16 once the spread prefetches became cheap
  /// (docs/pipelines.md, "Key tiles for 16 rows").
  int64_t rows16KeyTile = 64;
  /// Vector layout, decode tiles of at most 4 rows: key/value rows per tile
  /// in place of `keyTile` (0: keyTile). Shorter key steps measured faster
  /// there: likely because the next tile's prefetched rows are still in L1
  /// when the step after reads them.
  int64_t rows4KeyTile = 16;
  /// Mark the decode key steps' prefetch bursts for
  /// --posenc-spread-decode-prefetches.
  bool spreadPrefetches = true;
  /// With spreadPrefetches, decode tiles of at most 4 rows: the spread also
  /// issues prefetches among the ops between the score contraction and
  /// `P V` (the score reduction and the softmax), not only in the
  /// contraction loops.
  bool prefetchBetweenContractions = true;
  /// With spreadPrefetches, decode tiles of at most 4 rows: the spread hands
  /// out the next tile's K and V rows alternately (K row 0, V row 0, K row
  /// 1, ...) instead of K's rows first.
  bool prefetchAlternateKV = true;
};

/// Patterns lowering posenc.fused_attention to a flash-style loop nest on
/// tensors (scf.forall over lead dims and query tiles of `queryTile` rows,
/// scf.for over key/value tiles of `keyTile` rows, online softmax), or for
/// few query rows the decode schedule (GQA packing, split-K, log-sum-exp
/// merge): with the vector layout and `queryTile` 0, or with
/// `genericDecode`.
void populateDecomposeAttentionPatterns(
    mlir::RewritePatternSet &patterns,
    const DecomposeAttentionOptions &options = {});

} // namespace posenc

#endif // POSENC_CONVERSION_DECOMPOSEATTENTION_DECOMPOSEATTENTION_H
