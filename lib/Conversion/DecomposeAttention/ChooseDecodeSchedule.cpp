//===- ChooseDecodeSchedule.cpp - the decode schedule a shape gets --------===//
//
// Which decode schedule (AttentionSchedule) a posenc.fused_attention gets
// from its shapes, element types and the pass options: the packed tile's
// rows, its key tile, the score layout (keys or rows on the vector lanes,
// the head dim on the lanes), where f16/bf16 K is converted, whether the
// key steps' prefetches are spread, and the GPU block fit of the generic
// layout. Each choice names the measurement behind it. The schedule is
// built from this by DecomposeAttention.cpp and the tile layouts.
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "posenc/Conversion/TargetVectorWidth.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

/// Decode tiles of at most this many rows contract the scores with the head
/// dim on the lanes: with the keys on the lanes, the register transpose of
/// K costs as many shuffles as FMAs at 4 rows, a quarter at 16 rows, where
/// the per-row partial products (K read once per 4 rows, 64 KiB of
/// partials per key tile) measured 1.3-1.8x slower (docs/pipelines.md).
constexpr int64_t kMaxScoreDimRows = 4;

/// Whether a decode tile of `rows` rows puts the keys on the vector lanes:
/// when its rows fit one f32 vector, except a tile of more than
/// kMaxScoreDimRows rows that fills a 512-bit vector's lanes (16 rows).
/// Measured (docs/bench-cpu.md, Sk = 16384, GQA 32/8): with 512-bit vectors
/// 32 rows ran slower with the keys on the lanes; with 256-bit vectors 4
/// rows faster, 8 and 12 about even, 16 rows slower (the [rows x 16 keys]
/// accumulators outgrow the 16 registers). 16 rows at 512 bits with the
/// rows on the lanes (docs/pipelines.md, "Tiles of 16 rows"): faster for
/// f32 K, and for f16/bf16 K since the key step's prefetches are spread
/// (K then converted once per key tile, kWidenKeysRows).
static bool decodeKeysOnLanes(int64_t rows, int64_t vectorBits) {
  int64_t bits = resolveVectorBits(vectorBits);
  if (rows * 32 > bits)
    return false;
  return rows <= kMaxScoreDimRows || rows * 32 < bits || bits < 512;
}

/// The f32 lanes of the score contraction with the head dim on the lanes
/// (AttentionSchedule::scoreDimLanes) for a keys-on-lanes decode tile of at
/// most kMaxScoreDimRows rows: the target's lanes when `enabled` and a
/// static head dim D divides into them (and the key tile too, whole blocks
/// of keys per reduction), else 0.
static int64_t decodeScoreDimLanes(const AttentionInfo &info,
                                   const AttentionSchedule &schedule,
                                   bool enabled, int64_t vectorBits) {
  int64_t bits = resolveVectorBits(vectorBits);
  int64_t lanes = bits / 32;
  int64_t d = cast<RankedTensorType>(info.q.getType()).getDimSize(info.n + 1);
  int64_t dk = cast<RankedTensorType>(info.k.getType()).getDimSize(info.n + 1);
  if (!enabled || !schedule.keysOnLanes || lanes < 4 ||
      schedule.queryTile > kMaxScoreDimRows || ShapedType::isDynamic(d) ||
      d != dk || d % lanes != 0 || schedule.keyTile % lanes != 0)
    return 0;
  return lanes;
}

/// Whether a decode tile of `rows` rows spreads its key steps' prefetches
/// over their contraction loops (--posenc-spread-decode-prefetches): with
/// 512-bit vectors, when each prefetched line of K/V feeds at least two
/// FMAs (rows x 32 / K's element bits). A 1-row tile with f32 K/V (MHA,
/// Sq = 1) is a load per FMA; spread, its prefetches measured 1.2-1.45x
/// slower than the burst (the others 0.67-0.97). With 256-bit tiles (AVX2
/// code, measured on the AVX-512 host only) the spread measured 0.73-1.28x
/// the burst, slower for most tiles: those keep the burst (docs/pipelines.md,
/// "Prefetches spread over the key step").
static bool spreadsPrefetches(const AttentionInfo &info, int64_t rows,
                              int64_t vectorBits) {
  int64_t bits = resolveVectorBits(vectorBits);
  auto kType = cast<RankedTensorType>(info.k.getType());
  return bits >= 512 &&
         rows * 32 >= 2 * int64_t(kType.getElementTypeBitWidth());
}

/// Decode tiles of more than this many rows with the rows on the lanes
/// (64 rows: Sq = 16, GQA 4) convert f16/bf16 K once per key tile
/// (AttentionSchedule::widenKeys): their score contraction broadcasts each
/// K element once per 32 rows, so a per-element conversion costs a scalar
/// conversion and a register broadcast per two FMAs (docs/pipelines.md,
/// "The 64-row decode tile"). Smaller tiles keep their own measured paths,
/// except kWidenKeysRows.
constexpr int64_t kMaxNarrowDecodeRows = 16;

/// Tiles of this many rows with 512-bit vectors (Sq = 4 GQA 32/8, Sq = 16
/// MHA) also convert f16/bf16 K once per key tile, the rows on the lanes:
/// with the prefetches spread over the key step, 0.90-0.98x the time of
/// the transposing contraction (keys on the lanes) for GQA Sq = 4, level
/// for MHA Sq = 16 (docs/pipelines.md, "Half-precision K in 16-row tiles
/// at 512 bits"). 256-bit tiles of 16 rows keep the conversion per
/// register tile (their prefetches stay a burst; not measured against it).
constexpr int64_t kWidenKeysRows = 16;

/// f16/bf16 V is converted once per key tile (AttentionSchedule::
/// widenValues) only with vectors narrower than this: at 512 bits the P V
/// register tiles of 16 and 64 rows convert V in each of their passes
/// (vcvtph2ps and the bf16 shift run beside the FMAs), 0.91-0.95x the time
/// of storing an f32 V tile and reading it back (GQA Sq = 4 and 16, MHA
/// Sq = 16, f16/bf16; docs/pipelines.md, "V converted in each pass at 512
/// bits"); 256-bit code measured level (0.996-1.005) and keeps the f32 tile.
constexpr int64_t kConvertValuesPerPassBits = 512;

/// The decode tiles that take DecomposeAttentionOptions::rows16KeyTile.
constexpr int64_t kRows16 = 16;

/// Decode tiles of at most this many rows take
/// DecomposeAttentionOptions::rows4KeyTile: 16-key steps measured 0.78-0.95x
/// the time of 64-key steps for Sq = 1 (GQA 32/8 and MHA) and Sq = 4 MHA
/// with the caches flushed (one case level), 256-bit tiles 0.70-0.93x but
/// GQA f32 1.03x (docs/pipelines.md, "Short key steps for narrow decode
/// tiles").
constexpr int64_t kMaxRows4 = 4;

/// Whether a tile that spreads its prefetches hands them out a cache line at
/// a time (AttentionSchedule::spreadLines) rather than a row of K/V at a
/// time: tiles of at most 4 rows (kMaxRows4) with f32 K, whose rows-at-a-
/// time spread issued a row's 8 prefetches together every second
/// contraction iteration; by lines they issue 4 lines per iteration. GQA
/// Sq = 1 f32 measured 0.94-0.97x the time of rows through the JIT (0.85-
/// 0.97x in a C driver), MHA Sq = 4 f32 0.98x (0.91x). The 16-row f32 tile
/// (one line per iteration) measured level to 2 % slower (0.98-1.02x) and
/// 64-row tiles 1.14x slower; f16/bf16 rows are 4 lines (docs/pipelines.md,
/// "Prefetches spread over the key step").
static bool spreadsLines(const AttentionInfo &info, int64_t rows) {
  auto kType = cast<RankedTensorType>(info.k.getType());
  return rows <= kMaxRows4 && kType.getElementTypeBitWidth() == 32;
}

/// Decode tiles of at least this many rows that spread their prefetches
/// one key tile ahead (the default) prefetch their own V rows over their
/// score loop and the next tile's K rows over their P V
/// (AttentionSchedule::prefetchValuesInStep), half a step ahead of use, not
/// the next tile's K and V a whole step ahead: the 16-row steps (128 keys,
/// 128 KiB of f32 K/V per tile against a 48 KiB L1) measured 0.96-0.99x
/// the time through the JIT with the caches flushed (GQA Sq = 4 f32/f16/
/// bf16, MHA Sq = 16), 64-row tiles level (0.996-0.997); 4-row tiles
/// (16-key steps, whose next tile fits L1 beside the current one) 1.02-
/// 1.16x slower (docs/pipelines.md, "Half a step ahead for 16-row tiles").
constexpr int64_t kMinValuesInStepRows = 16;

/// The static shared memory of a GPU block (posenc-gpu-map-attention's
/// limit), and the fewest keys of a decode key tile.
constexpr int64_t kGpuWorkgroupBytes = 48 * 1024, kMinDecodeKeyTile = 8;

/// Fits the generic layout's decode tile into a GPU block's shared memory,
/// where the GPU mapping puts every buffer of a spread tile: Q~ [R x D],
/// the scores [R x keyTile], the accumulator [R x Dv] and a few row
/// statistics for R = packed x rows, the K and V tiles [keyTile x D|Dv], all
/// counted at 4 bytes. Halves `keyTile` (down to kMinDecodeKeyTile), then
/// packs fewer heads, until they fit; false when D or Dv is dynamic or
/// nothing fits (the prefill schedule then).
static bool fitGenericDecodeTile(const AttentionInfo &info, int64_t rows,
                                 int64_t &packed, int64_t &keyTile) {
  auto kType = cast<RankedTensorType>(info.k.getType());
  auto vType = cast<RankedTensorType>(info.v.getType());
  int64_t d = kType.getDimSize(info.n + 1), dv = vType.getDimSize(info.n + 1);
  if (ShapedType::isDynamic(d) || ShapedType::isDynamic(dv))
    return false;
  auto bytes = [&](int64_t r, int64_t kt) {
    return 4 * (r * (d + dv + kt + 8) + kt * (d + dv));
  };
  for (int64_t p = packed; p >= 1; --p) {
    if (packed % p)
      continue;
    for (int64_t kt = keyTile; kt >= std::min(keyTile, kMinDecodeKeyTile);
         kt /= 2) {
      if (bytes(p * rows, kt) <= kGpuWorkgroupBytes) {
        packed = p;
        keyTile = kt;
        return true;
      }
      if (kt == 1)
        break;
    }
  }
  return false;
}

/// The decode schedule of `info`, or none (prefill): the vector layout with
/// no explicit query tile, or the generic layout with `genericDecode` (then
/// Sq static, and the packed tile at most `queryTile` rows, one GPU thread
/// each when a row's ops run on threads); no Shaw, T5, Transformer-XL
/// or DeBERTa terms (T5's tile row and XL's biases and band assume the rows
/// of one head, and XL's and DeBERTa's bands the prefill's query tile), no
/// table-form RoPE in the generic layout (its packed query tile reads
/// position tables), no xPos (its centers are
/// per query tile of one head), Sq static and at most kMaxDecodeRows or
/// (vector layout) dynamic (then padded to kMaxDecodeRows and selected at run
/// time). The query heads that share a K/V head are packed when Hq and Hkv
/// are static, as many as fit the tile's rows.
std::optional<AttentionSchedule>
posenc::decompose::chooseDecodeSchedule(const AttentionInfo &info,
                                        const DecomposeAttentionOptions &o) {
  FusedAttentionOp op = info.op;
  bool generic = !o.vectorLayout && o.genericDecode;
  if ((!generic && (!o.vectorLayout || o.queryTile > 0)) || info.relKey ||
      info.relValue || op.getT5Table() || info.xlRel || op.hasDebertaTerms() ||
      (generic && (op.getQCos() || op.getKCos())) ||
      (info.qRope && info.qRope.getXpos()))
    return std::nullopt;
  auto qType = cast<RankedTensorType>(info.q.getType());
  int64_t sq = qType.getDimSize(info.n);
  if (generic && ShapedType::isDynamic(sq))
    return std::nullopt;
  if (!ShapedType::isDynamic(sq) && (sq < 1 || sq > kMaxDecodeRows))
    return std::nullopt;
  int64_t maxTileRows =
      generic ? (o.queryTile > 0 ? o.queryTile : kGenericQueryTile)
              : kMaxDecodeTileRows;
  int64_t rows = ShapedType::isDynamic(sq) ? kMaxDecodeRows : sq;
  if (rows > maxTileRows)
    return std::nullopt;
  int64_t packed = 1;
  if (info.rank >= 3) {
    int64_t hq = qType.getDimSize(info.n - 1);
    int64_t hkv =
        cast<RankedTensorType>(info.k.getType()).getDimSize(info.n - 1);
    if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && hkv > 0)
      packed = divisorAtMost(hq / hkv, maxTileRows / rows);
  }
  int64_t keyTile = o.keyTile;
  // Tiles of 16 rows: longer key steps (docs/pipelines.md, "Tiles of 16
  // rows"); tiles of at most 4 rows: shorter ones (kMaxRows4); other tiles
  // keep key-tile.
  if (!generic && packed * rows == kRows16 && o.rows16KeyTile > 0)
    keyTile = o.rows16KeyTile;
  else if (!generic && packed * rows <= kMaxRows4 && o.rows4KeyTile > 0)
    keyTile = o.rows4KeyTile;
  if (generic && !fitGenericDecodeTile(info, rows, packed, keyTile))
    return std::nullopt;
  AttentionSchedule schedule{packed * rows, keyTile, !generic};
  schedule.packedHeads = packed;
  schedule.rowsPerHead = rows;
  schedule.splitTasks = o.splitKTasks;
  schedule.splitMaxKeys = o.splitKMaxKeys;
  if (!generic) {
    schedule.keysOnLanes = decodeKeysOnLanes(schedule.queryTile, o.vectorBits);
    schedule.prefetchTiles = o.prefetchTiles;
    schedule.narrowRowsOnLanes =
        !schedule.keysOnLanes && schedule.queryTile <= kMaxDecodeRows;
    schedule.prefetchInterleaved = o.prefetchInterleaved;
    schedule.keyRegions = o.keyRegions;
    schedule.spreadPrefetches =
        o.spreadPrefetches &&
        spreadsPrefetches(info, schedule.queryTile, o.vectorBits);
    schedule.spreadLines =
        schedule.spreadPrefetches && spreadsLines(info, schedule.queryTile);
    schedule.prefetchValuesInStep = schedule.spreadPrefetches &&
                                    o.prefetchTiles == 1 &&
                                    schedule.queryTile >= kMinValuesInStepRows;
    // Tiles of at most 4 rows that prefetch the next tile's K and V a whole
    // step ahead also prefetch among the softmax's ops between the two
    // contractions and, with f32 K (single lines), K's and V's lines in
    // turn (docs/pipelines.md, "Prefetches between the contractions", "K
    // and V lines in turn"; f16/bf16 rows in turn measured 0.95-1.11x).
    bool narrowSpread = schedule.spreadPrefetches &&
                        schedule.queryTile <= kMaxRows4 &&
                        !schedule.prefetchValuesInStep;
    schedule.prefetchBetweenContractions =
        narrowSpread && o.prefetchBetweenContractions;
    schedule.prefetchAlternateKV =
        narrowSpread && schedule.spreadLines && o.prefetchAlternateKV;
    schedule.scoreDimLanes =
        decodeScoreDimLanes(info, schedule, o.scoreDimsOnLanes, o.vectorBits);
    int64_t bits = resolveVectorBits(o.vectorBits);
    schedule.widenKeys =
        o.widenKeys && !schedule.keysOnLanes &&
        (schedule.queryTile > kMaxNarrowDecodeRows ||
         (schedule.queryTile == kWidenKeysRows && bits >= 512));
    schedule.widenValues = bits < kConvertValuesPerPassBits;
  }
  schedule.splitCount = o.splitKCount;
  return schedule;
}
