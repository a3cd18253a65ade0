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
  int64_t numBuckets = getNumBuckets();
  if (ShapedType::isDynamic(numBuckets))
    return emitOpError("the number of buckets NB (dim 0 of 'table') must be "
                       "static");
  bool bidirectional = getBidirectional();
  int64_t minBuckets = bidirectional ? 4 : 2;
  if (numBuckets < minBuckets)
    return emitOpError("'table' must have at least ")
           << minBuckets << " buckets"
           << (bidirectional ? " when bidirectional (one exact and one "
                               "logarithmic bucket per direction)"
                             : " (one exact and one logarithmic bucket)")
           << ", got NB = "
           << numBuckets;
  int64_t exact = (bidirectional ? numBuckets / 2 : numBuckets) / 2;
  int64_t maxDistance = getMaxDistance();
  if (maxDistance <= exact)
    return emitOpError("max_distance (")
           << maxDistance << ") must be > the number of exact buckets ("
           << exact << "), or log(max_distance / " << exact
           << ") is not positive";
  return success();
}
