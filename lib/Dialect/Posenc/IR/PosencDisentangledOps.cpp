//===- PosencDisentangledOps.cpp - DeBERTa attention verifier -------------===//
//
// posenc.disentangled_attention (PosencDisentangledOps.td). As everywhere in
// the dialect, a message names the operand or attribute and the expected
// vs. actual value.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace posenc;

/// Prints a dim size, `?` when dynamic.
static std::string dimText(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

bool DisentangledAttentionOp::hasC2P() {
  return bitEnumContainsAll(getTerms(), DisentangledTerms::c2p);
}

bool DisentangledAttentionOp::hasP2C() {
  return bitEnumContainsAll(getTerms(), DisentangledTerms::p2c);
}

int64_t DisentangledAttentionOp::getScaleFactor() {
  return 1 + int64_t(hasC2P()) + int64_t(hasP2C());
}

double DisentangledAttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  int64_t d = cast<RankedTensorType>(getQuery().getType()).getShape().back();
  return 1.0 / std::sqrt(static_cast<double>(d * getScaleFactor()));
}

int64_t DisentangledAttentionOp::getAttentionSpan() {
  Value table = getPosKey() ? getPosKey() : getPosQuery();
  auto type = cast<RankedTensorType>(table.getType());
  return type.getDimSize(type.getRank() - 2) / 2;
}

/// A position table `name` ([H x] 2k x D): rank 2 or 3, a static even 2k > 0,
/// D of the query and, with a head dim, the query's heads.
static LogicalResult verifyPositionTable(Operation *op, StringRef name,
                                         RankedTensorType table,
                                         RankedTensorType query) {
  int64_t rank = table.getRank(), qRank = query.getRank();
  if (rank != 2 && rank != 3)
    return op->emitOpError("'")
           << name << "' must be a tensor<[H x] 2k x D> (rank 2 or 3), got "
           << table;
  int64_t rows = table.getDimSize(rank - 2);
  if (ShapedType::isDynamic(rows) || rows <= 0 || rows % 2 != 0)
    return op->emitOpError("'")
           << name << "' must have a static even number of rows 2k > 0 (dim "
           << rank - 2 << "), got " << dimText(rows);
  if (!dimsCompatible(table.getDimSize(rank - 1), query.getShape().back()))
    return op->emitOpError("'")
           << name << "' dim " << rank - 1 << " ("
           << dimText(table.getDimSize(rank - 1))
           << ") must equal the head dim D of 'query' ("
           << dimText(query.getShape().back()) << ")";
  if (rank == 3 &&
      !dimsCompatible(table.getDimSize(0), query.getDimSize(qRank - 3)))
    return op->emitOpError("'")
           << name << "' has " << dimText(table.getDimSize(0))
           << " heads (dim 0), but 'query' has "
           << dimText(query.getDimSize(qRank - 3)) << " (dim -3)";
  return success();
}

/// Each table is present exactly when its term is selected.
static LogicalResult verifyTermOperands(DisentangledAttentionOp op) {
  if (op.getTerms() == DisentangledTerms{0})
    return op.emitOpError("'terms' must name at least one of c2p, p2c (with "
                          "neither it is posenc.attention)");
  auto check = [&](Value table, bool selected, StringRef name,
                   StringRef term) -> LogicalResult {
    if (selected && !table)
      return op.emitOpError("terms has ")
             << term << ", which needs the '" << name << "' operand";
    if (!selected && table)
      return op.emitOpError("'")
             << name << "' is given but terms ("
             << stringifyDisentangledTerms(op.getTerms()) << ") has no "
             << term;
    return success();
  };
  if (failed(check(op.getPosKey(), op.hasC2P(), "pos_key", "c2p")))
    return failure();
  return check(op.getPosQuery(), op.hasP2C(), "pos_query", "p2c");
}

/// The bucket attributes (`prefix` + position_buckets /
/// max_relative_positions) against the span k.
static LogicalResult verifyBuckets(Operation *op, StringRef prefix,
                                   int64_t buckets,
                                   std::optional<int64_t> maxRel,
                                   int64_t span) {
  std::string pb = (prefix + "position_buckets").str();
  std::string mr = (prefix + "max_relative_positions").str();
  if (buckets < 0)
    return op->emitOpError()
           << pb << " (" << buckets << ") must be >= 0 (0: no buckets)";
  if (buckets == 0) {
    if (maxRel && *maxRel != span)
      return op->emitOpError()
             << "without " << pb << ", " << mr << " (" << *maxRel
             << ") is the span k and must equal half the rows of the "
             << "position tables (" << span << ")";
    return success();
  }
  if (buckets < 2)
    return op->emitOpError() << pb << " (" << buckets
                             << ") must be >= 2 (one exact bucket per "
                             << "direction)";
  if (span != buckets)
    return op->emitOpError()
           << "with " << pb << " = " << buckets
           << " the position tables must have 2 * " << buckets
           << " rows (k = " << pb << "), got 2k = " << 2 * span;
  if (!maxRel)
    return op->emitOpError() << pb << " needs " << mr
                             << " (the max_position of the log buckets)";
  int64_t mid = buckets / 2;
  if (*maxRel - 1 <= mid)
    return op->emitOpError()
           << mr << " (" << *maxRel << ") must be > " << pb << " / 2 + 1 ("
           << mid + 1 << "), or log((" << mr << " - 1) / " << mid
           << ") is not positive";
  return success();
}

/// The position tables `prefix` + pos_key / pos_query (either may be null,
/// not both) of query `qt`, one span for both, and the bucket attributes.
static LogicalResult verifyDebertaTables(Operation *op, StringRef prefix,
                                         Value posKey, Value posQuery,
                                         RankedTensorType qt, int64_t buckets,
                                         std::optional<int64_t> maxRel) {
  std::optional<int64_t> rows;
  for (auto [table, name] : {std::pair(posKey, "pos_key"),
                             std::pair(posQuery, "pos_query")}) {
    if (!table)
      continue;
    auto type = cast<RankedTensorType>(table.getType());
    if (failed(verifyPositionTable(op, (prefix + name).str(), type, qt)))
      return failure();
    int64_t n = type.getDimSize(type.getRank() - 2);
    if (rows && *rows != n)
      return op->emitOpError("'")
             << prefix << "pos_query' has " << n << " rows, but '" << prefix
             << "pos_key' has " << *rows
             << " (both are 2k rows of one relative embedding)";
    rows = n;
  }
  return verifyBuckets(op, prefix, buckets, maxRel, *rows / 2);
}

static std::optional<int64_t> optionalInt(std::optional<uint64_t> v) {
  if (!v)
    return std::nullopt;
  return static_cast<int64_t>(*v);
}

LogicalResult DisentangledAttentionOp::verify() {
  if (failed(verifyQKVResult(*this, getQuery(), getKey(), getValue(),
                             getResult().getType(), /*minRank=*/3,
                             /*numHeadDims=*/1, /*mixedKeyValueType=*/true)))
    return failure();
  auto qt = cast<RankedTensorType>(getQuery().getType());
  auto kt = cast<RankedTensorType>(getKey().getType());
  auto vt = cast<RankedTensorType>(getValue().getType());
  int64_t h = qt.getRank() - 3;
  if (!dimsCompatible(qt.getDimSize(h), kt.getDimSize(h)) ||
      !dimsCompatible(qt.getDimSize(h), vt.getDimSize(h)))
    return emitOpError("'query', 'key' and 'value' must have the same heads "
                       "(dim -3), got ")
           << dimText(qt.getDimSize(h)) << ", " << dimText(kt.getDimSize(h))
           << " and " << dimText(vt.getDimSize(h));
  if (failed(verifyTermOperands(*this)))
    return failure();
  if (failed(verifyDebertaTables(
          *this, "", getPosKey(), getPosQuery(), qt,
          static_cast<int64_t>(getPositionBuckets()),
          optionalInt(getMaxRelativePositions()))))
    return failure();
  if (std::optional<APFloat> s = getScale()) {
    if (!std::isfinite(s->convertToDouble()))
      return emitOpError("scale must be finite");
    return success();
  }
  int64_t d = qt.getShape().back();
  if (ShapedType::isDynamic(d) || d <= 0)
    return emitOpError("the default scale 1/sqrt(D * (1 + number of terms)) "
                       "needs a static head dim D > 0 of 'query', got ")
           << dimText(d) << " (set 'scale' explicitly)";
  return success();
}

//===----------------------------------------------------------------------===//
// posenc.fused_attention's DeBERTa term
//===----------------------------------------------------------------------===//

int64_t FusedAttentionOp::getDebertaSpan() {
  Value table = getDebertaPosKey() ? getDebertaPosKey() : getDebertaPosQuery();
  if (!table)
    return 0;
  auto type = cast<RankedTensorType>(table.getType());
  return type.getDimSize(type.getRank() - 2) / 2;
}

LogicalResult posenc::verifyFusedDebertaTerm(FusedAttentionOp op) {
  if (!op.hasDebertaTerms()) {
    if (op.getDebertaPositionBucketsAttr() ||
        op.getDebertaMaxRelativePositionsAttr())
      return op.emitOpError("deberta_position_buckets and "
                            "deberta_max_relative_positions need a DeBERTa "
                            "term ('deberta_pos_key' or 'deberta_pos_query')");
    return success();
  }
  auto qt = cast<RankedTensorType>(op.getQuery().getType());
  if (qt.getRank() < 3)
    return op.emitOpError("DeBERTa's terms need a head dim: 'query' must have "
                          "rank >= 3, got rank ")
           << qt.getRank();
  if (op.getKvLengths())
    return op.emitOpError("DeBERTa's terms with 'kv_lengths' are not "
                          "supported");
  return verifyDebertaTables(
      op, "deberta_", op.getDebertaPosKey(), op.getDebertaPosQuery(), qt,
      optionalInt(op.getDebertaPositionBuckets()).value_or(0),
      optionalInt(op.getDebertaMaxRelativePositions()));
}
