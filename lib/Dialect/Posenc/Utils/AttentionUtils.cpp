//===- AttentionUtils.cpp - attention building blocks, written once -------===//
//
// See AttentionUtils.h; the math is that of the op descriptions.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace posenc;

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Masks and relative positions
//===----------------------------------------------------------------------===//

Value posenc::buildRelativeDistance(OpBuilder &b, Location loc, Value i,
                                    Value j, Value shift) {
  Value qpos = arith::AddIOp::create(b, loc, i, shift);
  return arith::SubIOp::create(b, loc, j, qpos);
}

Value posenc::buildCausalMask(OpBuilder &b, Location loc, Value i, Value j,
                              Value shift) {
  Value limit = arith::AddIOp::create(b, loc, i, shift);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, limit);
}

Value posenc::buildMaskedScore(OpBuilder &b, Location loc, Value masked,
                               Value score) {
  return arith::SelectOp::create(
      b, loc, masked, floatConst(b, loc, score.getType(), kNegInf), score);
}

Value posenc::buildCausalKeyBound(OpBuilder &b, Location loc, Value rowEnd,
                                  Value shift) {
  Value lastAllowed = arith::AddIOp::create(b, loc, rowEnd, shift);
  return arith::MaxSIOp::create(b, loc, lastAllowed, indexConst(b, loc, 0));
}

CacheKeyRange posenc::buildCacheKeyRange(OpBuilder &b, Location loc,
                                         Value lengthElement, Value sq) {
  CacheKeyRange r;
  r.length = arith::IndexCastOp::create(b, loc, b.getIndexType(), lengthElement);
  r.shift = arith::SubIOp::create(b, loc, r.length, sq);
  return r;
}

CacheKeyRange posenc::buildCacheKeyRangeOfBatch(OpBuilder &b, Location loc,
                                                Value kvLengths, Value batch,
                                                Value sq) {
  Value element = tensor::ExtractOp::create(b, loc, kvLengths, batch);
  return buildCacheKeyRange(b, loc, element, sq);
}

Value posenc::buildPastLengthMask(OpBuilder &b, Location loc, Value j,
                                  Value length) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, length);
}

Value posenc::buildCacheMask(OpBuilder &b, Location loc, Value i, Value j,
                             const CacheKeyRange &range, bool causal) {
  // Causal: j > i + length - Sq already excludes every j >= length.
  if (causal)
    return buildCausalMask(b, loc, i, j, range.shift);
  return buildPastLengthMask(b, loc, j, range.length);
}

Value posenc::buildShawBucket(OpBuilder &b, Location loc, Value dist,
                              int64_t maxDist) {
  Value r = arith::MaxSIOp::create(b, loc, dist, indexConst(b, loc, -maxDist));
  r = arith::MinSIOp::create(b, loc, r, indexConst(b, loc, maxDist));
  return arith::AddIOp::create(b, loc, r, indexConst(b, loc, maxDist));
}

Value posenc::buildT5Bucket(OpBuilder &b, Location loc, Value dist,
                            const T5BucketParams &params) {
  using arith::CmpIPredicate;
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i64 = b.getI64Type();
  Value zero = indexConst(b, loc, 0);
  int64_t nb = params.numBuckets;
  Value bucket = zero, n;
  if (params.bidirectional) {
    nb /= 2;
    Value ahead =
        arith::CmpIOp::create(b, loc, CmpIPredicate::sgt, dist, zero);
    bucket = arith::SelectOp::create(b, loc, ahead, indexConst(b, loc, nb),
                                     zero);
    n = arith::MaxSIOp::create(b, loc, dist,
                               arith::SubIOp::create(b, loc, zero, dist));
  } else {
    n = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, zero, dist),
                               zero);
  }
  int64_t exact = nb / 2;
  Value exactV = indexConst(b, loc, exact);
  Value small = arith::CmpIOp::create(b, loc, CmpIPredicate::slt, n, exactV);
  // The logarithmic bucket, for n >= e; n is clamped to e first so that the
  // unused lanes stay finite (log 0 = -inf would make fptosi poison).
  Value nLarge = arith::MaxSIOp::create(b, loc, n, exactV);
  Value nF = arith::SIToFPOp::create(
      b, loc, f32, arith::IndexCastOp::create(b, loc, i64, nLarge));
  Value ratio = arith::DivFOp::create(b, loc, nF,
                                      floatConst(b, loc, f32, double(exact)));
  Value logRatio = arith::TruncFOp::create(
      b, loc, f32,
      math::LogOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, ratio)));
  // HuggingFace divides by math.log(max_distance / e), a Python double that
  // torch rounds to the tensor's float32.
  double logSpan = std::log(static_cast<double>(params.maxDistance) /
                            static_cast<double>(exact));
  Value scaled = arith::DivFOp::create(
      b, loc, logRatio,
      floatConst(b, loc, f32, static_cast<double>(static_cast<float>(logSpan))));
  scaled = arith::MulFOp::create(
      b, loc, scaled, floatConst(b, loc, f32, static_cast<double>(nb - exact)));
  Value steps = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), arith::FPToSIOp::create(b, loc, i64, scaled));
  Value large = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, exactV, steps),
      indexConst(b, loc, nb - 1));
  Value offset = arith::SelectOp::create(b, loc, small, n, large);
  return arith::AddIOp::create(b, loc, bucket, offset);
}

T5BucketParams posenc::getT5BucketParams(T5BiasOp op) {
  return {op.getNumBuckets(), static_cast<int64_t>(op.getMaxDistance()),
          op.getBidirectional()};
}

T5BucketParams posenc::getT5BucketParams(FusedAttentionOp op) {
  auto table = cast<RankedTensorType>(op.getT5Table().getType());
  return {table.getDimSize(0), op.getT5MaxDistanceOrDefault(),
          op.getT5Bidirectional()};
}

//===----------------------------------------------------------------------===//
// Online softmax
//===----------------------------------------------------------------------===//

Value posenc::buildSafeRowMax(OpBuilder &b, Location loc, Value m) {
  Type type = m.getType();
  Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m,
                                      floatConst(b, loc, type, kNegInf));
  return arith::SelectOp::create(b, loc, isInf, floatConst(b, loc, type, 0.0),
                                 m);
}

Value posenc::buildOnlineSoftmaxExp(OpBuilder &b, Location loc, Value x,
                                    Value mNew) {
  Value diff = arith::SubFOp::create(b, loc, x, buildSafeRowMax(b, loc, mNew));
  return math::ExpOp::create(b, loc, diff);
}

Value posenc::buildSoftmaxNormalize(OpBuilder &b, Location loc, Value acc,
                                    Value l) {
  Value zero = floatConst(b, loc, l.getType(), 0.0);
  Value empty =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, zero);
  Value o = arith::DivFOp::create(b, loc, acc, l);
  return arith::SelectOp::create(b, loc, empty, zero, o);
}

//===----------------------------------------------------------------------===//
// RoPE tables
//===----------------------------------------------------------------------===//

FloatType posenc::rotaryAngleType(MLIRContext *ctx, AnglePrecision precision) {
  if (precision == AnglePrecision::exact)
    return Float64Type::get(ctx);
  return Float32Type::get(ctx);
}

Value posenc::buildRotaryInvFreqConstant(OpBuilder &b, Location loc,
                                         RotaryAttr rope, FloatType angleType) {
  return constantTable(b, loc,
                       computeRopeInvFreq(rope.getBaseValue(),
                                          rope.getRotaryDim(),
                                          rope.getScaling()),
                       angleType);
}

/// The run-time sequence length L = max(positions) + 1 as an f64.
static Value buildSequenceLength(OpBuilder &b, Location loc, Value positions) {
  auto posType = cast<RankedTensorType>(positions.getType());
  Type intType = posType.getElementType();
  MLIRContext *ctx = b.getContext();
  Value zero =
      arith::ConstantOp::create(b, loc, intType, b.getIntegerAttr(intType, 0));
  Value init0 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
  Value init = linalg::FillOp::create(b, loc, zero, init0).getResult(0);
  // Per-batch positions [B, S]: L over every sequence, as the reference.
  int64_t rank = posType.getRank();
  Value maxPos =
      buildGeneric(b, loc, positions, init,
                   {AffineMap::getMultiDimIdentityMap(rank, ctx),
                    AffineMap::get(rank, 0, {}, ctx)},
                   SmallVector<utils::IteratorType>(
                       rank, utils::IteratorType::reduction),
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     Value m = arith::MaxSIOp::create(b, loc, args[0], args[1]);
                     yieldValue(b, loc, m);
                   });
  Value maxScalar = tensor::ExtractOp::create(b, loc, maxPos, ValueRange{});
  Value len = arith::SIToFPOp::create(b, loc, b.getF64Type(), maxScalar);
  return arith::AddFOp::create(b, loc, len,
                               floatConst(b, loc, b.getF64Type(), 1.0));
}

/// Dynamic NTK's table from L: base' = base * (factor * max(L, orig) / orig
/// - (factor - 1))^(R / (R - 2)), inv_freq[p] = base'^(-2p/R), in f64.
static Value buildDynamicNtkInvFreq(OpBuilder &b, Location loc,
                                    RopeScalingAttr scaling, double base,
                                    int64_t rotaryDim, Value seqLen,
                                    FloatType angleType) {
  double orig = static_cast<double>(scaling.getOriginalMaxPosition());
  Type f64 = b.getF64Type();
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

Value posenc::buildRopeInvFreqTable(OpBuilder &b, Location loc, RopeOp op,
                                    Value positions, FloatType angleType) {
  double base = op.getBase().convertToDouble();
  int64_t rotaryDim = op.getRotaryDimOrDefault();
  RopeScalingAttr scaling = op.getScalingAttr();
  if (!scaling || !scaling.dependsOnSequenceLength())
    return constantTable(b, loc, computeRopeInvFreq(base, rotaryDim, scaling),
                         angleType);

  Value seqLen = buildSequenceLength(b, loc, positions);
  if (scaling.getKind() != RopeScalingKind::longrope)
    return buildDynamicNtkInvFreq(b, loc, scaling, base, rotaryDim, seqLen,
                                  angleType);
  // LongRoPE: both tables are compile-time constants; L picks one.
  Value shortTable = constantTable(
      b, loc, computeRopeInvFreq(base, rotaryDim, scaling, 0), angleType);
  Value longTable =
      constantTable(b, loc,
                    computeRopeInvFreq(base, rotaryDim, scaling,
                                       scaling.getOriginalMaxPosition() + 1),
                    angleType);
  double orig = static_cast<double>(scaling.getOriginalMaxPosition());
  Value isLong =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, seqLen,
                            floatConst(b, loc, b.getF64Type(), orig));
  return arith::SelectOp::create(b, loc, isLong, longTable, shortTable);
}

std::pair<Value, Value> posenc::buildRotaryTables(OpBuilder &b, Location loc,
                                                  RotaryAttr rope,
                                                  Value positions,
                                                  Value invFreq, FloatType c) {
  MLIRContext *ctx = b.getContext();
  int64_t half = rope.getRotaryDim() / 2;
  FloatType angleType = cast<FloatType>(
      cast<RankedTensorType>(invFreq.getType()).getElementType());
  double attentionFactor = rope.getEffectiveAttentionFactor();
  // [S] or per batch [B, S] positions: one table row per position.
  int64_t posRank = cast<RankedTensorType>(positions.getType()).getRank();
  int64_t rank = posRank + 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, positions);
  sizes.push_back(b.getIndexAttr(half));
  Value cosInit = tensor::EmptyOp::create(b, loc, sizes, c);
  Value sinInit = tensor::EmptyOp::create(b, loc, sizes, c);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap byRow = id.dropResult(posRank);
  auto byPair = AffineMap::get(rank, 0, {getAffineDimExpr(posRank, ctx)}, ctx);
  auto tables = linalg::GenericOp::create(
      b, loc, TypeRange{cosInit.getType(), sinInit.getType()},
      ValueRange{positions, invFreq}, ValueRange{cosInit, sinInit},
      ArrayRef<AffineMap>{byRow, byPair, id, id}, iterators(rank),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        auto [cs, sn] = buildRotaryCosSin(b, loc, a[0], a[1], angleType, c,
                                          attentionFactor);
        linalg::YieldOp::create(b, loc, ValueRange{cs, sn});
      });
  return {tables.getResult(0), tables.getResult(1)};
}

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

void posenc::buildKVLengthsChecks(OpBuilder &b, Location loc,
                                  StringRef opName, Value kvLengths,
                                  Value query, Value key) {
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

SmallVector<Value> posenc::ropeTableIndices(OpBuilder &b, Location loc,
                                            Value table, ArrayRef<Value> ivs,
                                            Value column) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t tRank = type.getRank(), rank = ivs.size();
  SmallVector<Value> at;
  for (int64_t k = 0; k + 1 < tRank; ++k)
    at.push_back(type.getDimSize(k) == 1 && k + 2 < tRank
                     ? indexConst(b, loc, 0)
                     : ivs[rank - tRank + k]);
  at.push_back(column);
  return at;
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
  for (auto [which, bias] : {std::make_pair(1u, contentBias),
                             std::make_pair(2u, positionBias)}) {
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

//===----------------------------------------------------------------------===//
// DeBERTa's relative positions
//===----------------------------------------------------------------------===//

Value posenc::buildDebertaBucket(OpBuilder &b, Location loc, Value rel,
                                 const DebertaBucketParams &params) {
  using arith::CmpIPredicate;
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i64 = b.getI64Type();
  int64_t mid = params.bucketSize / 2;
  Value midV = indexConst(b, loc, mid);
  Value absRel = arith::MaxSIOp::create(
      b, loc, rel, arith::SubIOp::create(b, loc, indexConst(b, loc, 0), rel));
  Value exact = arith::CmpIOp::create(b, loc, CmpIPredicate::sle, absRel, midV);
  // The logarithmic bucket, for |r| > mid; |r| is clamped to mid first so
  // that the unused lanes stay finite (HuggingFace substitutes mid - 1).
  Value mag = arith::MaxSIOp::create(b, loc, absRel, midV);
  Value magF = arith::SIToFPOp::create(
      b, loc, f32, arith::IndexCastOp::create(b, loc, i64, mag));
  Value ratio =
      arith::DivFOp::create(b, loc, magF, floatConst(b, loc, f32, double(mid)));
  Value logRatio = arith::TruncFOp::create(
      b, loc, f32,
      math::LogOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, ratio)));
  // HuggingFace: torch.log(torch.tensor((max_position - 1) / mid)), the
  // Python double rounded to a float32 tensor before its logarithm.
  float span = static_cast<float>(static_cast<double>(params.maxPosition - 1) /
                                  static_cast<double>(mid));
  float logSpan = static_cast<float>(std::log(static_cast<double>(span)));
  Value steps = arith::DivFOp::create(
      b, loc, logRatio, floatConst(b, loc, f32, static_cast<double>(logSpan)));
  steps = arith::MulFOp::create(b, loc, steps,
                                floatConst(b, loc, f32, double(mid - 1)));
  steps = math::CeilOp::create(b, loc, steps);
  Value large = arith::AddIOp::create(
      b, loc, midV,
      arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                 arith::FPToSIOp::create(b, loc, i64, steps)));
  Value negative = arith::CmpIOp::create(b, loc, CmpIPredicate::slt, rel,
                                         indexConst(b, loc, 0));
  Value signedLarge = arith::SelectOp::create(
      b, loc, negative,
      arith::SubIOp::create(b, loc, indexConst(b, loc, 0), large), large);
  return arith::SelectOp::create(b, loc, exact, rel, signedLarge);
}

Value posenc::buildDisentangledIndex(
    OpBuilder &b, Location loc, Value i, Value j, int64_t span,
    std::optional<DebertaBucketParams> buckets) {
  Value r = arith::SubIOp::create(b, loc, i, j);
  if (buckets)
    r = buildDebertaBucket(b, loc, r, *buckets);
  r = arith::AddIOp::create(b, loc, r, indexConst(b, loc, span));
  r = arith::MaxSIOp::create(b, loc, r, indexConst(b, loc, 0));
  return arith::MinSIOp::create(b, loc, r, indexConst(b, loc, 2 * span - 1));
}

/// DebertaBucketParams of the attributes, none without buckets.
static std::optional<DebertaBucketParams>
debertaBucketParams(int64_t buckets, std::optional<uint64_t> maxRel) {
  if (buckets <= 0)
    return std::nullopt;
  return DebertaBucketParams{buckets, static_cast<int64_t>(maxRel.value_or(0))};
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

std::optional<DebertaBucketParams>
posenc::getDebertaBucketParams(DisentangledAttentionOp op) {
  return debertaBucketParams(static_cast<int64_t>(op.getPositionBuckets()),
                             op.getMaxRelativePositions());
}

std::optional<DebertaBucketParams>
posenc::getDebertaBucketParams(FusedAttentionOp op) {
  return debertaBucketParams(
      static_cast<int64_t>(op.getDebertaPositionBuckets().value_or(0)),
      op.getDebertaMaxRelativePositions());
}
