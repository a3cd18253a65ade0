//===- FuseT5Bias.cpp - T5's bias as a fused score term -------------------===//
//
// posenc.attention(bias = posenc.t5_bias(table)) becomes
// posenc.fused_attention with t5_table = table: the bias is a bucket of
// j - i' and a table load per score, never an H x Sq x Sk tensor. Both ops
// place query i at i' = i + (Sk - Sq), so the term is the same function.
//
//===----------------------------------------------------------------------===//

#include "FuseT5Bias.h"

#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;

T5BiasOp posenc::matchFoldableT5Bias(AttentionOp op) {
  Value bias = op.getBias();
  auto t5 = bias ? bias.getDefiningOp<T5BiasOp>() : T5BiasOp();
  if (!t5 || !t5->hasOneUse() || op.getKvLengths())
    return T5BiasOp();
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto kType = cast<RankedTensorType>(op.getKey().getType());
  RankedTensorType bt = t5.getResult().getType();
  int64_t rank = qType.getRank(), br = bt.getRank();
  if (br > rank)
    return T5BiasOp();
  // A broadcast (size-1) head, Sq or Sk dim of the bias would read another
  // head or another i' than the scores'.
  auto broadcast = [](int64_t biasDim, int64_t scoreDim) {
    return biasDim == 1 && scoreDim != 1;
  };
  if (broadcast(bt.getDimSize(br - 3), qType.getDimSize(rank - 3)) ||
      broadcast(bt.getDimSize(br - 2), qType.getDimSize(rank - 2)) ||
      broadcast(bt.getDimSize(br - 1), kType.getDimSize(rank - 2)))
    return T5BiasOp();
  return t5;
}

void posenc::foldT5Bias(PatternRewriter &rewriter, T5BiasOp t5,
                        FusedAttentionOp fused, Value q, Value k) {
  Location loc = t5.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(fused);
  RankedTensorType bt = t5.getResult().getType();
  int64_t br = bt.getRank();
  int64_t n = cast<RankedTensorType>(q.getType()).getRank() - 2;
  // The bias' own dynamic sizes (its operands, in order), checked against
  // the scores' Sq and Sk as the reference lowering's broadcast checks them.
  ValueRange dynamic = t5.getDynamicSizes();
  unsigned next = 0;
  for (int64_t d = 0; d < br; ++d) {
    if (!bt.isDynamicDim(d))
      continue;
    Value size = dynamic[next++];
    if (d < br - 2)
      continue;
    Value scores = d == br - 2 ? tensor::DimOp::create(rewriter, loc, q, n)
                               : tensor::DimOp::create(rewriter, loc, k, n);
    Value same = arith::CmpIOp::create(rewriter, loc,
                                       arith::CmpIPredicate::eq, size, scores);
    cf::AssertOp::create(rewriter, loc, same,
                         d == br - 2
                             ? "posenc.attention: 'bias' dim Sq does not "
                               "match the scores"
                             : "posenc.attention: 'bias' dim Sk does not "
                               "match the scores");
  }
  fused.getT5TableMutable().assign(t5.getTable());
  fused.setT5MaxDistance(t5.getMaxDistance());
  fused.setT5Bidirectional(t5.getBidirectional());
}
