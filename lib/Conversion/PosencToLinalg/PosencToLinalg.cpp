//===- PosencToLinalg.cpp - reference lowering of posenc to linalg --------===//
//
// The plain, materializing lowering of every posenc op: one linalg.generic per
// formula of the op descriptions (SPEC.md), every intermediate a full tensor.
// It is the semantic baseline fused lowerings are checked against; clarity
// wins over speed here on purpose.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include <limits>

namespace posenc {
#define GEN_PASS_DEF_POSENCTOLINALGPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

//===----------------------------------------------------------------------===//
// Small builders shared by the op lowerings
//===----------------------------------------------------------------------===//

using utils::IteratorType;

/// The sizes of all dims of a ranked tensor value as OpFoldResults.
static SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, Location loc,
                                            Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

/// tensor.empty of `sizes` filled with `value`.
static Value filledTensor(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes, Type elementType,
                          double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value cst = floatConst(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// Replaces `op` by `value`, casting to the op's declared result type when
/// the verifier accepted a result that is only compatible (more or less
/// static) with the computed one.
static void replaceWithResultType(ConversionPatternRewriter &rewriter,
                                  Operation *op, Value value) {
  Type resultType = op->getResult(0).getType();
  if (value.getType() != resultType)
    value = tensor::CastOp::create(rewriter, op->getLoc(), resultType, value);
  rewriter.replaceOp(op, value);
}

static SmallVector<Value> loopIndices(OpBuilder &b, Location loc,
                                      int64_t numLoops) {
  SmallVector<Value> ivs;
  for (int64_t i = 0; i < numLoops; ++i)
    ivs.push_back(linalg::IndexOp::create(b, loc, i));
  return ivs;
}

/// Sign-extends or truncates an integer position to i64 and converts it to
/// the float type `to`.
static Value positionToFloat(OpBuilder &b, Location loc, Value pos, Type to) {
  return arith::SIToFPOp::create(b, loc, to, pos);
}

//===----------------------------------------------------------------------===//
// posenc.sinusoidal
//===----------------------------------------------------------------------===//

struct SinusoidalToLinalg : OpConversionPattern<SinusoidalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SinusoidalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    Value positions = adaptor.getPositions();
    int64_t dim = resultType.getDimSize(1);
    int64_t half = dim / 2;
    bool interleaved = op.getLayout() == Layout::interleaved;
    FloatType f32 = rewriter.getF32Type();

    // Pair p has inv_freq[p] = base^(-2p/D): exactly RoPE's unscaled table.
    Value invFreq = constantTable(
        rewriter, loc,
        computeRopeInvFreq(op.getBase().convertToDouble(), dim, nullptr), f32);

    SmallVector<OpFoldResult> sizes = {
        resultType.isDynamicDim(0)
            ? tensor::getMixedSize(rewriter, loc, positions, 0)
            : OpFoldResult(rewriter.getIndexAttr(resultType.getDimSize(0))),
        rewriter.getIndexAttr(dim)};
    if (resultType.isDynamicDim(0) !=
        cast<RankedTensorType>(positions.getType()).isDynamicDim(0)) {
      // One side static, the other dynamic: check at run time.
      Value posLen = tensor::DimOp::create(rewriter, loc, positions, 0);
      Value expected = indexConst(
          rewriter, loc,
          resultType.isDynamicDim(0)
              ? cast<RankedTensorType>(positions.getType()).getDimSize(0)
              : resultType.getDimSize(0));
      Value eq = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       posLen, expected);
      cf::AssertOp::create(rewriter, loc, eq,
                           "posenc.sinusoidal: length of 'positions' differs "
                           "from the result sequence dim");
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         resultType.getElementType());
    MLIRContext *ctx = rewriter.getContext();
    AffineMap posMap = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    AffineMap outMap = AffineMap::getMultiDimIdentityMap(2, ctx);
    Type outElem = resultType.getElementType();

    Value result = buildGeneric(
        rewriter, loc, positions, init, {posMap, outMap}, iterators(2),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value d = linalg::IndexOp::create(b, loc, 1);
          Value two = indexConst(b, loc, 2);
          Value halfC = indexConst(b, loc, half);
          Value pair, isCos;
          if (interleaved) {
            pair = arith::DivUIOp::create(b, loc, d, two);
            Value odd = arith::RemUIOp::create(b, loc, d, two);
            isCos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, odd,
                                          indexConst(b, loc, 0));
          } else {
            pair = arith::RemUIOp::create(b, loc, d, halfC);
            isCos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, d,
                                          halfC);
          }
          Value inv = tensor::ExtractOp::create(b, loc, invFreq, pair);
          Value pos = positionToFloat(b, loc, args[0], f32);
          Value theta = arith::MulFOp::create(b, loc, pos, inv);
          Value s = math::SinOp::create(b, loc, theta);
          Value c = math::CosOp::create(b, loc, theta);
          Value v = arith::SelectOp::create(b, loc, isCos, c, s);
          yieldValue(b, loc, castFloat(b, loc, v, outElem));
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// posenc.rope
//===----------------------------------------------------------------------===//

/// Builds the run-time sequence length L = max(positions) + 1 as an f64.
static Value buildSequenceLength(OpBuilder &b, Location loc, Value positions) {
  auto posType = cast<RankedTensorType>(positions.getType());
  Type intType = posType.getElementType();
  MLIRContext *ctx = b.getContext();
  Value zero =
      arith::ConstantOp::create(b, loc, intType, b.getIntegerAttr(intType, 0));
  Value init0 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
  Value init = linalg::FillOp::create(b, loc, zero, init0).getResult(0);
  Value maxPos =
      buildGeneric(b, loc, positions, init,
                   {AffineMap::getMultiDimIdentityMap(1, ctx),
                    AffineMap::get(1, 0, {}, ctx)},
                   {IteratorType::reduction},
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     Value m = arith::MaxSIOp::create(b, loc, args[0], args[1]);
                     yieldValue(b, loc, m);
                   });
  Value maxScalar = tensor::ExtractOp::create(b, loc, maxPos, ValueRange{});
  Value len = positionToFloat(b, loc, maxScalar, b.getF64Type());
  return arith::AddFOp::create(b, loc, len,
                               floatConst(b, loc, b.getF64Type(), 1.0));
}

/// The RoPE inverse-frequency table tensor<R/2 x angleType>: a constant when
/// it is known at compile time, else computed from L = max(positions) + 1
/// (dynamic NTK: a new base; LongRoPE: the short or long factors).
static Value buildInvFreqTable(OpBuilder &b, Location loc, RopeOp op,
                               Value positions, FloatType angleType) {
  double base = op.getBase().convertToDouble();
  int64_t rotaryDim = op.getRotaryDimOrDefault();
  RopeScalingAttr scaling = op.getScalingAttr();
  if (!scaling || !scaling.dependsOnSequenceLength())
    return constantTable(b, loc, computeRopeInvFreq(base, rotaryDim, scaling),
                         angleType);

  Value seqLen = buildSequenceLength(b, loc, positions);
  double orig = static_cast<double>(scaling.getOriginalMaxPosition());
  Type f64 = b.getF64Type();
  if (scaling.getKind() == RopeScalingKind::longrope) {
    // Both tables are compile-time constants; L picks one.
    Value shortTable = constantTable(
        b, loc, computeRopeInvFreq(base, rotaryDim, scaling, 0), angleType);
    Value longTable =
        constantTable(b, loc,
                      computeRopeInvFreq(base, rotaryDim, scaling,
                                         scaling.getOriginalMaxPosition() + 1),
                      angleType);
    Value isLong = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                         seqLen, floatConst(b, loc, f64, orig));
    return arith::SelectOp::create(b, loc, isLong, longTable, shortTable);
  }

  // Dynamic NTK: base' = base * (factor*max(L,orig)/orig -
  // (factor-1))^(R/(R-2)), inv_freq[p] = base'^(-2p/R), in f64.
  double factor = scaling.getFactorValue();
  double r = static_cast<double>(rotaryDim);
  Value len =
      arith::MaximumFOp::create(b, loc, seqLen, floatConst(b, loc, f64, orig));
  Value ratio = arith::MulFOp::create(b, loc, len,
                                      floatConst(b, loc, f64, factor / orig));
  ratio = arith::SubFOp::create(b, loc, ratio,
                                floatConst(b, loc, f64, factor - 1.0));
  Value expo = math::PowFOp::create(b, loc, ratio,
                                    floatConst(b, loc, f64, r / (r - 2.0)));
  Value newBase =
      arith::MulFOp::create(b, loc, expo, floatConst(b, loc, f64, base));
  Value logBase = math::LogOp::create(b, loc, newBase);
  int64_t half = rotaryDim / 2;
  MLIRContext *ctx = b.getContext();
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{half}, angleType);
  return buildGeneric(
      b, loc, ValueRange{}, init, {AffineMap::getMultiDimIdentityMap(1, ctx)},
      iterators(1), [&](OpBuilder &b, Location loc, ValueRange) {
        Value p = linalg::IndexOp::create(b, loc, 0);
        Value pi = arith::IndexCastOp::create(b, loc, b.getI64Type(), p);
        Value pf = arith::SIToFPOp::create(b, loc, f64, pi);
        // exponent = -2p/R * ln(base')
        Value e = arith::MulFOp::create(b, loc, pf,
                                        floatConst(b, loc, f64, -2.0 / r));
        e = arith::MulFOp::create(b, loc, e, logBase);
        Value inv = math::ExpOp::create(b, loc, e);
        yieldValue(b, loc, castFloat(b, loc, inv, angleType));
      });
}

struct RopeToLinalg : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(rejectUnloweredKVCacheForm(op)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Value positions = adaptor.getPositions();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t rotaryDim = op.getRotaryDimOrDefault();
    bool exact = op.getPrecision() == AnglePrecision::exact;
    Type elemType = inputType.getElementType();
    FloatType computeType = computeTypeFor(elemType);
    FloatType angleType = exact ? rewriter.getF64Type() : rewriter.getF32Type();
    double attentionFactor = op.getEffectiveAttentionFactor();

    assertDimsEqual(rewriter, loc, positions, 0, input, rank - 2,
                    "posenc.rope: length of 'positions' differs from the "
                    "sequence dim of 'input'");
    Value invFreq = buildInvFreqTable(rewriter, loc, op, positions, angleType);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap posMap =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 2, ctx)}, ctx);
    Value init = tensor::EmptyOp::create(
        rewriter, loc, mixedSizes(rewriter, loc, input), elemType);

    Value result = buildGeneric(
        rewriter, loc, ValueRange{input, positions}, init,
        {identity, posMap, identity}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> ivs = loopIndices(b, loc, rank);
          RotaryPairIndex idx = buildRotaryPairIndex(b, loc, ivs.back(),
                                                     op.getLayout(), rotaryDim);
          SmallVector<Value> partnerIdx(ivs);
          partnerIdx.back() = idx.partner;
          Value x = castFloat(b, loc, args[0], computeType);
          Value y = castFloat(
              b, loc, tensor::ExtractOp::create(b, loc, input, partnerIdx),
              computeType);
          Value inv = tensor::ExtractOp::create(b, loc, invFreq, idx.pair);
          auto [c, s] = buildRotaryCosSin(b, loc, args[1], inv, angleType,
                                          computeType, attentionFactor);
          Value rotated = buildRotatedElement(b, loc, x, y, c, s, idx.isFirst);
          Value out = castFloat(b, loc, rotated, elemType);
          out = arith::SelectOp::create(b, loc, idx.inRotary, out, args[0]);
          yieldValue(b, loc, out);
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// posenc.alibi_bias
//===----------------------------------------------------------------------===//

struct AlibiBiasToLinalg : OpConversionPattern<AlibiBiasOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AlibiBiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    FloatType f32 = rewriter.getF32Type();

    Value slopes = adaptor.getSlopes();
    if (!slopes) {
      SmallVector<double> all = computeAlibiSlopes(
          op.getNumHeadsOrDefault(), op.getMaxBias().convertToDouble());
      int64_t offset = op.getHeadOffset();
      slopes = constantTable(
          rewriter, loc,
          ArrayRef<double>(all).slice(offset, op.getNumLocalHeads()), f32);
    } else if (resultType.isDynamicDim(rank - 3) ||
               cast<RankedTensorType>(slopes.getType()).isDynamicDim(0)) {
      // Checked against the result's head dim below, once sizes exist.
    }

    Value init = tensor::EmptyOp::create(rewriter, loc, resultType,
                                         adaptor.getDynamicSizes());
    if (adaptor.getSlopes())
      assertDimsEqual(rewriter, loc, slopes, 0, init, rank - 3,
                      "posenc.alibi_bias: length of 'slopes' differs from "
                      "the head dim");
    Value sq = tensor::DimOp::create(rewriter, loc, init, rank - 2);
    Value sk = tensor::DimOp::create(rewriter, loc, init, rank - 1);
    Value shift = arith::SubIOp::create(rewriter, loc, sk, sq);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap slopeMap =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 3, ctx)}, ctx);
    bool symmetric = op.getSymmetric();
    Type elemType = resultType.getElementType();
    Value result = buildGeneric(
        rewriter, loc, slopes, init,
        {slopeMap, AffineMap::getMultiDimIdentityMap(rank, ctx)},
        iterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          // distance = j - (i + Sk - Sq)
          Value qpos = arith::AddIOp::create(b, loc, i, shift);
          Value dist = arith::SubIOp::create(b, loc, j, qpos);
          Value distI =
              arith::IndexCastOp::create(b, loc, b.getI64Type(), dist);
          Value distF = arith::SIToFPOp::create(b, loc, f32, distI);
          Value bias;
          if (symmetric) {
            Value absD = math::AbsFOp::create(b, loc, distF);
            bias = arith::MulFOp::create(b, loc, args[0], absD);
            bias = arith::NegFOp::create(b, loc, bias);
          } else {
            bias = arith::MulFOp::create(b, loc, args[0], distF);
          }
          yieldValue(b, loc, castFloat(b, loc, bias, elemType));
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

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

/// Score `s` of query i and key j under the causal rule: -inf where
/// j > i + (Sk - Sq), given `shift` = Sk - Sq.
static Value maskCausally(OpBuilder &b, Location loc, FloatType f, Value s,
                          Value i, Value j, Value shift) {
  Value limit = arith::AddIOp::create(b, loc, i, shift);
  Value masked =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, limit);
  Value ninf = floatConst(b, loc, f, -std::numeric_limits<double>::infinity());
  return arith::SelectOp::create(b, loc, masked, ninf, s);
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
        Value zero = floatConst(b, loc, f, 0.0);
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            args[1], zero);
        Value p = arith::DivFOp::create(b, loc, args[0], args[1]);
        yieldValue(b, loc, arith::SelectOp::create(b, loc, empty, zero, p));
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

/// Run-time checks of the q/k/v dims the verifier could only check as
/// "compatible" (dynamic on one side).
static void assertQKVConsistent(OpBuilder &b, Location loc, StringRef opName,
                                Value q, Value k, Value v,
                                const AttentionShape &shape) {
  int64_t n = shape.numLead;
  for (int64_t i = 0; i < n; ++i) {
    if (shape.groupedDim && *shape.groupedDim == i)
      continue; // head dims are static and verified
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
}

struct AttentionToLinalg : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(rejectUnloweredKVCacheForm(op)))
      return failure();
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
    assertQKVConsistent(rewriter, loc, "posenc.attention", q, k, v, shape);

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
          if (causal) {
            Value i = linalg::IndexOp::create(b, loc, n);
            Value j = linalg::IndexOp::create(b, loc, n + 1);
            s = maskCausally(b, loc, f, s, i, j, shift);
          }
          yieldValue(b, loc, s);
        });

    Value probs = buildMaskedSoftmax(rewriter, loc, scores, f);
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
    assertQKVConsistent(rewriter, loc, "posenc.rel_pos_attention", q, k, v,
                        shape);
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
      Value qpos = arith::AddIOp::create(b, loc, i, shift);
      Value dist = arith::SubIOp::create(b, loc, j, qpos);
      Value lo = indexConst(b, loc, -maxDist), hi = indexConst(b, loc, maxDist);
      Value clamped = arith::MaxSIOp::create(b, loc, dist, lo);
      clamped = arith::MinSIOp::create(b, loc, clamped, hi);
      return arith::AddIOp::create(b, loc, clamped, indexConst(b, loc, maxDist))
          .getResult();
    };

    bool causal = op.getCausal();
    double scale = op.getScaleOrDefault();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value scores = buildGeneric(
        rewriter, loc, raw,
        tensor::EmptyOp::create(rewriter, loc, mixedSizes(rewriter, loc, raw),
                                f),
        {identity, identity}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> ivs = loopIndices(b, loc, rank);
          Value iv = ivs[n], jv = ivs[n + 1];
          SmallVector<Value> qrIdx(ivs);
          qrIdx.back() = bucket(b, loc, iv, jv);
          Value rel = tensor::ExtractOp::create(b, loc, qr, qrIdx);
          Value s = arith::AddFOp::create(b, loc, args[0], rel);
          s = arith::MulFOp::create(b, loc, s, floatConst(b, loc, f, scale));
          if (causal)
            s = maskCausally(b, loc, f, s, iv, jv, shift);
          yieldValue(b, loc, s);
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
// The pass
//===----------------------------------------------------------------------===//

struct PosencToLinalgPass
    : posenc::impl::PosencToLinalgPassBase<PosencToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<PosencDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populatePosencToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

Value posenc::buildRopeInvFreqTable(OpBuilder &b, Location loc, RopeOp op,
                                    Value positions, FloatType angleType) {
  return buildInvFreqTable(b, loc, op, positions, angleType);
}

void posenc::populatePosencToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SinusoidalToLinalg, RopeToLinalg, AlibiBiasToLinalg,
               AttentionToLinalg, RelPosAttentionToLinalg>(
      patterns.getContext());
}
