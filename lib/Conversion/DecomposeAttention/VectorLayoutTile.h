//===- VectorLayoutTile.h - one query tile, CPU vector layout ---*- C++ -*-===//
//
// Internal to lib/Conversion/DecomposeAttention: the builder of one task's
// body in the CPU vector layout. Its methods are defined by idea in
// VectorLayoutTile.cpp (query tile, key loops, scores, softmax, output),
// ShawTerms.cpp (Shaw's key and value terms on the tiles), T5Terms.cpp,
// XlTerms.cpp and DebertaTerms.cpp.
//
// Differences from the generic layout, all for upstream vectorization:
// tiles have static rows (a partial last query tile and the last key tile
// are zero-padded; padded keys are masked, padded query rows dropped), full
// key tiles run in a loop of their own without padding, the scores are kept
// transposed (S^T: [keys x queries]) so that the softmax reductions over
// keys are elementwise across vector lanes and both contractions broadcast a
// scalar against contiguous rows (Q^T is built once per query tile), and
// each op carries the register tile --posenc-vectorize-attention-tiles uses.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_DECOMPOSEATTENTION_VECTORLAYOUTTILE_H
#define LIB_CONVERSION_DECOMPOSEATTENTION_VECTORLAYOUTTILE_H

#include "TileBuilders.h"

namespace posenc {
namespace decompose {

class VectorTileBuilder {
public:
  VectorTileBuilder(mlir::OpBuilder &b, mlir::Location loc,
                    const AttentionInfo &info,
                    const AttentionSchedule &schedule,
                    const QueryTileTask &task, const AttentionTables &tables)
      : b(b), loc(loc), info(info), task(task), tables(tables),
        ctx(b.getContext()), c(info.c), tq(schedule.queryTile),
        tk(schedule.keyTile), heads(schedule.packedHeads),
        rowsPerHead(schedule.rowsPerHead), keysOnLanes(schedule.keysOnLanes),
        scoreDimLanes(schedule.scoreDimLanes),
        narrowRowsOnLanes(schedule.narrowRowsOnLanes),
        prefetchTiles(schedule.prefetchTiles), widenKeys(schedule.widenKeys),
        widenValues(schedule.widenValues),
        prefetchInterleaved(schedule.prefetchInterleaved),
        keyRegions(schedule.keyRegions),
        spreadPrefetches(schedule.spreadPrefetches),
        spreadLines(schedule.spreadLines),
        prefetchValuesInStep(schedule.prefetchValuesInStep),
        prefetchBetweenContractions(schedule.prefetchBetweenContractions),
        prefetchAlternateKV(schedule.prefetchAlternateKV) {}

  /// Builds the task's body at the builder's insertion point.
  void build();

private:
  //===--- VectorLayoutTile.cpp -------------------------------------------===//
  /// Q~ of the query tile (prologue applied), transposed: qT [D x tq].
  void buildQueryTranspose();
  /// A filled tile of the compute type, marked (rows of 2-d tiles by 1).
  mlir::Value filled(llvm::ArrayRef<mlir::OpFoldResult> sizes, double value);
  /// The key/value loop state and its loops; returns the final state.
  mlir::ValueRange buildKeyLoops();
  /// S = Q~ K~^T [tq x tk] with the head dim on the vector lanes
  /// (scoreDimLanes): per-lane partial products, then one reduction of
  /// each score's lanes.
  mlir::Value scoresWithDimsOnLanes(mlir::Value kTile);
  /// S^T = Q~ K~^T [tk x tq] for narrowRowsOnLanes.
  mlir::Value narrowRowScores(mlir::Value kTile);
  /// The keys of a register tile of lanePartials.
  int64_t lanePartialKeys() const;
  /// partial[i, j, l] = sum_c Q~[i, c, l] K~[j, c, l] of the `keys` rows
  /// `kRows` of K~ ([tq x keys x lanes]), marked for register tiles zeroed
  /// in registers; written into `into` (a slice of a larger tile) if given.
  mlir::Value lanePartials(mlir::Value kRows, int64_t keys,
                           mlir::Value into = nullptr);
  /// S[i, j] = sum_l partial[i, j, l] ([tq x keys]), a transpose-and-add
  /// tree per [lanes x lanes] block, written into `into` if given.
  mlir::Value laneScores(mlir::Value partial, int64_t keys,
                         mlir::Value into = nullptr);
  /// One key tile of the online softmax; `tail`: the last, partial tile.
  void keyStep(mlir::Value kStart, mlir::ValueRange iter, bool tail);
  /// Rows [kStart, kStart + kSize) of K, V or a RoPE table (padded in the
  /// tail).
  mlir::Value keyRows(mlir::Value source, mlir::Value kStart, mlir::Value kSize,
                      bool tail);
  /// S^T = causal(score_mod(scale * S^T)) with padded keys masked; `row`:
  /// an edge row of qr^T added per query, `gather`: qr^T read per element.
  mlir::Value modifyScores(mlir::Value sIn, mlir::Value kStart, mlir::Value row,
                           bool gather, bool tail);
  /// The normalized output tile, written to the forall's output.
  void buildOutput(mlir::Value lFinal, mlir::Value accFinal);

  //===--- DecodeSchedule.cpp ---------------------------------------------===//
  /// The [tq x cols] rows of Q (at the lead indices `at`: the rows of
  /// each packed head) or of a RoPE table (`at` empty: the same rows for
  /// each head) in the decode schedule, each head's rows zero-padded.
  mlir::Value decodeRows(mlir::Value source, llvm::ArrayRef<mlir::Value> at);
  /// The query row of tile row `row`, and (in a linalg body whose dim 1 is
  /// the tile row) the lead indices of the row's query head.
  mlir::Value rowQuery(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row);
  llvm::SmallVector<mlir::Value> rowLead(mlir::OpBuilder &b,
                                         mlir::Location loc);
  /// Decode: the unnormalized (m, l, acc) of the task, written to the
  /// forall's partial outputs at its split.
  void buildPartialOutput(mlir::ValueRange results);
  /// Decode: prefetches (into L1) the rows of K and V of the key tile
  /// `prefetchTiles` tiles after the one at `kStart`, those before the
  /// task's key end, one prefetch per cache line; with
  /// prefetchValuesInStep the V rows of the (full) tile at `kStart` itself
  /// instead, first.
  void prefetchKeyTile(mlir::Value kStart);
  /// The first row of the key tile `prefetchTiles` tiles after the one at
  /// `kStart`, and how many of its rows lie before the task's key end.
  std::pair<mlir::Value, mlir::Value> nextKeyTileRows(mlir::Value kStart);
  /// Prefetches rows [first, end) of each of `sources` (K and V when
  /// empty) after row `next` (an empty range when end <= first) with
  /// `locality` (3: into L1, 2: into L2).
  /// With `spreadRows` > 0 each loop over the rows is marked with it (a
  /// static bound on its trip count) for --posenc-spread-decode-prefetches;
  /// with spreadLines the marked loop runs over the rows' cache lines
  /// instead (its bound `spreadRows` times a row's lines).
  void prefetchKeyRows(mlir::Value next, mlir::Value first, mlir::Value end,
                       uint32_t locality, int64_t spreadRows = 0,
                       llvm::ArrayRef<mlir::Value> sources = {});
  /// A loop prefetching rows [first, end) after row `next` of `buffer`
  /// (K or V; rows of `lines` cache lines of `perLine` elements): over the
  /// rows, each iteration a row's lines, or (`byLine`) over the rows'
  /// lines, one per iteration.
  mlir::scf::ForOp prefetchLoop(mlir::Value buffer, mlir::Value next,
                                mlir::Value first, mlir::Value end,
                                int64_t lines, int64_t perLine,
                                uint32_t locality, bool byLine);

  //===--- KeyRegions.cpp -------------------------------------------------===//
  /// Whether the full key tiles are visited over keyRegions regions: the
  /// decode schedule, with no state but (m, l, acc) carried across tiles.
  bool visitsKeyRegions(size_t carried) const;
  /// The loop over the full key tiles [kBegin, fullEnd) in the interleaved
  /// order of keyRegionTile, from the state `init`.
  mlir::scf::ForOp buildKeyRegionLoop(mlir::ValueRange init);
  /// The index of the full key tile visited at step `j` (< n): step j of
  /// the first R q steps (n = R q + r) visits tile j / R of region j % R,
  /// the last r steps the last tile of regions 0..r-1 (those have q + 1
  /// tiles, region i starts at tile i q + min(i, r)).
  mlir::Value keyRegionTile(mlir::Value j, mlir::Value q, mlir::Value r);

  //===--- InterleavedPrefetch.cpp ----------------------------------------===//
  /// Whether the full key steps issue their prefetches among the score
  /// contraction's register tiles (scoresInterleavingPrefetches) instead of
  /// in one burst first: prefetchInterleaved, head dim on the lanes,
  /// tiles of 4 rows, half-precision K.
  bool interleavesPrefetches() const;
  /// scoresWithDimsOnLanes cut into its register tiles of keys, each after
  /// the prefetches (into L2) of the same keys' K and V rows of the next
  /// key tile: the prefetches spread through the contraction instead of
  /// one burst per key step.
  mlir::Value scoresInterleavingPrefetches(mlir::Value kTile,
                                           mlir::Value kStart);

  //===--- ShawTerms.cpp --------------------------------------------------===//
  /// The tile's lowest and highest j - (i + shift), and whether some lies in
  /// the band (-K, K).
  struct Band {
    mlir::Value lowest, highest, reached;
  };
  /// j - (i + shift) of key kStart + jLocal, query row qStart + iLocal.
  mlir::Value distAt(mlir::Value kStart, mlir::Value jLocal,
                     mlir::Value iLocal);
  Band band(mlir::Value kStart, int64_t bandK);
  /// Shaw's key term: qr^T [2K+1 (padded) x tq] = rel_key Q~^T, one small
  /// contraction per query tile.
  void buildShawKeyTable();
  /// The scores of the key tile at `kStart` with Shaw's key term added
  /// (modifyScores with an edge row or the per-element gather).
  mlir::Value modifyScoresWithShawKeyTerm(mlir::Value s, mlir::Value kStart,
                                          bool tail);
  /// The bucket sums of Shaw's value term after the key tile at `kStart`:
  /// new (edgeLo, edgeHi, inner).
  llvm::SmallVector<mlir::Value, 3>
  accumulateValueBuckets(mlir::Value kStart, mlir::Value p, mlir::Value alpha,
                         mlir::Value edgeLo, mlir::Value edgeHi,
                         mlir::Value inner);
  /// The inner buckets after the key tile at `kStart` (an scf.if on whether
  /// the tile reaches the band).
  mlir::Value accumulateInnerBuckets(mlir::Value kStart, mlir::Value p,
                                     mlir::Value alpha, mlir::Value inner);
  /// inner' = alpha inner + P gathered by bucket, for a band tile.
  mlir::Value gatherInnerBuckets(mlir::Value kStart, mlir::Value p,
                                 mlir::Value alpha, mlir::Value inner,
                                 mlir::AffineMap bucketCol);
  /// accFinal + B^T rel_value with the bucket sums B of the loops' results.
  mlir::Value addValueBuckets(mlir::ValueRange results, mlir::Value lFinal,
                              mlir::Value accFinal);

  //===--- T5Terms.cpp ----------------------------------------------------===//
  /// T5's bias along the diagonals of the key tile at `kStart`: [tq + tk - 1]
  /// entries, row[iLocal - jLocal + tk - 1] = table[bucket(j - i'), h].
  mlir::Value buildT5TileRow(mlir::Value kStart);
  /// `score` + the t5Row entry of the enclosing S^T generic's element.
  mlir::Value addT5Term(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value score);

  //===--- XlTerms.cpp ----------------------------------------------------===//
  /// Transformer-XL: xlQueryT = Q~^T + v_h, then qT = Q~^T + u_h.
  void buildXlQueryTiles();
  /// The band product of the key tile at `kStart`: [xlBandRows x tq],
  /// row r = rel[first + r] . (Q~ + v_h)^T, first = t(qStart, kStart + tk - 1).
  mlir::Value buildXlBand(mlir::Value kStart);
  /// `score` + the xlBand entry of the enclosing S^T generic's element.
  mlir::Value addXlTerm(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value score);

  //===--- DebertaTerms.cpp -----------------------------------------------===//
  /// `numRows` rows (0: debertaBandRows) of `table` ([H x] 2k x D) of the
  /// distances of the key tile at `kStart` (row u: i - j = qStart - kStart
  /// + u - (tk - 1)), in the compute type: [numRows x D].
  mlir::Value gatherDebertaRows(mlir::Value table, mlir::Value kStart,
                                int64_t numRows);
  /// The entry of the per-op index (prepareDebertaIndex) of band row 0 of
  /// the key tile at `kStart` (row u reads entry first + u, clamped).
  mlir::Value debertaFirstEntry(mlir::Value kStart);
  /// Whether band rows [0, numRows) of the key tile at `kStart` all gather
  /// one table row (an i1): a far tile, whose distances all lie past the
  /// span or in one log bucket.
  mlir::Value debertaRowsUniform(mlir::Value kStart, int64_t numRows);
  /// `dest` overwritten with the 2-d tile `t` read at index 0 of dim `dim`:
  /// t's first row (dim 0) or column (dim 1) repeated.
  mlir::Value broadcastFirst(mlir::Value t, int64_t dim, mlir::Value dest);
  /// `dest` filled with zeros (a marked linalg.fill).
  mlir::Value zeroedInto(mlir::Value dest);
  /// A zeroed [rows x cols] accumulator tile of its own (not a view of a
  /// band), so that the vector hoisting keeps its accumulators in
  /// registers; copiedInto then writes the finished product where it goes.
  mlir::Value ownAccumulatorTile(int64_t rows, int64_t cols);
  /// `tile` copied into `dest` (a marked linalg.copy).
  mlir::Value copiedInto(mlir::Value tile, mlir::Value dest);
  /// P [tk x numRows] = K~ pos_query[c(band rows < numRows)]^T, accumulated
  /// into `init` (zeros).
  mlir::Value buildDebertaP2C(mlir::Value kStart, mlir::Value kTile,
                              int64_t numRows, mlir::Value init);
  /// The full p2c band [tk x debertaBandRows] in `dest`: every entry a
  /// score reads (addDebertaTerms), as two half-key products.
  mlir::Value buildDebertaP2CBand(mlir::Value kStart, mlir::Value kTile,
                                  mlir::Value dest);
  /// gatherDebertaRows of pos_query transposed: [D x numRows].
  mlir::Value gatherDebertaRowsT(mlir::Value kStart, int64_t numRows);
  /// The first `numRows` rows (0: debertaBandRows) of the c2p band of the
  /// key tile at `kStart`: pos_key[c(band)] Q~^T, [numRows x tq], copied
  /// into `dest` when given (computed in a buffer of its own either way).
  mlir::Value buildDebertaC2PRows(mlir::Value kStart, int64_t numRows,
                                  mlir::Value dest);
  /// DeBERTa's bands of the key tile at `kStart` (K~ tile `kTile`):
  /// debertaC2P = `carried` (with c2p: the loops' last value), debertaP2C
  /// [tk x rows] (with p2c).
  void buildDebertaBands(mlir::Value kStart, mlir::Value kTile,
                         mlir::Value carried);
  /// The c2p band of the key tile after the one at `kStart`, written over
  /// debertaC2P (after its last read).
  mlir::Value nextDebertaC2P(mlir::Value kStart);
  /// `score` + the band entries of the enclosing S^T generic's element.
  mlir::Value addDebertaTerms(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value score);

  /// The register tile [rows, dims] of P V, for 512-bit vectors.
  llvm::SmallVector<int64_t, 2> valueRegisterTile() const;
  /// The V tile of a key step, converted to the compute type once when the
  /// decode schedule's P V would convert it in more than two passes.
  mlir::Value widenedValueTile(mlir::Value vTile);
  /// The K~ tile of a key step in the compute type where the rows-on-lanes
  /// contraction broadcasts its elements: once per key tile
  /// (AttentionSchedule::widenKeys), or per register tile of the
  /// contraction (AttentionSchedule::narrowRowsOnLanes).
  mlir::Value widenedKeyTile(mlir::Value kTile);
  /// `tile` converted to the compute type (a marked elementwise generic).
  mlir::Value convertedTile(mlir::Value tile);
  /// Marks a contraction of a key step (the scores, P V) with its register
  /// tile, fusing its destination's producer in the decode schedule.
  void markKeyContraction(mlir::Value result, llvm::ArrayRef<int64_t> sizes);

  mlir::OpBuilder &b;
  mlir::Location loc;
  const AttentionInfo &info;
  const QueryTileTask &task;
  const AttentionTables &tables;
  mlir::MLIRContext *ctx;
  mlir::FloatType c;
  int64_t tq, tk;
  /// The decode schedule's packed heads and rows per head (0: prefill).
  int64_t heads, rowsPerHead;
  /// The score tile is S [rows x keys] with the keys on the vector lanes
  /// (AttentionSchedule::keysOnLanes), register-tiled kKeyLanes keys at a
  /// time, else S^T [keys x rows] with the rows on the lanes.
  static constexpr int64_t kKeyLanes = 16;
  bool keysOnLanes;
  /// Keys on the lanes: the lanes of scoresWithDimsOnLanes (0: the score
  /// contraction transposes K in registers).
  int64_t scoreDimLanes;
  /// AttentionSchedule::narrowRowsOnLanes.
  bool narrowRowsOnLanes;
  /// Decode: key tiles ahead that each full key tile prefetches (0: none).
  int64_t prefetchTiles;
  /// Decode: f16/bf16 K converted to the compute type once per key tile.
  bool widenKeys;
  /// Decode: AttentionSchedule::widenValues.
  bool widenValues;
  /// Decode, scoreDimLanes: the prefetches interleaved with the score
  /// contraction's register tiles (scoresInterleavingPrefetches).
  bool prefetchInterleaved;
  /// Decode: regions the full key tiles are visited over (1: in order).
  int64_t keyRegions;
  /// Decode: the bursts of prefetchKeyTile marked to be spread over the
  /// step's contraction loops (--posenc-spread-decode-prefetches).
  bool spreadPrefetches;
  /// Decode: AttentionSchedule::spreadLines.
  bool spreadLines;
  /// Decode: AttentionSchedule::prefetchValuesInStep.
  bool prefetchValuesInStep;
  /// Decode: AttentionSchedule::prefetchBetweenContractions.
  bool prefetchBetweenContractions;
  /// Decode: AttentionSchedule::prefetchAlternateKV.
  bool prefetchAlternateKV;
  /// The first row of the tile the current full key step prefetches (the
  /// tile prefetchTiles ahead in the visiting order), or null: the tile
  /// prefetchTiles ahead in key order.
  mlir::Value prefetchNext;
  /// The dim of the score tile's index that is the query row.
  int64_t rowDim() const { return keysOnLanes ? 0 : 1; }

  // Built by build(), in this order.
  mlir::Value tkV, zeroIdx;
  mlir::OpFoldResult dq, dv, tqI, tkI;
  int64_t dvStatic = 0;
  /// Q~^T [D x tq], or (scoreDimLanes) Q~ [tq x D] in qRows.
  mlir::Value qT, qRows, qrT;
  /// T5's bias row of the current key tile (buildT5TileRow), or null.
  mlir::Value t5Row;
  /// Transformer-XL: (Q~ + v_h)^T, the current key tile's band product
  /// (buildXlBand) and its padded row count; null / 0 without the term.
  mlir::Value xlQueryT, xlBand;
  int64_t xlBandRows = 0;
  /// DeBERTa: the current key tile's band products (buildDebertaBands),
  /// null without the term, and their padded band rows.
  mlir::Value debertaC2P, debertaP2C;
  int64_t debertaBandRows = 0;
  /// xPos: the query tile's centers (xposTileCenters), null without xPos.
  XPosTileCenters xposCenters;
  int64_t qrRows = 0;
  /// The task's keys [kBegin, kEnd); the full key tiles end at fullEnd.
  mlir::Value kBegin, kEnd, fullEnd;
  mlir::AffineMap id1, id2, col2;
  bool identityMod = false;
  /// Shaw's value term as bucket sums of P (needs K >= 1).
  bool bucketed = false;
  int64_t redTile = 1, innerRows = 0;
  ScoreLayout layout;
};

} // namespace decompose
} // namespace posenc

#endif // LIB_CONVERSION_DECOMPOSEATTENTION_VECTORLAYOUTTILE_H
