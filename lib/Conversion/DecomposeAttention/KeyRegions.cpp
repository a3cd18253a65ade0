//===- KeyRegions.cpp - decode key tiles visited over regions -------------===//
//
// A decode key step reads its tile's K rows, then its V rows: with the
// next tile prefetched, a thread streams two ranges of memory at a time,
// and on hosts whose read bandwidth per thread grows with the number of
// concurrent streams (bench/read_streams.py) that leaves bandwidth unused.
// With key-regions R > 1 the task's n full key tiles are cut into R
// regions of consecutive tiles and visited round-robin (R = 2: tiles 0,
// H, 1, H + 1, ... with H = ceil(n / 2)), so each thread streams R ranges
// of K and R of V; the software prefetch targets the next tile in this
// order. The online softmax is a set reduction over the key tiles: the
// order changes the rounding only (as the split-K merge does), and every
// mask term (causal, kv_lengths, the padded tail) is computed from each
// tile's own first key. The partial tail tile stays last. Only the decode
// schedule, whose key loop carries nothing but (m, l, acc), visits regions;
// everything else keeps the in-order loop.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

bool VectorTileBuilder::visitsKeyRegions(size_t carried) const {
  // DeBERTa's carried band, Shaw's bucket sums and the rotated key chunks
  // follow the key order; the decode schedule has none of them.
  return keyRegions > 1 && rowsPerHead > 0 && carried == 3 && !tables.kRotated;
}

Value VectorTileBuilder::keyRegionTile(Value j, Value q, Value r) {
  // Every operand is named before the op that uses it: the IR's order must
  // not depend on the host compiler's argument evaluation order (gcc and
  // clang differ; the FileCheck test pins the order).
  Value regions = indexConst(b, loc, keyRegions);
  Value roundRobin = arith::MulIOp::create(b, loc, q, regions);
  Value inRounds =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, roundRobin);
  Value last = arith::SubIOp::create(b, loc, j, roundRobin);
  Value mod = arith::RemUIOp::create(b, loc, j, regions);
  Value region = arith::SelectOp::create(b, loc, inRounds, mod, last);
  Value div = arith::DivUIOp::create(b, loc, j, regions);
  Value offset = arith::SelectOp::create(b, loc, inRounds, div, q);
  Value shorter = arith::MinUIOp::create(b, loc, region, r);
  Value base = arith::MulIOp::create(b, loc, region, q);
  Value first = arith::AddIOp::create(b, loc, base, shorter);
  return arith::AddIOp::create(b, loc, first, offset);
}

scf::ForOp VectorTileBuilder::buildKeyRegionLoop(ValueRange init) {
  // n full tiles = R q + r.
  Value regions = indexConst(b, loc, keyRegions);
  Value n = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, fullEnd, kBegin), tkV);
  Value q = arith::DivUIOp::create(b, loc, n, regions);
  Value r = arith::RemUIOp::create(b, loc, n, regions);
  auto tileStart = [&](Value tile) {
    return arith::AddIOp::create(b, loc, kBegin,
                                 arith::MulIOp::create(b, loc, tile, tkV))
        .getResult();
  };
  return scf::ForOp::create(
      b, loc, zeroIdx, n, indexConst(b, loc, 1), init,
      [&](OpBuilder &, Location, Value j, ValueRange iter) {
        Value kStart = tileStart(keyRegionTile(j, q, r));
        if (prefetchTiles > 0) {
          // Step j + prefetchTiles of the order; past the full tiles, the
          // tiles in key order (the tail, clamped to the task's keys).
          Value ahead = arith::AddIOp::create(
              b, loc, j, indexConst(b, loc, prefetchTiles));
          Value inFull = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, ahead, n);
          Value aheadTile = keyRegionTile(ahead, q, r);
          prefetchNext = tileStart(
              arith::SelectOp::create(b, loc, inFull, aheadTile, ahead));
        }
        keyStep(kStart, iter, /*tail=*/false);
        prefetchNext = Value();
      });
}
