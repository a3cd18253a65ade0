//===- PosencRelativeOps.cpp - verifiers of the bucketed biases -----------===//
//
// posenc.t5_bias (PosencRelativeOps.td). As everywhere in the dialect, a
// message names the operand or attribute and the expected vs. actual value.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace posenc;

/// t5_max_distance when not set: T5's 128, posenc.t5_bias's ODS default.
static constexpr int64_t kT5DefaultMaxDistance = 128;

/// The bucket parameters of T5 (posenc.t5_bias, posenc.fused_attention's
/// t5_table): a static NB with one exact and one logarithmic bucket per
/// direction, and max_distance above the exact buckets (else the logarithm
/// divides by log(max_distance / e) <= 0).
static LogicalResult verifyT5Buckets(Operation *op, StringRef tableName,
                                     StringRef maxDistanceName,
                                     RankedTensorType tableType,
                                     int64_t maxDistance, bool bidirectional) {
  int64_t numBuckets = tableType.getDimSize(0);
  if (ShapedType::isDynamic(numBuckets))
    return op->emitOpError("the number of buckets NB (dim 0 of '")
           << tableName << "') must be static";
  int64_t minBuckets = bidirectional ? 4 : 2;
  if (numBuckets < minBuckets)
    return op->emitOpError("'")
           << tableName << "' must have at least " << minBuckets << " buckets"
           << (bidirectional ? " when bidirectional (one exact and one "
                               "logarithmic bucket per direction)"
                             : " (one exact and one logarithmic bucket)")
           << ", got NB = " << numBuckets;
  int64_t exact = (bidirectional ? numBuckets / 2 : numBuckets) / 2;
  if (maxDistance <= exact)
    return op->emitOpError("")
           << maxDistanceName << " (" << maxDistance
           << ") must be > the number of exact buckets (" << exact
           << "), or log(" << maxDistanceName << " / " << exact
           << ") is not positive";
  return success();
}

//===----------------------------------------------------------------------===//
// T5BiasOp
//===----------------------------------------------------------------------===//

int64_t T5BiasOp::getNumBuckets() {
  return cast<RankedTensorType>(getTable().getType()).getDimSize(0);
}

/// Prints a dim size, `?` when dynamic.
static std::string dimText(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

LogicalResult T5BiasOp::verify() {
  auto tableType = cast<RankedTensorType>(getTable().getType());
  RankedTensorType type = getResult().getType();
  int64_t rank = type.getRank();
  if (tableType.getRank() != 2)
    return emitOpError("'table' must be a tensor<NB x H x F> (rank 2), got ")
           << tableType;
  if (rank < 3)
    return emitOpError("result must have rank >= 3 ([B...] x H x Sq x Sk), "
                       "got rank ")
           << rank;
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      type.getNumDynamicDims())
    return emitOpError("expected ")
           << type.getNumDynamicDims()
           << " dynamic size operands (one per '?' of the result type), got "
           << getDynamicSizes().size();
  if (tableType.getElementType() != type.getElementType())
    return emitOpError("result element type (")
           << type.getElementType()
           << ") must equal the element type of 'table' ("
           << tableType.getElementType() << ")";
  int64_t tableHeads = tableType.getDimSize(1);
  int64_t heads = type.getDimSize(rank - 3);
  if (!ShapedType::isDynamic(tableHeads) && !ShapedType::isDynamic(heads) &&
      tableHeads != heads)
    return emitOpError("'table' has H = ")
           << tableHeads << " heads (dim 1), but the result has "
           << dimText(heads) << " (dim -3)";
  return verifyT5Buckets(*this, "table", "max_distance", tableType,
                         getMaxDistance(), getBidirectional());
}

//===----------------------------------------------------------------------===//
// FusedAttentionOp's T5 term
//===----------------------------------------------------------------------===//

LogicalResult posenc::verifyFusedT5Term(FusedAttentionOp op) {
  Value table = op.getT5Table();
  if (!table) {
    if (op.getT5MaxDistance() || op.getT5Bidirectional())
      return op.emitOpError("'t5_max_distance' and 't5_bidirectional' need a "
                            "'t5_table' operand");
    return success();
  }
  auto tableType = cast<RankedTensorType>(table.getType());
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  int64_t rank = queryType.getRank();
  if (tableType.getRank() != 2)
    return op.emitOpError("'t5_table' must be a tensor<NB x Hq x F> (rank "
                          "2), got ")
           << tableType;
  if (rank < 3)
    return op.emitOpError("'t5_table' needs a head dim: 'query' must have "
                          "rank >= 3, got rank ")
           << rank;
  if (op.getKvLengths())
    return op.emitOpError("'t5_table' with 'kv_lengths' is not supported "
                          "(T5's query position is i + Sk - Sq)");
  int64_t tableHeads = tableType.getDimSize(1);
  int64_t heads = queryType.getDimSize(rank - 3);
  if (!ShapedType::isDynamic(tableHeads) && !ShapedType::isDynamic(heads) &&
      tableHeads != heads)
    return op.emitOpError("'t5_table' has H = ")
           << tableHeads << " heads (dim 1), but 'query' has " << heads
           << " (dim -3)";
  return verifyT5Buckets(op, "t5_table", "t5_max_distance", tableType,
                         op.getT5MaxDistanceOrDefault(),
                         op.getT5Bidirectional());
}

int64_t FusedAttentionOp::getT5MaxDistanceOrDefault() {
  if (std::optional<uint64_t> d = getT5MaxDistance())
    return static_cast<int64_t>(*d);
  return kT5DefaultMaxDistance;
}
