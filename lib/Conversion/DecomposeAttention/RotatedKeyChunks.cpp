//===- RotatedKeyChunks.cpp - K rotated once per chunk of query tiles -----===//
//
// With k_rope, rotating each K tile inside the key loop repeats the
// rotation of a head's keys for every query tile that reads them (at
// S = 2048, 64-row tiles, causal: 16.5 times on average), a pass over K and
// its cos/sin rows that perf showed as most of RoPE's and xPos's cost over
// plain attention (docs/bench-cpu.md). Here a task is a chunk of
// kRotatedKeyChunkTiles query tiles of one head: it rotates the keys the
// chunk reads once, into a [keys x D] buffer of its own (not Sq x Sk, and at
// most Sk x D per running task), and runs the chunk's query tiles one after
// the other against it. xPos's decays are centered on the chunk's first
// query row (xposTileCenters at the chunk's start, for Q~ and K~ alike)
// instead of each query tile's: the per-query-tile factor of each key tile
// would otherwise scale K~ (or Q~) again in every key step. The factors of
// the chunk's own rows (8 x 64 = 512 positions with consecutive positions)
// stay within zeta^(+-512 / scale_base) of 1, and a key's factor falls with
// its distance to the chunk as the true product does, so positions up to
// 2^24 neither overflow nor underflow any more than with per-tile centers.
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

bool posenc::decompose::usesRotatedKeyChunks(
    const AttentionInfo &info, const AttentionSchedule &schedule) {
  if (!schedule.vectorLayout || schedule.isDecode() || !info.kRope)
    return false;
  bool xpos = info.kRope.getXpos() != nullptr;
  return !(xpos && FusedAttentionOp(info.op).hasDebertaTerms());
}

/// K~ of the keys [0, keyLoopEnd) that the chunk's query tiles read, rotated
/// as the key loop's prologue would rotate each tile: one [keys x D] tensor
/// of the compute type. With xPos, key tile by key tile: the tables' decay
/// around each tile's first row (decayKeyTablesPerTile) times the tile's
/// factor around the chunk's center (keyTileDecayFactor).
static Value rotateChunkKeys(OpBuilder &b, Location loc,
                             const AttentionInfo &info,
                             const AttentionSchedule &schedule,
                             const QueryTileTask &chunk,
                             const AttentionTables &tables) {
  Value keys = keyLoopEnd(b, loc, info.causal, chunk);
  auto rotate = [&](Value start, Value size, Value decay) {
    auto rows = [&](Value source, ArrayRef<Value> lead) {
      return extractRowTile(b, loc, source, lead, start, size);
    };
    Value cosRows = rows(tables.kCos, tableLead(tables.kCos, 2, chunk.kvLead));
    Value sinRows = rows(tables.kSin, tableLead(tables.kSin, 2, chunk.kvLead));
    return vectorPrologue(b, loc, rows(info.k, chunk.kvLead), info.kRope,
                          cosRows, sinRows, info.c, decay);
  };
  if (!tables.kLogDecay)
    return rotate(indexConst(b, loc, 0), keys, Value());

  Value center = xposTileCenters(b, loc, info, chunk.lead, chunk.qStart).k;
  OpFoldResult d = tensor::getMixedSize(b, loc, info.k, info.n + 1);
  Value buffer =
      tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{keys, d}, info.c);
  Value tk = indexConst(b, loc, schedule.keyTile);
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), keys, tk, ValueRange{buffer},
      [&](OpBuilder &, Location, Value start, ValueRange iter) {
        Value size = arith::MinUIOp::create(
            b, loc, tk, arith::SubIOp::create(b, loc, keys, start));
        Value decay = keyTileDecayFactor(
            b, loc, FusedAttentionOp(info.op).getKPositions(), tables.kLogDecay,
            center, chunk.kvLead, start, info.c);
        Value tile = rotate(start, size, decay);
        SmallVector<OpFoldResult> offsets = {start, b.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {size, d};
        SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
        scf::YieldOp::create(b, loc,
                             tensor::InsertSliceOp::create(
                                 b, loc, tile, iter[0], offsets, sizes, strides)
                                 .getResult());
      });
  return loop.getResult(0);
}

void posenc::decompose::buildRotatedKeyChunk(OpBuilder &b, Location loc,
                                             const AttentionInfo &info,
                                             const AttentionSchedule &schedule,
                                             const QueryTileTask &chunk,
                                             const AttentionTables &tables) {
  AttentionTables withKeys = tables;
  withKeys.kRotated = rotateChunkKeys(b, loc, info, schedule, chunk, tables);

  // The chunk's rows of the forall's output, [qSize x Dv].
  OpFoldResult dv = tensor::getMixedSize(b, loc, info.v, info.n + 1);
  scf::ForallOp forall = chunk.forall;
  Value shared = forall.getRegionIterArgs()[0];
  OutputRows rows = outputRows(b, chunk, dv);
  RankedTensorType chunkType =
      tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
          2, cast<RankedTensorType>(shared.getType()), rows.sizes);
  Value chunkOut = tensor::ExtractSliceOp::create(
      b, loc, chunkType, shared, rows.offsets, rows.sizes, rows.strides);

  // The chunk's query tiles, one after the other.
  Value tq = indexConst(b, loc, schedule.queryTile);
  Value end = arith::AddIOp::create(b, loc, chunk.qStart, chunk.qSize);
  auto tiles =
      scf::ForOp::create(b, loc, chunk.qStart, end, tq, ValueRange{chunkOut});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tiles.getBody());
    QueryTileTask tile = chunk;
    tile.qStart = tiles.getInductionVar();
    tile.qSize = arith::MinUIOp::create(
        b, loc, tq, arith::SubIOp::create(b, loc, end, tile.qStart));
    tile.chunkOut = tiles.getRegionIterArgs()[0];
    tile.chunkStart = chunk.qStart;
    // Ends the body with the yield of the chunk's output (insertOutputTile).
    buildVectorLayoutTile(b, loc, info, schedule, tile, withKeys);
  }
  insertOutputTile(b, loc, chunk, dv, tiles.getResult(0));
}
