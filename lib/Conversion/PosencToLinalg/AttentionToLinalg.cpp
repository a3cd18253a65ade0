//===- AttentionToLinalg.cpp - reference lowering of attention ------------===//
//
// The reference lowering of posenc.attention, posenc.rel_pos_attention and
// posenc.xl_attention: the [Sq, Sk] scores, a masked softmax and the P V
// product as full tensors (the baseline the fused decomposition is checked
// against).
//
//===----------------------------------------------------------------------===//

#include "PosencToLinalgPatterns.h"

#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::reference;

namespace {

using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Attention (shared by posenc.attention and posenc.rel_pos_attention)
//===----------------------------------------------------------------------===//

/// How key/value are indexed relative to the query: all dims before (S, D)
/// are "lead" dims shared by q/k/v, except that lead dim `groupedDim` (the
/// head dim of GQA) of k/v is the query's divided by `group`.
struct AttentionShape {
  int64_t numLead;
  std::optional<int64_t> groupedDim;
  int64_t group = 1;

  /// Lead exprs of k/v for the loop dims 0..numLead-1 of a nest.
  SmallVector<AffineExpr> kvLead(MLIRContext *ctx) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < numLead; ++i) {
      AffineExpr e = getAffineDimExpr(i, ctx);
      if (groupedDim && *groupedDim == i && group != 1)
        e = e.floorDiv(group);
      exprs.push_back(e);
    }
    return exprs;
  }
  SmallVector<AffineExpr> qLead(MLIRContext *ctx) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < numLead; ++i)
      exprs.push_back(getAffineDimExpr(i, ctx));
    return exprs;
  }
};

static AffineMap mapOf(int64_t numDims, ArrayRef<AffineExpr> exprs,
                       MLIRContext *ctx) {
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// The loop dims (a, b, c) after the lead dims of a batched contraction
/// out[lead..., a, b] = sum_c lhs * rhs.
static std::array<AffineExpr, 3> contractionDims(MLIRContext *ctx,
                                                 int64_t numLead) {
  return {getAffineDimExpr(numLead, ctx), getAffineDimExpr(numLead + 1, ctx),
          getAffineDimExpr(numLead + 2, ctx)};
}

/// out[lead..., a, b] = sum_c lhs * rhs in `f` over the loops (lead..., a,
/// b, c): `lhs` and `rhs` indexed by `lhsExprs` and `rhsExprs` (in terms of
/// those loops), out of shape `sizes` by the query's lead dims and (a, b).
static Value buildContraction(OpBuilder &b, Location loc, FloatType f,
                              const AttentionShape &shape, Value lhs,
                              ArrayRef<AffineExpr> lhsExprs, Value rhs,
                              ArrayRef<AffineExpr> rhsExprs,
                              ArrayRef<OpFoldResult> sizes) {
  MLIRContext *ctx = b.getContext();
  int64_t n = shape.numLead;
  int64_t numLoops = n + 3;
  std::array<AffineExpr, 3> dims = contractionDims(ctx, n);
  SmallVector<AffineExpr> oe = shape.qLead(ctx);
  oe.append({dims[0], dims[1]});
  return buildGeneric(
      b, loc, ValueRange{lhs, rhs}, filledTensor(b, loc, sizes, f, 0.0),
      {mapOf(numLoops, lhsExprs, ctx), mapOf(numLoops, rhsExprs, ctx),
       mapOf(numLoops, oe, ctx)},
      iterators(n + 2, 1), [&](OpBuilder &b, Location loc, ValueRange args) {
        Value x = castFloat(b, loc, args[0], f);
        Value y = castFloat(b, loc, args[1], f);
        Value prod = arith::MulFOp::create(b, loc, x, y);
        yieldValue(b, loc, arith::AddFOp::create(b, loc, args[2], prod));
      });
}

/// raw[lead..., i, j] = sum_d q[lead..., i, d] * k[lead'..., j, d] in f32.
static Value buildQKProduct(OpBuilder &b, Location loc, Value q, Value k,
                            const AttentionShape &shape, FloatType f) {
  MLIRContext *ctx = b.getContext();
  int64_t n = shape.numLead;
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, q);
  sizes.back() = tensor::getMixedSize(b, loc, k, n); // Sk
  auto [i, j, d] = contractionDims(ctx, n);
  SmallVector<AffineExpr> qe = shape.qLead(ctx), ke = shape.kvLead(ctx);
  qe.append({i, d});
  ke.append({j, d});
  return buildContraction(b, loc, f, shape, q, qe, k, ke, sizes);
}

/// Row softmax over the last dim of `scores` ([..., Sq, Sk], f32, masked
/// entries -inf), with max subtraction; rows that are entirely masked give
/// zeros instead of NaN.
static Value buildMaskedSoftmax(OpBuilder &b, Location loc, Value scores,
                                FloatType f) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(scores.getType()).getRank();
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, scores);
  SmallVector<OpFoldResult> rowSizes(sizes.begin(), sizes.end() - 1);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rowMap = identity.dropResult(rank - 1);
  double negInf = -std::numeric_limits<double>::infinity();

  Value rowMax = buildGeneric(
      b, loc, scores, filledTensor(b, loc, rowSizes, f, negInf),
      {identity, rowMap}, iterators(rank - 1, 1),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        yieldValue(b, loc, arith::MaximumFOp::create(b, loc, args[0], args[1]));
      });
  // e = exp(s - max); a fully masked row has max = -inf and gives e = 0.
  Value exps = buildGeneric(
      b, loc, ValueRange{scores, rowMax},
      tensor::EmptyOp::create(b, loc, sizes, f), {identity, rowMap, identity},
      iterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
        Value ninf = floatConst(b, loc, f, negInf);
        Value rowMasked = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, args[1], ninf);
        Value diff = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value e = math::ExpOp::create(b, loc, diff);
        Value zero = floatConst(b, loc, f, 0.0);
        yieldValue(b, loc, arith::SelectOp::create(b, loc, rowMasked, zero, e));
      });
  Value rowSum = buildGeneric(
      b, loc, exps, filledTensor(b, loc, rowSizes, f, 0.0), {identity, rowMap},
      iterators(rank - 1, 1), [&](OpBuilder &b, Location loc, ValueRange args) {
        yieldValue(b, loc, arith::AddFOp::create(b, loc, args[0], args[1]));
      });
  return buildGeneric(
      b, loc, ValueRange{exps, rowSum},
      tensor::EmptyOp::create(b, loc, sizes, f), {identity, rowMap, identity},
      iterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
        yieldValue(b, loc, buildSoftmaxNormalize(b, loc, args[0], args[1]));
      });
}

/// out[lead..., i, x] = sum_j p[lead..., i, j] * v[lead'..., j, x] in f32.
static Value buildPVProduct(OpBuilder &b, Location loc, Value probs, Value v,
                            const AttentionShape &shape, FloatType f) {
  MLIRContext *ctx = b.getContext();
  int64_t n = shape.numLead;
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, probs);
  sizes.back() = tensor::getMixedSize(b, loc, v, n + 1); // Dv
  auto [i, x, j] = contractionDims(ctx, n);
  SmallVector<AffineExpr> pe = shape.qLead(ctx), ve = shape.kvLead(ctx);
  pe.append({i, j});
  ve.append({j, x});
  return buildContraction(b, loc, f, shape, probs, pe, v, ve, sizes);
}

/// v with the rows past each batch's kv_lengths[b] zeroed ([B, ..., Sk,
/// Dv], the key dim at `keyDim`): a masked key's probability is 0, but
/// 0 x v is NaN when the cache holds NaN or inf past the length (memory
/// the caller never wrote), and those rows must not reach the output.
static Value zeroValuesPastLengths(OpBuilder &b, Location loc, Value v,
                                   Value kvLengths, int64_t keyDim, Value sq) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value init = tensor::EmptyOp::create(b, loc, mixedSizes(b, loc, v),
                                       type.getElementType());
  return buildGeneric(
      b, loc, ValueRange{v, kvLengths}, init,
      {identity, mapOf(rank, {getAffineDimExpr(0, ctx)}, ctx), identity},
      iterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
        CacheKeyRange range = buildCacheKeyRange(b, loc, args[1], sq);
        Value j = linalg::IndexOp::create(b, loc, keyDim);
        Value past = buildPastLengthMask(b, loc, j, range.length);
        Value zero = floatConst(b, loc, type.getElementType(), 0.0);
        yieldValue(b, loc,
                   arith::SelectOp::create(b, loc, past, zero, args[0]));
      });
}

/// Converts an f32 result tensor to `elemType`.
static Value castTensor(OpBuilder &b, Location loc, Value t, Type elemType) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == elemType)
    return t;
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  Value init = tensor::EmptyOp::create(b, loc, mixedSizes(b, loc, t), elemType);
  return buildGeneric(
      b, loc, t, init, {identity, identity}, iterators(type.getRank()),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        yieldValue(b, loc, castFloat(b, loc, args[0], elemType));
      });
}

/// The scores of a relative-position attention: s = scale * (raw +
/// relTerm(indices)) over the [lead..., Sq, Sk] product `raw`, causal
/// entries (j > i + shift) -inf. `relTerm` reads its table by index in the
/// generic's body (i, j are indices numLead and numLead + 1).
static Value
buildRelativeScores(OpBuilder &b, Location loc, Value raw, FloatType f,
                    int64_t numLead, Value shift, double scale, bool causal,
                    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)>
                        relTerm) {
  int64_t rank = numLead + 2;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return buildGeneric(
      b, loc, raw,
      tensor::EmptyOp::create(b, loc, mixedSizes(b, loc, raw), f),
      {identity, identity}, iterators(rank),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> ivs = loopIndices(b, loc, rank);
        Value iv = ivs[numLead], jv = ivs[numLead + 1];
        Value s = arith::AddFOp::create(b, loc, args[0], relTerm(b, loc, ivs));
        s = arith::MulFOp::create(b, loc, s, floatConst(b, loc, f, scale));
        if (causal)
          s = buildMaskedScore(b, loc, buildCausalMask(b, loc, iv, jv, shift),
                               s);
        yieldValue(b, loc, s);
      });
}

struct AttentionToLinalg : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2; // lead dims: batch..., heads
    AttentionShape shape{n, n - 1,
                         qType.getDimSize(n - 1) / kType.getDimSize(n - 1)};
    FloatType f = computeTypeFor(qType.getElementType());
    MLIRContext *ctx = rewriter.getContext();
    buildAttentionShapeChecks(rewriter, loc, "posenc.attention", q, k, v,
                              shape.groupedDim);
    Value kvLengths = adaptor.getKvLengths();
    if (kvLengths)
      buildKVLengthsChecks(rewriter, loc, "posenc.attention", kvLengths, q, k);

    Value raw = buildQKProduct(rewriter, loc, q, k, shape, f);

    // s = scale * raw + bias, causal entries -inf.
    Value bias = adaptor.getBias();
    SmallVector<Value> inputs = {raw};
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineMap> maps = {identity};
    if (bias) {
      auto biasType = cast<RankedTensorType>(bias.getType());
      auto rawType = cast<RankedTensorType>(raw.getType());
      int64_t lead = rank - biasType.getRank();
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < biasType.getRank(); ++d) {
        bool broadcast =
            biasType.getDimSize(d) == 1 && rawType.getDimSize(lead + d) != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(lead + d, ctx));
        if (!broadcast)
          assertDimsEqual(rewriter, loc, bias, d, raw, lead + d,
                          "posenc.attention: 'bias' dim " + Twine(d) +
                              " does not match the scores");
      }
      inputs.push_back(bias);
      maps.push_back(mapOf(rank, exprs, ctx));
    }
    // Over a KV cache: kv_lengths[b] read per score (b = loop dim 0).
    if (kvLengths) {
      inputs.push_back(kvLengths);
      maps.push_back(mapOf(rank, {getAffineDimExpr(0, ctx)}, ctx));
    }
    maps.push_back(identity);
    Value sq = tensor::DimOp::create(rewriter, loc, q, n);
    Value sk = tensor::DimOp::create(rewriter, loc, k, n);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    bool causal = op.getCausal();
    double scale = op.getScaleOrDefault();
    Value scores = buildGeneric(
        rewriter, loc, inputs,
        tensor::EmptyOp::create(rewriter, loc, mixedSizes(rewriter, loc, raw),
                                f),
        maps, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value s = arith::MulFOp::create(b, loc, args[0],
                                          floatConst(b, loc, f, scale));
          if (bias)
            s = arith::AddFOp::create(b, loc, s, castFloat(b, loc, args[1], f));
          Value i = linalg::IndexOp::create(b, loc, n);
          Value j = linalg::IndexOp::create(b, loc, n + 1);
          if (kvLengths) {
            CacheKeyRange range =
                buildCacheKeyRange(b, loc, args[inputs.size() - 1], sq);
            s = buildMaskedScore(
                b, loc, buildCacheMask(b, loc, i, j, range, causal), s);
          } else if (causal) {
            s = buildMaskedScore(b, loc, buildCausalMask(b, loc, i, j, shift),
                                 s);
          }
          yieldValue(b, loc, s);
        });

    Value probs = buildMaskedSoftmax(rewriter, loc, scores, f);
    if (kvLengths)
      v = zeroValuesPastLengths(rewriter, loc, v, kvLengths, n, sq);
    Value out = buildPVProduct(rewriter, loc, probs, v, shape, f);
    replaceWithResultType(
        rewriter, op, castTensor(rewriter, loc, out, qType.getElementType()));
    return success();
  }
};

struct RelPosAttentionToLinalg : OpConversionPattern<RelPosAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RelPosAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value relKey = adaptor.getRelKey(), relValue = adaptor.getRelValue();
    auto qType = cast<RankedTensorType>(q.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2;
    AttentionShape shape{n, std::nullopt, 1};
    FloatType f = computeTypeFor(qType.getElementType());
    MLIRContext *ctx = rewriter.getContext();
    int64_t maxDist = op.getMaxRelativeDistance();
    buildAttentionShapeChecks(rewriter, loc, "posenc.rel_pos_attention", q, k,
                              v, shape.groupedDim);
    assertDimsEqual(rewriter, loc, relKey, 1, q, n + 1,
                    "posenc.rel_pos_attention: dim 1 of 'rel_key' differs "
                    "from the head dim of 'query'");
    if (relValue)
      assertDimsEqual(rewriter, loc, relValue, 1, v, n + 1,
                      "posenc.rel_pos_attention: dim 1 of 'rel_value' "
                      "differs from the head dim of 'value'");

    Value raw = buildQKProduct(rewriter, loc, q, k, shape, f);

    // qr[lead..., i, r] = q_i . rel_key[r]  (the [Sq, 2K+1] table).
    SmallVector<OpFoldResult> qrSizes = mixedSizes(rewriter, loc, q);
    qrSizes.back() = rewriter.getIndexAttr(2 * maxDist + 1);
    auto [i, r, d] = contractionDims(ctx, n); // lead..., i, r, d
    SmallVector<AffineExpr> qe = shape.qLead(ctx);
    qe.append({i, d});
    Value qr = buildContraction(rewriter, loc, f, shape, q, qe, relKey, {r, d},
                                qrSizes);

    Value sq = tensor::DimOp::create(rewriter, loc, q, n);
    Value sk = tensor::DimOp::create(rewriter, loc, k, n);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    // r(i, j) = clamp(j - (i + Sk - Sq), -K, K) + K
    auto bucket = [&](OpBuilder &b, Location loc, Value i, Value j) {
      return buildShawBucket(b, loc, buildRelativeDistance(b, loc, i, j, shift),
                             maxDist);
    };

    Value scores = buildRelativeScores(
        rewriter, loc, raw, f, n, shift, op.getScaleOrDefault(),
        op.getCausal(), [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) {
          SmallVector<Value> qrIdx(ivs);
          qrIdx.back() = bucket(b, loc, ivs[n], ivs[n + 1]);
          return tensor::ExtractOp::create(b, loc, qr, qrIdx).getResult();
        });

    Value probs = buildMaskedSoftmax(rewriter, loc, scores, f);
    Value out = buildPVProduct(rewriter, loc, probs, v, shape, f);

    if (relValue) {
      // out[lead..., i, x] += sum_j p[lead..., i, j] * rel_value[r(i, j), x]
      int64_t loops = n + 3; // lead..., i, x, j
      AffineExpr x = getAffineDimExpr(n + 1, ctx),
                 j = getAffineDimExpr(n + 2, ctx);
      SmallVector<AffineExpr> pe = shape.qLead(ctx), re = shape.qLead(ctx);
      pe.append({i, j});
      re.append({i, x});
      out = buildGeneric(
          rewriter, loc, probs, out,
          {mapOf(loops, pe, ctx), mapOf(loops, re, ctx)}, iterators(n + 2, 1),
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value iv = linalg::IndexOp::create(b, loc, n);
            Value xv = linalg::IndexOp::create(b, loc, n + 1);
            Value jv = linalg::IndexOp::create(b, loc, n + 2);
            Value rv = tensor::ExtractOp::create(
                b, loc, relValue, ValueRange{bucket(b, loc, iv, jv), xv});
            Value prod = arith::MulFOp::create(b, loc, args[0],
                                               castFloat(b, loc, rv, f));
            yieldValue(b, loc, arith::AddFOp::create(b, loc, args[1], prod));
          });
    }
    replaceWithResultType(
        rewriter, op, castTensor(rewriter, loc, out, qType.getElementType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// posenc.xl_attention (Transformer-XL)
//===----------------------------------------------------------------------===//

/// q[lead..., i, d] + bias[h, d] in `f` (h = lead dim numLead - 1): the
/// query plus Transformer-XL's content or position bias of its head.
static Value addHeadBias(OpBuilder &b, Location loc, Value q, Value bias,
                         int64_t numLead, FloatType f) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = numLead + 2;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap headDim = mapOf(
      rank,
      {getAffineDimExpr(numLead - 1, ctx), getAffineDimExpr(numLead + 1, ctx)},
      ctx);
  return buildGeneric(
      b, loc, ValueRange{q, bias},
      tensor::EmptyOp::create(b, loc, mixedSizes(b, loc, q), f),
      {identity, headDim, identity}, iterators(rank),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        yieldValue(b, loc,
                   arith::AddFOp::create(b, loc, castFloat(b, loc, args[0], f),
                                         castFloat(b, loc, args[1], f)));
      });
}

struct XlAttentionToLinalg : OpConversionPattern<XlAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(XlAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value rel = adaptor.getRel();
    auto qType = cast<RankedTensorType>(q.getType());
    int64_t rank = qType.getRank();
    int64_t n = rank - 2;
    AttentionShape shape{n, std::nullopt, 1};
    FloatType f = computeTypeFor(qType.getElementType());
    MLIRContext *ctx = rewriter.getContext();
    StringRef name = "posenc.xl_attention";
    buildAttentionShapeChecks(rewriter, loc, name, q, k, v, std::nullopt);
    buildXlTableChecks(rewriter, loc, name,
                       {"rel", "content_bias", "position_bias"}, rel,
                       adaptor.getContentBias(), adaptor.getPositionBias(), q,
                       k);

    // Content term: (q + u) . k, the [Sq, Sk] product.
    Value raw = buildQKProduct(
        rewriter, loc,
        addHeadBias(rewriter, loc, q, adaptor.getContentBias(), n, f), k,
        shape, f);
    // Position term: pos[lead..., i, t] = (q + v)_i . rel[(h,) t], the
    // [Sq, L] table of the paper (the reference may materialize it).
    SmallVector<OpFoldResult> posSizes = mixedSizes(rewriter, loc, q);
    int64_t relRank = cast<RankedTensorType>(rel.getType()).getRank();
    posSizes.back() = tensor::getMixedSize(rewriter, loc, rel, relRank - 2);
    auto [i, t, d] = contractionDims(ctx, n);
    SmallVector<AffineExpr> qe = shape.qLead(ctx), re;
    qe.append({i, d});
    if (relRank == 3)
      re.push_back(getAffineDimExpr(n - 1, ctx));
    re.append({t, d});
    Value pos = buildContraction(
        rewriter, loc, f, shape,
        addHeadBias(rewriter, loc, q, adaptor.getPositionBias(), n, f), qe,
        rel, re, posSizes);

    Value sq = tensor::DimOp::create(rewriter, loc, q, n);
    Value sk = tensor::DimOp::create(rewriter, loc, k, n);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);
    Value scores = buildRelativeScores(
        rewriter, loc, raw, f, n, shift, op.getScaleOrDefault(),
        op.getCausal(), [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) {
          // Row t = d + Sq - 1 of the distance d = i' - j = -(j - i').
          Value dist = buildRelativeDistance(b, loc, ivs[n], ivs[n + 1], shift);
          SmallVector<Value> posIdx(ivs);
          posIdx.back() = arith::SubIOp::create(
              b, loc, arith::SubIOp::create(b, loc, sq, indexConst(b, loc, 1)),
              dist);
          return tensor::ExtractOp::create(b, loc, pos, posIdx).getResult();
        });

    Value probs = buildMaskedSoftmax(rewriter, loc, scores, f);
    Value out = buildPVProduct(rewriter, loc, probs, v, shape, f);
    replaceWithResultType(
        rewriter, op, castTensor(rewriter, loc, out, qType.getElementType()));
    return success();
  }
};

} // namespace

void posenc::reference::populateAttentionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<AttentionToLinalg, RelPosAttentionToLinalg, XlAttentionToLinalg>(
      patterns.getContext());
}

Value posenc::reference::buildSoftmaxTimesValue(OpBuilder &b, Location loc,
                                                Value scores, Value v,
                                                Type resultElementType) {
  auto type = cast<RankedTensorType>(scores.getType());
  auto f = cast<FloatType>(type.getElementType());
  AttentionShape shape{type.getRank() - 2, std::nullopt, 1};
  Value probs = buildMaskedSoftmax(b, loc, scores, f);
  Value out = buildPVProduct(b, loc, probs, v, shape, f);
  return castTensor(b, loc, out, resultElementType);
}
