//===- TileBuilders.h - pieces of the flash-attention tiles -----*- C++ -*-===//
//
// Internal to lib/Conversion/DecomposeAttention: what the schedule
// (DecomposeAttention.cpp) and the two tile layouts (GenericLayoutTile.cpp,
// VectorLayoutTile.cpp) share. The attention math itself (masks, buckets,
// the online-softmax element step, RoPE tables) is in
// posenc/Dialect/Posenc/Utils/AttentionUtils.h; this header holds the tile
// plumbing around it.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_DECOMPOSEATTENTION_TILEBUILDERS_H
#define LIB_CONVERSION_DECOMPOSEATTENTION_TILEBUILDERS_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <limits>
#include <optional>

namespace posenc {
struct DecomposeAttentionOptions;
namespace decompose {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// What the tiles read off the op, and where one task of the grid sits
//===----------------------------------------------------------------------===//

/// What both tile layouts read off the op.
struct AttentionInfo {
  explicit AttentionInfo(FusedAttentionOp op);

  FusedAttentionOp op;
  mlir::Value q, k, v;
  /// Rank of Q; n = rank - 2 lead dims.
  int64_t rank, n;
  mlir::Type elemType;
  /// The compute type.
  mlir::FloatType c;
  double scale;
  bool causal;
  /// Shaw's rel_key [2K+1 x D] and rel_value [2K+1 x Dv], or null.
  mlir::Value relKey, relValue;
  int64_t maxDist;
  RotaryAttr qRope, kRope;
  /// kv_lengths (attention over a KV cache), or null.
  mlir::Value kvLengths;
  /// Transformer-XL's rel [[H x] L x D], u and v [H x D], or null.
  mlir::Value xlRel, xlContentBias, xlPositionBias;
};

/// The tile sizes and layout of the decomposition (DecomposeAttention.cpp
/// and ChooseDecodeSchedule.cpp choose them; the layouts build one task's
/// body with them).
struct AttentionSchedule {
  /// Query rows per task and key/value rows per key-loop iteration.
  int64_t queryTile, keyTile;
  /// The CPU vector layout (else the generic layout the GPU mapping reads).
  bool vectorLayout;
  /// The decode schedule (DecodeSchedule.cpp) when rowsPerHead > 0: a
  /// task's rows are `rowsPerHead` query rows (all of Sq, zero-padded when
  /// Sq is dynamic) of each of `packedHeads` query heads sharing one K/V
  /// head, queryTile = packedHeads * rowsPerHead.
  int64_t packedHeads = 1, rowsPerHead = 0;
  /// Decode split-K: aim for at least `splitTasks` tasks (0: vector layout,
  /// twice the OpenMP runtime's thread count at run time; generic layout,
  /// none), and give no task more than `splitMaxKeys` keys (0: no limit);
  /// or exactly `splitCount` splits when it is > 0.
  int64_t splitTasks = 0, splitMaxKeys = 0, splitCount = 0;
  /// Decode: the score tile is S [rows x keys] with the keys on the vector
  /// lanes (else S^T, the rows on the lanes; always so in prefill).
  bool keysOnLanes = false;
  /// Decode, keys on the lanes: the f32 lanes of the target's vectors when
  /// the score contraction keeps the head dim on them (S = per-lane partial
  /// products reduced once per score; 0: the contraction transposes K in
  /// registers).
  int64_t scoreDimLanes = 0;
  /// Decode, a tile of at most 16 rows with the rows on the lanes: the score
  /// contraction's register tile spans 16 keys, and f16/bf16 K is converted
  /// to the compute type per register tile unless widenKeys
  /// (VectorLayoutTile.cpp).
  bool narrowRowsOnLanes = false;
  /// Decode, vector layout: each full key tile prefetches the K/V rows of
  /// the tile this many tiles ahead (0: none).
  int64_t prefetchTiles = 0;
  /// Decode, rows on the lanes, more than 16 rows (16 with 512-bit
  /// vectors): f16/bf16 K converted to the compute type once per key tile
  /// (VectorTileBuilder::widenedKeyTile) instead of once per broadcast
  /// element (per register tile for 16 rows).
  bool widenKeys = false;
  /// Decode, f16/bf16 V that P V's register tiles pass over more than
  /// twice: V converted to the compute type once per key tile into an f32
  /// tile (VectorTileBuilder::widenedValueTile) instead of in each pass.
  /// Only with vectors narrower than 512 bits (ChooseDecodeSchedule.cpp).
  bool widenValues = false;
  /// Decode, scoreDimLanes, half-precision K: the prefetches of a key step
  /// interleaved with its score contraction's register tiles (else one
  /// burst first).
  bool prefetchInterleaved = false;
  /// Decode, vector layout: the full key tiles visited interleaved over
  /// this many regions of the task's keys (KeyRegions.cpp; 1: in order).
  int64_t keyRegions = 1;
  /// Decode, vector layout: the full key steps' prefetch bursts marked for
  /// --posenc-spread-decode-prefetches (prefetchInterleaved stays off).
  bool spreadPrefetches = false;
  /// Decode, spreadPrefetches: the spread hands out single cache lines of
  /// K/V (else whole rows, each row's lines together).
  bool spreadLines = false;
  /// Decode, spreadPrefetches: the spread prefetches of a full key step
  /// are its own V rows (spread over its score loop, read by its P V) and
  /// the next tile's K rows (spread over its P V, read by the next step's
  /// score loop), half a step ahead of their use; else the next tile's K
  /// and V, a whole step ahead.
  bool prefetchValuesInStep = false;
  /// Decode, spreadPrefetches: the marked bursts also ask the spread to
  /// issue prefetches among the ops between the step's contraction loops
  /// (kSpreadPrefetchBetweenAttr).
  bool prefetchBetweenContractions = false;
  /// Decode, spreadPrefetches: the marked bursts ask the spread to hand out
  /// their rows in turn (kSpreadPrefetchAlternateAttr).
  bool prefetchAlternateKV = false;

  bool isDecode() const { return rowsPerHead > 0; }
};

/// The most query rows per head of the decode schedule, and the most rows
/// of a packed decode tile.
inline constexpr int64_t kMaxDecodeRows = 16, kMaxDecodeTileRows = 128;
/// Query rows per tile of the prefill schedule when none is given: the
/// vector layout's 64 (fastest of 32/64/128 on the AVX-512 host,
/// docs/bench-cpu.md), the generic layout's 32.
inline constexpr int64_t kPrefillQueryTile = 64, kGenericQueryTile = 32;

/// The decode schedule of `info` under `options`, or none (the prefill
/// schedule); ChooseDecodeSchedule.cpp.
std::optional<AttentionSchedule>
chooseDecodeSchedule(const AttentionInfo &info,
                     const DecomposeAttentionOptions &options);

/// One task of the grid: the forall iteration of (lead dims, query tile),
/// and the sizes every tile of it reads.
struct QueryTileTask {
  mlir::scf::ForallOp forall;
  /// Q's lead indices and K/V's (the head divided by the GQA group).
  llvm::SmallVector<mlir::Value> lead, kvLead;
  /// The query rows [qStart, qStart + qSize).
  mlir::Value qStart, qSize;
  /// Sq, the keys that exist (Sk, or kv_lengths[b] over a KV cache) and
  /// the causal shift (Sk - Sq, or kv_lengths[b] - Sq): AttentionUtils'
  /// CacheKeyRange.
  mlir::Value sq, sk, shift;
  /// The key tile size as an index value (built before the grid).
  mlir::Value keyTileSize;
  /// Decode: the task's keys [keyBegin, keyEnd) of the split `split` (its
  /// index in the grid); `gridLead` are the grid's other indices. Null in
  /// the prefill schedule (keys [0, keyLoopEnd)).
  mlir::Value keyBegin, keyEnd, split;
  llvm::SmallVector<mlir::Value> gridLead;
  /// Prefill with keys rotated per chunk (RotatedKeyChunks.cpp): the rows
  /// [chunkStart, ...) of the chunk's output, the iter arg of its loop over
  /// query tiles, into which insertOutputTile inserts this tile and yields.
  /// Null otherwise (the tile goes straight into the forall's output).
  mlir::Value chunkOut, chunkStart;
};

/// The end of the keys a query tile reads: Sk, or (causal) the diagonal of
/// its last row, min(Sk, max(0, qStart + qSize + Sk - Sq)); keys past it are
/// never read.
mlir::Value keyLoopEnd(mlir::OpBuilder &b, mlir::Location loc, bool causal,
                       const QueryTileTask &task);

//===----------------------------------------------------------------------===//
// Tile plumbing (TileBuilders.cpp)
//===----------------------------------------------------------------------===//

/// The map (d0..d{numDims-1}) -> (d{dims[0]}, d{dims[1]}, ...).
mlir::AffineMap mapOf(mlir::MLIRContext *ctx, int64_t numDims,
                      llvm::ArrayRef<int64_t> dims);

/// A tile-shaped tensor filled with `value`.
mlir::Value filledTile(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes,
                       mlir::Type type, double value);

/// The static size of an OpFoldResult, or dynamic.
int64_t staticSize(mlir::OpFoldResult ofr);

/// The lead indices of a RoPE table or positions tensor for a tile at
/// `lead`: none for per-op tables ([S, ...]), the batch lead[0] for
/// per-batch ones (one more dim than `perOpRank`).
llvm::SmallVector<mlir::Value> tableLead(mlir::Value table, int64_t perOpRank,
                                         llvm::ArrayRef<mlir::Value> lead);

/// Extracts the 2-d tile [lead..., start : start+size, 0 : cols] of `source`
/// as a rank-reduced tensor<size x cols>.
mlir::Value extractRowTile(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value source, llvm::ArrayRef<mlir::Value> lead,
                           mlir::Value start, mlir::Value size);

/// The rows of a packed GQA decode tile: [lead..., h0 : h0 + heads,
/// start : start+size, 0 : cols] of `source`, h0 = lead.back() (the first
/// query head of the group), as tensor<heads x size x cols>.
mlir::Value extractHeadRowsTile(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value source,
                                llvm::ArrayRef<mlir::Value> lead, int64_t heads,
                                mlir::OpFoldResult start,
                                mlir::OpFoldResult size);

/// Pads the rows of a [size x cols] tile with zeros to `rows` (static).
mlir::Value padRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
                    int64_t rows);

/// Marks the op defining `result` for --posenc-vectorize-attention-tiles:
/// register-tile it by `sizes` (one per loop, 0 = untiled) and vectorize.
void markVectorTile(mlir::Value result, llvm::ArrayRef<int64_t> sizes);

/// The marks markVectorTile* set and --posenc-vectorize-attention-tiles
/// (VectorizeTiles.cpp) reads: the register tile, a tile not to be scaled
/// to the target's width, a reduction fusing its destination's producer.
inline constexpr llvm::StringLiteral kVectorTileAttr = "posenc.vector_tile";
inline constexpr llvm::StringLiteral kExactTileAttr =
    "posenc.vector_tile_exact";
inline constexpr llvm::StringLiteral kFuseInitAttr =
    "posenc.vector_tile_fuse_init";
/// On an elementwise producer of an operand of a fuse-init reduction: fused
/// into each of the reduction's register tiles too (the slice the tile
/// reads), instead of computed whole first.
inline constexpr llvm::StringLiteral kFuseIntoTilesAttr =
    "posenc.vector_tile_fuse_into_tiles";
/// On a decode key step's loop of prefetches over the next tile's rows: a
/// static bound on its trip count, for --posenc-spread-decode-prefetches
/// (SpreadPrefetches.cpp).
inline constexpr llvm::StringLiteral kSpreadPrefetchRowsAttr =
    "posenc.spread_prefetch_rows";
/// On the marked loops of a key step (unit): the spread also hands rows to
/// the ops between consecutive contraction nests (SpreadPrefetches.cpp).
inline constexpr llvm::StringLiteral kSpreadPrefetchBetweenAttr =
    "posenc.spread_prefetch_between";
/// On the marked loops of a key step (unit), all of one bound: the spread
/// hands out their rows in turn, row 0 of each loop in order, then row 1,
/// ... (SpreadPrefetches.cpp).
inline constexpr llvm::StringLiteral kSpreadPrefetchAlternateAttr =
    "posenc.spread_prefetch_alternate";

/// markVectorTile with sizes already chosen for the target's vector width
/// (the pass does not scale them for narrower vectors); with `fuseInit`, as
/// markVectorTileFusingInit.
void markExactVectorTile(mlir::Value result, llvm::ArrayRef<int64_t> sizes,
                         bool fuseInit = false);

/// As markVectorTile, for a reduction whose destination's producer (a fill,
/// an elementwise rescale; used only here) is to be fused into each of its
/// register tiles rather than computed over the whole destination first.
void markVectorTileFusingInit(mlir::Value result,
                              llvm::ArrayRef<int64_t> sizes);

/// The largest divisor of `n` that is at most `bound` (1 when `n` is
/// dynamic): register tiles must divide the static tile so that every
/// register tile is static and vectorizes.
int64_t divisorAtMost(int64_t n, int64_t bound);

/// The slice (lead..., qStart : qStart + qSize, 0 : dv) of the output
/// that a task's rows fill.
struct OutputRows {
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
};
OutputRows outputRows(mlir::OpBuilder &b, const QueryTileTask &task,
                      mlir::OpFoldResult dv);

/// Inserts the [qSize x Dv] output `tile` at (lead..., qStart, 0) of the
/// forall's shared output, or (task.chunkOut) at (qStart - chunkStart, 0) of
/// the chunk's output, yielding the result to the chunk's loop.
void insertOutputTile(mlir::OpBuilder &b, mlir::Location loc,
                      const QueryTileTask &task, mlir::OpFoldResult dv,
                      mlir::Value tile);

//===----------------------------------------------------------------------===//
// Score and softmax tiles (TileBuilders.cpp)
//===----------------------------------------------------------------------===//

/// The op's score_mod region (cloned) applied to `score` of query row `i`
/// and key `j` at lead indices `lead`.
mlir::Value applyScoreMod(mlir::OpBuilder &b, FusedAttentionOp op,
                          mlir::Value score, llvm::ArrayRef<mlir::Value> lead,
                          mlir::Value i, mlir::Value j);

/// init + lhs rhs over the loops (i, j, k) of a contraction: `lhs` and
/// `rhs` indexed by the loop dims `lhsDims` and `rhsDims`, `init` by (i, j);
/// both converted to the compute type `c` element by element (a half K tile
/// is read as half and extended in registers, never copied to `c`).
mlir::Value contract(mlir::OpBuilder &b, mlir::Location loc, mlir::FloatType c,
                     mlir::Value lhs, llvm::ArrayRef<int64_t> lhsDims,
                     mlir::Value rhs, llvm::ArrayRef<int64_t> rhsDims,
                     mlir::Value init);

/// acc' = acc + P (V [+ rel_value[r(i, j)]]) over the loops (i, x, j): `p`
/// read through `pMap` ((i, x, j) -> its index), V [keys x Dv] and the
/// accumulator [rows x Dv]; with `withRelValue`, Shaw's value term per
/// element.
mlir::Value accumulatePV(mlir::OpBuilder &b, mlir::Location loc,
                         const AttentionInfo &info, mlir::Value p,
                         mlir::AffineMap pMap, mlir::Value vTile,
                         mlir::Value acc, mlir::Value qStart,
                         mlir::Value kStart, mlir::Value shift,
                         bool withRelValue);

/// How a layout holds the score tile: `statMap` maps its 2-d index to the
/// query row (row statistics m, l, alpha), `reductionIterators` reduce it
/// over the keys, `accRowMap` maps the [rows x Dv] accumulator's index to
/// the query row; `mark` annotates each op for the vectorizer (or not).
struct ScoreLayout {
  mlir::AffineMap statMap;
  llvm::SmallVector<mlir::utils::IteratorType> reductionIterators;
  mlir::AffineMap accRowMap;
  std::function<void(mlir::Value, llvm::ArrayRef<int64_t>)> mark;
  /// Register tile of the key reductions.
  int64_t reductionTile;
};

/// The results of one online-softmax step.
struct SoftmaxStep {
  mlir::Value mNew, lNew, p, accScaled, alpha;
};

/// The online-softmax update of one key tile, on the scores `s`: tile max,
/// alpha = exp(m - m') from the old m, m' over m, P = exp(S - m') in place
/// of S, l' = alpha l + rowsum P, acc scaled by alpha (P V is added by the
/// caller). The running statistics are updated in place (the loop's
/// iter_args bufferize to one buffer each). `rows`: the query rows.
SoftmaxStep buildSoftmaxStep(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::FloatType c, mlir::Value s, mlir::Value m,
                             mlir::Value l, mlir::Value acc,
                             mlir::OpFoldResult rows,
                             const ScoreLayout &layout);

/// out = acc / l rounded to the element type; a fully masked row (l = 0)
/// yields zeros. `sizes`: [rows, Dv].
mlir::Value normalizeOutput(mlir::OpBuilder &b, mlir::Location loc,
                            const AttentionInfo &info, mlir::Value l,
                            mlir::Value acc,
                            llvm::ArrayRef<mlir::OpFoldResult> sizes);

//===----------------------------------------------------------------------===//
// RoPE prologue (RotaryPrologue.cpp)
//===----------------------------------------------------------------------===//

/// Loads a [size x D] tile of Q or K at rows [start, start+size) and applies
/// the prologue of the generic layout (RoPE angles computed per element).
/// With xPos, `logDecay` (buildXPosLogDecayConstant) and the tile's
/// `xposCenter` (XPosTileCenters) scale cos and sin by the decay. A
/// table-form `rope` (no base) reads the tile's rows of the cos/sin tables
/// `cosT`/`sinT` ([S x R] or per batch [B x S x R]) instead.
mlir::Value loadTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                     llvm::ArrayRef<mlir::Value> lead, mlir::Value start,
                     mlir::Value size, RotaryAttr rope, mlir::Value positions,
                     mlir::Value invFreq, mlir::FloatType c,
                     mlir::Value logDecay = mlir::Value(),
                     mlir::Value xposCenter = mlir::Value(),
                     mlir::Value cosT = mlir::Value(),
                     mlir::Value sinT = mlir::Value());

/// The generic layout's query tile of a packed decode task: all rows
/// (static `rows` = Sq) of the `heads` query heads from lead.back(), head
/// after head ([heads * rows x D]), with loadTile's prologue (row r at
/// position r mod rows).
mlir::Value loadPackedQueryTile(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value source,
                                llvm::ArrayRef<mlir::Value> lead,
                                int64_t heads, int64_t rows, RotaryAttr rope,
                                mlir::Value positions, mlir::Value invFreq,
                                mlir::FloatType c);

/// The centers a query tile's xPos prologues decay around (the re-centering
/// of posenc.fused_attention): `q` = the position c of the tile's first
/// query row (at `qStart`, batch lead[0] for per-batch positions), `k` =
/// c - center_q + center_k, both i64; null without xPos. The score of (i, j)
/// then decays by zeta_p^((pos_i - pos_j + center_k - center_q)/scale_base)
/// as with the standalone ropes, but each factor stays near 1 whatever the
/// absolute positions.
struct XPosTileCenters {
  mlir::Value q, k;
};
XPosTileCenters xposTileCenters(mlir::OpBuilder &b, mlir::Location loc,
                                const AttentionInfo &info,
                                llvm::ArrayRef<mlir::Value> lead,
                                mlir::Value qStart);

/// The vector layout's cos/sin rows of a tile with xPos: rows [start,
/// start+size) of the [S x R/2] (per batch [B x S x R/2]) tables `cosT` and
/// `sinT` at `lead`, scaled by the decay around `center` of the rows'
/// `positions` (before padding, so that padded rows stay zero), zero-padded
/// to `padTo` rows (0: not padded).
std::pair<mlir::Value, mlir::Value>
decayedTableRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cosT,
                 mlir::Value sinT, mlir::Value positions, mlir::Value logDecay,
                 mlir::Value center, llvm::ArrayRef<mlir::Value> lead,
                 mlir::Value start, mlir::Value size, int64_t padTo,
                 mlir::FloatType c);

/// buildRotaryTables with the tables' generic marked for vectorization.
std::pair<mlir::Value, mlir::Value>
rotaryTables(mlir::OpBuilder &b, mlir::Location loc, RotaryAttr rope,
             mlir::Value positions, mlir::Value invFreq, mlir::FloatType c);

/// The Q/K prologue of the CPU vector layout on a [rows x D] tile (rows
/// static in the key loop, dynamic for a chunk's keys): nothing without RoPE (a half tile stays half: the contractions
/// extend each element in registers), the slice
/// form of RoPE for `half`, the generic (gathering) form for `interleaved`,
/// both reading cos and sin from [rows x R/2] slices of rotaryTables; every
/// op marked for vectorization. With xPos, `decay` (keyTileDecayFactor, [R/2])
/// scales each pair's rotation (as it would scale its cos and sin) inside
/// the rotation, with no scaled copy of the tables.
mlir::Value vectorPrologue(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value tile, RotaryAttr rope,
                           mlir::Value cosTile, mlir::Value sinTile,
                           mlir::FloatType c,
                           mlir::Value decay = mlir::Value());

/// The vector layout's key cos/sin tables with xPos, built once per op: row
/// j scaled by the decay relative to the first row of its key tile (tiles of
/// `keyTile` rows from 0), exp((pos_j - pos_{j - j mod keyTile}) logDecay),
/// which depends on positions only; a key tile then needs one [R/2] factor
/// (keyTileDecayFactor) instead of an exp per element.
std::pair<mlir::Value, mlir::Value>
decayKeyTablesPerTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cosT,
                      mlir::Value sinT, mlir::Value positions,
                      mlir::Value logDecay, int64_t keyTile, mlir::FloatType c);

/// The factor [R/2] of the key tile starting at row `start` (at `lead`),
/// exp((pos_start - center) logDecay): with it, the rows of
/// decayKeyTablesPerTile's tables carry the decay around `center` (the
/// query tile's, xposTileCenters) of every row. vectorPrologue applies it.
mlir::Value keyTileDecayFactor(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value positions, mlir::Value logDecay,
                               mlir::Value center,
                               llvm::ArrayRef<mlir::Value> lead,
                               mlir::Value start, mlir::FloatType c);

//===----------------------------------------------------------------------===//
// Shaw's key term (ShawTerms.cpp)
//===----------------------------------------------------------------------===//

/// rel_key [2K+1 x D] in the compute type, only the buckets 0..K when
/// causal, rows zero-padded to a multiple of 8 (whole register tiles).
mlir::Value prepareShawRelKey(mlir::OpBuilder &b, mlir::Location loc,
                              const AttentionInfo &info, mlir::Value relKey,
                              int64_t maxDist);

//===----------------------------------------------------------------------===//
// T5's bias (T5Terms.cpp)
//===----------------------------------------------------------------------===//

/// `score` + t5_table[bucket(j - i'), h] of the generic layout, with the
/// bucket of query row `i`, key `j` computed in place.
mlir::Value addT5ScoreTerm(mlir::OpBuilder &b, mlir::Location loc,
                           const AttentionInfo &info, const QueryTileTask &task,
                           mlir::Value score, mlir::Value i, mlir::Value j);

/// A per-op table over the distances of an Sq x Sk score: tensor<max(Sq +
/// Sk - 1, 0) x i32> whose element t is `entry` (an index value) at
/// t - (Sk - 1), i.e. over [1 - Sk, Sq - 1]. T5's buckets and DeBERTa's
/// table rows are built once per op this way (TileBuilders.cpp).
mlir::Value buildPerDistanceTable(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value sq, mlir::Value sk,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value)>
        entry);

/// The T5 bucket of every distance j - i' in [1 - Sk, Sq - 1], as
/// tensor<(Sq + Sk - 1) x i32> (element t: distance t - (Sk - 1)), for the
/// vector layout.
mlir::Value prepareT5Buckets(mlir::OpBuilder &b, mlir::Location loc,
                             const AttentionInfo &info, mlir::Value sq,
                             mlir::Value sk);

//===----------------------------------------------------------------------===//
// Transformer-XL's terms (XlTerms.cpp)
//===----------------------------------------------------------------------===//

/// (Q~ + u_h, Q~ + v_h) of the generic layout's [qSize x D] query tile, in
/// the compute type: the content term's query and the position term's.
std::pair<mlir::Value, mlir::Value>
addXlQueryBiases(mlir::OpBuilder &b, mlir::Location loc,
                 const AttentionInfo &info, const QueryTileTask &task,
                 mlir::Value qTile);

/// `s` [qSize x kSize] (generic layout, key tile at `kStart`) plus the
/// unscaled position term (Q~ + v_h)_i . rel[i' - j + Sq - 1] per score, with
/// `qvTile` = Q~ + v_h.
mlir::Value addXlPositionTerm(mlir::OpBuilder &b, mlir::Location loc,
                              const AttentionInfo &info,
                              const QueryTileTask &task, mlir::Value s,
                              mlir::Value qvTile, mlir::Value kStart);

//===----------------------------------------------------------------------===//
// DeBERTa's terms (DebertaTerms.cpp)
//===----------------------------------------------------------------------===//

/// `s` [qSize x kSize] (generic layout, key tile at `kStart`) plus the
/// unscaled DeBERTa terms q_i . pos_key[c] + k_j . pos_query[c] (those the
/// op has) per score, c = c(i - j), from the Q~ and K~ tiles; c is read from
/// `index` (prepareDebertaIndex) when given, else computed per score.
mlir::Value addDebertaTerms(mlir::OpBuilder &b, mlir::Location loc,
                            const AttentionInfo &info,
                            const QueryTileTask &task, mlir::Value s,
                            mlir::Value qTile, mlir::Value kTile,
                            mlir::Value kStart, mlir::Value index);

/// The per-op index of DeBERTa's terms: [Sq + Sk - 1] i32, entry p the
/// table row c(r) of the distance r = i - j = p - (Sk - 1). The vector
/// layout always reads it; the generic layout with log buckets (their
/// logarithm then runs once per distance, not inside each score's D-long
/// product).
mlir::Value prepareDebertaIndex(mlir::OpBuilder &b, mlir::Location loc,
                                const AttentionInfo &info, mlir::Value sq,
                                mlir::Value sk);

//===----------------------------------------------------------------------===//
// The two layouts of one task
//===----------------------------------------------------------------------===//

/// Per-op values built once before the grid and read by every task.
struct AttentionTables {
  /// RoPE inverse frequencies (generic layout).
  mlir::Value qInvFreq, kInvFreq;
  /// RoPE cos/sin tables [S x R/2] (vector layout), or the table form's
  /// [S x R] (per batch [B x S x R]; vector layout: in the compute type).
  mlir::Value qCos, qSin, kCos, kSin;
  /// xPos's per-pair log decay [R/2] of q_rope and k_rope
  /// (buildXPosLogDecayConstant), null without xPos.
  mlir::Value qLogDecay, kLogDecay;
  /// Shaw's rel_key in the compute type, rows zero-padded to a multiple of
  /// 8 (vector layout); null without the key term.
  mlir::Value relKeyPadded;
  /// DeBERTa's table row per distance (prepareDebertaIndex; vector layout,
  /// and generic layout with log buckets); null otherwise.
  mlir::Value debertaIndex;
  /// T5's bucket per distance (prepareT5Buckets; vector layout); null
  /// without the T5 term.
  mlir::Value t5Buckets;
  /// K~ [keys x D] in the compute type, the keys [0, keys) of the task's
  /// chunk rotated once (RotatedKeyChunks.cpp; with xPos decayed around
  /// the chunk's center); null when each key tile is rotated in the key
  /// loop.
  mlir::Value kRotated;
};

/// The body of one task in the generic layout (GenericLayoutTile.cpp); in
/// the decode schedule, its rows are the packed heads' and it writes its
/// unnormalized (m, l, acc) with insertDecodePartials.
void buildGenericLayoutTile(mlir::OpBuilder &b, mlir::Location loc,
                            const AttentionInfo &info,
                            const AttentionSchedule &schedule,
                            const QueryTileTask &task,
                            const AttentionTables &tables);

/// Decode: inserts a task's (m [rows], l [rows], acc [rows x Dv]) at
/// (gridLead..., split) of the grid's three shared outputs.
void insertDecodePartials(mlir::OpBuilder &b, mlir::Location loc,
                          const QueryTileTask &task,
                          llvm::ArrayRef<mlir::Value> tiles);

/// The body of one task in the CPU vector layout (VectorLayoutTile.cpp).
void buildVectorLayoutTile(mlir::OpBuilder &b, mlir::Location loc,
                           const AttentionInfo &info,
                           const AttentionSchedule &schedule,
                           const QueryTileTask &task,
                           const AttentionTables &tables);

//===----------------------------------------------------------------------===//
// Keys rotated once per chunk of query tiles (RotatedKeyChunks.cpp)
//===----------------------------------------------------------------------===//

/// Query tiles per task of the prefill schedule when its keys are rotated
/// once per task (usesRotatedKeyChunks).
constexpr int64_t kRotatedKeyChunkTiles = 8;

/// Whether the prefill schedule of `info` rotates K once per task of
/// kRotatedKeyChunkTiles query tiles instead of once per key step: the
/// vector layout with k_rope, except xPos with DeBERTa's terms (its p2c
/// product reads K~ tiles, which would miss the query tile's decay).
bool usesRotatedKeyChunks(const AttentionInfo &info,
                          const AttentionSchedule &schedule);

/// The body of a task of that schedule, a chunk [qStart, qStart + qSize) of
/// query rows: K~ of the keys the chunk reads rotated once into a [keys x D]
/// buffer, then each query tile of the chunk built by buildVectorLayoutTile
/// reading its key tiles from it, the tiles inserted into the chunk's
/// output, the chunk into the forall's.
void buildRotatedKeyChunk(mlir::OpBuilder &b, mlir::Location loc,
                          const AttentionInfo &info,
                          const AttentionSchedule &schedule,
                          const QueryTileTask &chunk,
                          const AttentionTables &tables);

/// The decode schedule (DecodeSchedule.cpp): a grid over the lead dims
/// (packed heads) and the key splits, each task's body in the schedule's
/// layout writing its unnormalized (m, l, acc), and the log-sum-exp merge of
/// the splits into the result, of `resultSizes`; returns the result.
mlir::Value buildDecodeAttention(mlir::OpBuilder &b, mlir::Location loc,
                                 const AttentionInfo &info,
                                 const AttentionSchedule &schedule,
                                 const AttentionTables &tables,
                                 llvm::ArrayRef<mlir::OpFoldResult> resultSizes);

} // namespace decompose
} // namespace posenc

#endif // LIB_CONVERSION_DECOMPOSEATTENTION_TILEBUILDERS_H
