//===- DecodeSchedule.cpp - the decode schedule of fused attention --------===//
//
// The schedule of posenc.fused_attention for a few query rows against many
// keys (decode, speculative decoding; ChooseDecodeSchedule.cpp chooses it for
// Sq <= 16), flash-decoding style:
//
//   scf.forall (lead dims, heads / P, split) shared_outs(M, L, ACC) {
//     rows = (P query heads sharing one K/V head) x (the Sq query rows)
//     keys [split * chunk, min((split + 1) * chunk, key loop end))
//     the online softmax over those keys (VectorLayoutTile.cpp on the CPU,
//     GenericLayoutTile.cpp for the GPU mapping), and its unnormalized
//     state: M[.., split, rows] = m, L[..] = l, ACC[..] = acc
//   }
//   merge (log-sum-exp): m* = max_s M_s; w_s = exp(M_s - m*);
//     out = (sum_s w_s ACC_s) / (sum_s w_s L_s)   (0 for a row with no key)
//
// GQA packing: the P heads' rows form one tile, so each K/V tile is loaded
// once for all of them. Split-K: when the grid has fewer tasks than the
// machine has threads, or the keys are many, the key range is split across
// tasks (on the GPU, until the grid has enough blocks for every SM:
// docs/gpu.md, "Decode schedule"). The merge is the online softmax's rescaling step applied once per
// split, with the same building blocks (AttentionUtils.h), so it is exact in
// the same sense; no Sq x Sk buffer exists, only the [splits x rows x Dv]
// partials. The grid and the partials are upstream scf.forall shared outputs
// (One-Shot Bufferize makes them buffers); the merge is linalg.generic ops.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

using utils::IteratorType;

/// A split holds at least this many key tiles: fewer would make the merge
/// and the per-task query prologue a visible share of the work.
static constexpr int64_t kMinKeyTilesPerSplit = 4;

//===----------------------------------------------------------------------===//
// The rows of a decode tile
//===----------------------------------------------------------------------===//

Value VectorTileBuilder::decodeRows(Value source, ArrayRef<Value> at) {
  Value qStart = task.qStart, qSize = task.qSize;
  if (heads == 1)
    return padRows(b, loc, extractRowTile(b, loc, source, at, qStart, qSize),
                   rowsPerHead);
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank(), cols = type.getDimSize(rank - 1);
  Type elem = type.getElementType();
  OpFoldResult colSize = tensor::getMixedSize(b, loc, source, rank - 1);
  SmallVector<Value> dynCols;
  if (ShapedType::isDynamic(cols))
    dynCols.push_back(getValueOrCreateConstantIndexOp(b, loc, colSize));
  auto padded = RankedTensorType::get({heads, rowsPerHead, cols}, elem);
  Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
  Value perHead;
  if (source == info.q) {
    // Q[at..., h0 : h0 + P, qStart : qStart + qSize, :], each head's rows
    // padded.
    Value slice = extractHeadRowsTile(b, loc, source, at, heads, qStart,
                                      getAsOpFoldResult(qSize));
    perHead = tensor::createPadHighOp(padded, slice, zero, /*nofold=*/false,
                                      loc, b, dynCols);
  } else {
    // A RoPE table (per batch: its batch's, `at`): the same (padded) rows
    // for every head.
    Value rows =
        padRows(b, loc, extractRowTile(b, loc, source, at, qStart, qSize),
                rowsPerHead);
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(heads),
                                       b.getIndexAttr(rowsPerHead), colSize};
    perHead = linalg::BroadcastOp::create(
                  b, loc, rows, tensor::EmptyOp::create(b, loc, sizes, elem),
                  ArrayRef<int64_t>{0})
                  .getResult()[0];
  }
  return tensor::CollapseShapeOp::create(
      b, loc, perHead, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
}

Value VectorTileBuilder::rowQuery(OpBuilder &b, Location loc, Value row) {
  if (heads == 1 || !rowsPerHead)
    return arith::AddIOp::create(b, loc, task.qStart, row);
  return arith::RemUIOp::create(b, loc, row,
                                indexConst(b, loc, rowsPerHead));
}

SmallVector<Value> VectorTileBuilder::rowLead(OpBuilder &b, Location loc) {
  SmallVector<Value> lead(task.lead);
  if (heads == 1)
    return lead;
  Value row = linalg::IndexOp::create(b, loc, rowDim());
  lead.back() = arith::AddIOp::create(
      b, loc, lead.back(),
      arith::DivUIOp::create(b, loc, row, indexConst(b, loc, rowsPerHead)));
  return lead;
}

void VectorTileBuilder::buildPartialOutput(ValueRange loopResults) {
  // m [tq], l [tq], acc [tq x Dv], at (gridLead..., split).
  SmallVector<Value, 3> results(loopResults.take_front(3));
  // acc leaves through a copy: empty-tensor elimination would otherwise
  // place the key loop's accumulator in the partial buffer itself, a
  // subview whose register tiles the vector hoisting does not keep in
  // registers across the keys.
  Value accOut = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, results[2]), c);
  results[2] = linalg::CopyOp::create(b, loc, results[2], accOut).getResult(0);
  markVectorTile(results[2], {1, 0});
  insertDecodePartials(b, loc, task, results);
}

/// The cache line the decode schedule prefetches, in bits.
static constexpr int64_t kCacheLineBits = 512;

std::pair<Value, Value> VectorTileBuilder::nextKeyTileRows(Value kStart) {
  // The next tile's rows [next, next + rows), rows = clamp(kEnd - next, 0,
  // tk): never past the task's keys, so every index is in bounds.
  Value next = prefetchNext
                   ? prefetchNext
                   : arith::AddIOp::create(
                         b, loc, kStart, indexConst(b, loc, prefetchTiles * tk))
                         .getResult();
  Value rows = arith::MinSIOp::create(
      b, loc, tkV,
      arith::MaxSIOp::create(b, loc, zeroIdx,
                             arith::SubIOp::create(b, loc, kEnd, next)));
  return {next, rows};
}

void VectorTileBuilder::prefetchKeyTile(Value kStart) {
  auto [next, rows] = nextKeyTileRows(kStart);
  // Spread: the burst's loops are marked with their bound (tk rows each),
  // and --posenc-spread-decode-prefetches hands their rows out in the
  // order of the loops over the step's contraction iterations, the score
  // loop's first.
  if (prefetchValuesInStep) {
    // This step's V rows while its scores are computed, the next tile's K
    // rows during its P V: each arrives half a step before it is read.
    prefetchKeyRows(kStart, zeroIdx, tkV, /*locality=*/3, tk, {info.v});
    prefetchKeyRows(next, zeroIdx, rows, /*locality=*/3, tk, {info.k});
    return;
  }
  prefetchKeyRows(next, zeroIdx, rows, /*locality=*/3,
                  spreadPrefetches ? tk : 0);
}

void VectorTileBuilder::prefetchKeyRows(Value next, Value first, Value end,
                                        uint32_t locality, int64_t spreadRows,
                                        ArrayRef<Value> sources) {
  SmallVector<Value, 2> operands(sources);
  if (operands.empty())
    operands = {info.k, info.v};
  for (Value source : operands) {
    auto type = cast<RankedTensorType>(source.getType());
    int64_t rank = type.getRank(), cols = type.getDimSize(rank - 1);
    int64_t bits = type.getElementType().getIntOrFloatBitWidth();
    if (ShapedType::isDynamic(cols))
      continue;
    // The K/V operand itself, read only: the buffer it bufferizes to (the
    // caller's, e.g. a KV cache), in any layout.
    auto layout = StridedLayoutAttr::get(
        ctx, ShapedType::kDynamic,
        SmallVector<int64_t>(rank, ShapedType::kDynamic));
    Value buffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType(), layout),
        source, /*read_only=*/true);
    int64_t lines = llvm::divideCeil(cols * bits, kCacheLineBits);
    bool byLine = spreadRows > 0 && spreadLines;
    scf::ForOp loop = prefetchLoop(buffer, next, first, end, lines,
                                   kCacheLineBits / bits, locality, byLine);
    if (spreadRows > 0) {
      loop->setAttr(
          kSpreadPrefetchRowsAttr,
          b.getI64IntegerAttr(byLine ? spreadRows * lines : spreadRows));
      if (prefetchBetweenContractions)
        loop->setAttr(kSpreadPrefetchBetweenAttr, b.getUnitAttr());
      if (prefetchAlternateKV)
        loop->setAttr(kSpreadPrefetchAlternateAttr, b.getUnitAttr());
    }
  }
}

scf::ForOp VectorTileBuilder::prefetchLoop(Value buffer, Value next,
                                           Value first, Value end,
                                           int64_t lines, int64_t perLine,
                                           uint32_t locality, bool byLine) {
  Value one = indexConst(b, loc, 1);
  // Prefetches column `col` of row `next + row`.
  auto prefetch = [&](OpBuilder &b, Location loc, Value at, Value col) {
    SmallVector<Value> indices(task.kvLead);
    indices.push_back(at);
    indices.push_back(col);
    memref::PrefetchOp::create(b, loc, buffer, indices, /*isWrite=*/false,
                               /*localityHint=*/locality,
                               /*isDataCache=*/true);
  };
  if (!byLine)
    return scf::ForOp::create(
        b, loc, first, end, one, ValueRange{},
        [&](OpBuilder &b, Location loc, Value row, ValueRange) {
          Value at = arith::AddIOp::create(b, loc, next, row);
          for (int64_t line = 0; line < lines; ++line)
            prefetch(b, loc, at, indexConst(b, loc, line * perLine));
          scf::YieldOp::create(b, loc);
        });
  // Units row * lines + line of rows [first, end).
  Value linesV = indexConst(b, loc, lines);
  return scf::ForOp::create(
      b, loc, b.createOrFold<arith::MulIOp>(loc, first, linesV),
      b.createOrFold<arith::MulIOp>(loc, end, linesV), one, ValueRange{},
      [&](OpBuilder &b, Location loc, Value unit, ValueRange) {
        Value row = arith::DivUIOp::create(b, loc, unit, linesV);
        Value line = arith::RemUIOp::create(b, loc, unit, linesV);
        Value at = arith::AddIOp::create(b, loc, next, row);
        prefetch(
            b, loc, at,
            arith::MulIOp::create(b, loc, line, indexConst(b, loc, perLine)));
        scf::YieldOp::create(b, loc);
      });
}

void posenc::decompose::insertDecodePartials(OpBuilder &b, Location loc,
                                             const QueryTileTask &task,
                                             ArrayRef<Value> tiles) {
  // The tile sizes are built in the body, not in the terminator's region.
  SmallVector<SmallVector<OpFoldResult>> tileSizes;
  for (Value tile : tiles)
    tileSizes.push_back(tensor::getMixedSizes(b, loc, tile));
  scf::ForallOp forall = task.forall;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [idx, tile] : llvm::enumerate(tiles)) {
    SmallVector<OpFoldResult> offsets(task.gridLead.begin(),
                                      task.gridLead.end());
    offsets.push_back(task.split);
    SmallVector<OpFoldResult> sizes(offsets.size(), b.getIndexAttr(1));
    for (OpFoldResult size : tileSizes[idx]) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(size);
    }
    SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, tile,
                                          forall.getRegionIterArgs()[idx],
                                          offsets, sizes, strides);
  }
}

//===----------------------------------------------------------------------===//
// The grid and the key splits
//===----------------------------------------------------------------------===//

namespace {

/// The number of key splits and the keys of each (a multiple of the key
/// tile), for `tasks` tasks per split and `sk` keys.
struct KeySplits {
  Value count, chunk;
};

} // namespace

/// The number of threads the OpenMP runtime runs the next parallel region
/// on, read at run time (`omp_get_max_threads()`, which follows
/// OMP_NUM_THREADS): the CPU pipeline lowers the grid's scf.forall to
/// omp.parallel, and the OpenMP dialect has no op for the query, so this is
/// a call to the runtime's documented entry point, declared in the symbol
/// table around `anchor` (the attention op) as upstream lowerings declare
/// malloc.
static Value buildRuntimeThreadCount(OpBuilder &b, Location loc,
                                     Operation *anchor) {
  constexpr StringLiteral kName = "omp_get_max_threads";
  Operation *table = SymbolTable::getNearestSymbolTable(anchor);
  Type i32 = b.getI32Type();
  if (!SymbolTable::lookupSymbolIn(table, kName)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&table->getRegion(0).front());
    auto decl = func::FuncOp::create(b, loc, kName,
                                     b.getFunctionType(TypeRange{}, {i32}));
    decl.setPrivate();
  }
  Value threads =
      func::CallOp::create(b, loc, kName, TypeRange{i32}, ValueRange{})
          .getResult(0);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), threads);
}

static KeySplits buildKeySplits(OpBuilder &b, Location loc,
                                const AttentionInfo &info,
                                const AttentionSchedule &schedule, Value tasks,
                                Value sk) {
  auto idx = [&](int64_t v) { return indexConst(b, loc, v); };
  auto ceilDiv = [&](Value x, Value y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  };
  auto max = [&](Value x, Value y) -> Value {
    return arith::MaxUIOp::create(b, loc, x, y);
  };
  Value one = idx(1), tk = idx(schedule.keyTile);
  if (schedule.splitCount > 0) {
    // Exactly the count asked for (splits past the keys are empty).
    Value count = idx(schedule.splitCount);
    return {count, max(arith::MulIOp::create(
                           b, loc, ceilDiv(ceilDiv(sk, count), tk), tk),
                       tk)};
  }
  if (!schedule.vectorLayout) {
    // The GPU's grid: at least `splitTasks` blocks (as many SMs as that
    // keeps busy), so the chunk rounds down to whole key tiles, which can
    // only add splits; none shorter than kMinKeyTilesPerSplit key tiles.
    Value want = ceilDiv(idx(std::max<int64_t>(schedule.splitTasks, 1)),
                         max(tasks, one));
    if (schedule.splitMaxKeys > 0)
      want = max(want, ceilDiv(sk, idx(schedule.splitMaxKeys)));
    Value most = ceilDiv(sk, idx(kMinKeyTilesPerSplit * schedule.keyTile));
    Value count = max(arith::MinUIOp::create(b, loc, want, most), one);
    Value tiles = arith::DivUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, sk, count), tk);
    Value chunk = max(arith::MulIOp::create(b, loc, tiles, tk), tk);
    return {max(ceilDiv(sk, chunk), one), chunk};
  }
  // Enough splits for the threads (twice the run-time thread count unless
  // given), and for long key ranges...
  Value goal =
      schedule.splitTasks > 0
          ? idx(schedule.splitTasks)
          : arith::MulIOp::create(b, loc, idx(2),
                                  buildRuntimeThreadCount(b, loc, info.op))
                .getResult();
  Value want = ceilDiv(goal, max(tasks, one));
  if (schedule.splitMaxKeys > 0)
    want = max(want, ceilDiv(sk, idx(schedule.splitMaxKeys)));
  // ...but none shorter than kMinKeyTilesPerSplit key tiles.
  Value most = ceilDiv(sk, idx(kMinKeyTilesPerSplit * schedule.keyTile));
  Value count = max(arith::MinUIOp::create(b, loc, want, most), one);
  Value chunk = max(arith::MulIOp::create(b, loc, ceilDiv(ceilDiv(sk, count), tk), tk), tk);
  // No empty split: the count the rounded chunk needs.
  return {max(ceilDiv(sk, chunk), one), chunk};
}

/// The task of split `split` at grid indices `gridLead`: query heads
/// [gridLead[n-1] * P, + P), all query rows, keys of the split.
static QueryTileTask buildDecodeTask(OpBuilder &b, Location loc,
                                     const AttentionInfo &info,
                                     const AttentionSchedule &schedule,
                                     scf::ForallOp forall, Value group,
                                     const KeySplits &splits) {
  int64_t n = info.n;
  SmallVector<Value> ivs(forall.getInductionVars());
  QueryTileTask task;
  task.forall = forall;
  task.gridLead.assign(ivs.begin(), ivs.begin() + n);
  task.split = ivs[n];
  task.lead = task.gridLead;
  if (schedule.packedHeads > 1)
    task.lead[n - 1] = arith::MulIOp::create(
        b, loc, task.lead[n - 1], indexConst(b, loc, schedule.packedHeads));
  task.kvLead = task.lead;
  if (info.rank >= 3)
    task.kvLead[n - 1] = arith::DivUIOp::create(b, loc, task.lead[n - 1], group);
  task.sq = tensor::DimOp::create(b, loc, info.q, n);
  task.sk = tensor::DimOp::create(b, loc, info.k, n);
  task.shift = arith::SubIOp::create(b, loc, task.sk, task.sq);
  // Over a KV cache, batch b sees its own keys and causal alignment (the
  // splits of the keys past its length are empty).
  if (info.kvLengths) {
    CacheKeyRange range = buildCacheKeyRangeOfBatch(b, loc, info.kvLengths,
                                                    task.lead[0], task.sq);
    task.sk = range.length;
    task.shift = range.shift;
  }
  task.qStart = indexConst(b, loc, 0);
  // The generic layout's tiles are as large as Sq (static there).
  task.qSize = schedule.vectorLayout
                   ? task.sq
                   : indexConst(b, loc, schedule.rowsPerHead);
  task.keyTileSize = indexConst(b, loc, schedule.keyTile);
  task.keyBegin = arith::MulIOp::create(b, loc, task.split, splits.chunk);
  task.keyEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, task.keyBegin, splits.chunk),
      task.sk);
  return task;
}

//===----------------------------------------------------------------------===//
// The merge of the splits
//===----------------------------------------------------------------------===//

/// The log-sum-exp merge of the partials (m, l, acc) [grid..., splits, rows
/// (, Dv)] into the result [lead..., Sq, Dv] of `resultSizes`.
static Value mergeSplits(OpBuilder &b, Location loc, const AttentionInfo &info,
                         const AttentionSchedule &schedule,
                         ArrayRef<Value> partials,
                         ArrayRef<OpFoldResult> resultSizes) {
  MLIRContext *ctx = b.getContext();
  FloatType c = info.c;
  int64_t n = info.n;
  Value m = partials[0], l = partials[1], acc = partials[2];
  SmallVector<OpFoldResult> statSizes = tensor::getMixedSizes(b, loc, m);
  SmallVector<OpFoldResult> accSizes = tensor::getMixedSizes(b, loc, acc);
  // Dims: grid 0..n-1, then the split and the row (and Dv).
  auto dims = [&](int64_t numDims, ArrayRef<int64_t> tail) {
    SmallVector<int64_t> d = llvm::to_vector(llvm::seq<int64_t>(0, n));
    d.append(tail.begin(), tail.end());
    return mapOf(ctx, numDims, d);
  };
  auto without = [](ArrayRef<OpFoldResult> sizes, int64_t pos) {
    SmallVector<OpFoldResult> r(sizes);
    r.erase(r.begin() + pos);
    return r;
  };
  SmallVector<OpFoldResult> rowSizes = without(statSizes, n);
  // m* = max over splits (loops grid, row, split).
  Value mMax = buildGeneric(
      b, loc, ValueRange{m}, filledTile(b, loc, rowSizes, c, kNegInf),
      {dims(n + 2, {n + 1, n}), dims(n + 2, {n})},
      iterators(n + 1, 1), [](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, arith::MaximumFOp::create(b, loc, a[0], a[1]));
      });
  // w = exp(m - safe(m*))  (loops grid, split, row).
  Value w = buildGeneric(
      b, loc, ValueRange{m, mMax}, tensor::EmptyOp::create(b, loc, statSizes, c),
      {dims(n + 2, {n, n + 1}), dims(n + 2, {n + 1}), dims(n + 2, {n, n + 1})},
      iterators(n + 2), [](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, buildOnlineSoftmaxExp(b, loc, a[0], a[1]));
      });
  auto weightedSum = [](OpBuilder &b, Location loc, ValueRange a) {
    Value prod = arith::MulFOp::create(b, loc, a[0], a[1]);
    yieldValue(b, loc, arith::AddFOp::create(b, loc, a[2], prod));
  };
  // L = sum_s w l (loops grid, row, split); A = sum_s w acc (grid, row, x,
  // split).
  Value lSum = buildGeneric(
      b, loc, ValueRange{w, l}, filledTile(b, loc, rowSizes, c, 0.0),
      {dims(n + 2, {n + 1, n}), dims(n + 2, {n + 1, n}), dims(n + 2, {n})},
      iterators(n + 1, 1), weightedSum);
  Value aSum = buildGeneric(
      b, loc, ValueRange{w, acc},
      filledTile(b, loc, without(accSizes, n), c, 0.0),
      {dims(n + 3, {n + 2, n}), dims(n + 3, {n + 2, n, n + 1}),
       dims(n + 3, {n, n + 1})},
      iterators(n + 2, 1), weightedSum);

  // out[lead..., i, x] = A / L at grid row (h mod P) * T + i of grid head
  // h floordiv P.
  int64_t p = schedule.packedHeads, t = schedule.rowsPerHead;
  SmallVector<AffineExpr> rowExprs;
  for (int64_t d = 0; d < n; ++d)
    rowExprs.push_back(getAffineDimExpr(d, ctx));
  AffineExpr row = getAffineDimExpr(n, ctx);
  if (p > 1) {
    AffineExpr h = rowExprs[n - 1];
    rowExprs[n - 1] = h.floorDiv(p);
    row = (h % p) * t + row;
  } else {
    // One head per task, its rows padded to t: read the first Sq of them,
    // so that the loop bounds come from Sq and not from the padded
    // partials (a dynamic Sq < t would otherwise write t rows).
    auto firstRows = [&](Value v, int64_t rank) {
      SmallVector<OpFoldResult> sizes(resultSizes.take_front(rank));
      return tensor::ExtractSliceOp::create(
                 b, loc, v, SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)),
                 sizes, SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)))
          .getResult();
    };
    aSum = firstRows(aSum, n + 2);
    lSum = firstRows(lSum, n + 1);
  }
  rowExprs.push_back(row);
  AffineMap lMap = AffineMap::get(n + 2, 0, rowExprs, ctx);
  rowExprs.push_back(getAffineDimExpr(n + 1, ctx));
  AffineMap aMap = AffineMap::get(n + 2, 0, rowExprs, ctx);
  Type elemType = info.elemType;
  return buildGeneric(
      b, loc, ValueRange{aSum, lSum},
      tensor::EmptyOp::create(b, loc, resultSizes, elemType),
      {aMap, lMap, AffineMap::getMultiDimIdentityMap(n + 2, ctx)},
      iterators(n + 2), [&](OpBuilder &b, Location loc, ValueRange a) {
        Value o = buildSoftmaxNormalize(b, loc, a[0], a[1]);
        yieldValue(b, loc, castFloat(b, loc, o, elemType));
      });
}

//===----------------------------------------------------------------------===//
// The decode schedule
//===----------------------------------------------------------------------===//

Value posenc::decompose::buildDecodeAttention(
    OpBuilder &b, Location loc, const AttentionInfo &info,
    const AttentionSchedule &schedule, const AttentionTables &tables,
    ArrayRef<OpFoldResult> resultSizes) {
  int64_t n = info.n, p = schedule.packedHeads;
  Value group;
  SmallVector<OpFoldResult> gridSizes(resultSizes.begin(),
                                      resultSizes.begin() + n);
  if (info.rank >= 3) {
    Value hq = tensor::DimOp::create(b, loc, info.q, n - 1);
    Value hkv = tensor::DimOp::create(b, loc, info.k, n - 1);
    group = arith::DivUIOp::create(b, loc, hq, hkv);
    if (p > 1)
      gridSizes[n - 1] =
          arith::DivUIOp::create(b, loc, hq, indexConst(b, loc, p))
              .getResult();
  }
  Value tasks = indexConst(b, loc, 1);
  for (OpFoldResult size : gridSizes)
    tasks = arith::MulIOp::create(
        b, loc, tasks, getValueOrCreateConstantIndexOp(b, loc, size));
  KeySplits splits = buildKeySplits(b, loc, info, schedule, tasks,
                                    tensor::DimOp::create(b, loc, info.k, n));

  // The partials [grid..., splits, rows (, Dv)].
  SmallVector<OpFoldResult> statSizes(gridSizes);
  statSizes.append({splits.count, b.getIndexAttr(schedule.queryTile)});
  SmallVector<OpFoldResult> accSizes(statSizes);
  accSizes.push_back(tensor::getMixedSize(b, loc, info.v, n + 1));
  SmallVector<Value> partials = {
      tensor::EmptyOp::create(b, loc, statSizes, info.c),
      tensor::EmptyOp::create(b, loc, statSizes, info.c),
      tensor::EmptyOp::create(b, loc, accSizes, info.c)};

  SmallVector<OpFoldResult> ubs(gridSizes);
  ubs.push_back(splits.count);
  auto forall = scf::ForallOp::create(b, loc, ubs, partials, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    QueryTileTask task =
        buildDecodeTask(b, loc, info, schedule, forall, group, splits);
    if (schedule.vectorLayout) {
      buildVectorLayoutTile(b, loc, info, schedule, task, tables);
    } else {
      buildGenericLayoutTile(b, loc, info, schedule, task, tables);
      forall.getBody()->walk([&](linalg::LinalgOp op) {
        op->setAttr(kSpreadOverThreadsAttr, b.getUnitAttr());
      });
    }
  }
  return mergeSplits(b, loc, info, schedule,
                     SmallVector<Value>(forall.getResults()), resultSizes);
}
