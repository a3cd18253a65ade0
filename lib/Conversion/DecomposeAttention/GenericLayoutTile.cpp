//===- GenericLayoutTile.cpp - one query tile, generic (GPU) layout -------===//
//
// The body of one task of the decomposition in the layout the GPU mapping
// (--posenc-gpu-map-attention) consumes: tiles sized by the remaining rows
// (no padding; in the decode schedule, the Sq rows of each packed head, and
// the keys of the task's split, its unnormalized state written for the
// merge), scores S [query rows x keys], one key loop up to
// keyLoopEnd, RoPE angles computed per element of each loaded tile, Shaw's
// key term as the [qSize x 2K+1] product Q~ rel_key^T of the query tile read
// per score and the value term read per (i, j, x), Transformer-XL's position
// term as a dot product per score (XlTerms.cpp), likewise DeBERTa's terms
// (DebertaTerms.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::decompose;

using utils::IteratorType;

/// The query row and the lead indices (its head) of row `row` of a task's
/// tile: row qStart + row of the task's head, or in a packed decode tile
/// query row `row mod Sq` of head `lead + row floordiv Sq`.
static std::pair<Value, SmallVector<Value>>
rowQueryAndLead(OpBuilder &b, Location loc, const AttentionSchedule &schedule,
                const QueryTileTask &task, Value row) {
  SmallVector<Value> lead(task.lead);
  if (schedule.packedHeads == 1)
    return {arith::AddIOp::create(b, loc, task.qStart, row), lead};
  Value t = indexConst(b, loc, schedule.rowsPerHead);
  lead.back() = arith::AddIOp::create(b, loc, lead.back(),
                                      arith::DivUIOp::create(b, loc, row, t));
  return {arith::RemUIOp::create(b, loc, row, t), lead};
}

/// S = causal(score_mod(scale * (S + qr[i, r(i, j)]) [+ T5's bias])) on the
/// [qSize x kSize] scores of the key tile at `kStart`, elementwise with
/// absolute i, j; `qr` [qSize x 2K+1] is Shaw's key term of the query tile
/// (null without it).
static Value modifyScores(OpBuilder &b, Location loc, const AttentionInfo &info,
                          const AttentionSchedule &schedule,
                          const QueryTileTask &task, Value s, Value kStart,
                          Value qr) {
  MLIRContext *ctx = b.getContext();
  FusedAttentionOp op = info.op;
  Value qStart = task.qStart, shift = task.shift;
  bool identityMod = op.hasIdentityScoreMod();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  return buildGeneric(
      b, loc, ValueRange{}, s, {id2}, iterators(2),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value sv = args[0];
        if (qr) {
          Value iLocal = linalg::IndexOp::create(b, loc, 0);
          Value jLocal = linalg::IndexOp::create(b, loc, 1);
          Value dist = buildRelativeDistance(
              b, loc, arith::AddIOp::create(b, loc, qStart, iLocal),
              arith::AddIOp::create(b, loc, kStart, jLocal), shift);
          Value r = buildShawBucket(b, loc, dist, info.maxDist);
          sv = arith::AddFOp::create(
              b, loc, sv,
              tensor::ExtractOp::create(b, loc, qr, ValueRange{iLocal, r}));
        }
        Value score = arith::MulFOp::create(
            b, loc, sv, floatConst(b, loc, info.c, info.scale));
        auto [i, lead] = rowQueryAndLead(b, loc, schedule, task,
                                         linalg::IndexOp::create(b, loc, 0));
        Value j = arith::AddIOp::create(b, loc, kStart,
                                        linalg::IndexOp::create(b, loc, 1));
        if (op.getT5Table())
          score = addT5ScoreTerm(b, loc, info, task, score, i, j);
        if (!identityMod)
          score = applyScoreMod(b, op, score, lead, i, j);
        if (info.causal)
          score = buildMaskedScore(b, loc, buildCausalMask(b, loc, i, j, shift),
                                   score);
        yieldValue(b, loc, score);
      });
}

void posenc::decompose::buildGenericLayoutTile(
    OpBuilder &b, Location loc, const AttentionInfo &info,
    const AttentionSchedule &schedule, const QueryTileTask &task,
    const AttentionTables &tables) {
  MLIRContext *ctx = b.getContext();
  FusedAttentionOp op = info.op;
  FloatType c = info.c;
  Value qStart = task.qStart, tk = task.keyTileSize;
  // The tile's rows: the task's query rows, times the packed heads.
  OpFoldResult qSize =
      schedule.isDecode()
          ? OpFoldResult(b.getIndexAttr(schedule.packedHeads *
                                        schedule.rowsPerHead))
          : OpFoldResult(task.qSize);
  XPosTileCenters xpos = xposTileCenters(b, loc, info, task.lead, qStart);
  Value qTile =
      schedule.packedHeads > 1
          ? loadPackedQueryTile(b, loc, info.q, task.lead,
                                schedule.packedHeads, schedule.rowsPerHead,
                                info.qRope, op.getQPositions(),
                                tables.qInvFreq, c)
          : loadTile(b, loc, info.q, task.lead, qStart, task.qSize,
                     info.qRope, op.getQPositions(), tables.qInvFreq, c,
                     tables.qLogDecay, xpos.q, tables.qCos, tables.qSin);

  // Shaw's key term: qr = Q~ rel_key^T [qSize x 2K+1] per query tile.
  Value qr;
  if (info.relKey) {
    Value qr0 = filledTile(
        b, loc, {qSize, b.getIndexAttr(2 * info.maxDist + 1)}, c, 0.0);
    qr = contract(b, loc, c, qTile, {0, 2}, info.relKey, {1, 2}, qr0);
  }

  // Transformer-XL: the content term's query Q~ + u, the position term's
  // Q~ + v (after Shaw's qr, which reads Q~).
  Value qvTile;
  if (info.xlRel)
    std::tie(qTile, qvTile) = addXlQueryBiases(b, loc, info, task, qTile);

  // Decode: the keys of the task's split, [keyBegin, keyEnd) (empty past
  // the batch's keys).
  Value kEnd = keyLoopEnd(b, loc, info.causal, task);
  Value kBegin;
  if (task.keyEnd) {
    kBegin = task.keyBegin;
    kEnd = arith::MinSIOp::create(b, loc, kEnd, task.keyEnd);
  }

  OpFoldResult dv = tensor::getMixedSize(b, loc, info.v, info.n + 1);
  Value m0 = filledTile(b, loc, {qSize}, c, kNegInf);
  Value l0 = filledTile(b, loc, {qSize}, c, 0.0);
  Value acc0 = filledTile(b, loc, {qSize, dv}, c, 0.0);

  AffineMap row2 = mapOf(ctx, 2, {0});
  // S [query rows x keys]: row statistics reduce dim 1.
  ScoreLayout layout{row2,
                     {IteratorType::parallel, IteratorType::reduction},
                     row2,
                     [](Value, ArrayRef<int64_t>) {},
                     1};

  auto forOp = scf::ForOp::create(
      b, loc, kBegin ? kBegin : indexConst(b, loc, 0), kEnd, tk,
      ValueRange{m0, l0, acc0},
      [&](OpBuilder &b, Location loc, Value kStart, ValueRange iter) {
        Value m = iter[0], l = iter[1], acc = iter[2];
        Value kSize = arith::MinUIOp::create(
            b, loc, tk, arith::SubIOp::create(b, loc, kEnd, kStart));
        Value kTile =
            loadTile(b, loc, info.k, task.kvLead, kStart, kSize, info.kRope,
                     op.getKPositions(), tables.kInvFreq, c, tables.kLogDecay,
                     xpos.k, tables.kCos, tables.kSin);
        Value vTile =
            extractRowTile(b, loc, info.v, task.kvLead, kStart, kSize);

        // S = Q~ K~^T  (loops i, j, d)
        Value s0 = filledTile(b, loc, {qSize, kSize}, c, 0.0);
        Value s = contract(b, loc, c, qTile, {0, 2}, kTile, {1, 2}, s0);
        if (qvTile)
          s = addXlPositionTerm(b, loc, info, task, s, qvTile, kStart);
        if (op.hasDebertaTerms())
          s = addDebertaTerms(b, loc, info, task, s, qTile, kTile, kStart,
                              tables.debertaIndex);
        s = modifyScores(b, loc, info, schedule, task, s, kStart, qr);

        SoftmaxStep step =
            buildSoftmaxStep(b, loc, c, s, m, l, acc, qSize, layout);
        // acc' = alpha acc + P (V [+ rel_value[r(i, j)]])  (loops i, x, j)
        Value accNew = accumulatePV(b, loc, info, step.p, mapOf(ctx, 3, {0, 2}),
                                    vTile, step.accScaled, qStart, kStart,
                                    task.shift, bool(info.relValue));
        scf::YieldOp::create(b, loc, ValueRange{step.mNew, step.lNew, accNew});
      });

  if (schedule.isDecode()) {
    insertDecodePartials(b, loc, task,
                         SmallVector<Value>(forOp.getResults()));
    return;
  }
  Value outTile = normalizeOutput(b, loc, info, forOp.getResult(1),
                                  forOp.getResult(2), {qSize, dv});
  insertOutputTile(b, loc, task, dv, outTile);
}
