//===- RaiseContractions.cpp - batched contraction generics -> batch_matmul ===//
//
// StableHLO's dot_general with two batch dims (JAX's `bhqd,bhkd->bhqk`
// einsum) and torch-mlir's matmul of 4-D tensors reach linalg as one
// `linalg.generic` contraction over [batch..., m, n, k], not as
// `linalg.batch_matmul`. The attention matcher (RaiseAttention.cpp) is
// written once, over batch_matmul on the flattened (batch, head) dims; this
// file brings the two contractions of an attention into that form:
//
//   out(L..., m, n) = sum_k a(L..., m, k) * b(L..., n, k)   (Q.K^T, b read
//                                                            transposed)
//   out(L..., m, n) = sum_k a(L..., m, k) * b(L..., k, n)   (P.V)
//
// each into a zero-filled init, becomes `expand(batch_matmul(collapse(a),
// [transpose](collapse(b))))`: the same products and sums in the same
// element type, an exact rewrite. It fires only on the P.V contraction of a
// softmax and on the Q.K^T contractions its scores come from, so that other
// contractions in a user's program are left as they are; when the attention
// matcher then declines (its remark says why), the rewritten contractions
// compute what the generics did.
//
// Upstream's linalg-specialize-generic-ops recognizes only the rank-3
// batch_matmul form, not more batch dims or a transposed operand, hence
// this pattern.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

namespace {

/// A batched contraction generic (see the file header).
struct Contraction {
  mutable linalg::GenericOp op;
  Value a, b;
  bool bTransposed; ///< b is [L..., n, k] (Q.K^T), else [L..., k, n]
};

} // namespace

/// Whether the body yields `out + x * y` with x, y the two input arguments.
static bool isMulAddBody(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3)
    return false;
  Value out = body.getArgument(2);
  Value prod = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != out && add.getRhs() != out))
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (mul.getLhs() == x && mul.getRhs() == y) ||
         (mul.getLhs() == y && mul.getRhs() == x);
}

/// Matches `v` as a statically shaped batched contraction generic with the
/// loops [L..., m, n, k] in that order, all operands of one float type.
static std::optional<Contraction> matchContraction(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      !isMulAddBody(g) || !isZeroFilled(g.getDpsInits()[0]))
    return std::nullopt;
  auto outType = cast<RankedTensorType>(g.getResultTypes()[0]);
  int64_t r = outType.getRank();
  if (r < 3 || g.getNumLoops() != r + 1 || !outType.hasStaticShape())
    return std::nullopt;
  auto iters = g.getIteratorTypesArray();
  for (int64_t d = 0; d < r; ++d)
    if (iters[d] != utils::IteratorType::parallel)
      return std::nullopt;
  if (iters[r] != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = g.getContext();
  auto dims = [&](ArrayRef<int64_t> ds) {
    SmallVector<AffineExpr> e;
    for (int64_t d : ds)
      e.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(r + 1, 0, e, ctx);
  };
  SmallVector<int64_t> lead = llvm::to_vector(llvm::seq<int64_t>(0, r - 2));
  auto with = [&](int64_t x, int64_t y) {
    SmallVector<int64_t> ds = lead;
    ds.append({x, y});
    return dims(ds);
  };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  int64_t m = r - 2, n = r - 1, k = r;
  if (maps[2] != with(m, n) || maps[0] != with(m, k))
    return std::nullopt;
  bool transposed = maps[1] == with(n, k);
  if (!transposed && maps[1] != with(k, n))
    return std::nullopt;
  Type elem = outType.getElementType();
  for (Value in : g.getDpsInputs())
    if (getElementTypeOrSelf(in.getType()) != elem ||
        !cast<ShapedType>(in.getType()).hasStaticShape())
      return std::nullopt;
  if (!isa<Float32Type, Float16Type, BFloat16Type>(elem))
    return std::nullopt;
  return Contraction{g, g.getDpsInputs()[0], g.getDpsInputs()[1], transposed};
}

/// Replaces `c` with expand(batch_matmul(collapse(a), [transpose]collapse(b))).
static void rewriteAsBatchMatmul(PatternRewriter &rewriter,
                                 const Contraction &c) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(c.op);
  Location loc = c.op.getLoc();
  auto outType = cast<RankedTensorType>(c.op.getResultTypes()[0]);
  Type elem = outType.getElementType();
  Value a = collapseLeadingDims(rewriter, loc, c.a);
  Value b = collapseLeadingDims(rewriter, loc, c.b);
  auto bType = cast<RankedTensorType>(b.getType());
  if (c.bTransposed) {
    Value init = tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{bType.getDimSize(0), bType.getDimSize(2),
                          bType.getDimSize(1)},
        elem);
    b = linalg::TransposeOp::create(rewriter, loc, b, init,
                                    ArrayRef<int64_t>{0, 2, 1})
            ->getResult(0);
  }
  int64_t r = outType.getRank();
  int64_t n = leadingProduct(outType);
  SmallVector<int64_t> shape3{n, outType.getDimSize(r - 2),
                              outType.getDimSize(r - 1)};
  Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getFloatAttr(elem, 0.0));
  Value init = linalg::FillOp::create(
                   rewriter, loc, zero,
                   tensor::EmptyOp::create(rewriter, loc, shape3, elem)
                       .getResult())
                   .getResult(0);
  Value product =
      linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                    ValueRange{a, b}, ValueRange{init})
          .getResult(0);
  Value result = product;
  if (r != 3) {
    ReassociationIndices leading =
        llvm::to_vector(llvm::seq<int64_t>(0, r - 2));
    result = tensor::ExpandShapeOp::create(
        rewriter, loc, outType, product,
        SmallVector<ReassociationIndices>{leading, {r - 2}, {r - 1}});
  }
  rewriter.replaceOp(c.op, result);
}

/// The Q.K^T contractions the softmax input `scores` is computed from
/// through elementwise generics and reshapes (a scale, a bias, a mask, a
/// cast), at most `depth` ops back.
static void collectScoreContractions(Value scores, int depth,
                                     SmallVectorImpl<Contraction> &found) {
  scores = peelLeadingReshapes(scores);
  if (std::optional<Contraction> c = matchContraction(scores)) {
    if (c->bTransposed)
      found.push_back(*c);
    return;
  }
  std::optional<Elementwise> e = matchElementwise(scores);
  if (!e || depth == 0)
    return;
  for (const Elementwise::Arg &arg : e->args)
    if (arg.input && e->isIdentity(arg))
      collectScoreContractions(arg.input->get(), depth - 1, found);
}

namespace {

/// Rooted at the P.V contraction: rewrites it and the Q.K^T contractions of
/// its softmax's scores (see the file header).
struct RaiseAttentionContractions : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Contraction> pv = matchContraction(op.getResult(0));
    if (!pv || pv->bTransposed)
      return rewriter.notifyMatchFailure(op, "not a P.V-shaped contraction");
    std::string why;
    std::optional<SoftmaxMatch> softmax = matchSoftmax(
        peelCast<arith::TruncFOp>(peelLeadingReshapes(pv->a)), why);
    if (!softmax)
      return rewriter.notifyMatchFailure(op, "P is not a softmax");
    SmallVector<Contraction> qk;
    collectScoreContractions(peelCast<arith::ExtFOp>(softmax->input),
                             /*depth=*/8, qk);
    for (const Contraction &c : qk)
      rewriteAsBatchMatmul(rewriter, c);
    rewriteAsBatchMatmul(rewriter, *pv);
    return success();
  }
};

} // namespace

void raise::populateRaiseContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseAttentionContractions>(patterns.getContext());
}
