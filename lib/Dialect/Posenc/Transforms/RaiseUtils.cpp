//===- RaiseUtils.cpp - use-def matchers shared by the raising patterns ---===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

bool Elementwise::isIdentity(const Arg &a) const {
  if (!a.input)
    return false;
  auto type = dyn_cast<ShapedType>(a.input->get().getType());
  return map(a).isIdentity() && type &&
         type.getShape() ==
             cast<ShapedType>(generic.getResultTypes()[0]).getShape();
}

std::optional<Elementwise> raise::matchElementwise(Value v) {
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation *payload = &body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (payload->getNumResults() != 1 ||
      yield.getValues().front() != payload->getResult(0))
    return std::nullopt;
  Elementwise e{generic, payload, {}};
  for (Value operand : payload->getOperands()) {
    Elementwise::Arg arg;
    auto blockArg = dyn_cast<BlockArgument>(operand);
    if (blockArg && blockArg.getOwner() == &body) {
      if (blockArg.getArgNumber() >= generic.getNumDpsInputs())
        return std::nullopt; // reads the init: not elementwise
      arg.input = generic.getDpsInputOperand(blockArg.getArgNumber());
    } else {
      arg.scalar = operand;
    }
    e.args.push_back(arg);
  }
  return e;
}

std::optional<double> raise::getSplatValue(const Elementwise::Arg &a) {
  Value v = a.input ? a.input->get() : a.scalar;
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr); dense && dense.isSplat())
    return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

bool raise::isZeroFilled(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

std::optional<SmallVector<double>> raise::getConstantValues(Value v) {
  std::optional<ConstantTensor> t = evaluateConstant(v);
  if (!t)
    return std::nullopt;
  return std::move(t->values);
}

/// The reassociation groups on the side with more dims.
static std::optional<SmallVector<ReassociationIndices>>
getReassociation(Operation *op) {
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return c.getReassociationIndices();
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return e.getReassociationIndices();
  return std::nullopt;
}

bool raise::reshapesOnlyLeadingDims(Operation *op) {
  std::optional<SmallVector<ReassociationIndices>> groups = getReassociation(op);
  if (!groups || groups->size() < 2)
    return false;
  // The last group is the last dim alone; the one before ends with the
  // second-to-last dim, any other dim in it a unit dim (a [S, D] <-> [1, S,
  // D] reshape keeps the last two dims).
  auto big = cast<ShapedType>(isa<tensor::CollapseShapeOp>(op)
                                  ? op->getOperand(0).getType()
                                  : op->getResult(0).getType());
  const ReassociationIndices &beforeLast = (*groups)[groups->size() - 2];
  return (*groups)[groups->size() - 1].size() == 1 &&
         llvm::all_of(ArrayRef<int64_t>(beforeLast).drop_back(),
                      [&](int64_t d) { return big.getDimSize(d) == 1; });
}

Value raise::peelLeadingReshapes(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!reshapesOnlyLeadingDims(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

bool raise::reshapesOnlyUnitDims(Operation *op) {
  std::optional<SmallVector<ReassociationIndices>> groups = getReassociation(op);
  if (!groups)
    return false;
  auto big = cast<ShapedType>(isa<tensor::CollapseShapeOp>(op)
                                  ? op->getOperand(0).getType()
                                  : op->getResult(0).getType());
  for (const ReassociationIndices &group : *groups) {
    int nonUnit = 0;
    for (int64_t d : group)
      nonUnit += big.getDimSize(d) != 1;
    if (nonUnit > 1)
      return false;
  }
  return true;
}

Value raise::peelUnitReshapes(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!reshapesOnlyUnitDims(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

int64_t raise::leadingProduct(ShapedType type) {
  int64_t n = 1;
  for (int64_t d : type.getShape().drop_back(2)) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    n *= d;
  }
  return n;
}

Value raise::collapseLeadingDims(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  if (rank == 3)
    return v;
  if (rank == 2) {
    // [S, D] -> [1, S, D]
    auto type3 = RankedTensorType::get(
        {1, type.getDimSize(0), type.getDimSize(1)}, type.getElementType());
    return tensor::ExpandShapeOp::create(
        b, loc, type3, v, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }
  ReassociationIndices leading;
  for (int64_t d = 0; d < rank - 2; ++d)
    leading.push_back(d);
  SmallVector<ReassociationIndices> groups = {leading, {rank - 2}, {rank - 1}};
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// Whether `slice` inserts (or extracts) `[offset, offset + size)` of the
/// last dim of `full`, unit strides, every other dim whole (a dynamic dim
/// whole when its size is provably `full`'s).
template <typename SliceOp>
static bool isLastDimWindow(SliceOp slice, Value full, int64_t offset,
                            int64_t size) {
  if (!slice.hasUnitStride())
    return false;
  auto fullType = cast<RankedTensorType>(full.getType());
  int64_t rank = fullType.getRank();
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return false;
  // The window: an extract_slice's result, an insert_slice's source.
  Value window = isa<tensor::ExtractSliceOp>(slice.getOperation())
                     ? slice->getResult(0)
                     : slice->getOperand(0);
  auto windowType = cast<RankedTensorType>(window.getType());
  for (int64_t d = 0; d < rank; ++d) {
    bool last = d == rank - 1;
    if (offsets[d] != (last ? offset : 0))
      return false;
    if (!last && ShapedType::isDynamic(sizes[d]) &&
        fullType.isDynamicDim(d) && windowType.getRank() == rank &&
        provablyEqualSizes(full, d, window, d, slice))
      continue;
    if (sizes[d] != (last ? size : fullType.getDimSize(d)) ||
        ShapedType::isDynamic(sizes[d]))
      return false;
  }
  return true;
}

std::optional<std::pair<Value, Value>> raise::matchLastDimConcat(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || ShapedType::isDynamic(type.getShape().back()))
    return std::nullopt;
  if (auto concat = v.getDefiningOp<tensor::ConcatOp>()) {
    if (concat.getDim() != static_cast<uint64_t>(type.getRank() - 1) ||
        concat.getInputs().size() != 2)
      return std::nullopt;
    return std::make_pair(concat.getInputs()[0], concat.getInputs()[1]);
  }
  // insert_slice(b, insert_slice(a, empty)) with the parts in either order.
  auto outer = v.getDefiningOp<tensor::InsertSliceOp>();
  auto inner = outer ? outer.getDest().getDefiningOp<tensor::InsertSliceOp>()
                     : tensor::InsertSliceOp();
  if (!inner || !inner.getDest().getDefiningOp<tensor::EmptyOp>() ||
      !inner->hasOneUse())
    return std::nullopt;
  int64_t d = type.getShape().back();
  auto width = [](tensor::InsertSliceOp op) {
    return op.getSourceType().getShape().back();
  };
  for (auto [first, second] : {std::make_pair(inner, outer),
                               std::make_pair(outer, inner)}) {
    int64_t w = width(first);
    if (!ShapedType::isDynamic(w) && w < d &&
        isLastDimWindow(first, v, 0, w) &&
        isLastDimWindow(second, v, w, d - w))
      return std::make_pair(first.getSource(), second.getSource());
  }
  return std::nullopt;
}

std::optional<std::pair<Value, Value>> raise::matchHalvesConcat(Value v) {
  std::optional<std::pair<Value, Value>> parts = matchLastDimConcat(v);
  auto type = cast<ShapedType>(v.getType());
  if (!parts || type.getShape().back() % 2 != 0 ||
      cast<ShapedType>(parts->first.getType()).getShape().back() * 2 !=
          type.getShape().back())
    return std::nullopt;
  return parts;
}

Value raise::matchLastDimSlice(Value v, int64_t offset, int64_t size) {
  auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return Value();
  auto srcType = cast<RankedTensorType>(slice.getSource().getType());
  if (slice.getResultType().getRank() != srcType.getRank() ||
      !isLastDimWindow(slice, slice.getSource(), offset, size))
    return Value();
  return slice.getSource();
}

Value raise::buildTranspose(OpBuilder &b, Location loc, Value v,
                            ArrayRef<int64_t> permutation) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  SmallVector<OpFoldResult> permuted;
  for (int64_t p : permutation)
    permuted.push_back(sizes[p]);
  Value init = tensor::EmptyOp::create(b, loc, permuted,
                                       getElementTypeOrSelf(v.getType()));
  return linalg::TransposeOp::create(b, loc, v, init, permutation)
      ->getResult(0);
}
