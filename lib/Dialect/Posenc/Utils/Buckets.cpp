//===- Buckets.cpp - relative-position buckets ----------------------------===//
//
// Shaw's clamp, T5's logarithmic buckets and DeBERTa's log buckets and
// disentangled index (AttentionUtils.h): each bucket function once, for
// the reference lowering, the CPU decomposition and the GPU kernels.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"
#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace posenc;

/// log(float32(n) / float32(d)) in f32 for an index `n`, the quotient in
/// f32 as torch computes it and its logarithm correctly rounded (f64, then
/// f32), so that a bucket does not depend on the target's f32 log: the log
/// of T5's and of DeBERTa's buckets.
static Value buildF32LogRatio(OpBuilder &b, Location loc, Value n, int64_t d) {
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  Value nF = arith::SIToFPOp::create(
      b, loc, f32, arith::IndexCastOp::create(b, loc, b.getI64Type(), n));
  Value ratio =
      arith::DivFOp::create(b, loc, nF, floatConst(b, loc, f32, double(d)));
  return arith::TruncFOp::create(
      b, loc, f32,
      math::LogOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, ratio)));
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
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  Value zero = indexConst(b, loc, 0);
  int64_t nb = params.numBuckets;
  Value bucket = zero, n;
  if (params.bidirectional) {
    nb /= 2;
    Value ahead = arith::CmpIOp::create(b, loc, CmpIPredicate::sgt, dist, zero);
    bucket =
        arith::SelectOp::create(b, loc, ahead, indexConst(b, loc, nb), zero);
    n = arith::MaxSIOp::create(b, loc, dist,
                               arith::SubIOp::create(b, loc, zero, dist));
  } else {
    n = arith::MaxSIOp::create(b, loc,
                               arith::SubIOp::create(b, loc, zero, dist), zero);
  }
  int64_t exact = nb / 2;
  Value exactV = indexConst(b, loc, exact);
  Value small = arith::CmpIOp::create(b, loc, CmpIPredicate::slt, n, exactV);
  // The logarithmic bucket, for n >= e; n is clamped to e first so that the
  // unused lanes stay finite (log 0 = -inf would make fptosi poison).
  Value nLarge = arith::MaxSIOp::create(b, loc, n, exactV);
  Value logRatio = buildF32LogRatio(b, loc, nLarge, exact);
  // HuggingFace divides by math.log(max_distance / e), a Python double that
  // torch rounds to the tensor's float32.
  double logSpan = std::log(static_cast<double>(params.maxDistance) /
                            static_cast<double>(exact));
  Value scaled = arith::DivFOp::create(
      b, loc, logRatio,
      floatConst(b, loc, f32,
                 static_cast<double>(static_cast<float>(logSpan))));
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
// DeBERTa's relative positions
//===----------------------------------------------------------------------===//

Value posenc::buildDebertaBucket(OpBuilder &b, Location loc, Value rel,
                                 const DebertaBucketParams &params) {
  using arith::CmpIPredicate;
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  int64_t mid = params.bucketSize / 2;
  Value midV = indexConst(b, loc, mid);
  Value absRel = arith::MaxSIOp::create(
      b, loc, rel, arith::SubIOp::create(b, loc, indexConst(b, loc, 0), rel));
  Value exact = arith::CmpIOp::create(b, loc, CmpIPredicate::sle, absRel, midV);
  // The logarithmic bucket, for |r| > mid; |r| is clamped to mid first so
  // that the unused lanes stay finite (HuggingFace substitutes mid - 1).
  Value mag = arith::MaxSIOp::create(b, loc, absRel, midV);
  Value logRatio = buildF32LogRatio(b, loc, mag, mid);
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
