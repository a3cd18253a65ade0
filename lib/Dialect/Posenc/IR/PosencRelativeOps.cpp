//===- PosencRelativeOps.cpp - verifiers of the relative encodings --------===//
//
// posenc.t5_bias and posenc.xl_attention (PosencRelativeOps.td) and the
// matching terms of posenc.fused_attention. As everywhere in the dialect, a
// message names the operand or attribute and the expected vs. actual value.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

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

//===----------------------------------------------------------------------===//
// XlAttentionOp (Transformer-XL) and FusedAttentionOp's xl term
//===----------------------------------------------------------------------===//

namespace {
/// The operand names of Transformer-XL's tables in one op's diagnostics.
struct XlTableNames {
  StringRef rel, contentBias, positionBias;
};
} // namespace

/// Checks a [H x D] bias (u or v) against the query's heads and head dim.
static LogicalResult verifyXlBias(Operation *op, StringRef name, Value bias,
                                  int64_t heads, int64_t headDim) {
  auto type = cast<RankedTensorType>(bias.getType());
  if (type.getRank() != 2)
    return op->emitOpError("'")
           << name << "' must be a tensor<H x D> (rank 2), got " << type;
  if (!ShapedType::isDynamic(type.getDimSize(0)) &&
      !ShapedType::isDynamic(heads) && type.getDimSize(0) != heads)
    return op->emitOpError("'")
           << name << "' has H = " << type.getDimSize(0)
           << " heads (dim 0), expected the query's " << heads << " (dim -3)";
  if (!ShapedType::isDynamic(type.getDimSize(1)) &&
      !ShapedType::isDynamic(headDim) && type.getDimSize(1) != headDim)
    return op->emitOpError("'")
           << name << "' dim 1 (" << type.getDimSize(1)
           << ") must equal head dim D (" << headDim << ")";
  return success();
}

/// Transformer-XL's rel [[H x] L x D] (L = Sq + Sk - 1 when all three are
/// static; else a run-time check of the lowerings), u and v [H x D].
static LogicalResult verifyXlTables(Operation *op, const XlTableNames &names,
                                    Value rel, Value contentBias,
                                    Value positionBias,
                                    RankedTensorType queryType,
                                    RankedTensorType keyType) {
  int64_t rank = queryType.getRank();
  int64_t heads = queryType.getDimSize(rank - 3);
  int64_t headDim = queryType.getDimSize(rank - 1);
  int64_t sq = queryType.getDimSize(rank - 2);
  int64_t sk = keyType.getDimSize(rank - 2);
  auto relType = cast<RankedTensorType>(rel.getType());
  int64_t relRank = relType.getRank();
  if (relRank != 2 && relRank != 3)
    return op->emitOpError("'")
           << names.rel << "' must be a tensor<[H x] L x D> (rank 2 or 3), got "
           << relType;
  if (relRank == 3 && !ShapedType::isDynamic(relType.getDimSize(0)) &&
      !ShapedType::isDynamic(heads) && relType.getDimSize(0) != heads)
    return op->emitOpError("'")
           << names.rel << "' has H = " << relType.getDimSize(0)
           << " heads (dim 0), expected the query's " << heads << " (dim -3)";
  int64_t relDim = relType.getDimSize(relRank - 1);
  if (!ShapedType::isDynamic(relDim) && !ShapedType::isDynamic(headDim) &&
      relDim != headDim)
    return op->emitOpError("'")
           << names.rel << "' dim -1 (" << relDim
           << ") must equal head dim D (" << headDim << ")";
  int64_t rows = relType.getDimSize(relRank - 2);
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(sq) &&
      !ShapedType::isDynamic(sk) && rows != sq + sk - 1)
    return op->emitOpError("'")
           << names.rel << "' has " << rows << " rows, expected Sq + Sk - 1 = "
           << sq + sk - 1 << " (Sq = " << sq << ", Sk = " << sk << ")";
  if (failed(verifyXlBias(op, names.contentBias, contentBias, heads,
                          headDim)) ||
      failed(verifyXlBias(op, names.positionBias, positionBias, heads,
                          headDim)))
    return failure();
  return success();
}

double XlAttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(
                   cast<RankedTensorType>(getQuery().getType())
                       .getShape()
                       .back()));
}

LogicalResult XlAttentionOp::verify() {
  if (failed(verifyQKVResult(*this, getQuery(), getKey(), getValue(),
                             getResult().getType(), /*minRank=*/3,
                             /*numHeadDims=*/1, /*mixedKeyValueType=*/false)))
    return failure();
  auto qt = cast<RankedTensorType>(getQuery().getType());
  auto kt = cast<RankedTensorType>(getKey().getType());
  auto vt = cast<RankedTensorType>(getValue().getType());
  int64_t rank = qt.getRank();
  int64_t hq = qt.getDimSize(rank - 3);
  int64_t hk = kt.getDimSize(rank - 3), hv = vt.getDimSize(rank - 3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) ||
      ShapedType::isDynamic(hv))
    return emitOpError("head dims (dim -3) of 'query', 'key' and 'value' "
                       "must be static, got ")
           << dimText(hq) << ", " << dimText(hk) << " and " << dimText(hv);
  for (auto [name, h] :
       {std::make_pair("key", hk), std::make_pair("value", hv)}) {
    if (h != hq)
      return emitOpError("'")
             << name << "' has " << h << " heads (dim -3), expected the "
             << "query's " << hq << " (xl_attention has no grouped-query form)";
  }
  if (failed(verifyDefaultScale(*this, getScale(), qt)))
    return failure();
  return verifyXlTables(*this, {"rel", "content_bias", "position_bias"},
                        getRel(), getContentBias(), getPositionBias(), qt, kt);
}

LogicalResult posenc::verifyFusedXlTerm(FusedAttentionOp op) {
  Value rel = op.getXlRel(), u = op.getXlContentBias(),
        v = op.getXlPositionBias();
  if (!rel && !u && !v)
    return success();
  if (!rel || !u || !v)
    return op.emitOpError("the xl term needs all of 'xl_rel', "
                          "'xl_content_bias' and 'xl_position_bias'");
  auto qt = cast<RankedTensorType>(op.getQuery().getType());
  if (qt.getRank() < 3)
    return op.emitOpError("the xl term needs a head dim: 'query' must have "
                          "rank >= 3, got rank ")
           << qt.getRank();
  if (op.getKvLengths())
    return op.emitOpError("the xl term with 'kv_lengths' is not supported "
                          "(Transformer-XL's query position is i + Sk - Sq)");
  return verifyXlTables(op, {"xl_rel", "xl_content_bias", "xl_position_bias"},
                        rel, u, v, qt,
                        cast<RankedTensorType>(op.getKey().getType()));
}
