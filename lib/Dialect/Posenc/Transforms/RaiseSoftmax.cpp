//===- RaiseSoftmax.cpp - recognize softmax as front ends write it --------===//
//
// `linalg.softmax`, or the decomposition TOSA, torch-mlir and StableHLO
// emit: a max-reduce (init -inf or the lowest finite value, `maximumf` or
// `maxnumf`), a subtract, an `exp`, a sum-reduce, and a divide or a multiply
// by the reciprocal, with the reduced values read back through a broadcast
// (a constant-0 result of a unit dim in the indexing map, or a dropped one).
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

namespace {

/// A reduction over dim `dim` of `input`, with its combiner and init.
struct Reduction {
  Value input;
  int64_t dim;
  Operation *combiner;
  double init;
};

} // namespace

/// The dim `map` (of a rank-`rank` iteration space) broadcasts: the one
/// result that is the constant 0 (of a unit dim of `type`), or the one loop
/// dim missing from a projection. -1 when the map is not such a broadcast.
static int64_t getBroadcastDim(AffineMap map, ShapedType type, int64_t rank) {
  if (map.getNumResults() == rank) {
    int64_t dim = -1;
    for (int64_t i = 0; i < rank; ++i) {
      AffineExpr e = map.getResult(i);
      if (e == getAffineDimExpr(i, map.getContext()))
        continue;
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (!c || c.getValue() != 0 || type.getDimSize(i) != 1 || dim != -1)
        return -1;
      dim = i;
    }
    return dim;
  }
  if (map.getNumResults() != rank - 1)
    return -1;
  int64_t missing = -1;
  for (int64_t i = 0; i < rank; ++i) {
    if (map.isFunctionOfDim(i))
      continue;
    if (missing != -1)
      return -1;
    missing = i;
  }
  for (int64_t i = 0, r = 0; i < rank; ++i)
    if (i != missing && map.getResult(r++) != getAffineDimExpr(i, map.getContext()))
      return -1;
  return missing;
}

/// The value a `linalg.fill` or splat constant fills `init` with.
static std::optional<double> getFillValue(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    init = fill.getInputs()[0];
  Attribute attr;
  if (!matchPattern(init, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto d = dyn_cast<DenseFPElementsAttr>(attr); d && d.isSplat())
    return d.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// The op yielding `yielded` when it combines exactly the block arguments
/// `in` and `acc` (either order): a reduction's combiner.
static Operation *getCombiner(Value yielded, Value in, Value acc) {
  Operation *op = yielded.getDefiningOp();
  if (!op || op->getNumOperands() != 2 || op->getNumResults() != 1)
    return nullptr;
  Value a = op->getOperand(0), b = op->getOperand(1);
  return (a == in && b == acc) || (a == acc && b == in) ? op : nullptr;
}

/// `reduced` (the reduced tensor, possibly reshaped to keep a unit dim) as
/// a `linalg.reduce` or reduction `linalg.generic` over one dim. The
/// generic may have more results (torch-mlir's max.dim also computes the
/// argmax): only the body's computation of `reduced` matters.
static std::optional<Reduction> matchReduce(Value reduced) {
  reduced = peelUnitReshapes(reduced);
  Operation *op = reduced.getDefiningOp();
  if (auto reduce = dyn_cast_or_null<linalg::ReduceOp>(op)) {
    if (reduce.getInputs().size() != 1 || reduce.getDimensions().size() != 1)
      return std::nullopt;
    Block &body = reduce.getCombiner().front();
    std::optional<double> init = getFillValue(reduce.getInits()[0]);
    Operation *combiner =
        getCombiner(body.getTerminator()->getOperand(0), body.getArgument(0),
                    body.getArgument(1));
    if (body.getOperations().size() != 2 || !init || !combiner)
      return std::nullopt;
    return Reduction{reduce.getInputs()[0], reduce.getDimensions()[0],
                     combiner, *init};
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumReductionLoops() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity())
    return std::nullopt;
  SmallVector<unsigned> dims;
  generic.getReductionDims(dims);
  Block &body = generic.getRegion().front();
  unsigned k = cast<OpResult>(reduced).getResultNumber();
  OpOperand *init = generic.getDpsInitOperand(k);
  std::optional<double> initValue = getFillValue(init->get());
  Operation *combiner = getCombiner(
      body.getTerminator()->getOperand(k), body.getArgument(0),
      body.getArgument(init->getOperandNumber()));
  if (!initValue || !combiner)
    return std::nullopt;
  return Reduction{generic.getDpsInputs()[0], dims[0], combiner, *initValue};
}

/// Argument `a` of `e` read as a reduction broadcast back over its dim;
/// with `reciprocal`, first through an elementwise `1 / y`.
static std::optional<Reduction>
matchBroadcastReduction(const Elementwise &e, const Elementwise::Arg &a,
                        bool reciprocal) {
  if (!a.input)
    return std::nullopt;
  Value y = a.input->get();
  int64_t dim = getBroadcastDim(e.map(a), cast<ShapedType>(y.getType()),
                                e.rank());
  if (dim < 0)
    return std::nullopt;
  if (reciprocal) {
    std::optional<Elementwise> recip = matchElementwiseOf<arith::DivFOp>(y);
    if (!recip || getSplatValue(recip->args[0]) != 1.0 ||
        !recip->isIdentity(recip->args[1]))
      return std::nullopt;
    y = recip->args[1].input->get();
  }
  std::optional<Reduction> r = matchReduce(y);
  if (!r || r->dim != dim)
    return std::nullopt;
  return r;
}

static bool isMaxCombiner(Operation *op) {
  return isa<arith::MaximumFOp, arith::MaxNumFOp>(op);
}

/// Whether `init` is -inf or the lowest finite value of `type`: the max
/// reduction then returns the row's true maximum.
static bool isLowestInit(double init, Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType)
    return false;
  if (std::isinf(init) && init < 0)
    return true;
  APFloat lowest = APFloat::getLargest(floatType.getFloatSemantics(), true);
  return init == lowest.convertToDouble();
}

std::optional<SoftmaxMatch> raise::matchSoftmax(Value p, std::string &why) {
  if (auto softmax = p.getDefiningOp<linalg::SoftmaxOp>())
    return SoftmaxMatch{softmax.getInput(), (int64_t)softmax.getDimension()};
  std::optional<Elementwise> norm = matchElementwise(p);
  bool isDiv = norm && isa<arith::DivFOp>(norm->payload);
  if (!norm || (!isDiv && !isa<arith::MulFOp>(norm->payload))) {
    why = "";
    return std::nullopt;
  }
  // e / sum, or e * (1 / sum) with the operands in either order.
  std::optional<Reduction> sum;
  const Elementwise::Arg *expArg = nullptr;
  for (int i = 0; i < 2 && !sum; ++i) {
    if (isDiv && i == 1)
      break;
    expArg = &norm->args[isDiv ? 0 : i];
    sum = matchBroadcastReduction(*norm, norm->args[isDiv ? 1 : 1 - i], !isDiv);
    if (sum && !norm->isIdentity(*expArg))
      sum.reset();
  }
  if (!sum || !isa<arith::AddFOp>(sum->combiner) || sum->init != 0.0) {
    // Only a product or quotient involving an exp is a softmax candidate.
    if (llvm::none_of(norm->args, [](const Elementwise::Arg &a) {
          return a.input && matchElementwiseOf<math::ExpOp>(a.input->get());
        })) {
      why = "";
      return std::nullopt;
    }
    why = "normalization is not exp(x) divided by (or times the reciprocal "
          "of) its zero-init sum-reduction";
    return std::nullopt;
  }
  Value expValue = expArg->input->get();
  std::optional<Elementwise> exp = matchElementwiseOf<math::ExpOp>(expValue);
  if (sum->input != expValue || !exp || !exp->isIdentity(exp->args[0])) {
    why = "the sum does not reduce the exp that is normalized";
    return std::nullopt;
  }
  std::optional<Elementwise> sub =
      matchElementwiseOf<arith::SubFOp>(exp->args[0].input->get());
  std::optional<Reduction> max =
      sub ? matchBroadcastReduction(*sub, sub->args[1], false) : std::nullopt;
  if (!sub || !sub->isIdentity(sub->args[0]) || !max ||
      max->input != sub->args[0].input->get()) {
    why = "exp's argument is not x - max(x)";
    return std::nullopt;
  }
  if (!isMaxCombiner(max->combiner) ||
      !isLowestInit(max->init, getElementTypeOrSelf(max->input.getType()))) {
    why = "the max-reduction does not combine with maximumf/maxnumf from a "
          "-inf or lowest-finite init";
    return std::nullopt;
  }
  if (max->dim != sum->dim) {
    why = "the max is reduced over dim " + std::to_string(max->dim) +
          " but the sum over dim " + std::to_string(sum->dim);
    return std::nullopt;
  }
  return SoftmaxMatch{max->input, sum->dim};
}
