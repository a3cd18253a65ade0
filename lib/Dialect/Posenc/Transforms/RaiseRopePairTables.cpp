//===- RaiseRopePairTables.cpp - pair rotations -> posenc.rope table form -===//
//
// The interleaved layout (pairs split off by an expand_shape) and the
// expanded half layout (concat(x1 cos - x2 sin, x2 cos + x1 sin)) read one
// cos and one sin entry per pair. When those tables are function arguments
// or match no formula, the rotation is still exactly the table form of
// posenc.rope, whose tables hold one entry per column (SPEC.md): column 2p
// and 2p+1 (interleaved) or p and p + D/2 (half) both get pair p's entry.
// The duplication is an exact copy (linalg.broadcast + collapse_shape, or
// tensor.concat), so the raised op computes the graph's products.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

Value raise::duplicateLanes(OpBuilder &b, Location loc, Value table) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, table);
  sizes.push_back(b.getIndexAttr(2));
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value pairs =
      linalg::BroadcastOp::create(b, loc, table, init, ArrayRef<int64_t>{rank})
          ->getResult(0);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  return tensor::CollapseShapeOp::create(b, loc, pairs, groups);
}

/// A pair table [1.., S, P] or [1.., S, P, 1] (a trailing unit lane dim,
/// interleaved) as the [1.., S, D] table of `layout`.
static Value columnsOf(OpBuilder &b, Location loc, Value table,
                       Layout layout) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t rank = type.getRank();
  if (layout == Layout::half)
    return tensor::ConcatOp::create(b, loc, rank - 1,
                                    ValueRange{table, table});
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 2 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  Value pairs = tensor::CollapseShapeOp::create(b, loc, table, groups);
  return duplicateLanes(b, loc, pairs);
}

LogicalResult raise::replaceWithPairTableRope(PatternRewriter &rewriter,
                                              Operation *root,
                                              const RopeMatch &m,
                                              Layout layout, bool emitRemark) {
  auto cosType = cast<RankedTensorType>(m.cosTable.getType());
  auto sinType = cast<RankedTensorType>(m.sinTable.getType());
  int64_t lane = layout == Layout::interleaved ? 1 : 0;
  if (cosType != sinType ||
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
          cosType.getElementType()) ||
      cosType.getRank() < 2 + lane ||
      (lane && cosType.getShape().back() != 1))
    return rewriter.notifyMatchFailure(
        root, "the cos and sin pair tables differ in type or shape");
  Location loc = root->getLoc();
  // In sequence, not as call arguments (their order is unspecified).
  Value cos = columnsOf(rewriter, loc, m.cosTable, layout);
  Value sin = columnsOf(rewriter, loc, m.sinTable, layout);
  return replaceByTableRope(rewriter, root, m.input, cos, sin, layout,
                            emitRemark ? m.tableFormReason : std::string());
}
