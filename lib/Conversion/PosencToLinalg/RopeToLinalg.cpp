//===- RopeToLinalg.cpp - reference lowering of RoPE, sinusoidal ----------===//
//
// The reference lowering of posenc.sinusoidal and posenc.rope: one
// linalg.generic per op, the frequency tables as constants (or computed
// from the positions for sequence-length-dependent RoPE scalings).
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

/// The element at the loop indices of a rope generic over `input` and its
/// pair partner: `ivs` (all indices), the pair index of the last one, and
/// x and its partner y converted to `computeType`.
struct RotaryOperands {
  SmallVector<Value> ivs;
  RotaryPairIndex idx;
  Value x, y;
};
static RotaryOperands loadRotaryOperands(OpBuilder &b, Location loc, RopeOp op,
                                         Value input, Value element,
                                         FloatType computeType) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  RotaryOperands r;
  r.ivs = loopIndices(b, loc, rank);
  r.idx = buildRotaryPairIndex(b, loc, r.ivs.back(), op.getLayout(),
                               op.getRotaryDimOrDefault());
  SmallVector<Value> partnerIdx(r.ivs);
  partnerIdx.back() = r.idx.partner;
  r.x = castFloat(b, loc, element, computeType);
  r.y = castFloat(b, loc, tensor::ExtractOp::create(b, loc, input, partnerIdx),
                  computeType);
  return r;
}

/// The table form: one generic over the input reading, per element, the
/// partner element and the cos/sin entries of its own column (broadcast
/// over the input's leading dims, ropeTableIndices).
static Value lowerTableRope(OpBuilder &b, Location loc, RopeOp op,
                            Value input, Value cos, Value sin) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type elemType = inputType.getElementType();
  FloatType computeType = computeTypeFor(elemType);
  buildRopeTableChecks(b, loc, "posenc.rope", cos, input);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init = tensor::EmptyOp::create(b, loc, mixedSizes(b, loc, input),
                                       elemType);
  return buildGeneric(
      b, loc, ValueRange{input}, init, {identity, identity}, iterators(rank),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        RotaryOperands r =
            loadRotaryOperands(b, loc, op, input, args[0], computeType);
        const RotaryPairIndex &idx = r.idx;
        SmallVector<Value> ivs = r.ivs;
        // Columns >= R pass through; read column 0 there (in bounds).
        Value column = arith::SelectOp::create(b, loc, idx.inRotary,
                                               ivs.back(), indexConst(b, loc, 0));
        auto entry = [&](Value table) {
          return castFloat(
              b, loc,
              tensor::ExtractOp::create(
                  b, loc, table, ropeTableIndices(b, loc, table, ivs, column)),
              computeType);
        };
        // Sequenced: argument evaluation order differs between compilers,
        // and the IR must not.
        Value cosEntry = entry(cos);
        Value sinEntry = entry(sin);
        Value rotated = buildRotatedElement(b, loc, r.x, r.y, cosEntry,
                                            sinEntry, idx.isFirst);
        Value out = castFloat(b, loc, rotated, elemType);
        yieldValue(b, loc,
                   arith::SelectOp::create(b, loc, idx.inRotary, out, args[0]));
      });
}

struct RopeToLinalg : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.hasTables()) {
      replaceWithResultType(rewriter, op,
                            lowerTableRope(rewriter, loc, op,
                                           adaptor.getInput(), adaptor.getCos(),
                                           adaptor.getSin()));
      return success();
    }
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

    // positions [S], or per batch [B, S] (row b for batch b).
    bool perBatch =
        cast<RankedTensorType>(positions.getType()).getRank() == 2;
    assertDimsEqual(rewriter, loc, positions, perBatch ? 1 : 0, input,
                    rank - 2,
                    "posenc.rope: length of 'positions' differs from the "
                    "sequence dim of 'input'");
    buildPerBatchPositionsCheck(rewriter, loc, "posenc.rope", positions,
                                input);
    Value invFreq =
        buildRopeInvFreqTable(rewriter, loc, op, positions, angleType);
    // xPos: the decay scales cos and sin (XPosDecay.cpp).
    XPosAttr xpos = op.getXposAttr();
    Value logDecay, center;
    if (xpos) {
      logDecay = buildXPosLogDecayConstant(rewriter, loc, xpos, rotaryDim,
                                           computeType);
      center = arith::ConstantOp::create(
          rewriter, loc, rewriter.getI64IntegerAttr(xpos.getCenter()));
    }

    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineExpr> posExprs;
    if (perBatch)
      posExprs.push_back(getAffineDimExpr(0, ctx));
    posExprs.push_back(getAffineDimExpr(rank - 2, ctx));
    AffineMap posMap = AffineMap::get(rank, 0, posExprs, ctx);
    Value init = tensor::EmptyOp::create(
        rewriter, loc, mixedSizes(rewriter, loc, input), elemType);

    Value result = buildGeneric(
        rewriter, loc, ValueRange{input, positions}, init,
        {identity, posMap, identity}, iterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          auto [ivs, idx, x, y] =
              loadRotaryOperands(b, loc, op, input, args[0], computeType);
          Value inv = tensor::ExtractOp::create(b, loc, invFreq, idx.pair);
          auto [c, s] = buildRotaryCosSin(b, loc, args[1], inv, angleType,
                                          computeType, attentionFactor);
          if (xpos)
            std::tie(c, s) = applyXPosDecay(
                b, loc, c, s, args[1], center,
                tensor::ExtractOp::create(b, loc, logDecay, idx.pair));
          Value rotated = buildRotatedElement(b, loc, x, y, c, s, idx.isFirst);
          Value out = castFloat(b, loc, rotated, elemType);
          out = arith::SelectOp::create(b, loc, idx.inRotary, out, args[0]);
          yieldValue(b, loc, out);
        });
    replaceWithResultType(rewriter, op, result);
    return success();
  }
};

} // namespace

void posenc::reference::populateRopeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SinusoidalToLinalg, RopeToLinalg>(patterns.getContext());
}
