//===- DecomposeAttention.cpp - flash-style lowering of fused attention ---===//
//
// Lowers posenc.fused_attention (see its description for the math) to a
// flash-attention loop nest on tensors:
//
//   scf.forall (lead dims..., query tile) {
//     Q~ = prologue(Q tile)                    // RoPE once per query tile
//     scf.for key tile (up to the causal diagonal) iter_args(m, l, acc) {
//       K~ = prologue(K tile)                  // RoPE as the tile is loaded
//       S  = scale * Q~ K~^T; S = score_mod(S); causal mask
//       m' = max(m, rowmax S); P = exp(S - m'); a = exp(m - m')
//       l' = a l + rowsum P; acc' = a acc + P (V [+ rel_value[r]])
//     }
//     out = acc / l  (0 for fully masked rows)
//   }
//
// Every intermediate is a tile: nothing Sq x Sk, no rotated copy of Q or K.
// Tiles are linalg.generic ops on tensor slices so that upstream tiling and
// vectorization can take them further.
//
// This file is the schedule: the tile sizes (AttentionSchedule), the
// per-op tables built before the grid, the grid of tasks (the forall over
// lead dims and query tiles) and the extent of each task's key loop
// (keyLoopEnd). The body of one task is built by a layout:
// GenericLayoutTile.cpp (the GPU mapping's) or VectorLayoutTile.cpp (the
// CPU's), from the pieces of TileBuilders.h, RotaryPrologue.cpp,
// ShawTerms.cpp, T5Terms.cpp, XlTerms.cpp and DebertaTerms.cpp.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "TileBuilders.h"

#include "posenc/Conversion/Passes.h"
#include "posenc/Conversion/TargetVectorWidth.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"


namespace posenc {
#define GEN_PASS_DEF_POSENCDECOMPOSEATTENTIONPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

Value posenc::decompose::keyLoopEnd(OpBuilder &b, Location loc, bool causal,
                                    const QueryTileTask &task) {
  if (!causal)
    return task.sk;
  Value lastAllowed = buildCausalKeyBound(
      b, loc, arith::AddIOp::create(b, loc, task.qStart, task.qSize),
      task.shift);
  return arith::MinSIOp::create(b, loc, lastAllowed, task.sk);
}

namespace {

/// The sizes of the grid, built before it: Sq, Sk, Sk - Sq, the GQA group,
/// the query rows per task (one query tile, or a chunk of
/// kRotatedKeyChunkTiles with usesRotatedKeyChunks), the key tile and the
/// tasks per head as index values.
struct GridSizes {
  Value sq, sk, shift, group, taskRows, keyTile, numTasks;
};

static GridSizes buildGridSizes(OpBuilder &b, Location loc,
                                const AttentionInfo &info,
                                const AttentionSchedule &schedule) {
  GridSizes g;
  int64_t n = info.n;
  g.sq = tensor::DimOp::create(b, loc, info.q, n);
  g.sk = tensor::DimOp::create(b, loc, info.k, n);
  g.shift = arith::SubIOp::create(b, loc, g.sk, g.sq);
  if (info.rank >= 3) {
    Value hq = tensor::DimOp::create(b, loc, info.q, n - 1);
    Value hkv = tensor::DimOp::create(b, loc, info.k, n - 1);
    g.group = arith::DivUIOp::create(b, loc, hq, hkv);
  }
  int64_t taskRows = schedule.queryTile;
  if (usesRotatedKeyChunks(info, schedule))
    taskRows *= kRotatedKeyChunkTiles;
  g.taskRows = indexConst(b, loc, taskRows);
  g.keyTile = indexConst(b, loc, schedule.keyTile);
  g.numTasks = arith::CeilDivUIOp::create(b, loc, g.sq, g.taskRows);
  return g;
}

/// The RoPE cos/sin tables of the vector layout: K's angles are read from
/// position-only tables built once here instead of recomputed for every
/// query tile (Q shares K's when both rotate the same positions alike).
static void buildVectorRotaryTables(OpBuilder &b, Location loc,
                                    const AttentionInfo &info,
                                    AttentionTables &t) {
  FusedAttentionOp op = info.op;
  RotaryAttr qRope = info.qRope, kRope = info.kRope;
  if (kRope && !kRope.isTableForm())
    std::tie(t.kCos, t.kSin) =
        rotaryTables(b, loc, kRope, op.getKPositions(), t.kInvFreq, info.c);
  if (qRope && !qRope.isTableForm()) {
    if (qRope == kRope && op.getQPositions() == op.getKPositions())
      std::tie(t.qCos, t.qSin) = std::make_pair(t.kCos, t.kSin);
    else
      std::tie(t.qCos, t.qSin) =
          rotaryTables(b, loc, qRope, op.getQPositions(), t.qInvFreq, info.c);
  }
}

/// The cos/sin operands of a table-form prologue (null otherwise), for the
/// vector layout converted once to the compute type `c`.
static std::pair<Value, Value> tableFormTables(OpBuilder &b, Location loc,
                                               RotaryAttr rope, Value cos,
                                               Value sin, FloatType c,
                                               bool vectorLayout) {
  if (!rope || !rope.isTableForm())
    return {};
  if (!vectorLayout)
    return {cos, sin};
  auto convert = [&](Value table) {
    auto type = cast<RankedTensorType>(table.getType());
    if (type.getElementType() == c)
      return table;
    int64_t rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
    Value converted = buildGeneric(
        b, loc, table,
        tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, table),
                                c),
        {id, id}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          yieldValue(b, loc, castFloat(b, loc, a[0], c));
        });
    SmallVector<int64_t> tiles(rank, 1);
    tiles.back() = 0;
    markVectorTile(converted, tiles);
    return converted;
  };
  return {convert(cos), convert(sin)};
}

/// The forall over (lead dims, query tiles or chunks of them) with the
/// shared output `init`;
/// the builder is left at the start of its body, where the task's values
/// are built.
static QueryTileTask buildGrid(OpBuilder &b, Location loc,
                               const AttentionInfo &info, const GridSizes &g,
                               ArrayRef<OpFoldResult> resultSizes, Value init) {
  int64_t n = info.n;
  SmallVector<OpFoldResult> ubs(resultSizes.begin(), resultSizes.begin() + n);
  ubs.push_back(g.numTasks);
  QueryTileTask task;
  task.forall =
      scf::ForallOp::create(b, loc, ubs, ValueRange{init}, std::nullopt);
  b.setInsertionPointToStart(task.forall.getBody());

  SmallVector<Value> ivs(task.forall.getInductionVars());
  task.lead.assign(ivs.begin(), ivs.begin() + n);
  task.kvLead = task.lead;
  if (info.rank >= 3)
    task.kvLead[n - 1] =
        arith::DivUIOp::create(b, loc, task.lead[n - 1], g.group);
  task.qStart = arith::MulIOp::create(b, loc, ivs[n], g.taskRows);
  task.qSize = arith::MinUIOp::create(
      b, loc, g.taskRows, arith::SubIOp::create(b, loc, g.sq, task.qStart));
  task.sq = g.sq;
  task.sk = g.sk;
  task.shift = g.shift;
  // Over a KV cache, batch b sees its own keys and causal alignment.
  if (info.kvLengths) {
    CacheKeyRange range =
        buildCacheKeyRangeOfBatch(b, loc, info.kvLengths, task.lead[0], g.sq);
    task.sk = range.length;
    task.shift = range.shift;
  }
  task.keyTileSize = g.keyTile;
  return task;
}

/// The most query rows per head of the decode schedule, and the most rows
/// of a packed decode tile.
constexpr int64_t kMaxDecodeRows = 16, kMaxDecodeTileRows = 128;
/// Query rows per tile of the prefill schedule when none is given: the
/// vector layout's 64 (fastest of 32/64/128 on the AVX-512 host,
/// docs/bench-cpu.md), the generic layout's 32.
constexpr int64_t kPrefillQueryTile = 64, kGenericQueryTile = 32;

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
  int64_t bits = vectorBits > 0 ? vectorBits : getHostVectorBits();
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
  int64_t bits = vectorBits > 0 ? vectorBits : getHostVectorBits();
  int64_t lanes = bits / 32;
  int64_t d = cast<RankedTensorType>(info.q.getType()).getDimSize(info.n + 1);
  int64_t dk = cast<RankedTensorType>(info.k.getType()).getDimSize(info.n + 1);
  if (!enabled || !schedule.keysOnLanes || lanes < 4 ||
      schedule.queryTile > kMaxScoreDimRows ||
      ShapedType::isDynamic(d) || d != dk || d % lanes != 0 ||
      schedule.keyTile % lanes != 0)
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
  int64_t bits = vectorBits > 0 ? vectorBits : getHostVectorBits();
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
/// MHA) also convert f16/bf16 K once per key tile: with the prefetches
/// spread over the key step, 0.85-0.93x the time of the transposing
/// contraction (keys on the lanes) and of K converted per register tile
/// (docs/pipelines.md, "Tiles of 16 rows"). 256-bit tiles of 16 rows
/// keep the conversion per register tile (their prefetches stay a burst).
constexpr int64_t kWidenKeysRows = 16;

/// The decode tiles that take DecomposeAttentionOptions::rows16KeyTile.
constexpr int64_t kRows16 = 16;

/// Decode tiles of at most this many rows take
/// DecomposeAttentionOptions::rows4KeyTile: 16-key steps measured 0.78-0.95x
/// the time of 64-key steps for Sq = 1 (GQA 32/8 and MHA) and Sq = 4 MHA
/// with the caches flushed (one case level), 256-bit tiles 0.70-0.93x but
/// GQA f32 1.03x (docs/pipelines.md, "Short key steps for narrow decode
/// tiles").
constexpr int64_t kMaxRows4 = 4;

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
static std::optional<AttentionSchedule>
chooseDecodeSchedule(const AttentionInfo &info,
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
  int64_t maxTileRows = generic ? (o.queryTile > 0 ? o.queryTile
                                                   : kGenericQueryTile)
                                : kMaxDecodeTileRows;
  int64_t rows = ShapedType::isDynamic(sq) ? kMaxDecodeRows : sq;
  if (rows > maxTileRows)
    return std::nullopt;
  int64_t packed = 1;
  if (info.rank >= 3) {
    int64_t hq = qType.getDimSize(info.n - 1);
    int64_t hkv = cast<RankedTensorType>(info.k.getType()).getDimSize(info.n - 1);
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
    schedule.scoreDimLanes =
        decodeScoreDimLanes(info, schedule, o.scoreDimsOnLanes, o.vectorBits);
    int64_t bits = o.vectorBits > 0 ? o.vectorBits : getHostVectorBits();
    schedule.widenKeys =
        o.widenKeys && !schedule.keysOnLanes &&
        (schedule.queryTile > kMaxNarrowDecodeRows ||
         (schedule.queryTile == kWidenKeysRows && bits >= 512));
  }
  schedule.splitCount = o.splitKCount;
  return schedule;
}

struct DecomposeFusedAttention : OpRewritePattern<FusedAttentionOp> {
  DecomposeFusedAttention(MLIRContext *ctx, DecomposeAttentionOptions options)
      : OpRewritePattern(ctx), options(options),
        schedule{options.queryTile > 0 ? options.queryTile
                 : options.vectorLayout ? kPrefillQueryTile
                                        : kGenericQueryTile,
                 options.keyTile, options.vectorLayout} {}

  LogicalResult matchAndRewrite(FusedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (schedule.queryTile <= 0 || schedule.keyTile <= 0)
      return rewriter.notifyMatchFailure(op, "tile sizes must be > 0");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AttentionInfo info(op);
    std::optional<AttentionSchedule> decode =
        chooseDecodeSchedule(info, options);

    buildFusedAttentionRuntimeChecks(rewriter, op);
    GridSizes grid = buildGridSizes(rewriter, loc, info, schedule);

    AttentionTables tables;
    // Table-form prologues read their tables (in the compute type for the
    // vector layout, whose tile generics take them as they are).
    std::tie(tables.qCos, tables.qSin) = tableFormTables(
        rewriter, loc, info.qRope, op.getQCos(), op.getQSin(), info.c,
        schedule.vectorLayout);
    if (op.getKCos() == op.getQCos() && op.getKSin() == op.getQSin())
      std::tie(tables.kCos, tables.kSin) = std::pair(tables.qCos, tables.qSin);
    else
      std::tie(tables.kCos, tables.kSin) = tableFormTables(
          rewriter, loc, info.kRope, op.getKCos(), op.getKSin(), info.c,
          schedule.vectorLayout);
    if (info.qRope && !info.qRope.isTableForm())
      tables.qInvFreq = buildRotaryInvFreqConstant(
          rewriter, loc, info.qRope,
          rotaryAngleType(ctx, info.qRope.getPrecision()));
    if (info.kRope && !info.kRope.isTableForm())
      tables.kInvFreq = buildRotaryInvFreqConstant(
          rewriter, loc, info.kRope,
          rotaryAngleType(ctx, info.kRope.getPrecision()));
    if (info.qRope && info.qRope.getXpos()) {
      tables.qLogDecay = buildXPosLogDecayConstant(
          rewriter, loc, info.qRope.getXpos(), info.qRope.getRotaryDim(),
          info.c);
      tables.kLogDecay = buildXPosLogDecayConstant(
          rewriter, loc, info.kRope.getXpos(), info.kRope.getRotaryDim(),
          info.c);
    }

    RankedTensorType resultType = op.getResult().getType();
    SmallVector<OpFoldResult> resultSizes =
        tensor::getMixedSizes(rewriter, loc, info.q);
    resultSizes.back() =
        tensor::getMixedSize(rewriter, loc, info.v, info.n + 1);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultSizes, info.elemType);
    if (init.getType() != resultType)
      init = tensor::CastOp::create(rewriter, loc, resultType, init);

    if (schedule.vectorLayout) {
      buildVectorRotaryTables(rewriter, loc, info, tables);
      if (tables.kLogDecay)
        std::tie(tables.kCos, tables.kSin) = decayKeyTablesPerTile(
            rewriter, loc, tables.kCos, tables.kSin, op.getKPositions(),
            tables.kLogDecay, schedule.keyTile, info.c);
      if (info.relKey)
        tables.relKeyPadded =
            prepareShawRelKey(rewriter, loc, info, info.relKey, info.maxDist);
      if (op.getT5Table())
        tables.t5Buckets =
            prepareT5Buckets(rewriter, loc, info, grid.sq, grid.sk);
    }
    if (op.hasDebertaTerms() &&
        (schedule.vectorLayout || getDebertaBucketParams(op)))
      tables.debertaIndex =
          prepareDebertaIndex(rewriter, loc, info, grid.sq, grid.sk);

    auto prefill = [&](OpBuilder &b) -> Value {
      OpBuilder::InsertionGuard guard(b);
      QueryTileTask task = buildGrid(b, loc, info, grid, resultSizes, init);
      if (usesRotatedKeyChunks(info, schedule))
        buildRotatedKeyChunk(b, loc, info, schedule, task, tables);
      else if (schedule.vectorLayout)
        buildVectorLayoutTile(b, loc, info, schedule, task, tables);
      else
        buildGenericLayoutTile(b, loc, info, schedule, task, tables);
      return task.forall.getResult(0);
    };
    auto decoded = [&](OpBuilder &b) -> Value {
      Value r = buildDecodeAttention(b, loc, info, *decode, tables, resultSizes);
      if (r.getType() != resultType)
        r = tensor::CastOp::create(b, loc, resultType, r);
      return r;
    };
    if (!decode) {
      rewriter.replaceOp(op, prefill(rewriter));
      return success();
    }
    if (!ShapedType::isDynamic(
            cast<RankedTensorType>(info.q.getType()).getDimSize(info.n))) {
      rewriter.replaceOp(op, decoded(rewriter));
      return success();
    }
    // Dynamic Sq: the decode schedule for Sq <= kMaxDecodeRows, else the
    // prefill schedule (docs/pipelines.md).
    Value small = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule,
                                        grid.sq,
                                        indexConst(rewriter, loc, kMaxDecodeRows));
    auto branch = scf::IfOp::create(
        rewriter, loc, small,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, decoded(b));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, prefill(b));
        });
    rewriter.replaceOp(op, branch.getResult(0));
    return success();
  }

  DecomposeAttentionOptions options;
  AttentionSchedule schedule;
};

struct PosencDecomposeAttentionPass
    : posenc::impl::PosencDecomposeAttentionPassBase<
          PosencDecomposeAttentionPass> {
  using PosencDecomposeAttentionPassBase::PosencDecomposeAttentionPassBase;

  void runOnOperation() override {
    if (queryTile < 0 || keyTile <= 0) {
      getOperation()->emitError("posenc-decompose-attention: query-tile (")
          << queryTile << ") must be >= 0 (0: by shape) and key-tile ("
          << keyTile << ") > 0";
      return signalPassFailure();
    }
    if (splitKMaxKeys < 0) {
      getOperation()->emitError("posenc-decompose-attention: split-k-max-keys (")
          << splitKMaxKeys << ") must be >= 0 (0: no limit)";
      return signalPassFailure();
    }
    if (rows16KeyTile < 0) {
      getOperation()->emitError("posenc-decompose-attention: rows16-key-tile (")
          << int64_t(rows16KeyTile) << ") must be >= 0 (0: key-tile)";
      return signalPassFailure();
    }
    if (rows4KeyTile < 0) {
      getOperation()->emitError("posenc-decompose-attention: rows4-key-tile (")
          << int64_t(rows4KeyTile) << ") must be >= 0 (0: key-tile)";
      return signalPassFailure();
    }
    if (prefetchTiles < 0) {
      getOperation()->emitError("posenc-decompose-attention: prefetch-tiles (")
          << int64_t(prefetchTiles) << ") must be >= 0";
      return signalPassFailure();
    }
    if (keyRegions < 1) {
      getOperation()->emitError("posenc-decompose-attention: key-regions (")
          << int64_t(keyRegions) << ") must be >= 1";
      return signalPassFailure();
    }
    if (splitKTasks < 0 || splitKCount < 0) {
      getOperation()->emitError("posenc-decompose-attention: split-k-tasks (")
          << splitKTasks << ") and split-k-count (" << splitKCount
          << ") must be >= 0";
      return signalPassFailure();
    }
    DecomposeAttentionOptions options;
    options.queryTile = queryTile;
    options.keyTile = keyTile;
    options.vectorLayout = vectorLayout;
    options.splitKTasks = splitKTasks;
    options.splitKMaxKeys = splitKMaxKeys;
    options.splitKCount = splitKCount;
    options.genericDecode = genericDecode;
    options.vectorBits = vectorBits;
    options.prefetchTiles = prefetchTiles;
    options.prefetchInterleaved = prefetchInterleaved;
    options.keyRegions = keyRegions;
    options.scoreDimsOnLanes = scoreDimsOnLanes;
    options.widenKeys = widenKeys;
    options.rows16KeyTile = rows16KeyTile;
    options.rows4KeyTile = rows4KeyTile;
    options.spreadPrefetches = spreadPrefetches;
    RewritePatternSet patterns(&getContext());
    populateDecomposeAttentionPatterns(patterns, options);
    // Only the fused ops are rewritten; nothing else is folded on the way.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](FusedAttentionOp op) {
      op.emitOpError("could not be decomposed");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void posenc::populateDecomposeAttentionPatterns(
    RewritePatternSet &patterns, const DecomposeAttentionOptions &options) {
  patterns.add<DecomposeFusedAttention>(patterns.getContext(), options);
}
