//===- VectorLayoutTile.cpp - one query tile, CPU vector layout -----------===//
//
// The query tile, the key loops, the score tile and the output of one task
// in the CPU vector layout (VectorLayoutTile.h says how it differs from the
// generic layout); Shaw's terms are in ShawTerms.cpp.
//
//===----------------------------------------------------------------------===//

#include "VectorLayoutTile.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

using utils::IteratorType;

void posenc::decompose::buildVectorLayoutTile(OpBuilder &b, Location loc,
                                              const AttentionInfo &info,
                                              const AttentionSchedule &schedule,
                                              const QueryTileTask &task,
                                              const AttentionTables &tables) {
  VectorTileBuilder(b, loc, info, schedule, task, tables).build();
}

void VectorTileBuilder::build() {
  int64_t n = info.n;
  tkV = indexConst(b, loc, tk);
  zeroIdx = indexConst(b, loc, 0);
  dq = tensor::getMixedSize(b, loc, info.q, n + 1);
  dv = tensor::getMixedSize(b, loc, info.v, n + 1);
  dvStatic = cast<RankedTensorType>(info.v.getType()).getDimSize(n + 1);

  buildQueryTranspose();
  if (tables.relKeyPadded)
    buildShawKeyTable();
  if (info.xlRel)
    buildXlQueryTiles();
  // DeBERTa's bands: the tq + tk - 1 distances of a tile, padded to whole
  // register tiles (the pad rows are never read).
  if (FusedAttentionOp(info.op).hasDebertaTerms())
    debertaBandRows = llvm::alignTo(tq + tk - 1, 16);

  kEnd = keyLoopEnd(b, loc, info.causal, task);
  kBegin = zeroIdx;
  if (task.keyEnd) {
    // A split of the keys (decode): [keyBegin, min(kEnd, keyEnd)), empty
    // when the causal end lies before it.
    kBegin = task.keyBegin;
    kEnd = arith::MaxSIOp::create(
        b, loc, kBegin, arith::MinSIOp::create(b, loc, kEnd, task.keyEnd));
  }
  Value keys =
      task.keyEnd ? arith::SubIOp::create(b, loc, kEnd, kBegin).getResult()
                  : kEnd;
  fullEnd = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, keys, tkV), tkV);
  if (task.keyEnd)
    fullEnd = arith::AddIOp::create(b, loc, kBegin, fullEnd);

  ValueRange results = buildKeyLoops();
  if (task.split)
    return buildPartialOutput(results);
  Value lFinal = results[1], accFinal = results[2];
  if (bucketed)
    accFinal = addValueBuckets(results, lFinal, accFinal);
  buildOutput(lFinal, accFinal);
}

void VectorTileBuilder::buildQueryTranspose() {
  Value qStart = task.qStart, qSize = task.qSize;
  Value qCos = tables.qCos, qSin = tables.qSin;
  // Q~ once per query tile, then Q~^T [D x tq].
  auto qRows = [&](Value source, ArrayRef<Value> at) {
    if (rowsPerHead)
      return decodeRows(source, at);
    return padRows(b, loc, extractRowTile(b, loc, source, at, qStart, qSize),
                   tq);
  };
  auto tableRows = [&](Value table) {
    return table ? qRows(table, tableLead(table, 2, task.lead)) : Value();
  };
  Value qCosRows, qSinRows;
  if (tables.qLogDecay) {
    // xPos (never the decode schedule): decay around the first row of the
    // tile, or of the chunk whose keys were rotated once.
    xposCenters = xposTileCenters(b, loc, info, task.lead,
                                  task.chunkStart ? task.chunkStart : qStart);
    std::tie(qCosRows, qSinRows) = decayedTableRows(
        b, loc, qCos, qSin, FusedAttentionOp(info.op).getQPositions(), tables.qLogDecay,
        xposCenters.q, task.lead, qStart, qSize, tq, c);
  } else {
    qCosRows = tableRows(qCos);
    qSinRows = tableRows(qSin);
  }
  Value qTile = vectorPrologue(b, loc, qRows(info.q, task.lead), info.qRope,
                               qCosRows, qSinRows, c);
  if (scoreDimLanes) {
    // The score contraction reads Q~ as stored (decode: no other product
    // reads qT).
    this->qRows = qTile;
    return;
  }
  qT = buildGeneric(
      b, loc, qTile,
      tensor::EmptyOp::create(
          b, loc, ArrayRef<OpFoldResult>{dq, b.getIndexAttr(tq)}, c),
      {mapOf(ctx, 2, {1, 0}), AffineMap::getMultiDimIdentityMap(2, ctx)},
      iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, castFloat(b, loc, a[0], c));
      });
  markVectorTile(qT, {16, 16});
}

Value VectorTileBuilder::filled(ArrayRef<OpFoldResult> sizes, double value) {
  Value f = filledTile(b, loc, sizes, c, value);
  SmallVector<int64_t> tiles(sizes.size(), 0);
  if (sizes.size() == 2)
    tiles[0] = 1;
  markVectorTile(f, tiles);
  return f;
}

ValueRange VectorTileBuilder::buildKeyLoops() {
  tqI = b.getIndexAttr(tq);
  tkI = b.getIndexAttr(tk);
  Value m0 = filled({tqI}, kNegInf);
  Value l0 = filled({tqI}, 0.0);
  Value acc0 = filled({tqI, dv}, 0.0);

  id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  col2 = mapOf(ctx, 2, {1});
  id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  FusedAttentionOp op = info.op;
  identityMod = op.hasIdentityScoreMod();
  redTile = divisorAtMost(tk, 8);
  bucketed = info.relValue && info.maxDist >= 1;
  // Causal: buckets past K (j > i') are masked, so the hi edge is always
  // zero and only the K inner buckets 1..K are carried.
  innerRows = info.causal ? info.maxDist : 2 * info.maxDist - 1;

  auto mark = [](Value value, ArrayRef<int64_t> tiles) {
    markVectorTile(value, tiles);
  };
  if (keysOnLanes) {
    // S [query rows x keys]: the statistics reduce the keys (dim 1), a
    // register tile of kKeyLanes keys at a time.
    layout = ScoreLayout{mapOf(ctx, 2, {0}),
                         {IteratorType::parallel, IteratorType::reduction},
                         mapOf(ctx, 2, {0}),
                         mark,
                         divisorAtMost(tk, kKeyLanes)};
  } else {
    // S^T [keys x query rows]: the query-row statistics reduce dim 0,
    // elementwise across vector lanes.
    layout = ScoreLayout{col2,
                         {IteratorType::reduction, IteratorType::parallel},
                         mapOf(ctx, 2, {0}),
                         mark,
                         redTile};
  }

  SmallVector<Value> init = {m0, l0, acc0};
  if (bucketed) {
    init.push_back(filled({tqI}, 0.0));
    init.push_back(filled({tqI}, 0.0));
    init.push_back(filled({b.getIndexAttr(innerRows), tqI}, 0.0));
  }
  // DeBERTa's c2p band, carried from key tile to key tile (last).
  if (FusedAttentionOp(info.op).getDebertaPosKey())
    init.push_back(buildDebertaC2PRows(
        kBegin, 0,
        tensor::EmptyOp::create(
            b, loc, ArrayRef<int64_t>{debertaBandRows, tq}, c)));
  scf::ForOp mainLoop;
  if (visitsKeyRegions(init.size()))
    mainLoop = buildKeyRegionLoop(init);
  else
    mainLoop = scf::ForOp::create(
        b, loc, kBegin, fullEnd, tkV, init,
        [&](OpBuilder &, Location, Value kStart, ValueRange iter) {
          keyStep(kStart, iter, /*tail=*/false);
        });
  auto tailLoop = scf::ForOp::create(
      b, loc, fullEnd, kEnd, tkV, mainLoop.getResults(),
      [&](OpBuilder &, Location, Value kStart, ValueRange iter) {
        keyStep(kStart, iter, /*tail=*/true);
      });
  return tailLoop.getResults();
}

Value VectorTileBuilder::keyRows(Value source, Value kStart, Value kSize,
                                 bool tail) {
  // K/V carry the lead dims, the RoPE tables only rows (per batch: the
  // batch and rows), K~ of a chunk only rows.
  SmallVector<Value> at;
  if (source == info.k || source == info.v)
    at = task.kvLead;
  else if (source != tables.kRotated)
    at = tableLead(source, 2, task.kvLead);
  Value t = extractRowTile(b, loc, source, at, kStart, kSize);
  return tail ? padRows(b, loc, t, tk) : t;
}

void VectorTileBuilder::keyStep(Value kStart, ValueRange iter, bool tail) {
  Value m = iter[0], l = iter[1], acc = iter[2];
  Value kSize = tail ? arith::SubIOp::create(b, loc, kEnd, kStart) : tkV;
  Value kCos = tables.kCos, kSin = tables.kSin;
  auto rowsOf = [&](Value source) {
    return keyRows(source, kStart, kSize, tail);
  };
  // K~ rotated once per chunk (RotatedKeyChunks.cpp): no tables here.
  bool rotated = tables.kRotated != nullptr;
  Value kCosRows = kCos && !rotated ? rowsOf(kCos) : Value();
  Value kSinRows = kSin && !rotated ? rowsOf(kSin) : Value();
  Value kDecay;
  if (tables.kLogDecay && !rotated)
    kDecay = keyTileDecayFactor(b, loc,
                                FusedAttentionOp(info.op).getKPositions(),
                                tables.kLogDecay, xposCenters.k, task.kvLead,
                                kStart, c);
  // Half-precision K/V with the head dim on the lanes: the prefetches go
  // among the score contraction's register tiles instead.
  // (Spread bursts, --posenc-spread-decode-prefetches, replace it.)
  bool interleave = !tail && !spreadPrefetches && interleavesPrefetches();
  if (prefetchTiles > 0 && !tail && !interleave)
    prefetchKeyTile(kStart);
  Value kTile = widenedKeyTile(
      rotated ? rowsOf(tables.kRotated)
              : vectorPrologue(b, loc, rowsOf(info.k), info.kRope, kCosRows,
                               kSinRows, c, kDecay));
  Value vTile = widenedValueTile(rowsOf(info.v));

  Value s;
  if (scoreDimLanes) {
    s = interleave ? scoresInterleavingPrefetches(kTile, kStart)
                   : scoresWithDimsOnLanes(kTile);
  } else if (keysOnLanes) {
    // S = Q~ K~^T  (loops i, j, d): keys on the lanes. The register tile
    // [tq x kKeyLanes] reads a [kKeyLanes x kKeyLanes] block of K (keys x
    // dims, as stored: half stays half) and the contraction's lowering to
    // outer products transposes it in registers (vector.transpose), so
    // each FMA is a full vector of keys times a broadcast Q~ element.
    int64_t lanes = divisorAtMost(tk, kKeyLanes);
    s = contract(b, loc, c, qT, {2, 0}, kTile, {1, 2}, filled({tqI, tkI}, 0.0));
    markKeyContraction(s,
                       {tq, lanes, divisorAtMost(staticSize(dq), kKeyLanes)});
  } else if (narrowRowsOnLanes) {
    s = narrowRowScores(kTile);
  } else {
    // S^T = K~ Q~^T  (loops j, i, d)
    s = contract(b, loc, c, kTile, {0, 2}, qT, {2, 1}, filled({tkI, tqI}, 0.0));
    markKeyContraction(s, {divisorAtMost(tk, 8), divisorAtMost(tq, 32), 1});
  }
  t5Row = tables.t5Buckets ? buildT5TileRow(kStart) : Value();
  xlBand = info.xlRel ? buildXlBand(kStart) : Value();
  if (FusedAttentionOp(info.op).hasDebertaTerms())
    buildDebertaBands(kStart, kTile, iter.back());
  if (qrT)
    s = modifyScoresWithShawKeyTerm(s, kStart, tail);
  else
    s = modifyScores(s, kStart, Value(), /*gather=*/false, tail);

  // Query row statistics: reductions over keys.
  SoftmaxStep step = buildSoftmaxStep(b, loc, c, s, m, l, acc, tqI, layout);
  // acc' = alpha acc + P (V [+ rel_value[r(i, j)]])  (loops i, x, j)
  // P is [rows x keys] (keys on lanes) or P^T [keys x rows].
  Value accNew = accumulatePV(
      b, loc, info, step.p,
      mapOf(ctx, 3,
            keysOnLanes ? ArrayRef<int64_t>{0, 2} : ArrayRef<int64_t>{2, 0}),
      vTile, step.accScaled, task.qStart, kStart, task.shift,
      info.relValue && !bucketed);
  SmallVector<int64_t, 2> pvTile = valueRegisterTile();
  markKeyContraction(accNew, {pvTile[0], pvTile[1], 1});
  SmallVector<Value> yielded = {step.mNew, step.lNew, accNew};
  if (bucketed) {
    SmallVector<Value, 3> buckets = accumulateValueBuckets(
        kStart, step.p, step.alpha, iter[3], iter[4], iter[5]);
    yielded.append(buckets.begin(), buckets.end());
  }
  if (debertaC2P)
    yielded.push_back(nextDebertaC2P(kStart));
  scf::YieldOp::create(b, loc, yielded);
}

Value VectorTileBuilder::scoresWithDimsOnLanes(Value kTile) {
  // With the keys on the lanes, contracting D as a matmul (the branch below
  // in keyStep) transposes each [16 keys x 16 dims] block of K in registers:
  // as many shuffles as FMAs for a 4-row tile. Here D is split into
  // [D/lanes x lanes] and the lanes stay a parallel loop: partial[i, j, l]
  // = sum_c Q~[i, c, l] K~[j, c, l] reads K and Q~ rows as stored (one FMA
  // per vector, no shuffle), then S[i, j] = sum_l partial[i, j, l] reduces
  // each score's lanes once (--posenc-lower-attention-vectors lowers a
  // [lanes x lanes] block of it as a transpose-and-add tree, so S comes out
  // with the keys on the lanes for the softmax).
  return laneScores(lanePartials(kTile, tk), tk);
}

int64_t VectorTileBuilder::lanePartialKeys() const {
  // Register tile [rows x keys] of partial vectors: half the registers
  // (32 with 512-bit vectors, 16 with 256 or 128 bits) for accumulators,
  // the rest for the Q~ and K rows they read.
  int64_t accumulators = scoreDimLanes >= 16 ? 16 : 8;
  int64_t rows = divisorAtMost(tq, 4);
  return divisorAtMost(tk, std::max<int64_t>(1, accumulators / rows));
}

Value VectorTileBuilder::lanePartials(Value kRows, int64_t keys, Value into) {
  int64_t lanes = scoreDimLanes, d = staticSize(dq);
  auto split = [&](Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    auto to = RankedTensorType::get(
        {type.getDimSize(0), d / lanes, lanes}, type.getElementType());
    return tensor::ExpandShapeOp::create(
        b, loc, to, t, ArrayRef<ReassociationIndices>{{0}, {1, 2}},
        ArrayRef<OpFoldResult>{tensor::getMixedSize(b, loc, t, 0),
                               b.getIndexAttr(d / lanes),
                               b.getIndexAttr(lanes)});
  };
  Value partial0 =
      into ? linalg::FillOp::create(b, loc, floatConst(b, loc, c, 0.0), into)
                 .getResult(0)
           : filledTile(b, loc,
                        {tqI, b.getIndexAttr(keys), b.getIndexAttr(lanes)}, c,
                        0.0);
  markVectorTile(partial0, {1, 0, 0});
  Value partial = buildGeneric(
      b, loc, ValueRange{split(qRows), split(kRows)}, partial0,
      {mapOf(ctx, 4, {0, 2, 3}), mapOf(ctx, 4, {1, 2, 3}),
       mapOf(ctx, 4, {0, 1, 3})},
      {IteratorType::parallel, IteratorType::parallel,
       IteratorType::reduction, IteratorType::parallel},
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Value prod = arith::MulFOp::create(b, loc, castFloat(b, loc, a[0], c),
                                           castFloat(b, loc, a[1], c));
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[2], prod));
      });
  // Each [rows x keys x lanes] accumulator tile is zeroed in registers
  // right before its loop over D (VectorizeTiles.cpp, tileFusingInit)
  // instead of a zero-filled partial buffer per key tile.
  markExactVectorTile(
      partial,
      {divisorAtMost(tq, 4), divisorAtMost(keys, lanePartialKeys()), 1, lanes},
      /*fuseInit=*/true);
  return partial;
}

Value VectorTileBuilder::laneScores(Value partial, int64_t keys, Value into) {
  int64_t lanes = scoreDimLanes;
  Value s0;
  if (into) {
    s0 = linalg::FillOp::create(b, loc, floatConst(b, loc, c, 0.0), into)
             .getResult(0);
    markVectorTile(s0, {1, 0});
  } else {
    s0 = filled({tqI, b.getIndexAttr(keys)}, 0.0);
  }
  Value s = buildGeneric(
      b, loc, partial, s0,
      {mapOf(ctx, 3, {0, 1, 2}), mapOf(ctx, 3, {0, 1})}, iterators(2, 1),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, arith::AddFOp::create(b, loc, a[1], a[0]));
      });
  markExactVectorTile(s, {1, divisorAtMost(keys, lanes), lanes},
                      /*fuseInit=*/true);
  return s;
}

Value VectorTileBuilder::narrowRowScores(Value kTile) {
  // S^T = K~ Q~^T  (loops j, i, d) for a decode tile of at most 16 rows
  // on the lanes: each FMA is a row of Q~^T (all of the tile's rows)
  // times a broadcast K element, read from memory by the FMA itself. A
  // half-precision K would be converted element by element before each
  // broadcast (a scalar insert, convert and broadcast per FMA), so it is
  // converted once per key tile into an f32 tile instead. The register
  // tile [16 keys x rows] is 16 accumulators at 512 bits (8 x half the
  // rows at 256), enough FMAs in flight to cover their latency.
  // (widenedKeyTile has made K~ f32.)
  Value s =
      contract(b, loc, c, kTile, {0, 2}, qT, {2, 1}, filled({tkI, tqI}, 0.0));
  markKeyContraction(s, {divisorAtMost(tk, 16), tq, 1});
  return s;
}

/// The register tile [rows x dims] of P V (512-bit vectors).
SmallVector<int64_t, 2> VectorTileBuilder::valueRegisterTile() const {
  if (keysOnLanes)
    // Longer rows of V per register tile (fewer passes over the V tile,
    // which the first pass reads from memory): 4 x 64 (16 registers).
    return {divisorAtMost(tq, 4), divisorAtMost(dvStatic, 64)};
  return {divisorAtMost(tq, 8), divisorAtMost(dvStatic, 32)};
}

Value VectorTileBuilder::widenedValueTile(Value vTile) {
  // Decode with half-precision V whose P V register tiles pass over each V
  // row more than twice, with vectors narrower than 512 bits (every tile at
  // 256 bits; AttentionSchedule::widenValues): V converted once per key
  // tile into an f32 tile (L1-resident) rather than once per pass. One or
  // two passes convert no more than this would, and store nothing.
  auto type = cast<RankedTensorType>(vTile.getType());
  if (!widenValues || !rowsPerHead || type.getElementType() == c ||
      ShapedType::isDynamic(dvStatic) || info.relValue)
    return vTile;
  SmallVector<int64_t, 2> tile = valueRegisterTile();
  if ((tq / tile[0]) * (dvStatic / tile[1]) <= 2)
    return vTile;
  return convertedTile(vTile);
}

Value VectorTileBuilder::widenedKeyTile(Value kTile) {
  // The rows-on-lanes score contraction (S^T = K~ Q~^T) broadcasts each K~
  // element against a vector of rows: with K~ as stored in f16/bf16, each
  // broadcast is a scalar load, a scalar conversion and a register
  // broadcast (three uops, two on the shuffle port, per two FMAs of a
  // 64-row tile). Converted once per key tile into an f32 tile (L1/L2
  // resident), the broadcasts are loads (docs/pipelines.md, "The 64-row
  // decode tile"); so are 16-row tiles at 512 bits (widenKeys). Other
  // tiles of at most 16 rows on the lanes (narrowRowsOnLanes: 256-bit
  // vectors) convert one [16 keys x D] register tile at a time instead,
  // fused into the contraction's tiles (docs/pipelines.md, "Tiles of 16
  // rows").
  auto type = cast<RankedTensorType>(kTile.getType());
  if (type.getElementType() == c || !type.hasStaticShape())
    return kTile;
  if (widenKeys)
    return convertedTile(kTile);
  if (narrowRowsOnLanes) {
    Value wide = convertedTile(kTile);
    wide.getDefiningOp()->setAttr(kFuseIntoTilesAttr, b.getUnitAttr());
    return wide;
  }
  return kTile;
}

Value VectorTileBuilder::convertedTile(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  Value wide = buildGeneric(
      b, loc, tile, tensor::EmptyOp::create(b, loc, type.getShape(), c),
      {id2, id2}, iterators(2), [&](OpBuilder &b, Location loc, ValueRange a) {
        yieldValue(b, loc, castFloat(b, loc, a[0], c));
      });
  markVectorTile(wide, {1, 0});
  return wide;
}

void VectorTileBuilder::markKeyContraction(Value result,
                                           ArrayRef<int64_t> sizes) {
  // Decode: the zero fill of the score tile and the rescale of the
  // accumulator are fused into each register tile of the contraction that
  // consumes them (VectorizeTiles.cpp, tileFusingInit).
  if (rowsPerHead)
    markVectorTileFusingInit(result, sizes);
  else
    markVectorTile(result, sizes);
}

Value VectorTileBuilder::modifyScores(Value sIn, Value kStart, Value row,
                                      bool gather, bool tail) {
  Value shift = task.shift, sq = task.sq, sk = task.sk;
  int64_t kd = info.maxDist;
  SmallVector<Value> scoreIns;
  SmallVector<AffineMap> scoreMaps;
  if (row) {
    scoreIns.push_back(row);
    scoreMaps.push_back(col2);
  }
  scoreMaps.push_back(id2);
  Value r = buildGeneric(
      b, loc, scoreIns, sIn, scoreMaps, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Value sv = a.back();
        if (row)
          sv = arith::AddFOp::create(b, loc, sv, a[0]);
        if (gather) {
          Value iLocal = linalg::IndexOp::create(b, loc, 1);
          Value d = distAt(kStart, linalg::IndexOp::create(b, loc, 0), iLocal);
          Value rb = buildShawBucket(b, loc, d, kd);
          // Causal: buckets past K are masked below; stay in bounds of
          // the rows computed.
          if (2 * kd + 1 > qrRows)
            rb = arith::MinSIOp::create(b, loc, rb,
                                        indexConst(b, loc, qrRows - 1));
          Value rel =
              tensor::ExtractOp::create(b, loc, qrT, ValueRange{rb, iLocal});
          sv = arith::AddFOp::create(b, loc, sv, rel);
        }
        if (xlBand)
          sv = addXlTerm(b, loc, sv);
        if (debertaC2P || debertaP2C)
          sv = addDebertaTerms(b, loc, sv);
        Value score = arith::MulFOp::create(b, loc, sv,
                                            floatConst(b, loc, c, info.scale));
        if (t5Row)
          score = addT5Term(b, loc, score);
        Value i = rowQuery(b, loc, linalg::IndexOp::create(b, loc, rowDim()));
        Value j = arith::AddIOp::create(
            b, loc, kStart, linalg::IndexOp::create(b, loc, 1 - rowDim()));
        if (!identityMod) {
          // Padded rows/keys are dropped/masked; clamping keeps the
          // region's reads of `mods` operands in bounds for them.
          Value one = indexConst(b, loc, 1);
          Value iIn = arith::MinSIOp::create(
              b, loc, i, arith::SubIOp::create(b, loc, sq, one));
          Value jIn = arith::MinSIOp::create(
              b, loc, j, arith::SubIOp::create(b, loc, sk, one));
          score = applyScoreMod(b, info.op, score, rowLead(b, loc), iIn, jIn);
        }
        Value masked;
        if (info.causal)
          masked = buildCausalMask(b, loc, i, j, shift);
        if (tail) {
          // Padded keys: past Sk (a sequence's length over a KV cache), or
          // past the end of a split.
          Value past =
              buildPastLengthMask(b, loc, j, task.keyEnd ? kEnd : sk);
          masked = masked ? arith::OrIOp::create(b, loc, masked, past) : past;
        }
        if (masked)
          score = buildMaskedScore(b, loc, masked, score);
        yieldValue(b, loc, score);
      });
  markVectorTile(r, {1, 0});
  return r;
}

void VectorTileBuilder::buildOutput(Value lFinal, Value accFinal) {
  Value outTile = normalizeOutput(b, loc, info, lFinal, accFinal, {tqI, dv});
  markVectorTile(outTile, {1, 0});
  SmallVector<OpFoldResult> strides2(2, b.getIndexAttr(1));
  outTile = tensor::ExtractSliceOp::create(
      b, loc, outTile,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{task.qSize, dv}, strides2);
  insertOutputTile(b, loc, task, dv, outTile);
}
