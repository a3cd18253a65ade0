//===- RaiseRopeTableForm.cpp - RoPE -> posenc.rope with cos/sin tables ---===//
//
// `x*cos + rotate_half(x)*sin` whose tables match no formula (constant or
// computed), or arrive as function arguments (HuggingFace computes cos/sin
// once per forward and passes them to every layer), is exactly the table
// form of posenc.rope (docs/spec.md): out = x cos + rotate_half(x) sin,
// each element reading its own column of the tables. The products read the
// tables through broadcasting indexing maps (constant-0 results on unit
// dims, dropped results, as front ends normalize broadcasts); the op takes
// them right-aligned, so the dropped dims come back as unit dims of a
// tensor.expand_shape.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/AffineExpr.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// How `table`, read through `map` by a product over `rank` loops, becomes
/// the right-aligned [..., S, D] tensor posenc.rope's table form takes:
/// as it is when its dims already line up with the last loops (each result
/// the aligned loop dim, or a constant 0 on a unit dim); else an
/// expand_shape to `shape` by `groups` that inserts the unit dims the map
/// drops (results strictly increasing loop dims). None for any other map.
struct TableAlignment {
  bool asIs = true;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
};
static std::optional<TableAlignment> planTableAlignment(RankedTensorType type,
                                                        AffineMap map,
                                                        int64_t rank) {
  int64_t n = map.getNumResults();
  MLIRContext *ctx = map.getContext();
  if (n < 2 || n != type.getRank() ||
      map.getResult(n - 1) != getAffineDimExpr(rank - 1, ctx) ||
      map.getResult(n - 2) != getAffineDimExpr(rank - 2, ctx))
    return std::nullopt;
  bool aligned = n <= rank;
  for (int64_t k = 0; aligned && k < n; ++k) {
    AffineExpr e = map.getResult(k);
    auto c = dyn_cast<AffineConstantExpr>(e);
    aligned = e == getAffineDimExpr(rank - n + k, ctx) ||
              (c && c.getValue() == 0 && type.getDimSize(k) == 1);
  }
  TableAlignment plan;
  if (aligned)
    return plan;
  SmallVector<int64_t> loops;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || (!loops.empty() && (int64_t)d.getPosition() <= loops.back()))
      return std::nullopt;
    loops.push_back(d.getPosition());
  }
  plan.asIs = false;
  int64_t next = loops.front();
  for (int64_t k = 0; k < n; ++k) {
    ReassociationIndices group;
    for (; next < loops[k]; ++next) {
      group.push_back(plan.shape.size());
      plan.shape.push_back(1);
    }
    group.push_back(plan.shape.size());
    plan.shape.push_back(type.getDimSize(k));
    ++next;
    plan.groups.push_back(group);
  }
  return plan;
}

bool raise::isBroadcastRopeTable(Value table, AffineMap map, int64_t rank) {
  return planTableAlignment(cast<RankedTensorType>(table.getType()), map, rank)
      .has_value();
}

static Value alignTable(OpBuilder &b, Location loc, Value table,
                        const TableAlignment &plan) {
  if (plan.asIs)
    return table;
  auto type = cast<RankedTensorType>(table.getType());
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(plan.shape, type.getElementType()), table,
      plan.groups);
}

Value raise::alignRopeTable(OpBuilder &b, Location loc, Value table,
                            AffineMap map, int64_t rank) {
  std::optional<TableAlignment> plan =
      planTableAlignment(cast<RankedTensorType>(table.getType()), map, rank);
  return plan ? alignTable(b, loc, table, *plan) : Value();
}

LogicalResult raise::replaceWithTableRope(PatternRewriter &rewriter,
                                          Operation *root, const RopeMatch &m,
                                          Layout layout, bool emitRemark) {
  auto type = cast<RankedTensorType>(m.input.getType());
  int64_t rank = type.getRank();
  auto cosType = cast<RankedTensorType>(m.cosTable.getType());
  if (cosType.getElementType() !=
          cast<ShapedType>(m.sinTable.getType()).getElementType() ||
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
          cosType.getElementType()))
    return rewriter.notifyMatchFailure(
        root, "cos and sin tables of different or unsupported element types");
  auto sinType = cast<RankedTensorType>(m.sinTable.getType());
  std::optional<TableAlignment> cosPlan =
      planTableAlignment(cosType, m.cosMap, rank);
  std::optional<TableAlignment> sinPlan =
      planTableAlignment(sinType, m.sinMap, rank);
  if (!cosPlan || !sinPlan ||
      (cosPlan->asIs ? cosType.getShape() : ArrayRef<int64_t>(cosPlan->shape)) !=
          (sinPlan->asIs ? sinType.getShape()
                         : ArrayRef<int64_t>(sinPlan->shape)))
    return rewriter.notifyMatchFailure(
        root, "cos and sin are not read as [..., S, D] tables of one shape "
              "broadcast over the leading dims");
  Location loc = root->getLoc();
  Value cos = alignTable(rewriter, loc, m.cosTable, *cosPlan);
  Value sin = alignTable(rewriter, loc, m.sinTable, *sinPlan);
  return replaceByTableRope(rewriter, root, m.input, cos, sin, layout,
                            emitRemark ? m.tableFormReason : std::string());
}

LogicalResult raise::replaceByTableRope(PatternRewriter &rewriter,
                                        Operation *root, Value x, Value cos,
                                        Value sin, Layout layout,
                                        const std::string &remark) {
  rewriter.replaceOp(root, buildTableRope(rewriter, root->getLoc(), x, cos,
                                          sin, layout, remark));
  return success();
}

Value raise::buildTableRope(OpBuilder &b, Location loc, Value x, Value cos,
                            Value sin, Layout layout,
                            const std::string &remark) {
  auto rope = RopeOp::create(b, loc, x, cos, sin, layout);
  if (!remark.empty())
    rope->emitRemark("raised to posenc.rope table form (")
        << stringifyLayout(layout) << " layout): " << remark;
  return rope.getResult();
}
