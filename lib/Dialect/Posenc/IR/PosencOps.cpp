//===- PosencOps.cpp - posenc operation verifiers -------------------------===//
//
// Verifiers report the operand and the expected vs. actual value, so that a
// malformed program is a readable diagnostic, never a crash later on.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace posenc;

/// Prints a dim size, `?` when dynamic.
static std::string dimToString(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

using posenc::detail::formatNumber;

/// Whether two dim sizes may be equal at run time.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The largest frequency (sinusoidal, rope) or slope (alibi_bias) table the
/// ops accept. The lowerings compute these tables at compile time, so an
/// absurd static size (e.g. a head dim of 2^40) must be rejected here rather
/// than exhaust memory there. Real models are orders of magnitude below it.
static constexpr int64_t kMaxCompileTimeTable = int64_t(1) << 20;

/// Whether `v` is a finite number > 0 (false for NaN).
static bool isFinitePositive(double v) { return v > 0.0 && std::isfinite(v); }

static LogicalResult verifyBase(Operation *op, double base) {
  if (!(base > 1.0) || !std::isfinite(base))
    return op->emitOpError("base (")
           << formatNumber(base) << ") must be a finite number > 1";
  return success();
}

//===----------------------------------------------------------------------===//
// SinusoidalOp
//===----------------------------------------------------------------------===//

LogicalResult SinusoidalOp::verify() {
  RankedTensorType posType = tensorType(getPositions());
  RankedTensorType resultType = getResult().getType();
  if (posType.getRank() != 1)
    return emitOpError("'positions' must have rank 1 (S), got rank ")
           << posType.getRank();
  if (resultType.getRank() != 2)
    return emitOpError("result must have rank 2 (S x D), got rank ")
           << resultType.getRank();
  if (!dimsCompatible(posType.getDimSize(0), resultType.getDimSize(0)))
    return emitOpError("result sequence dim (")
           << dimToString(resultType.getDimSize(0))
           << ") does not match the length of 'positions' ("
           << dimToString(posType.getDimSize(0)) << ")";
  int64_t d = resultType.getDimSize(1);
  if (ShapedType::isDynamic(d))
    return emitOpError("result dim D (last dim) must be static, got ?");
  if (d <= 0 || d % 2 != 0)
    return emitOpError("result dim D (") << d << ") must be even and > 0";
  if (d / 2 > kMaxCompileTimeTable)
    return emitOpError("result dim D (")
           << d << ") exceeds the supported maximum ("
           << 2 * kMaxCompileTimeTable
           << "): its D/2 frequencies are computed at compile time";
  return verifyBase(*this, getBase().convertToDouble());
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

int64_t RopeOp::getHeadDim() {
  return tensorType(getInput()).getShape().back();
}

int64_t RopeOp::getRotaryDimOrDefault() {
  if (hasTables())
    return tensorType(getCos()).getShape().back();
  if (std::optional<uint64_t> r = getRotaryDim())
    return static_cast<int64_t>(*r);
  return getHeadDim();
}

double RopeOp::getEffectiveAttentionFactor() {
  if (std::optional<APFloat> f = getAttentionFactor())
    return f->convertToDouble();
  if (RopeScalingAttr scaling = getScalingAttr())
    return scaling.getEffectiveAttentionFactor();
  return 1.0;
}

/// The table form's checks (docs/spec.md, "posenc.rope — table form"):
/// cos and sin of one type [..., S, R] broadcasting against the input
/// (right-aligned), none of the attribute form's frequency attributes.
static LogicalResult verifyRopeTables(RopeOp op, RankedTensorType inputType) {
  if (op.getPositions())
    return op.emitOpError("takes either 'positions' or 'cos'/'sin' tables, "
                          "not both");
  if (!op.getSin())
    return op.emitOpError("table form needs both 'cos' and 'sin'");
  // base and precision have defaults (always present): only their
  // defaults, which the table form ignores, are accepted.
  StringRef given = op.getBase().convertToDouble() != 10000.0  ? "base"
                    : op.getScalingAttr()                      ? "scaling"
                    : op.getAttentionFactorAttr()              ? "attention_factor"
                    : op.getPrecision() != AnglePrecision::fast ? "precision"
                    : op.getXposAttr()                         ? "xpos"
                                                               : "";
  if (!given.empty())
    return op.emitOpError("'")
           << given << "' is not allowed in the table form (the 'cos'/'sin' "
                       "tables already hold the frequencies)";
  RankedTensorType cosType = tensorType(op.getCos());
  RankedTensorType sinType = tensorType(op.getSin());
  if (cosType != sinType)
    return op.emitOpError("'sin' must have the type of 'cos' (")
           << cosType << "), got " << sinType;
  int64_t rank = inputType.getRank(), tRank = cosType.getRank();
  if (tRank < 2 || tRank > rank)
    return op.emitOpError("'cos' must have rank >= 2 (... x S x R) and <= "
                          "the rank of 'input' (")
           << rank << "), got rank " << tRank;
  for (int64_t k = 0; k < tRank - 1; ++k) {
    int64_t t = cosType.getDimSize(k);
    int64_t in = inputType.getDimSize(rank - tRank + k);
    bool isSeq = k == tRank - 2;
    if ((isSeq || t != 1) && !dimsCompatible(t, in))
      return op.emitOpError("'cos' dim ")
             << k << " (" << dimToString(t) << ") must be "
             << (isSeq ? "" : "1 or ") << "the "
             << (isSeq ? "sequence dim" : "aligned dim") << " of 'input' ("
             << dimToString(in) << ", dim " << rank - tRank + k << ")";
  }
  int64_t d = inputType.getShape().back();
  int64_t r = cosType.getShape().back();
  if (ShapedType::isDynamic(r) || r <= 0 || r % 2 != 0 ||
      (!ShapedType::isDynamic(d) && r > d))
    return op.emitOpError("last dim of 'cos' (rotary_dim, ")
           << dimToString(r) << ") must be static, even, > 0 and <= head dim ("
           << dimToString(d) << ")";
  if (std::optional<uint64_t> attr = op.getRotaryDim();
      attr && static_cast<int64_t>(*attr) != r)
    return op.emitOpError("rotary_dim (")
           << *attr << ") must equal the last dim of 'cos' (" << r << ")";
  return success();
}

LogicalResult RopeOp::verify() {
  RankedTensorType inputType = tensorType(getInput());
  if (inputType.getRank() < 2)
    return emitOpError("'input' must have rank >= 2 (... x S x D), got rank ")
           << inputType.getRank();
  if (getCos() || getSin()) {
    if (!getCos())
      return emitOpError("table form needs both 'cos' and 'sin'");
    if (failed(verifyRopeTables(*this, inputType)))
      return failure();
    int64_t d = inputType.getShape().back();
    if (ShapedType::isDynamic(d))
      return emitOpError("head dim (last dim of 'input') must be static");
    return success();
  }
  if (!getPositions())
    return emitOpError("needs 'positions' (attribute form) or 'cos'/'sin' "
                       "tables (table form)");
  RankedTensorType posType = tensorType(getPositions());
  if (posType.getRank() != 1 && posType.getRank() != 2)
    return emitOpError("'positions' must have rank 1 (S) or 2 (B x S), got "
                       "rank ")
           << posType.getRank();
  int64_t rank = inputType.getRank();
  if (posType.getRank() == 2) {
    if (rank < 3)
      return emitOpError("per-batch 'positions' (B x S) need an 'input' of "
                         "rank >= 3 (B x ... x S x D), got rank ")
             << rank;
    if (!dimsCompatible(posType.getDimSize(0), inputType.getDimSize(0)))
      return emitOpError("per-batch 'positions' dim 0 (")
             << dimToString(posType.getDimSize(0))
             << ") does not match the batch dim (dim 0) of 'input' ("
             << dimToString(inputType.getDimSize(0)) << ")";
  }
  int64_t seq = inputType.getDimSize(rank - 2);
  int64_t posSeq = posType.getDimSize(posType.getRank() - 1);
  if (!dimsCompatible(posSeq, seq))
    return emitOpError("'positions' length (")
           << dimToString(posSeq)
           << ") does not match the sequence dim of 'input' ("
           << dimToString(seq) << ")";
  int64_t d = inputType.getDimSize(rank - 1);
  if (ShapedType::isDynamic(d))
    return emitOpError("head dim (last dim of 'input') must be static");
  if (d <= 0 || d % 2 != 0)
    return emitOpError("head dim of 'input' (")
           << d << ") must be even and > 0";
  int64_t r = getRotaryDimOrDefault();
  if (r <= 0 || r % 2 != 0 || r > d)
    return emitOpError("rotary_dim (")
           << r << ") must be even, > 0 and <= head dim (" << d << ")";
  if (r / 2 > kMaxCompileTimeTable)
    return emitOpError("rotary_dim (")
           << r << ") exceeds the supported maximum ("
           << 2 * kMaxCompileTimeTable
           << "): its R/2 frequencies are computed at compile time";
  if (failed(verifyBase(*this, getBase().convertToDouble())))
    return failure();
  if (std::optional<APFloat> f = getAttentionFactor())
    if (!isFinitePositive(f->convertToDouble()))
      return emitOpError("attention_factor (")
             << formatNumber(f->convertToDouble())
             << ") must be a finite number > 0";
  if (RopeScalingAttr scaling = getScalingAttr()) {
    RopeScalingKind kind = scaling.getKind();
    if ((kind == RopeScalingKind::ntk || kind == RopeScalingKind::dynamic) &&
        r <= 2)
      return emitOpError("rope scaling '")
             << stringifyRopeScalingKind(kind)
             << "' needs rotary_dim > 2 (its exponent is R/(R-2)), got " << r;
    if (kind == RopeScalingKind::longrope &&
        static_cast<int64_t>(scaling.getShortFactorValues().size()) != r / 2)
      return emitOpError("rope scaling 'longrope': short_factor and "
                         "long_factor must have rotary_dim/2 (")
             << r / 2 << ") values, got " << scaling.getShortFactorValues().size();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AlibiBiasOp
//===----------------------------------------------------------------------===//

int64_t AlibiBiasOp::getNumLocalHeads() {
  RankedTensorType type = getResult().getType();
  return type.getDimSize(type.getRank() - 3);
}

int64_t AlibiBiasOp::getNumHeadsOrDefault() {
  if (std::optional<uint64_t> n = getNumHeads())
    return static_cast<int64_t>(*n);
  return getNumLocalHeads();
}

LogicalResult AlibiBiasOp::verify() {
  RankedTensorType type = getResult().getType();
  if (type.getRank() < 3)
    return emitOpError("result must have rank >= 3 ([B...] x H x Sq x Sk), "
                       "got rank ")
           << type.getRank();
  if (static_cast<int64_t>(getDynamicSizes().size()) != type.getNumDynamicDims())
    return emitOpError("expected ")
           << type.getNumDynamicDims()
           << " dynamic size operands (one per '?' of the result type), got "
           << getDynamicSizes().size();
  int64_t localHeads = getNumLocalHeads();
  if (Value slopes = getSlopes()) {
    RankedTensorType slopesType = tensorType(slopes);
    if (slopesType.getRank() != 1 ||
        !dimsCompatible(slopesType.getDimSize(0), localHeads))
      return emitOpError("'slopes' must be a tensor<H x f32> with H = ")
             << dimToString(localHeads) << " heads, got " << slopesType;
    return success();
  }
  if (ShapedType::isDynamic(localHeads))
    return emitOpError("head dim H (dim -3 of the result) must be static "
                       "unless explicit 'slopes' are given");
  double maxBias = getMaxBias().convertToDouble();
  if (!isFinitePositive(maxBias))
    return emitOpError("max_bias (")
           << formatNumber(maxBias) << ") must be a finite number > 0";
  int64_t numHeads = getNumHeadsOrDefault();
  // Says where num_heads came from when it was not set.
  std::string numHeadsText = std::to_string(numHeads);
  if (!getNumHeads())
    numHeadsText += ", defaulted to H";
  if (numHeads <= 0)
    return emitOpError("num_heads (") << numHeadsText << ") must be > 0";
  if (numHeads > kMaxCompileTimeTable)
    return emitOpError("num_heads (")
           << numHeadsText << ") exceeds the supported maximum ("
           << kMaxCompileTimeTable << "): the slopes are computed at compile "
           << "time";
  // Written as a subtraction: `offset + localHeads` may overflow int64.
  int64_t offset = getHeadOffset();
  if (offset < 0 || localHeads > numHeads || offset > numHeads - localHeads)
    return emitOpError("head_offset (")
           << offset << ") + local heads (" << localHeads
           << ") must be within num_heads (" << numHeadsText << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(
                   tensorType(getQuery()).getShape().back()));
}

/// The default scale 1/sqrt(D) is folded into the lowered code as a constant,
/// so it needs a static D > 0 (an explicit `scale` lifts the requirement).
LogicalResult posenc::verifyDefaultScale(Operation *op,
                                         std::optional<APFloat> scale,
                                         RankedTensorType queryType) {
  if (scale) {
    if (!std::isfinite(scale->convertToDouble()))
      return op->emitOpError("scale (")
             << formatNumber(scale->convertToDouble()) << ") must be finite";
    return success();
  }
  int64_t d = queryType.getShape().back();
  if (ShapedType::isDynamic(d) || d <= 0)
    return op->emitOpError("the default scale 1/sqrt(D) needs a static head "
                           "dim D > 0 of 'query', got ")
           << dimToString(d) << " (set 'scale' explicitly)";
  return success();
}

/// Checks the parts query/key/value have in common for both attention ops:
/// equal ranks >= minRank, equal leading (batch) dims, q/k head dims, k/v
/// sequence dims, element types, and a result of shape [..., Sq, Dv].
/// `numHeadDims` is 1 when dim -3 is a (GQA) head dim checked by the caller.
/// With `mixedKeyValueType`, key and value share an element type that may
/// differ from query's (a half-precision KV cache).
LogicalResult posenc::verifyQKVResult(Operation *op, Value q, Value k,
                                      Value v, RankedTensorType resultType,
                                      int64_t minRank, int64_t numHeadDims,
                                      bool mixedKeyValueType) {
  RankedTensorType qt = tensorType(q), kt = tensorType(k), vt = tensorType(v);
  int64_t rank = qt.getRank();
  if (rank < minRank)
    return op->emitOpError("'query' must have rank >= ")
           << minRank << ", got rank " << rank;
  if (kt.getRank() != rank || vt.getRank() != rank)
    return op->emitOpError("'key' and 'value' must have the rank of 'query' (")
           << rank << "), got " << kt.getRank() << " and " << vt.getRank();
  if (mixedKeyValueType) {
    if (vt.getElementType() != kt.getElementType())
      return op->emitOpError("'value' must have the element type of 'key' (")
             << kt.getElementType() << "), got " << vt.getElementType();
  } else if (kt.getElementType() != qt.getElementType() ||
             vt.getElementType() != qt.getElementType()) {
    return op->emitOpError("'key' and 'value' must have the element type of "
                           "'query' (")
           << qt.getElementType() << "), got " << kt.getElementType()
           << " and " << vt.getElementType();
  }
  int64_t numBatch = rank - 2 - numHeadDims;
  for (int64_t i = 0; i < numBatch; ++i)
    if (!dimsCompatible(qt.getDimSize(i), kt.getDimSize(i)) ||
        !dimsCompatible(qt.getDimSize(i), vt.getDimSize(i)))
      return op->emitOpError("batch dim ")
             << i << " differs: 'query' has " << dimToString(qt.getDimSize(i))
             << ", 'key' " << dimToString(kt.getDimSize(i)) << ", 'value' "
             << dimToString(vt.getDimSize(i));
  if (!dimsCompatible(qt.getDimSize(rank - 1), kt.getDimSize(rank - 1)))
    return op->emitOpError("head dim D of 'key' (")
           << dimToString(kt.getDimSize(rank - 1))
           << ") must equal that of 'query' ("
           << dimToString(qt.getDimSize(rank - 1)) << ")";
  if (!dimsCompatible(kt.getDimSize(rank - 2), vt.getDimSize(rank - 2)))
    return op->emitOpError("sequence dim Sk of 'value' (")
           << dimToString(vt.getDimSize(rank - 2))
           << ") must equal that of 'key' ("
           << dimToString(kt.getDimSize(rank - 2)) << ")";
  // Result [..., (Hq,) Sq, Dv] with query's element type.
  SmallVector<int64_t> expected(qt.getShape());
  expected.back() = vt.getShape().back();
  if (resultType.getElementType() != qt.getElementType() ||
      resultType.getRank() != rank ||
      !llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t i) {
        return dimsCompatible(resultType.getDimSize(i), expected[i]);
      }))
    return op->emitOpError("result type ")
           << resultType << " does not match the expected "
           << RankedTensorType::get(expected, qt.getElementType())
           << " ([..., Sq, Dv] of 'query' and 'value')";
  return success();
}

LogicalResult posenc::verifyKVLengths(Operation *op,
                                      RankedTensorType lengthsType,
                                      RankedTensorType queryType) {
  if (queryType.getRank() < 4)
    return op->emitOpError("'kv_lengths' needs a batch dim: 'query' must have "
                           "rank >= 4 ([B, ..., Hq, Sq, D]), got rank ")
           << queryType.getRank();
  if (lengthsType.getRank() != 1 ||
      !dimsCompatible(lengthsType.getDimSize(0), queryType.getDimSize(0)))
    return op->emitOpError("'kv_lengths' must be a tensor<B x iN> with B = ")
           << dimToString(queryType.getDimSize(0))
           << " (dim 0 of 'query'), got " << lengthsType;
  return success();
}

LogicalResult AttentionOp::verify() {
  RankedTensorType qt = tensorType(getQuery()), kt = tensorType(getKey()),
                   vt = tensorType(getValue());
  if (failed(verifyQKVResult(*this, getQuery(), getKey(), getValue(),
                             getResult().getType(), /*minRank=*/3,
                             /*numHeadDims=*/1, /*mixedKeyValueType=*/true)))
    return failure();
  int64_t rank = qt.getRank();
  int64_t hq = qt.getDimSize(rank - 3), hk = kt.getDimSize(rank - 3),
          hv = vt.getDimSize(rank - 3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) ||
      ShapedType::isDynamic(hv))
    return emitOpError("head dims (dim -3) of 'query', 'key' and 'value' "
                       "must be static, got ")
           << dimToString(hq) << ", " << dimToString(hk) << " and "
           << dimToString(hv);
  if (hk != hv)
    return emitOpError("'value' heads (")
           << hv << ") must equal 'key' heads (" << hk << ")";
  if (hk <= 0)
    return emitOpError("key/value heads (") << hk << ") must be > 0";
  if (hq % hk != 0)
    return emitOpError("query heads (")
           << hq << ") must be a multiple of key/value heads (" << hk << ")";
  if (failed(verifyDefaultScale(*this, getScale(), qt)))
    return failure();
  if (Value lengths = getKvLengths())
    if (failed(verifyKVLengths(*this, tensorType(lengths), qt)))
      return failure();
  if (Value bias = getBias()) {
    RankedTensorType bt = tensorType(bias);
    // The score shape [..., Hq, Sq, Sk], right-aligned against the bias.
    SmallVector<int64_t> scoreShape(qt.getShape().drop_back());
    scoreShape.push_back(kt.getDimSize(rank - 2));
    if (bt.getRank() > rank)
      return emitOpError("'bias' rank (")
             << bt.getRank() << ") exceeds the rank of the scores (" << rank
             << ")";
    for (int64_t i = 0; i < bt.getRank(); ++i) {
      int64_t b = bt.getDimSize(bt.getRank() - 1 - i);
      int64_t s = scoreShape[rank - 1 - i];
      if (b != 1 && !dimsCompatible(b, s))
        return emitOpError("'bias' of type ")
               << bt << " does not broadcast to the scores "
               << RankedTensorType::get(scoreShape, bt.getElementType())
               << ": dim " << bt.getRank() - 1 - i << " is " << dimToString(b)
               << ", expected 1 or " << dimToString(s);
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RelPosAttentionOp
//===----------------------------------------------------------------------===//

double RelPosAttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(
                   tensorType(getQuery()).getShape().back()));
}

int64_t RelPosAttentionOp::getMaxRelativeDistance() {
  return (tensorType(getRelKey()).getDimSize(0) - 1) / 2;
}

LogicalResult RelPosAttentionOp::verify() {
  if (failed(verifyQKVResult(*this, getQuery(), getKey(), getValue(),
                             getResult().getType(), /*minRank=*/2,
                             /*numHeadDims=*/0, /*mixedKeyValueType=*/false)))
    return failure();
  RankedTensorType qt = tensorType(getQuery()), vt = tensorType(getValue());
  RankedTensorType rk = tensorType(getRelKey());
  if (rk.getRank() != 2 || ShapedType::isDynamic(rk.getDimSize(0)) ||
      rk.getDimSize(0) % 2 != 1)
    return emitOpError("'rel_key' must be a tensor<(2K+1) x D> with a static "
                       "odd first dim, got ")
           << rk;
  if (!dimsCompatible(rk.getDimSize(1), qt.getShape().back()))
    return emitOpError("'rel_key' dim 1 (")
           << dimToString(rk.getDimSize(1)) << ") must equal head dim D ("
           << dimToString(qt.getShape().back()) << ")";
  if (Value relValue = getRelValue()) {
    RankedTensorType rv = tensorType(relValue);
    if (rv.getRank() != 2 || rv.getDimSize(0) != rk.getDimSize(0) ||
        !dimsCompatible(rv.getDimSize(1), vt.getShape().back()))
      return emitOpError("'rel_value' must be a tensor<")
             << rk.getDimSize(0) << " x " << dimToString(vt.getShape().back())
             << "> (2K+1 of 'rel_key', Dv of 'value'), got " << rv;
  }
  return verifyDefaultScale(*this, getScale(), qt);
}

//===----------------------------------------------------------------------===//
// KV-cache forms the GPU lowering does not implement yet
//===----------------------------------------------------------------------===//

static bool isPerBatch(Value positions) {
  return positions && tensorType(positions).getRank() == 2;
}

static std::string elementTypeString(Value v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << tensorType(v).getElementType();
  return text;
}

static bool hasMixedKeyValueType(Value query, Value key) {
  return tensorType(query).getElementType() != tensorType(key).getElementType();
}

std::string posenc::describeKVCacheForm(Operation *op) {
  if (auto rope = dyn_cast<RopeOp>(op))
    return isPerBatch(rope.getPositions()) ? "per-batch positions (B x S)" : "";
  Value query, key, lengths;
  bool perBatch = false;
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    query = attention.getQuery();
    key = attention.getKey();
    lengths = attention.getKvLengths();
  } else if (auto fused = dyn_cast<FusedAttentionOp>(op)) {
    query = fused.getQuery();
    key = fused.getKey();
    lengths = fused.getKvLengths();
    perBatch =
        isPerBatch(fused.getQPositions()) || isPerBatch(fused.getKPositions());
  } else {
    return "";
  }
  if (lengths)
    return "'kv_lengths'";
  if (perBatch)
    return "per-batch positions (B x S)";
  if (hasMixedKeyValueType(query, key))
    return "a key/value element type (" + elementTypeString(key) +
           ") other than the query's (" + elementTypeString(query) + ")";
  return "";
}

#define GET_OP_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencOps.cpp.inc"
