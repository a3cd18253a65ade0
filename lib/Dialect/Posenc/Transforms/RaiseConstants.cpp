//===- RaiseConstants.cpp - evaluate constant subgraphs for value matching -===//
//
// The raising patterns recognize masks, ALiBi terms, sinusoidal tables and
// inverse frequencies by their values. Front ends hand those over either as
// dense constants or as small computations on constants: an iota compared
// with another and fed to a select (a causal mask), slopes times an arange
// (ALiBi), sin/cos of positions times frequencies (a sinusoidal table). This
// file evaluates such subgraphs, rounding every result to its element type
// as the program would, so that the matchers see the values the program
// computes.
//
// Upstream MLIR has no evaluator for this: linalg's constant folding
// (populateConstantFoldLinalgOperations) folds transposes only, and the
// arith folders work op by op on attributes, not on linalg.generic bodies.
// The body of a generic is compiled once into a list of scalar steps and
// then run per element, so a 2048x2048 mask costs a few tens of ms.
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// `x` rounded to the float type `type` (integers and index pass through).
static double roundTo(Type type, double x) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || floatType.isF64() || std::isnan(x))
    return x;
  if (floatType.isF32())
    return static_cast<float>(x);
  APFloat f(x);
  bool lost;
  f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `fn(index, linear)` for every index of `shape` in row-major order.
static void forEachIndex(ArrayRef<int64_t> shape,
                         function_ref<void(ArrayRef<int64_t>, int64_t)> fn) {
  int64_t n = numElements(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    fn(idx, linear);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

namespace {

/// One scalar step of a compiled linalg.generic body: reads slots, writes
/// slot `out`.
struct Step {
  std::function<double(ArrayRef<double>)> fn;
  SmallVector<unsigned> in;
  unsigned out;
};

class Evaluator {
public:
  Evaluator(int64_t maxElements, int64_t dynamicSize)
      : maxElements(maxElements), dynamicSize(dynamicSize) {}
  std::optional<ConstantTensor> eval(Value v, int depth = 0);

private:
  std::optional<ConstantTensor> evalGeneric(linalg::GenericOp op, int depth);
  std::optional<ConstantTensor> evalSlice(tensor::ExtractSliceOp op, int depth);
  std::optional<ConstantTensor> evalConcat(tensor::ConcatOp op, int depth);
  std::optional<ConstantTensor> evalInsert(tensor::InsertSliceOp op, int depth);
  std::optional<Step> compileStep(Operation &op, DenseMap<Value, unsigned> &slots,
                                  unsigned &numSlots, SmallVector<Step> &steps);
  /// The shape of `type`, its dynamic dims taken as `dynamicSize`; empty
  /// when it has dynamic dims and no dynamicSize was given.
  std::optional<SmallVector<int64_t>> shapeOf(ShapedType type) const;
  int64_t maxElements;
  int64_t dynamicSize;
};

} // namespace

std::optional<SmallVector<int64_t>> Evaluator::shapeOf(ShapedType type) const {
  if (type.hasStaticShape())
    return SmallVector<int64_t>(type.getShape());
  if (dynamicSize <= 0)
    return std::nullopt;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = dynamicSize;
  return shape;
}

std::optional<ConstantTensor> Evaluator::eval(Value v, int depth) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  std::optional<SmallVector<int64_t>> shape =
      type ? shapeOf(type) : std::nullopt;
  if (!shape || depth > 32 || numElements(*shape) > maxElements)
    return std::nullopt;
  ConstantTensor t{*shape, {}};
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
      for (APFloat f : dense.getValues<APFloat>())
        t.values.push_back(f.convertToDouble());
    else if (auto ints = dyn_cast<DenseIntElementsAttr>(attr))
      for (APInt i : ints.getValues<APInt>())
        t.values.push_back(ints.getElementType().isInteger(1)
                               ? static_cast<double>(i.getZExtValue())
                               : static_cast<double>(i.getSExtValue()));
    else
      return std::nullopt;
    return t;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    std::optional<ConstantTensor> src = eval(op->getOperand(0), depth + 1);
    if (!src)
      return std::nullopt;
    t.values = std::move(src->values); // row-major order is unchanged
    return t;
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    Attribute scalar;
    if (!matchPattern(fill.getInputs()[0], m_Constant(&scalar)))
      return std::nullopt;
    double x;
    if (auto f = dyn_cast<FloatAttr>(scalar))
      x = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(scalar))
      x = static_cast<double>(i.getInt());
    else
      return std::nullopt;
    t.values.assign(numElements(t.shape), x);
    return t;
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return evalGeneric(generic, depth);
  // Slices and concats of dynamic tensors move elements by run-time sizes.
  if (!type.hasStaticShape() ||
      llvm::any_of(op->getOperandTypes(), [](Type operand) {
        auto shaped = dyn_cast<ShapedType>(operand);
        return shaped && !shaped.hasStaticShape();
      }))
    return std::nullopt;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return evalSlice(slice, depth);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return evalConcat(concat, depth);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return evalInsert(insert, depth);
  if (isa<tensor::EmptyOp>(op)) {
    // Undefined contents: NaN, which no matcher accepts, so a table only
    // partly written by insert_slices is never matched.
    t.values.assign(numElements(t.shape), std::nan(""));
    return t;
  }
  return std::nullopt;
}

std::optional<ConstantTensor>
Evaluator::evalSlice(tensor::ExtractSliceOp op, int depth) {
  if (op.getSource().getType().getRank() == 0)
    return std::nullopt;
  std::optional<ConstantTensor> src = eval(op.getSource(), depth + 1);
  if (!src || ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()) ||
      ShapedType::isDynamicShape(op.getStaticStrides()))
    return std::nullopt;
  ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                    sizes = op.getStaticSizes(),
                    strides = op.getStaticStrides();
  SmallVector<int64_t> srcStrides = stridesOf(src->shape);
  ConstantTensor t{SmallVector<int64_t>(op.getResultType().getShape()), {}};
  forEachIndex(sizes, [&](ArrayRef<int64_t> idx, int64_t) {
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      at += (offsets[d] + idx[d] * strides[d]) * srcStrides[d];
    t.values.push_back(src->values[at]);
  });
  return t;
}

std::optional<ConstantTensor> Evaluator::evalConcat(tensor::ConcatOp op,
                                                    int depth) {
  SmallVector<ConstantTensor> parts;
  for (Value input : op.getInputs()) {
    std::optional<ConstantTensor> part = eval(input, depth + 1);
    if (!part)
      return std::nullopt;
    parts.push_back(std::move(*part));
  }
  uint64_t dim = op.getDim();
  ConstantTensor t{SmallVector<int64_t>(op.getResultType().getShape()), {}};
  int64_t outer = numElements(ArrayRef<int64_t>(t.shape).take_front(dim));
  for (int64_t o = 0; o < outer; ++o)
    for (const ConstantTensor &part : parts) {
      int64_t chunk = numElements(ArrayRef<int64_t>(part.shape).drop_front(dim));
      auto begin = part.values.begin() + o * chunk;
      t.values.append(begin, begin + chunk);
    }
  return t;
}

std::optional<ConstantTensor>
Evaluator::evalInsert(tensor::InsertSliceOp op, int depth) {
  std::optional<ConstantTensor> dest = eval(op.getDest(), depth + 1);
  std::optional<ConstantTensor> src =
      dest ? eval(op.getSource(), depth + 1) : std::nullopt;
  if (!src || ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()) ||
      ShapedType::isDynamicShape(op.getStaticStrides()))
    return std::nullopt;
  ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                    strides = op.getStaticStrides();
  SmallVector<int64_t> destStrides = stridesOf(dest->shape);
  // The source's values in row-major order fill the (unreduced) sizes.
  forEachIndex(op.getStaticSizes(), [&](ArrayRef<int64_t> idx, int64_t k) {
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      at += (offsets[d] + idx[d] * strides[d]) * destStrides[d];
    dest->values[at] = src->values[k];
  });
  return dest;
}

/// The scalar function of a body op, or null when it is not supported.
static std::function<double(ArrayRef<double>)> scalarFunction(Operation &op) {
  using Fn = std::function<double(ArrayRef<double>)>;
  Type type = op.getNumResults() == 1 ? op.getResult(0).getType() : Type();
  auto rounded = [type](auto f) -> Fn {
    return [type, f](ArrayRef<double> a) { return roundTo(type, f(a)); };
  };
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return rounded([](ArrayRef<double> a) { return a[0] + a[1]; });
  if (isa<arith::SubFOp, arith::SubIOp>(op))
    return rounded([](ArrayRef<double> a) { return a[0] - a[1]; });
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return rounded([](ArrayRef<double> a) { return a[0] * a[1]; });
  if (isa<arith::DivFOp>(op))
    return rounded([](ArrayRef<double> a) { return a[0] / a[1]; });
  if (isa<arith::NegFOp>(op))
    return rounded([](ArrayRef<double> a) { return -a[0]; });
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    return rounded([](ArrayRef<double> a) { return std::max(a[0], a[1]); });
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    return rounded([](ArrayRef<double> a) { return std::min(a[0], a[1]); });
  if (isa<arith::SIToFPOp, arith::UIToFPOp, arith::ExtFOp, arith::TruncFOp,
          arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return rounded([](ArrayRef<double> a) { return a[0]; });
  if (isa<arith::SelectOp>(op))
    return [](ArrayRef<double> a) { return a[0] != 0.0 ? a[1] : a[2]; };
  if (isa<math::ExpOp>(op))
    return rounded([](ArrayRef<double> a) { return std::exp(a[0]); });
  if (isa<math::SinOp>(op))
    return rounded([](ArrayRef<double> a) { return std::sin(a[0]); });
  if (isa<math::CosOp>(op))
    return rounded([](ArrayRef<double> a) { return std::cos(a[0]); });
  if (isa<math::PowFOp>(op))
    return rounded([](ArrayRef<double> a) { return std::pow(a[0], a[1]); });
  if (isa<math::AbsFOp>(op))
    return rounded([](ArrayRef<double> a) { return std::fabs(a[0]); });
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    arith::CmpIPredicate p = cmp.getPredicate();
    return [p](ArrayRef<double> a) -> double {
      switch (p) {
      case arith::CmpIPredicate::eq: return a[0] == a[1];
      case arith::CmpIPredicate::ne: return a[0] != a[1];
      case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult:
        return a[0] < a[1];
      case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule:
        return a[0] <= a[1];
      case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt:
        return a[0] > a[1];
      case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge:
        return a[0] >= a[1];
      }
      return 0.0;
    };
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    arith::CmpFPredicate p = cmp.getPredicate();
    using P = arith::CmpFPredicate;
    if (p != P::OEQ && p != P::OLT && p != P::OLE && p != P::OGT && p != P::OGE)
      return nullptr; // unordered predicates: not worth the NaN cases
    return [p](ArrayRef<double> a) -> double {
      switch (p) {
      case P::OEQ: return a[0] == a[1];
      case P::OLT: return a[0] < a[1];
      case P::OLE: return a[0] <= a[1];
      case P::OGT: return a[0] > a[1];
      default: return a[0] >= a[1];
      }
    };
  }
  return nullptr;
}

/// The value of a scalar constant, as a double.
static std::optional<double> scalarConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(i.getType().isInteger(1)
                                   ? i.getValue().getZExtValue()
                                   : i.getInt());
  return std::nullopt;
}

std::optional<Step> Evaluator::compileStep(Operation &op,
                                           DenseMap<Value, unsigned> &slots,
                                           unsigned &numSlots,
                                           SmallVector<Step> &steps) {
  if (op.getNumResults() != 1)
    return std::nullopt;
  Step step;
  if (std::optional<double> c = scalarConstant(op.getResult(0))) {
    double x = *c;
    step.fn = [x](ArrayRef<double>) { return x; };
  } else if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    // Loop indices live in the first slots (see evalGeneric).
    step.in.push_back(index.getDim());
    step.fn = [](ArrayRef<double> a) { return a[0]; };
  } else {
    step.fn = scalarFunction(op);
    if (!step.fn)
      return std::nullopt;
    for (Value operand : op.getOperands()) {
      auto it = slots.find(operand);
      if (it == slots.end()) {
        // A constant hoisted out of the body (the greedy driver does that).
        std::optional<double> c = scalarConstant(operand);
        if (!c)
          return std::nullopt; // a run-time value from outside the body
        double x = *c;
        steps.push_back({[x](ArrayRef<double>) { return x; }, {}, numSlots});
        it = slots.insert({operand, numSlots++}).first;
      }
      step.in.push_back(it->second);
    }
  }
  step.out = numSlots++;
  slots[op.getResult(0)] = step.out;
  return step;
}

std::optional<ConstantTensor> Evaluator::evalGeneric(linalg::GenericOp op,
                                                     int depth) {
  if (op.getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  Block &body = op.getRegion().front();
  int64_t numLoops = op.getNumLoops();
  // Slots: loop indices, then the inputs' block arguments, then the steps.
  DenseMap<Value, unsigned> slots;
  unsigned numSlots = numLoops;
  SmallVector<ConstantTensor> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    std::optional<ConstantTensor> t = eval(input->get(), depth + 1);
    if (!t)
      return std::nullopt;
    inputs.push_back(std::move(*t));
    slots[body.getArgument(input->getOperandNumber())] = numSlots++;
  }
  if (!body.getArgument(op.getNumDpsInputs()).use_empty())
    return std::nullopt; // reads its init
  SmallVector<Step> steps;
  for (Operation &inner : body.without_terminator()) {
    std::optional<Step> step = compileStep(inner, slots, numSlots, steps);
    if (!step)
      return std::nullopt;
    steps.push_back(std::move(*step));
  }
  auto it = slots.find(body.getTerminator()->getOperand(0));
  if (it == slots.end())
    return std::nullopt;
  unsigned result = it->second;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> inputStrides;
  for (const ConstantTensor &t : inputs)
    inputStrides.push_back(stridesOf(t.shape));
  ConstantTensor t{*shapeOf(cast<ShapedType>(op.getResultTypes()[0])), {}};
  t.values.reserve(numElements(t.shape));
  SmallVector<double> slotValues(numSlots);
  SmallVector<double> args;
  bool ok = true;
  forEachIndex(t.shape, [&](ArrayRef<int64_t> idx, int64_t) {
    if (!ok)
      return;
    for (int64_t d = 0; d < numLoops; ++d)
      slotValues[d] = static_cast<double>(idx[d]);
    for (auto [k, input] : llvm::enumerate(inputs)) {
      SmallVector<int64_t> at = maps[k].compose(idx);
      int64_t linear = 0;
      for (auto [d, i] : llvm::enumerate(at)) {
        if (i < 0 || i >= input.shape[d]) {
          ok = false;
          return;
        }
        linear += i * inputStrides[k][d];
      }
      slotValues[numLoops + k] = input.values[linear];
    }
    for (const Step &step : steps) {
      args.clear();
      for (unsigned in : step.in)
        args.push_back(slotValues[in]);
      slotValues[step.out] = step.fn(args);
    }
    t.values.push_back(slotValues[result]);
  });
  if (!ok || !maps.back().isIdentity())
    return std::nullopt;
  return t;
}

std::optional<ConstantTensor> raise::evaluateConstant(Value v,
                                                      int64_t maxElements,
                                                      int64_t dynamicSize) {
  return Evaluator(maxElements, dynamicSize).eval(v);
}
