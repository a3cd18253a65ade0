//===- RaiseContractions.cpp - attention contractions -> batch_matmul -----===//
//
// StableHLO's dot_general with two batch dims (JAX's `bhqd,bhkd->bhqk`
// einsum) and torch-mlir's matmul of 4-D tensors reach linalg as one
// `linalg.generic` contraction over [batch..., m, n, k] (its loops in any
// order: the reduction loop need not be last), not as
// `linalg.batch_matmul`; single-head or flattened graphs write the 2-D
// `linalg.matmul`, K^T by a `linalg.transpose` or, as MLIR 22 spells
// matmul_transpose_b, by the indexing maps `(m, k), (n, k), (m, n)`. The attention matcher (RaiseAttention.cpp) is
// written once, over batch_matmul on the flattened (batch, head) dims; this
// file brings the two contractions of an attention into that form:
//
//   out(L..., m, n) = sum_k a(L..., m, k) * b(L..., n, k)   (Q.K^T, b read
//                                                            transposed)
//   out(L..., m, n) = sum_k a(L..., m, k) * b(L..., k, n)   (P.V)
//
// each into a zero-filled init, becomes `expand(batch_matmul(collapse(a),
// [transpose](collapse(b))))` (2-D: a unit batch dim added and dropped):
// the same products, each output element summed over k in the same order,
// in the same element type, an exact rewrite. It fires only on the P.V contraction of a
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

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

namespace {

/// A batched contraction (see the file header).
struct Contraction {
  Operation *op;
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

/// For the loops of `op` (one reduction loop k, anywhere, and the parallel
/// loops the output reads as [L..., m, n]): whether a is read as [L..., m,
/// k] and b as [L..., n, k] (true) or [L..., k, n] (false).
static std::optional<bool> matchContractionMaps(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto iters = op.getIteratorTypesArray();
  int64_t numLoops = op.getNumLoops();
  if (llvm::count(iters, utils::IteratorType::reduction) != 1)
    return std::nullopt;
  int64_t k = llvm::find(iters, utils::IteratorType::reduction) - iters.begin();
  AffineMap out = maps[2];
  int64_t r = out.getNumResults();
  if (r < 2 || r + 1 != numLoops || !out.isProjectedPermutation() ||
      out.isFunctionOfDim(k))
    return std::nullopt;
  SmallVector<AffineExpr> lead(out.getResults().drop_back(2));
  AffineExpr m = out.getResult(r - 2), n = out.getResult(r - 1);
  AffineExpr kExpr = getAffineDimExpr(k, op.getContext());
  auto with = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> e(lead);
    e.append({x, y});
    return AffineMap::get(numLoops, 0, e, op.getContext());
  };
  if (maps[0] != with(m, kExpr))
    return std::nullopt;
  if (maps[1] == with(n, kExpr))
    return true;
  if (maps[1] == with(kExpr, n))
    return false;
  return std::nullopt;
}

/// Matches `v` as a batched contraction: a `linalg.matmul` (with the
/// default maps, or b read transposed as MLIR 22 writes
/// matmul_transpose_b), or a generic yielding `out + a * b`, with the loops
/// in any order (matchContractionMaps), into a zero-filled init, all
/// operands of one float type, the leading dims static (m, n, k may be
/// dynamic).
static std::optional<Contraction> matchContraction(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isZeroFilled(op.getDpsInits()[0]))
    return std::nullopt;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!(generic && isMulAddBody(generic)) && !isa<linalg::MatmulOp>(op))
    return std::nullopt;
  std::optional<bool> transposed = matchContractionMaps(op);
  auto outType = cast<RankedTensorType>(op->getResultTypes()[0]);
  if (!transposed || ShapedType::isDynamic(leadingProduct(outType)))
    return std::nullopt;
  Type elem = outType.getElementType();
  for (Value in : op.getDpsInputs())
    if (getElementTypeOrSelf(in.getType()) != elem)
      return std::nullopt;
  if (!isa<Float32Type, Float16Type, BFloat16Type>(elem))
    return std::nullopt;
  return Contraction{op, op.getDpsInputs()[0], op.getDpsInputs()[1],
                     *transposed};
}

/// Replaces `c` with expand(batch_matmul(collapse(a), [transpose]collapse(b)))
/// (for 2-D operands, the unit batch dim added and dropped again).
static void rewriteAsBatchMatmul(PatternRewriter &rewriter,
                                 const Contraction &c) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(c.op);
  Location loc = c.op->getLoc();
  auto outType = cast<RankedTensorType>(c.op->getResultTypes()[0]);
  Type elem = outType.getElementType();
  Value a = collapseLeadingDims(rewriter, loc, c.a);
  Value b = collapseLeadingDims(rewriter, loc, c.b);
  if (c.bTransposed)
    b = buildTranspose(rewriter, loc, b, ArrayRef<int64_t>{0, 2, 1});
  int64_t r = outType.getRank();
  SmallVector<OpFoldResult> outSizes =
      tensor::getMixedSizes(rewriter, loc, c.op->getResult(0));
  SmallVector<OpFoldResult> sizes3 = {
      rewriter.getIndexAttr(leadingProduct(outType)), outSizes[r - 2],
      outSizes[r - 1]};
  Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                         rewriter.getFloatAttr(elem, 0.0));
  Value init = linalg::FillOp::create(
                   rewriter, loc, zero,
                   tensor::EmptyOp::create(rewriter, loc, sizes3, elem)
                       .getResult())
                   .getResult(0);
  Value product =
      linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                    ValueRange{a, b}, ValueRange{init})
          .getResult(0);
  Value result = product;
  if (r == 2) {
    result = tensor::CollapseShapeOp::create(
        rewriter, loc, product, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  } else if (r != 3) {
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
  // K^T read transposed by the map, or transposed by an op before.
  if (std::optional<Contraction> c = matchContraction(scores)) {
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
struct RaiseAttentionContractions
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || isa<linalg::BatchMatmulOp>(op))
      return rewriter.notifyMatchFailure(op, "not a contraction to rewrite");
    std::optional<Contraction> pv = matchContraction(op->getResult(0));
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

std::optional<std::string> raise::explainContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || isa<linalg::BatchMatmulOp>(op) ||
      linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumReductionLoops() != 1)
    return std::string();
  std::string why;
  if (!matchSoftmax(peelCast<arith::TruncFOp>(
                        peelLeadingReshapes(linalgOp.getDpsInputs()[0])),
                    why))
    return std::string(); // not the P.V of a softmax: not a candidate
  std::optional<Contraction> pv = matchContraction(op->getResult(0));
  if (!pv)
    return std::string("the P.V product is not a contraction out + P * V "
                       "read as [L..., m, k] x [L..., k, n] into a "
                       "zero-filled init, in one float type, with static "
                       "leading dims");
  if (pv->bTransposed)
    return std::string("the P.V product reads V transposed ([L..., n, k])");
  return std::nullopt;
}

/// Whether no product `a * b` of an entry of `a` and one of `b` can be
/// -0: `a` a constant of positive finite entries (inverse frequencies) and
/// `b` sitofp of integers (never -0; a positive value times an integer is
/// +0 only for the integer 0, never an underflow since |int| >= 1).
static bool productsNeverNegativeZero(Value a, Value b) {
  std::optional<SmallVector<double>> values = getConstantValues(a);
  std::optional<Elementwise> cast = matchElementwiseOf<arith::SIToFPOp>(b);
  return values && cast &&
         llvm::all_of(*values, [](double v) { return v > 0 && std::isfinite(v); });
}

/// Whether OuterProductAngles rewrites `op` (see there).
static bool isOuterProduct(linalg::BatchMatmulOp op) {
  Value a = op.getDpsInputs()[0], c = op.getDpsInputs()[1];
  auto aType = cast<RankedTensorType>(a.getType());
  auto outType = cast<RankedTensorType>(op.getResult(0).getType());
  return !cast<linalg::LinalgOp>(op.getOperation()).hasUserDefinedMaps() &&
         aType.getDimSize(2) == 1 && outType.getElementType().isF32() &&
         aType.getElementType() == outType.getElementType() &&
         isZeroFilled(op.getDpsInits()[0]) &&
         (productsNeverNegativeZero(a, c) || productsNeverNegativeZero(c, a));
}

bool raise::isPendingOuterProduct(Value v) {
  for (int step = 0; step < 8 && v; ++step) {
    v = peelUnitReshapes(v);
    if (auto t = v.getDefiningOp<linalg::TransposeOp>())
      v = t.getInput();
    if (auto mm = v.getDefiningOp<linalg::BatchMatmulOp>())
      return isOuterProduct(mm);
    if (auto concat = v.getDefiningOp<tensor::ConcatOp>()) {
      v = concat.getInputs().front();
      continue;
    }
    std::optional<Elementwise> e = matchElementwise(v);
    if (!e || !e->args[0].input)
      return false;
    v = e->args[0].input->get();
  }
  return false;
}

namespace {

/// HuggingFace's LlamaRotaryEmbedding computes the angles as a matmul:
///
///   freqs = (inv_freq[None, :, None].float().expand(B, -1, 1)
///            @ position_ids[:, None, :].float()).transpose(1, 2)
///
/// which torch-mlir lowers to a linalg.batch_matmul [B, D/2, 1] x [B, 1, S]
/// into a zero-filled init, and a linalg.transpose [0, 2, 1]. With the
/// contraction size 1 (static) each output element is `0 + a[b, p, 0] *
/// c[b, 0, s]`, which equals the product except that 0 + (-0) is +0; when
/// no product can be -0 (productsNeverNegativeZero: positive constant
/// frequencies, integer positions) it is the product bit for bit. So the
/// transpose of the matmul (or the matmul itself) becomes the elementwise
/// product generic `float(positions) * inv_freq` the RoPE angle matcher
/// reads (RaiseRope.cpp), read through broadcasting maps.
struct OuterProductAngles : OpRewritePattern<linalg::BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isOuterProduct(op))
      return rewriter.notifyMatchFailure(
          op, "not a static K = 1 f32 product of positive constants and "
              "integers (a -0 product would read +0 from the matmul)");
    Value a = op.getDpsInputs()[0], c = op.getDpsInputs()[1];
    // The matmul's one transpose [0, 2, 1], if it has one, is built in.
    Operation *root = op;
    bool transposed = false;
    if (op->hasOneUse())
      if (auto t = dyn_cast<linalg::TransposeOp>(*op->user_begin());
          t && llvm::equal(t.getPermutation(), ArrayRef<int64_t>{0, 2, 1})) {
        root = t;
        transposed = true;
      }
    MLIRContext *ctx = op.getContext();
    AffineExpr b = getAffineDimExpr(0, ctx), zero = getAffineConstantExpr(0, ctx);
    AffineExpr m = getAffineDimExpr(transposed ? 2 : 1, ctx);
    AffineExpr n = getAffineDimExpr(transposed ? 1 : 2, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {b, m, zero}, ctx),
                                   AffineMap::get(3, 0, {b, zero, n}, ctx),
                                   AffineMap::getMultiDimIdentityMap(3, ctx)};
    auto resultType = cast<RankedTensorType>(root->getResult(0).getType());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, root->getResult(0)),
        resultType.getElementType());
    SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, resultType, ValueRange{a, c}, init, maps, iterators,
            [](OpBuilder &nb, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  nb, l,
                  arith::MulFOp::create(nb, l, args[0], args[1]).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(root, product);
    return success();
  }
};

} // namespace

void raise::populateRaiseContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseAttentionContractions, OuterProductAngles>(
      patterns.getContext());
}
