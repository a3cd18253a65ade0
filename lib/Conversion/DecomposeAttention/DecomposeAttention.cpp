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
// This file is the schedule: the prefill tile sizes (which decode schedule
// a shape gets is ChooseDecodeSchedule.cpp), the per-op tables built
// before the grid, the grid of tasks (the forall over lead dims and query
// tiles) and the extent of each task's key loop (keyLoopEnd). The body of one
// task is built by a layout: GenericLayoutTile.cpp (the GPU mapping's) or
// VectorLayoutTile.cpp (the CPU's), from the pieces of TileBuilders.h,
// RotaryPrologue.cpp, ShawTerms.cpp, T5Terms.cpp, XlTerms.cpp and
// DebertaTerms.cpp.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "TileBuilders.h"

#include "posenc/Conversion/Passes.h"
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
    options.prefetchBetweenContractions = prefetchBetweenContractions;
    options.prefetchAlternateKV = prefetchAlternateKV;
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
