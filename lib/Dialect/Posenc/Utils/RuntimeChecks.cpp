//===- RuntimeChecks.cpp - run-time shape checks --------------------------===//
//
// The cf.assert checks of dims that the verifiers see only as dynamic
// (AttentionUtils.h, "Run-time shape checks"): attention operands,
// kv_lengths, rope tables and per-batch positions, XL and DeBERTa tables.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;

//===----------------------------------------------------------------------===//
// Run-time shape checks
//===----------------------------------------------------------------------===//

void posenc::buildAttentionShapeChecks(OpBuilder &b, Location loc,
                                       StringRef opName, Value q, Value k,
                                       Value v,
                                       std::optional<int64_t> groupedDim) {
  int64_t n = cast<RankedTensorType>(q.getType()).getRank() - 2;
  if (groupedDim && (*groupedDim < 0 || *groupedDim >= n))
    groupedDim = std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    if (groupedDim && *groupedDim == i)
      continue; // query heads are a multiple of k/v's (verified)
    assertDimsEqual(b, loc, q, i, k, i,
                    opName + ": batch dim " + Twine(i) +
                        " of 'key' differs from 'query'");
    assertDimsEqual(b, loc, q, i, v, i,
                    opName + ": batch dim " + Twine(i) +
                        " of 'value' differs from 'query'");
  }
  assertDimsEqual(b, loc, q, n + 1, k, n + 1,
                  opName + ": head dim D of 'key' differs from 'query'");
  assertDimsEqual(b, loc, k, n, v, n,
                  opName + ": sequence dim of 'value' differs from 'key'");
  if (groupedDim)
    assertDimsEqual(b, loc, k, *groupedDim, v, *groupedDim,
                    opName + ": heads of 'value' differ from 'key'");
}

void posenc::buildKVLengthsChecks(OpBuilder &b, Location loc, StringRef opName,
                                  Value kvLengths, Value query, Value key) {
  assertDimsEqual(b, loc, kvLengths, 0, query, 0,
                  opName + ": length of 'kv_lengths' differs from the batch "
                           "dim of 'query'");
  int64_t seqDim = cast<RankedTensorType>(key.getType()).getRank() - 2;
  Value smax = tensor::DimOp::create(b, loc, key, seqDim);
  Value zero = indexConst(b, loc, 0);
  Value numBatches = tensor::DimOp::create(b, loc, kvLengths, 0);
  std::string message =
      (opName + ": a 'kv_lengths' value lies outside [0, Smax] (Smax: the "
                "sequence dim of 'key')")
          .str();
  scf::ForOp::create(
      b, loc, zero, numBatches, indexConst(b, loc, 1), ValueRange{},
      [&](OpBuilder &b, Location loc, Value batch, ValueRange) {
        Value length = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(b, loc, kvLengths, batch));
        Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          length, zero);
        Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                           length, smax);
        cf::AssertOp::create(b, loc, arith::AndIOp::create(b, loc, low, high),
                             message);
        scf::YieldOp::create(b, loc);
      });
}

void posenc::buildRopeTableChecks(OpBuilder &b, Location loc, const Twine &what,
                                  Value table, Value input) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t tRank = type.getRank();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  for (int64_t k = 0; k + 1 < tRank; ++k)
    if (type.getDimSize(k) != 1 || k + 2 == tRank)
      assertDimsEqual(b, loc, table, k, input, rank - tRank + k,
                      what + ": dim " + Twine(k) +
                          " of the cos/sin tables differs from dim " +
                          Twine(rank - tRank + k) + " of the input");
}

void posenc::buildPerBatchPositionsCheck(OpBuilder &b, Location loc,
                                         const Twine &what, Value positions,
                                         Value input) {
  if (cast<RankedTensorType>(positions.getType()).getRank() != 2)
    return;
  assertDimsEqual(b, loc, positions, 0, input, 0,
                  what + ": batch dim of per-batch positions differs from "
                         "dim 0 of the input");
}

void posenc::buildXlTableChecks(OpBuilder &b, Location loc, StringRef opName,
                                ArrayRef<StringRef> names, Value rel,
                                Value contentBias, Value positionBias,
                                Value query, Value key) {
  int64_t n = cast<RankedTensorType>(query.getType()).getRank() - 2;
  int64_t relRank = cast<RankedTensorType>(rel.getType()).getRank();
  auto quoted = [&](unsigned which) {
    return (opName + ": '" + names[which] + "'").str();
  };
  if (relRank == 3)
    assertDimsEqual(b, loc, rel, 0, query, n - 1,
                    quoted(0) + " dim 0 (H) differs from the query heads");
  assertDimsEqual(b, loc, rel, relRank - 1, query, n + 1,
                  quoted(0) + " dim -1 differs from the head dim D of 'query'");
  auto relType = cast<RankedTensorType>(rel.getType());
  auto qType = cast<RankedTensorType>(query.getType());
  auto kType = cast<RankedTensorType>(key.getType());
  if (relType.isDynamicDim(relRank - 2) || qType.isDynamicDim(n) ||
      kType.isDynamicDim(n)) {
    Value sq = tensor::DimOp::create(b, loc, query, n);
    Value sk = tensor::DimOp::create(b, loc, key, n);
    Value expected = arith::SubIOp::create(
        b, loc, arith::AddIOp::create(b, loc, sq, sk), indexConst(b, loc, 1));
    Value rows = tensor::DimOp::create(b, loc, rel, relRank - 2);
    cf::AssertOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rows, expected),
        quoted(0) + " does not have Sq + Sk - 1 rows");
  }
  for (auto [which, bias] :
       {std::make_pair(1u, contentBias), std::make_pair(2u, positionBias)}) {
    assertDimsEqual(b, loc, bias, 0, query, n - 1,
                    quoted(which) + " dim 0 (H) differs from the query heads");
    assertDimsEqual(b, loc, bias, 1, query, n + 1,
                    quoted(which) +
                        " dim 1 differs from the head dim D of 'query'");
  }
}

void posenc::buildFusedAttentionRuntimeChecks(OpBuilder &b,
                                              FusedAttentionOp op) {
  Location loc = op.getLoc();
  Value q = op.getQuery(), k = op.getKey();
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  int64_t n = rank - 2;
  std::optional<int64_t> groupedDim;
  if (rank >= 3)
    groupedDim = n - 1;
  StringRef name = "posenc.fused_attention";
  buildAttentionShapeChecks(b, loc, name, q, k, op.getValue(), groupedDim);
  auto positionsLast = [](Value p) {
    return cast<RankedTensorType>(p.getType()).getRank() - 1;
  };
  if (Value p = op.getQPositions()) {
    assertDimsEqual(b, loc, p, positionsLast(p), q, n,
                    name + ": length of 'q_positions' differs from the "
                           "sequence dim of 'query'");
    buildPerBatchPositionsCheck(b, loc, name + ": 'q_positions'", p, q);
  }
  if (Value p = op.getKPositions()) {
    assertDimsEqual(b, loc, p, positionsLast(p), k, n,
                    name + ": length of 'k_positions' differs from the "
                           "sequence dim of 'key'");
    buildPerBatchPositionsCheck(b, loc, name + ": 'k_positions'", p, k);
  }
  // Table-form prologues: [S, R] or per batch [B, S, R], as positions.
  for (auto [table, input, what] :
       {std::make_tuple(op.getQCos(), q, "'q_cos'/'q_sin'"),
        std::make_tuple(op.getKCos(), k, "'k_cos'/'k_sin'")}) {
    if (!table)
      continue;
    int64_t tRank = cast<RankedTensorType>(table.getType()).getRank();
    assertDimsEqual(b, loc, table, tRank - 2, input, n,
                    name + ": rows of " + what +
                        " differ from the sequence dim of its input");
    if (tRank == 3)
      assertDimsEqual(b, loc, table, 0, input, 0,
                      name + ": batch dim of " + what +
                          " differs from dim 0 of its input");
  }
  if (Value lengths = op.getKvLengths())
    buildKVLengthsChecks(b, loc, name, lengths, q, k);
  if (Value t5 = op.getT5Table())
    assertDimsEqual(b, loc, t5, 1, q, n - 1,
                    name + ": dim 1 (H) of 't5_table' differs from the "
                           "query heads");
  if (Value rel = op.getXlRel())
    buildXlTableChecks(b, loc, name,
                       {"xl_rel", "xl_content_bias", "xl_position_bias"}, rel,
                       op.getXlContentBias(), op.getXlPositionBias(), q, k);
  buildDebertaTableChecks(b, loc, name, op.getDebertaPosKey(),
                          "deberta_pos_key", q);
  buildDebertaTableChecks(b, loc, name, op.getDebertaPosQuery(),
                          "deberta_pos_query", q);
}

void posenc::buildDebertaTableChecks(OpBuilder &b, Location loc,
                                     StringRef opName, Value table,
                                     StringRef name, Value q) {
  if (!table)
    return;
  int64_t rank = cast<RankedTensorType>(table.getType()).getRank();
  int64_t qRank = cast<RankedTensorType>(q.getType()).getRank();
  assertDimsEqual(b, loc, table, rank - 1, q, qRank - 1,
                  opName + ": the last dim of '" + name +
                      "' differs from the head dim of 'query'");
  if (rank == 3)
    assertDimsEqual(b, loc, table, 0, q, qRank - 3,
                    opName + ": dim 0 of '" + name +
                        "' differs from the heads of 'query'");
}
