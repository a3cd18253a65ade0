//===- RaiseTransposes.cpp - transposes moved above a GQA repeat ----------===//
//
// Meta's LLaMA code repeats K and V for GQA in its own [B, S, H, D] order
// and transposes afterwards:
//
//   keys = repeat_kv(xk, n_rep)   # [B, S, Hkv, 1, D] -> expand -> reshape
//   keys = keys.transpose(1, 2)   # [B, H, S, D]
//
// torch-mlir writes the repeat as an expand_shape inserting the unit dim, a
// copy generic reading it at index 0 (broadcastToGivenShape) and a
// collapse_shape; the transpose as a linalg.transpose after them. The
// attention raising expects HuggingFace's order (transpose, then repeat),
// and the transpose Meta's rope comes back with (RaiseRopeComplex.cpp:
// `transpose(rope(transpose(x)))`) cancels only when it meets this one. So
// a transpose of a repeat becomes the repeat of a transpose:
//
//   transpose(collapse(repeat(z)), P) = collapse'(broadcast(transpose(z, Pz)))
//
// with P expanded over the collapse's groups (a permutation of whole
// groups), Pz its restriction to z's dims and the broadcast dims moved with
// it. Every element is copied from the same element of z as before, so the
// rewrite is exact. Only permutations that move a leading dim are taken
// (a swap of the last two dims, K^T, stays where the attention matcher
// reads it; when P also swaps them the swap stays as a transpose of its
// own after the collapse). A transpose of an elementwise extf/truncf (Meta's
// `.float()` / `.type_as(xq)` around its rope in f16/bf16 models) moves
// above the cast the same way.
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

/// A repeat `y = broadcast(z, dims)`: `z` itself (linalg.broadcast), or the
/// source of torch-mlir's unsqueeze whose inserted unit dims are `dims`,
/// with `zGroups` the unsqueeze's groups without them (empty: `source` is
/// z as it is).
struct Repeat {
  Value source;
  SmallVector<ReassociationIndices> zGroups;
  SmallVector<int64_t> dims;
};

} // namespace

/// A copy generic reading its one input through `(d0, ..., 0, ..., dn)`,
/// the constant 0 on unit dims only (torch-mlir's `expand` of unit dims).
static std::optional<SmallVector<int64_t>> unitBroadcastDims(
    linalg::GenericOp g) {
  if (g.getNumDpsInputs() != 1 || g.getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getIndexingMapsArray()[1].isIdentity())
    return std::nullopt;
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 1 ||
      cast<linalg::YieldOp>(body.getTerminator()).getValues().front() !=
          body.getArgument(0))
    return std::nullopt;
  AffineMap map = g.getIndexingMapsArray()[0];
  auto type = cast<RankedTensorType>(g.getDpsInputs()[0].getType());
  if (map.getNumResults() != map.getNumDims())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (auto [k, e] : llvm::enumerate(map.getResults())) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (c && c.getValue() == 0 && type.getDimSize(k) == 1)
      dims.push_back(k);
    else if (e != getAffineDimExpr(k, g.getContext()))
      return std::nullopt;
  }
  if (dims.empty())
    return std::nullopt;
  return dims;
}

static std::optional<Repeat> matchRepeat(Value y) {
  if (auto bcast = y.getDefiningOp<linalg::BroadcastOp>())
    return Repeat{bcast.getInput(), {}, llvm::to_vector(bcast.getDimensions())};
  auto g = y.getDefiningOp<linalg::GenericOp>();
  std::optional<SmallVector<int64_t>> dims =
      g ? unitBroadcastDims(g) : std::nullopt;
  auto expand = dims ? g.getDpsInputs()[0].getDefiningOp<tensor::ExpandShapeOp>()
                     : tensor::ExpandShapeOp();
  if (!expand)
    return std::nullopt;
  // The unsqueeze's groups without the broadcast dims, renumbered.
  Repeat r{expand.getSrc(), {}, *dims};
  int64_t next = 0;
  bool trivial = true;
  for (const ReassociationIndices &group : expand.getReassociationIndices()) {
    ReassociationIndices kept;
    for (int64_t d : group)
      if (!llvm::is_contained(*dims, d))
        kept.push_back(next++);
    if (kept.empty())
      return std::nullopt;
    trivial &= kept.size() == 1;
    r.zGroups.push_back(kept);
  }
  if (trivial)
    r.zGroups.clear();
  return r;
}

/// `perm` with its last two entries in order, and whether they were not.
static std::pair<SmallVector<int64_t>, bool>
splitLastSwap(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> perm(permutation);
  int64_t rank = perm.size();
  bool swapLast = rank >= 2 && perm[rank - 2] > perm[rank - 1];
  if (swapLast)
    std::swap(perm[rank - 2], perm[rank - 1]);
  return {perm, swapLast};
}

/// The repeat TransposeAboveRepeat moves `op` above, if it applies: `op`
/// moves a leading dim of a (collapsed) repeat with static shapes.
static std::optional<Repeat> repeatBelow(linalg::TransposeOp op) {
  auto [perm, swapLast] = splitLastSwap(op.getPermutation());
  int64_t rank = perm.size();
  if (rank < 3 || llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    return std::nullopt;
  auto collapse = op.getInput().getDefiningOp<tensor::CollapseShapeOp>();
  Value y = collapse ? collapse.getSrc() : op.getInput();
  if (!cast<RankedTensorType>(y.getType()).hasStaticShape())
    return std::nullopt;
  return matchRepeat(y);
}

bool raise::isTransposeOfRepeat(Value v) {
  for (int step = 0; step < 4; ++step) {
    auto op = peelLeadingReshapes(v).getDefiningOp<linalg::TransposeOp>();
    if (!op)
      return false;
    if (repeatBelow(op))
      return true;
    v = op.getInput();
  }
  return false;
}

namespace {

struct TransposeAboveRepeat : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Repeat> repeat = repeatBelow(op);
    if (!repeat)
      return rewriter.notifyMatchFailure(
          op, "not a transpose of a leading dim of a static repeat");
    // P = swapLast . P1, P1 keeping the last two dims in their order.
    auto [perm, swapLast] = splitLastSwap(op.getPermutation());
    int64_t rank = perm.size();
    auto collapse = op.getInput().getDefiningOp<tensor::CollapseShapeOp>();
    Value y = collapse ? collapse.getSrc() : op.getInput();
    auto yType = cast<RankedTensorType>(y.getType());
    SmallVector<ReassociationIndices> groups;
    if (collapse)
      groups = collapse.getReassociationIndices();
    else
      for (int64_t d = 0; d < rank; ++d)
        groups.push_back({d});
    // P1 over y's dims, whole groups at a time.
    SmallVector<int64_t> yPerm;
    SmallVector<ReassociationIndices> newGroups;
    for (int64_t k : perm) {
      ReassociationIndices group;
      for (int64_t d : groups[k]) {
        group.push_back(yPerm.size());
        yPerm.push_back(d);
      }
      newGroups.push_back(group);
    }
    // Its restriction to z's dims, and where the broadcast dims go.
    SmallVector<int64_t> zIndex(yType.getRank(), -1), zPerm, newDims;
    for (int64_t d = 0, k = 0; d < yType.getRank(); ++d)
      if (!llvm::is_contained(repeat->dims, d))
        zIndex[d] = k++;
    SmallVector<int64_t> newShape;
    for (auto [i, d] : llvm::enumerate(yPerm)) {
      newShape.push_back(yType.getDimSize(d));
      if (zIndex[d] < 0)
        newDims.push_back(i);
      else
        zPerm.push_back(zIndex[d]);
    }
    Location loc = op.getLoc();
    Value z = repeat->source;
    if (!repeat->zGroups.empty()) {
      SmallVector<int64_t> zShape;
      for (int64_t d = 0; d < yType.getRank(); ++d)
        if (zIndex[d] >= 0)
          zShape.push_back(yType.getDimSize(d));
      z = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(zShape, yType.getElementType()),
          z, repeat->zGroups);
    }
    if (!llvm::equal(zPerm, llvm::seq<int64_t>(0, zPerm.size())))
      z = buildTranspose(rewriter, loc, z, zPerm);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, newShape, yType.getElementType());
    Value x = linalg::BroadcastOp::create(rewriter, loc, z, init, newDims)
                  ->getResult(0);
    if (collapse)
      x = tensor::CollapseShapeOp::create(rewriter, loc, x, newGroups);
    if (swapLast) {
      SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(swap[rank - 2], swap[rank - 1]);
      x = buildTranspose(rewriter, loc, x, swap);
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

/// transpose(cast(x)) -> cast(transpose(x)) for the elementwise extf/truncf
/// of Meta's `.float()` and `.type_as(xq)` around its rope: the transpose
/// back from the rope and the model's `transpose(1, 2)` then meet (and
/// cancel) across the truncf, and the rope's input transpose moves below
/// the extf, so that the casts sit right around the rope
/// (RaiseRopeComplex.cpp folds them into a rope on the half tensor). A
/// cast of each element commutes with moving the elements: exact.
struct TransposeAboveCast : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Elementwise> conv = matchElementwise(op.getInput());
    if (!conv || !isa<arith::ExtFOp, arith::TruncFOp>(conv->payload) ||
        conv->args.size() != 1 || !conv->args[0].input ||
        !conv->isIdentity(conv->args[0]) || !op.getInput().hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a transpose of a float cast");
    Location loc = op.getLoc();
    Value x = buildTranspose(rewriter, loc, conv->args[0].input->get(),
                             op.getPermutation());
    auto type = cast<RankedTensorType>(x.getType());
    Type elem = getElementTypeOrSelf(op.getResult()[0].getType());
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, x), elem);
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    bool ext = isa<arith::ExtFOp>(conv->payload);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), x, init, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value v = ext ? arith::ExtFOp::create(b, l, elem, args[0])
                                  .getResult()
                            : arith::TruncFOp::create(b, l, elem, args[0])
                                  .getResult();
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void raise::populateRaiseTransposePatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeAboveRepeat, TransposeAboveCast>(patterns.getContext());
  // Upstream's transpose canonicalizations: transpose(transpose(x)) folds
  // into one transpose (none when the permutations cancel), which removes
  // the transpose back from Meta's rope against the model's
  // `transpose(1, 2)`; a transpose of a linalg.broadcast moves above it.
  linalg::TransposeOp::getCanonicalizationPatterns(patterns,
                                                   patterns.getContext());
}
