//===- DisentangledAttentionToLinalg.cpp - reference DeBERTa attention ----===//
//
// The reference lowering of posenc.disentangled_attention: the table row
// c(i, j) of every (query, key) pair as an [Sq, Sk] index tensor (the
// bucket evaluated once per pair, AttentionUtils' buildDisentangledIndex),
// the [lead..., Sq, Sk] scores q_i . k_j + q_i . pos_key[c] + k_j .
// pos_query[c] as one reduction over D that gathers the table rows by that
// index (no [Sq, 2k] product is materialized), then the scale, the causal
// mask and the reference softmax times value of posenc.attention.
//
//===----------------------------------------------------------------------===//

#include "PosencToLinalgPatterns.h"

#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::reference;

namespace {

/// The index tensor [Sq, Sk] x i64 of the table rows c(i, j).
static Value buildIndexTensor(OpBuilder &b, Location loc, Value sq, Value sk,
                              int64_t span,
                              std::optional<DebertaBucketParams> buckets) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{sq, sk}, i64);
  return buildGeneric(
      b, loc, ValueRange(), init, {AffineMap::getMultiDimIdentityMap(2, ctx)},
      iterators(2), [&](OpBuilder &b, Location loc, ValueRange) {
        Value i = linalg::IndexOp::create(b, loc, 0);
        Value j = linalg::IndexOp::create(b, loc, 1);
        Value c = buildDisentangledIndex(b, loc, i, j, span, buckets);
        yieldValue(b, loc, arith::IndexCastOp::create(b, loc, i64, c));
      });
}

/// table[(h,) c, d] for a position table [2k, D] or [H, 2k, D], in `f`.
static Value loadTableElement(OpBuilder &b, Location loc, Value table,
                              Value h, Value c, Value d, FloatType f) {
  SmallVector<Value> idx;
  if (cast<RankedTensorType>(table.getType()).getRank() == 3)
    idx.push_back(h);
  idx.append({c, d});
  return castFloat(b, loc, tensor::ExtractOp::create(b, loc, table, idx), f);
}

struct DisentangledAttentionToLinalg
    : OpConversionPattern<DisentangledAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DisentangledAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value posKey = adaptor.getPosKey(), posQuery = adaptor.getPosQuery();
    auto qType = cast<RankedTensorType>(q.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2; // lead dims: batch..., heads
    FloatType f = computeTypeFor(qType.getElementType());
    MLIRContext *ctx = rewriter.getContext();
    StringRef name = "posenc.disentangled_attention";
    buildAttentionShapeChecks(rewriter, loc, name, q, k, v, std::nullopt);
    buildDebertaTableChecks(rewriter, loc, name, posKey, "pos_key", q);
    buildDebertaTableChecks(rewriter, loc, name, posQuery, "pos_query", q);

    Value sq = tensor::DimOp::create(rewriter, loc, q, n);
    Value sk = tensor::DimOp::create(rewriter, loc, k, n);
    Value index = buildIndexTensor(rewriter, loc, sq, sk,
                                   op.getAttentionSpan(),
                                   getDebertaBucketParams(op));

    // raw[lead..., i, j] = sum_d q[i, d] k[j, d] + q[i, d] pos_key[c, d]
    //                          + k[j, d] pos_query[c, d]   (c = index[i, j])
    // over the loops (lead..., i, j, d).
    int64_t numLoops = n + 3;
    SmallVector<AffineExpr> lead, qe, ke, ie, oe;
    for (int64_t x = 0; x < n; ++x)
      lead.push_back(getAffineDimExpr(x, ctx));
    AffineExpr i = getAffineDimExpr(n, ctx), j = getAffineDimExpr(n + 1, ctx),
               d = getAffineDimExpr(n + 2, ctx);
    qe = ke = oe = lead;
    qe.append({i, d});
    ke.append({j, d});
    oe.append({i, j});
    ie = {i, j};
    SmallVector<OpFoldResult> sizes = mixedSizes(rewriter, loc, q);
    sizes.back() = sk;
    auto mapOf = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    Value raw = buildGeneric(
        rewriter, loc, ValueRange{q, k, index},
        filledTensor(rewriter, loc, sizes, f, 0.0),
        {mapOf(qe), mapOf(ke), mapOf(ie), mapOf(oe)}, iterators(n + 2, 1),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value qv = castFloat(b, loc, args[0], f);
          Value kv = castFloat(b, loc, args[1], f);
          Value c = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                               args[2]);
          Value h = linalg::IndexOp::create(b, loc, n - 1);
          Value dv = linalg::IndexOp::create(b, loc, n + 2);
          // x . table[(h,) c] for the term whose table is given.
          auto addTerm = [&](Value sum, Value x, Value table) -> Value {
            if (!table)
              return sum;
            Value t = loadTableElement(b, loc, table, h, c, dv, f);
            return arith::AddFOp::create(b, loc, sum,
                                         arith::MulFOp::create(b, loc, x, t));
          };
          Value sum = arith::MulFOp::create(b, loc, qv, kv);
          sum = addTerm(sum, qv, posKey);   // c2p
          sum = addTerm(sum, kv, posQuery); // p2c: c' = c (the bucket is odd)
          yieldValue(b, loc, arith::AddFOp::create(b, loc, args[3], sum));
        });

    // s = scale * raw, causal entries -inf.
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    bool causal = op.getCausal();
    double scale = op.getScaleOrDefault();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value scores = buildGeneric(
        rewriter, loc, raw,
        tensor::EmptyOp::create(rewriter, loc,
                                mixedSizes(rewriter, loc, raw), f),
        {identity, identity}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value s = arith::MulFOp::create(b, loc, args[0],
                                          floatConst(b, loc, f, scale));
          if (causal) {
            Value iv = linalg::IndexOp::create(b, loc, n);
            Value jv = linalg::IndexOp::create(b, loc, n + 1);
            s = buildMaskedScore(b, loc, buildCausalMask(b, loc, iv, jv, shift),
                                 s);
          }
          yieldValue(b, loc, s);
        });
    replaceWithResultType(rewriter, op,
                          buildSoftmaxTimesValue(rewriter, loc, scores, v,
                                                 qType.getElementType()));
    return success();
  }
};

} // namespace

void posenc::reference::populateDisentangledAttentionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DisentangledAttentionToLinalg>(patterns.getContext());
}
