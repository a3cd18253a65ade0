//===- TileBounds.cpp - static bounds of tile sizes -----------------------===//

#include "TileBounds.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

Value posenc::dynamicSizeOf(memref::AllocOp alloc, int64_t dim) {
  return alloc.getDynamicSizes()[alloc.getType().getDynamicDimIndex(dim)];
}

std::optional<int64_t> posenc::staticUpperBound(Value v, int depth) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return std::nullopt;
  if (isa<arith::MinUIOp, arith::MinSIOp>(def)) {
    std::optional<int64_t> bound;
    for (Value operand : def->getOperands())
      if (std::optional<int64_t> b = staticUpperBound(operand, depth + 1))
        bound = bound ? std::min(*bound, *b) : *b;
    return bound;
  }
  if (auto min = dyn_cast<affine::AffineMinOp>(def)) {
    std::optional<int64_t> bound;
    for (AffineExpr e : min.getAffineMap().getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        bound = bound ? std::min(*bound, c.getValue()) : c.getValue();
    return bound;
  }
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    auto alloc = dim.getSource().getDefiningOp<memref::AllocOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!alloc || !index)
      return std::nullopt;
    MemRefType type = alloc.getType();
    if (!type.isDynamicDim(*index))
      return type.getDimSize(*index);
    return staticUpperBound(dynamicSizeOf(alloc, *index), depth + 1);
  }
  return std::nullopt;
}
