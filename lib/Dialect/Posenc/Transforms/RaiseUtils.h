//===- RaiseUtils.h - use-def matchers shared by the raising patterns -----===//
//
// Small matchers over normalized linalg-on-tensors as front ends emit it
// (one elementwise linalg.generic per source op, broadcasts as constant-0 or
// dropped results in the indexing maps, reshapes as tensor.expand_shape /
// tensor.collapse_shape). Each matcher answers "is this value X" and, when
// not, says why in `why`, so that the patterns' notifyMatchFailure and the
// pass's remarks name every near miss.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEUTILS_H
#define POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace posenc::raise {

/// An all-parallel, single-result linalg.generic whose body is one scalar op
/// (the payload) on the block arguments of its inputs and on values captured
/// from outside the body.
struct Elementwise {
  mutable mlir::linalg::GenericOp generic;
  mlir::Operation *payload = nullptr;
  /// Per payload operand: the input OpOperand whose block argument it is, or
  /// null when it is a captured value (then `scalar` holds it).
  struct Arg {
    mlir::OpOperand *input = nullptr;
    mlir::Value scalar;
  };
  llvm::SmallVector<Arg> args;

  /// Rank of the iteration space (= the result's rank).
  int64_t rank() const { return generic.getNumLoops(); }
  /// The indexing map of a tensor argument.
  mlir::AffineMap map(const Arg &a) const {
    return generic.getMatchingIndexingMap(a.input);
  }
  /// Whether `a` reads a tensor of the result's shape through the identity.
  bool isIdentity(const Arg &a) const;
};

/// Matches `v` as the result of an elementwise generic (see Elementwise).
std::optional<Elementwise> matchElementwise(mlir::Value v);

/// Same, also requiring the payload to be a `PayloadOp`.
template <typename PayloadOp>
std::optional<Elementwise> matchElementwiseOf(mlir::Value v) {
  std::optional<Elementwise> e = matchElementwise(v);
  if (!e || !mlir::isa<PayloadOp>(e->payload))
    return std::nullopt;
  return e;
}

/// The value of a float splat: a captured scalar `arith.constant`, or a
/// tensor argument defined by a splat `arith.constant` of any shape.
std::optional<double> getSplatValue(const Elementwise::Arg &a);

/// A statically shaped tensor whose values are known at compile time
/// (row-major; integers and booleans as doubles).
struct ConstantTensor {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<double> values;
};

/// Evaluates `v` when it is an `arith.constant` or computed from constants
/// alone by linalg.generic bodies of arith/math scalar ops (including
/// linalg.index: iotas, comparisons, selects, sin/cos), linalg.fill,
/// reshapes, static extract_slice and concat; each result rounded to its
/// element type as the program computes it (RaiseConstants.cpp). Gives up
/// on anything else, or above `maxElements` elements. With `dynamicSize`
/// > 0, dynamic dims are evaluated as that size (fills, generics and
/// reshapes only): the caller must have proven that the values do not
/// depend on it (evaluateDiagonalTerm).
std::optional<ConstantTensor> evaluateConstant(mlir::Value v,
                                               int64_t maxElements = 1 << 23,
                                               int64_t dynamicSize = 0);

/// The elements of `v` when evaluateConstant knows them.
std::optional<llvm::SmallVector<double>> getConstantValues(mlir::Value v);

/// Whether `op` only splits or merges the dims before the last two (the
/// last two dims are single-dim groups of its reassociation).
bool reshapesOnlyLeadingDims(mlir::Operation *op);

/// Whether every group of `op`'s reassociation holds at most one non-unit
/// dim of the larger side (the reshape only adds or drops unit dims).
bool reshapesOnlyUnitDims(mlir::Operation *op);

/// Whether dim `dimA` of `a` and dim `dimB` of `b` are provably equal at
/// `at`: static and equal, traced (through destination-passing ops,
/// tensor.empty, tensor.dim, tensor.cast and unit-dim reshapes) to the same
/// source, or to sources a dominating `cf.assert(cmpi eq)` equates
/// (RaiseDynamic.cpp).
bool provablyEqualSizes(mlir::Value a, int64_t dimA, mlir::Value b,
                        int64_t dimB, mlir::Operation *at);

/// A dynamically shaped term (a mask) computed from indices and constants
/// whose values are, along its last two dims (i, j), a function of j - i
/// alone and constant along the others, evaluated at a size (for every
/// dynamic dim) large enough to show every value it takes at any size.
/// Fails, saying why, for anything else.
std::optional<ConstantTensor> evaluateDiagonalTerm(mlir::Value v,
                                                   std::string &why);

/// `v` without an elementwise float cast `CastOp` (extf/truncf) in front.
template <typename CastOp>
mlir::Value peelCast(mlir::Value v) {
  std::optional<Elementwise> cast = matchElementwiseOf<CastOp>(v);
  if (cast && cast->args[0].input && cast->isIdentity(cast->args[0]))
    return cast->args[0].input->get();
  return v;
}

/// Whether `init` is a linalg.fill with 0.0 (a matmul into it does not
/// accumulate into something else).
bool isZeroFilled(mlir::Value init);

/// Follows tensor.expand_shape / tensor.collapse_shape that only touch the
/// leading dims back to their source.
mlir::Value peelLeadingReshapes(mlir::Value v);

/// Follows reshapes that only add or drop unit dims back to their source.
mlir::Value peelUnitReshapes(mlir::Value v);

/// The product of the leading (all but the last two) dims, or
/// ShapedType::kDynamic.
int64_t leadingProduct(mlir::ShapedType type);

/// `v` as a rank-3 tensor `[prod(leading), S, D]`: a collapse_shape of its
/// leading dims (or `v` when it is already rank 3).
mlir::Value collapseLeadingDims(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value v);

/// The two parts of `concat(a, b)` along the last dim (any widths):
/// `tensor.concat`, or two `tensor.insert_slice`s filling a `tensor.empty`.
std::optional<std::pair<mlir::Value, mlir::Value>>
matchLastDimConcat(mlir::Value v);
/// The two halves of `concat(a, b)` along the last dim, each half of it:
/// `tensor.concat`, or two `tensor.insert_slice`s filling a `tensor.empty`.
std::optional<std::pair<mlir::Value, mlir::Value>>
matchHalvesConcat(mlir::Value v);

/// The source of `tensor.extract_slice` of `[offset, offset + size)` of the
/// last dim of a tensor with unit strides that keeps every other dim whole.
mlir::Value matchLastDimSlice(mlir::Value v, int64_t offset, int64_t size);

/// linalg.transpose(v, permutation) into a new tensor.empty.
mlir::Value buildTranspose(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, llvm::ArrayRef<int64_t> permutation);

} // namespace posenc::raise

#endif // POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEUTILS_H
