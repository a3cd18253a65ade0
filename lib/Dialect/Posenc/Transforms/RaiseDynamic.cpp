//===- RaiseDynamic.cpp - what raising can prove about dynamic sizes ------===//
//
// Front ends that keep the sequence length dynamic (torch-mlir with a `?`
// sequence dim) write `tensor.dim` / `tensor.empty(%d)` for every size and
// check broadcast compatibility with `arith.cmpi eq` + `cf.assert`. Two
// facts matter to the raising:
//
// * **Equal lengths.** Bottom-right causal `j <= i + Sk - Sq` is `j <= i`
//   only when `Sq == Sk`. A size is traced to where it comes from (a dim of
//   a function argument, an index value) through destination-passing ops,
//   `tensor.empty` and `tensor.dim`; two sizes are equal when they trace to
//   the same source or when a `cf.assert` of their equality dominates the
//   op (a program that passes the assert has them equal; one that does not
//   aborts before the attention, with or without raising).
// * **Masks computed from indices.** A mask built by generics from
//   `linalg.index` (torch-mlir's `triu` of a `full`, a masked_fill
//   condition) has no static values. When every integer computation in it
//   is linear in the indices, and every comparison depends on the last two
//   indices only through `a * (j - i) + c`, the mask is a function `h(j -
//   i)` that is constant for `|j - i| > max |c / a|`; evaluating it at one
//   size N larger than twice that bound sees every value it takes, for
//   every run-time size (evaluateDiagonalTerm).
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <cstdlib>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

//===----------------------------------------------------------------------===//
// Equal sizes
//===----------------------------------------------------------------------===//

namespace {
/// Where a size comes from: dim `dim` of a value that is no DPS result,
/// empty or reshape (a block argument, usually), or an index value
/// (`dim == -1`), or a static size (`value` null).
struct SizeSource {
  Value value;
  int64_t dim = -1;
  int64_t staticSize = ShapedType::kDynamic;
  bool operator==(const SizeSource &o) const {
    return value == o.value && dim == o.dim && staticSize == o.staticSize;
  }
};
} // namespace

static SizeSource traceIndex(Value index, int depth);

/// Where dim `dim` of `tensor` comes from.
static SizeSource traceDim(Value tensor, int64_t dim, int depth = 0) {
  auto type = cast<ShapedType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return SizeSource{Value(), -1, type.getDimSize(dim)};
  Operation *op = tensor.getDefiningOp();
  if (!op || depth > 64)
    return SizeSource{tensor, dim};
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    if (auto result = dyn_cast<OpResult>(tensor); result && dps.hasPureTensorSemantics())
      return traceDim(dps.getTiedOpOperand(result)->get(), dim, depth + 1);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return traceIndex(empty.getDynamicSize(dim), depth + 1);
  if (auto cast_ = dyn_cast<tensor::CastOp>(op))
    return traceDim(cast_.getSource(), dim, depth + 1);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
      slice && slice.getSourceType().getRank() == type.getRank())
    if (auto size = dyn_cast<Value>(slice.getMixedSizes()[dim]))
      return traceIndex(size, depth + 1);
  // A reshape group with one non-unit dim on each side keeps that size.
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    bool expand = isa<tensor::ExpandShapeOp>(op);
    Value src = op->getOperand(0);
    auto srcType = cast<ShapedType>(src.getType());
    SmallVector<ReassociationIndices> groups =
        expand ? cast<tensor::ExpandShapeOp>(op).getReassociationIndices()
               : cast<tensor::CollapseShapeOp>(op).getReassociationIndices();
    auto big = expand ? type : srcType;
    for (auto [g, group] : llvm::enumerate(groups)) {
      int64_t nonUnit = -1, count = 0;
      for (int64_t d : group)
        if (big.getDimSize(d) != 1)
          nonUnit = d, ++count;
      if (count != 1)
        continue;
      if (expand && nonUnit == dim)
        return traceDim(src, g, depth + 1);
      if (!expand && static_cast<int64_t>(g) == dim)
        return traceDim(src, nonUnit, depth + 1);
    }
  }
  return SizeSource{tensor, dim};
}

/// Where the index value `index` comes from.
static SizeSource traceIndex(Value index, int depth) {
  if (auto dimOp = index.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> d = dimOp.getConstantIndex())
      return traceDim(dimOp.getSource(), *d, depth + 1);
  if (auto cast_ = index.getDefiningOp<arith::IndexCastOp>())
    return traceIndex(cast_.getIn(), depth + 1);
  APInt c;
  if (matchPattern(index, m_ConstantInt(&c)))
    return SizeSource{Value(), -1, c.getSExtValue()};
  return SizeSource{index, -1};
}

bool raise::provablyEqualSizes(Value a, int64_t dimA, Value b, int64_t dimB,
                               Operation *at) {
  SizeSource sa = traceDim(a, dimA), sb = traceDim(b, dimB);
  if (sa == sb)
    return sa.value || !ShapedType::isDynamic(sa.staticSize);
  if (!sa.value || !sb.value)
    return false;
  // Equalities asserted before `at`: cf.assert(cmpi eq, x, y).
  auto func = at->getParentOfType<FunctionOpInterface>();
  if (!func)
    return false;
  DominanceInfo dominance(func);
  auto key = [](const SizeSource &s) {
    return std::make_pair(s.value.getAsOpaquePointer(), s.dim);
  };
  llvm::EquivalenceClasses<std::pair<const void *, int64_t>> classes;
  func->walk([&](cf::AssertOp assertOp) {
    auto cmp = assertOp.getArg().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
        !dominance.properlyDominates(assertOp.getOperation(), at))
      return;
    SizeSource x = traceIndex(cmp.getLhs(), 0), y = traceIndex(cmp.getRhs(), 0);
    if (x.value && y.value)
      classes.unionSets(key(x), key(y));
  });
  return classes.isEquivalent(key(sa), key(sb));
}

//===----------------------------------------------------------------------===//
// Masks that depend on j - i only
//===----------------------------------------------------------------------===//

namespace {
/// sum(coeff[l] * index_l) + c over a generic's loops.
struct Linear {
  SmallVector<int64_t> coeff;
  int64_t c = 0;
};
} // namespace

/// Checks the body of `op` (see the file header): integer values linear in
/// the loop indices, comparisons `a * (j - i) + c`, no integer reaching
/// float arithmetic. Raises `bound` to max |c / a| + 1.
static bool checkDiagonalBody(linalg::GenericOp op, int64_t &bound,
                              std::string &why) {
  int64_t n = op.getNumLoops();
  Block &body = op.getRegion().front();
  DenseMap<Value, Linear> forms;
  auto formOf = [&](Value v) -> std::optional<Linear> {
    if (auto it = forms.find(v); it != forms.end())
      return it->second;
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return Linear{SmallVector<int64_t>(n, 0), c.getSExtValue()};
    return std::nullopt;
  };
  auto isInt = [](Value v) {
    return v.getType().isIndex() ||
           (v.getType().isInteger() && !v.getType().isInteger(1));
  };
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      Linear l{SmallVector<int64_t>(n, 0), 0};
      l.coeff[index.getDim()] = 1;
      forms[index] = l;
      continue;
    }
    if (inner.getNumResults() == 1 && isInt(inner.getResult(0))) {
      if (matchPattern(inner.getResult(0), m_Constant()))
        continue;
      std::optional<Linear> x = formOf(inner.getOperand(0));
      std::optional<Linear> y = inner.getNumOperands() > 1
                                    ? formOf(inner.getOperand(1))
                                    : std::nullopt;
      auto isConst = [](const Linear &l) {
        return llvm::all_of(l.coeff, [](int64_t k) { return k == 0; });
      };
      Linear r;
      if (isa<arith::IndexCastOp, arith::ExtSIOp>(inner) && x) {
        r = *x;
      } else if (isa<arith::AddIOp, arith::SubIOp>(inner) && x && y) {
        int64_t sign = isa<arith::AddIOp>(inner) ? 1 : -1;
        r = *x;
        for (int64_t l = 0; l < n; ++l)
          r.coeff[l] += sign * y->coeff[l];
        r.c += sign * y->c;
      } else if (isa<arith::MulIOp>(inner) && x && y &&
                 (isConst(*x) || isConst(*y))) {
        int64_t k = isConst(*x) ? x->c : y->c;
        r = isConst(*x) ? *y : *x;
        for (int64_t &v : r.coeff)
          v *= k;
        r.c *= k;
      } else {
        why = "the dynamic-size mask computes with its indices other than by "
              "adding, subtracting and scaling them";
        return false;
      }
      forms[inner.getResult(0)] = r;
      continue;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(inner)) {
      std::optional<Linear> x = formOf(cmp.getLhs()), y = formOf(cmp.getRhs());
      using P = arith::CmpIPredicate;
      P p = cmp.getPredicate();
      if (!x || !y || p == P::ult || p == P::ule || p == P::ugt || p == P::uge) {
        why = "the dynamic-size mask compares something other than its "
              "indices, or unsigned";
        return false;
      }
      for (int64_t l = 0; l < n; ++l)
        x->coeff[l] -= y->coeff[l];
      x->c -= y->c;
      int64_t a = x->coeff[n - 1];
      bool diagonal = n >= 2 && x->coeff[n - 2] == -a;
      for (int64_t l = 0; l + 2 < n; ++l)
        diagonal &= x->coeff[l] == 0;
      if (!diagonal) {
        why = "the dynamic-size mask depends on its row and column other "
              "than through j - i";
        return false;
      }
      if (a != 0)
        bound = std::max(bound, std::abs(x->c) / std::abs(a) + 1);
      continue;
    }
    // Anything else must not read an integer value (e.g. sitofp of j - i:
    // an ALiBi distance, whose values grow with the size).
    for (Value operand : inner.getOperands())
      if (isInt(operand)) {
        why = "the dynamic-size mask turns its indices into values";
        return false;
      }
  }
  return true;
}

/// Whether `v` is a splat: a fill of a constant or a splat constant.
static bool isSplat(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_Constant());
  DenseElementsAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.isSplat();
}

/// Whether `v` depends on its last two indices (i, j) only through j - i
/// and on no other index (see the file header); raises `bound`.
static bool isDiagonal(Value v, int64_t &bound, std::string &why,
                       int depth = 0) {
  if (isSplat(v))
    return true;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  Operation *op = v.getDefiningOp();
  if (!type || type.getRank() < 2 || !op || depth > 16) {
    why = "the dynamic-size mask is not computed in the graph from indices "
          "and constants";
    return false;
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    if (!reshapesOnlyLeadingDims(op) || !reshapesOnlyUnitDims(op)) {
      why = "the dynamic-size mask is reshaped along its last two dims";
      return false;
    }
    return isDiagonal(op->getOperand(0), bound, why, depth + 1);
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray().back().isIdentity()) {
    why = "the dynamic-size mask is not computed by elementwise generics";
    return false;
  }
  int64_t n = generic.getNumLoops();
  MLIRContext *ctx = generic.getContext();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (isSplat(input->get()))
      continue;
    AffineMap map = generic.getMatchingIndexingMap(input);
    int64_t r = map.getNumResults();
    if (r < 2 || map.getResult(r - 2) != getAffineDimExpr(n - 2, ctx) ||
        map.getResult(r - 1) != getAffineDimExpr(n - 1, ctx)) {
      why = "an operand of the dynamic-size mask is not read along its last "
            "two dims";
      return false;
    }
    if (!isDiagonal(input->get(), bound, why, depth + 1))
      return false;
  }
  return checkDiagonalBody(generic, bound, why);
}

std::optional<ConstantTensor> raise::evaluateDiagonalTerm(Value v,
                                                          std::string &why) {
  int64_t bound = 0;
  if (!isDiagonal(v, bound, why))
    return std::nullopt;
  if (bound > 1024) {
    why = "the dynamic-size mask compares j - i with a constant above 1024";
    return std::nullopt;
  }
  std::optional<ConstantTensor> t =
      evaluateConstant(v, /*maxElements=*/1 << 22, 2 * bound + 8);
  if (!t)
    why = "the dynamic-size mask could not be evaluated";
  return t;
}
