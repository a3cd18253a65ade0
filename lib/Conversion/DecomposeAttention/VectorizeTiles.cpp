//===- VectorizeTiles.cpp - register tiles and vectors for attention ------===//
//
// The CPU code generation of the flash-style decomposition, in two passes
// around bufferization:
//
//  * --posenc-vectorize-attention-tiles (tensors): tiles every linalg op the
//    decomposition marked with `posenc.vector_tile` to its register tile and
//    vectorizes the static tiles with upstream linalg::vectorize. Multiply-add
//    reductions are folded into vector.contract.
//  * --posenc-lower-attention-vectors (memrefs): hoists the accumulator
//    transfers out of the reduction loops, forwards their initial values in
//    registers (dropping the tile stores that become dead), lowers
//    contractions to outer
//    products (one FMA per accumulator row with a broadcast scalar), lowers
//    reductions across rows to elementwise ops, and replaces f32 exp/sin/cos
//    with the upstream polynomial approximations so they stay in vectors.
//
// Everything here is upstream transformations; the decomposition only
// chooses the layout and the tile sizes.
//
//===----------------------------------------------------------------------===//

#include "LocalTileForwarding.h"
#include "TileBuilders.h"

#include "posenc/Conversion/Passes.h"
#include "posenc/Conversion/TargetVectorWidth.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/Sequence.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCVECTORIZEATTENTIONTILESPASS
#define GEN_PASS_DEF_POSENCLOWERATTENTIONVECTORSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;

namespace {

using posenc::decompose::kExactTileAttr;
using posenc::decompose::kFuseInitAttr;
using posenc::decompose::kFuseIntoTilesAttr;
using posenc::decompose::kVectorTileAttr;

/// Vectorizes `op` if upstream can (static shapes); otherwise leaves it.
static void vectorizeIfStatic(RewriterBase &rewriter, Operation *op) {
  if (failed(linalg::vectorizeOpPrecondition(op, {}, {},
                                             /*vectorizeNDExtract=*/true)))
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> result =
      linalg::vectorize(rewriter, op, {}, {}, /*vectorizeNDExtract=*/true);
  if (failed(result))
    return;
  if (op->getNumResults())
    rewriter.replaceOp(op, result->replacements);
  else
    rewriter.eraseOp(op);
}

/// The largest divisor of `size` that is at most `limit` (>= 1).
static int64_t largestDivisorAtMost(int64_t size, int64_t limit) {
  for (int64_t d = std::max<int64_t>(limit, 1); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

/// Scales the register tile `sizes` of `op`, marked for 512-bit vectors
/// (32 registers), to `vectorBits`: every parallel dim tiled by more than 1
/// (the accumulator's rows and lanes) shrinks by the width ratio, to a
/// divisor of its marked size (which divides the op's dim), so that with
/// 256-bit vectors (16 registers) the accumulator takes the same share of
/// the register file. Reduction dims keep their step.
static SmallVector<int64_t> scaleRegisterTile(linalg::LinalgOp op,
                                              ArrayRef<int64_t> sizes,
                                              int64_t vectorBits) {
  SmallVector<int64_t> scaled(sizes);
  if (vectorBits >= 512 || vectorBits <= 0)
    return scaled;
  int64_t ratio = 512 / vectorBits;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [loop, size] : llvm::enumerate(scaled))
    if (size > 1 && loop < iterators.size() &&
        iterators[loop] == utils::IteratorType::parallel)
      size = largestDivisorAtMost(size, size / ratio);
  return scaled;
}

/// One level of a pairwise tree: `combine` of each adjacent pair of
/// `values`, in order; an odd last value passes to the next level as it is.
static SmallVector<Value>
combineAdjacent(ArrayRef<Value> values,
                llvm::function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> next;
  for (size_t i = 0; i + 1 < values.size(); i += 2)
    next.push_back(combine(values[i], values[i + 1]));
  if (values.size() % 2)
    next.push_back(values.back());
  return next;
}

/// Reduces the lanes of each row of an [R x N] block (N = 4, 8 or 16 lanes;
/// R = N, or R a multiple of 4 below N) into one vector of R results, row r
/// in lane r, by a transpose-and-add tree: each level pairs adjacent
/// vectors x, y and adds two shuffles of them (a = x's and y's even parts,
/// b = their odd parts), halving the vectors and the lanes per row. The
/// first two levels shuffle within 128-bit chunks (shufps), the others move
/// whole chunks (vshuff32x4 / vperm2f128), and the rows come out in order:
/// 2N - 2 shuffles and N - 1 combining ops for N rows. Upstream lowers a
/// reduction of the inner dim either row by row (InnerReduction: log2 N
/// shuffles per row plus the inserts) or through a full N x N transpose
/// (InnerParallel: about 4N shuffles); this tree reduces while it
/// transposes. It is what the score contraction with the head dim on the
/// lanes (a decode tile's partial products, one [keys x lanes] block per
/// query row) needs so that its scores come out with the keys on the lanes.
///
/// With fewer rows than lanes (the softmax's row max and row sum of a
/// decode tile of 4 rows with the keys on the lanes, [4 x 16] at 512 bits)
/// the two in-chunk levels leave R / 4 vectors whose chunks each hold four
/// rows' partial results; each is folded in halves down to one chunk and
/// the chunks are concatenated. Upstream's InnerParallel lowering
/// transposed the block into N vectors of R lanes and combined them one by
/// one (for maxnumf three instructions each). The row max is the same
/// whatever the order; the row sum's rounding changes with it.
struct ReduceLaneBlockByTree
    : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    int64_t rank = type.getRank();
    // A masked reduction (the body of a vector.mask, which holds one op)
    // stays with upstream's mask-aware lowering.
    if (isa_and_nonnull<vector::MaskOp>(op->getParentOp()) || rank < 2 ||
        type.isScalable() || !isa<FloatType>(type.getElementType()) ||
        op.getReductionDims() != ArrayRef<int64_t>{rank - 1})
      return failure();
    int64_t n = type.getDimSize(rank - 1), numRows = type.getDimSize(rank - 2);
    if ((n != 4 && n != 8 && n != 16) || type.getNumElements() != numRows * n ||
        (numRows != n && (numRows % 4 != 0 || n % numRows != 0)))
      return failure();
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    Value block = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({numRows, n}, elem), op.getSource());
    SmallVector<Value> rows;
    for (int64_t r = 0; r < numRows; ++r)
      rows.push_back(vector::ExtractOp::create(rewriter, loc, block, r));
    // Lane e of `a` (`b` adds 1 or a chunk) in each level: within a chunk
    // of 4 (t = e % 4), two elements of x then two of y.
    auto level = [&](ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
      rows = combineAdjacent(rows, [&](Value x, Value y) {
        Value lo = vector::ShuffleOp::create(rewriter, loc, x, y, a);
        Value hi = vector::ShuffleOp::create(rewriter, loc, x, y, b);
        return vector::makeArithReduction(rewriter, loc, op.getKind(), lo, hi);
      });
    };
    SmallVector<int64_t> a(n), b(n);
    // Level 1: per chunk [x0, x1, y0, y1] + [x2, x3, y2, y3].
    for (int64_t e = 0; e < n; ++e) {
      int64_t chunk = e - e % 4, t = e % 4;
      a[e] = t < 2 ? chunk + t : n + chunk + t - 2;
      b[e] = a[e] + 2;
    }
    level(a, b);
    // Level 2: per chunk [x0, x2, y0, y2] + [x1, x3, y1, y3].
    for (int64_t e = 0; e < n; ++e) {
      int64_t chunk = e - e % 4, t = e % 4;
      a[e] = t < 2 ? chunk + 2 * t : n + chunk + 2 * (t - 2);
      b[e] = a[e] + 1;
    }
    level(a, b);
    if (numRows < n)
      return foldChunks(rewriter, op, rows);
    // Chunk levels: x's even chunks then y's + their odd chunks.
    int64_t chunks = n / 4;
    for (int64_t e = 0; e < n; ++e) {
      int64_t k = e / 4, t = e % 4;
      a[e] = k < chunks / 2 ? 8 * k + t : n + 8 * (k - chunks / 2) + t;
      b[e] = a[e] + 4;
    }
    while (rows.size() > 1)
      level(a, b);
    return combineWithAcc(rewriter, op, rows[0]);
  }

private:
  /// `reduced` (the rows' results in order) combined with the reduction's
  /// accumulator, replacing `op`.
  static LogicalResult combineWithAcc(PatternRewriter &rewriter,
                                      vector::MultiDimReductionOp op,
                                      Value reduced) {
    Location loc = op.getLoc();
    Value acc = vector::ShapeCastOp::create(
        rewriter, loc, cast<VectorType>(reduced.getType()), op.getAcc());
    Value result =
        vector::makeArithReduction(rewriter, loc, op.getKind(), reduced, acc);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, op.getDestType(),
                                                     result);
    return success();
  }

  /// Fewer rows than lanes: each of `groups` (after the two in-chunk
  /// levels, chunk c of group g holds rows 4g..4g+3 reduced over chunk c's
  /// lanes) folded in halves down to its first chunk, the groups'
  /// chunks then concatenated in order.
  static LogicalResult foldChunks(PatternRewriter &rewriter,
                                  vector::MultiDimReductionOp op,
                                  ArrayRef<Value> groups) {
    Location loc = op.getLoc();
    auto halves = [](int64_t width, int64_t from) {
      return llvm::to_vector(llvm::seq<int64_t>(from, from + width / 2));
    };
    SmallVector<Value> chunks;
    for (Value v : groups) {
      for (int64_t width = cast<VectorType>(v.getType()).getNumElements();
           width > 4; width /= 2) {
        Value lo =
            vector::ShuffleOp::create(rewriter, loc, v, v, halves(width, 0));
        Value hi = vector::ShuffleOp::create(rewriter, loc, v, v,
                                             halves(width, width / 2));
        v = vector::makeArithReduction(rewriter, loc, op.getKind(), lo, hi);
      }
      chunks.push_back(v);
    }
    // Concatenated pairwise (R / 4 is 1 or 2 groups of equal width).
    while (chunks.size() > 1)
      chunks = combineAdjacent(chunks, [&](Value x, Value y) -> Value {
        int64_t width = cast<VectorType>(x.getType()).getNumElements();
        return vector::ShuffleOp::create(
            rewriter, loc, x, y,
            llvm::to_vector(llvm::seq<int64_t>(0, 2 * width)));
      });
    return combineWithAcc(rewriter, op, chunks[0]);
  }
};

/// Reduces the rows of an [R x N] block (R >= 2) elementwise by a pairwise
/// tree, then combines the result with the accumulator: the register tile
/// of a reduction over keys with the rows on the lanes (the online
/// softmax's row max and row sum of decode tiles of 16 and 64 rows and of
/// the prefill tile, [8 keys x rows] per iteration of a loop over the key
/// tile). Upstream's InnerParallel lowering folds the R rows into the
/// accumulator one after another, so the loop carries a chain of R ops per
/// iteration (for maxnumf three instructions each); the tree carries one.
/// The max is the same whatever the order; the sum's rounding changes.
struct ReduceRowsByTree : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    // Masked reductions: upstream's mask-aware lowering (as above).
    if (isa_and_nonnull<vector::MaskOp>(op->getParentOp()) ||
        type.getRank() != 2 || type.isScalable() ||
        !isa<FloatType>(type.getElementType()) ||
        op.getReductionDims() != ArrayRef<int64_t>{0} || type.getDimSize(0) < 2)
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> rows;
    for (int64_t r = 0; r < type.getDimSize(0); ++r)
      rows.push_back(
          vector::ExtractOp::create(rewriter, loc, op.getSource(), r));
    while (rows.size() > 1)
      rows = combineAdjacent(rows, [&](Value x, Value y) {
        return vector::makeArithReduction(rewriter, loc, op.getKind(), x, y);
      });
    rewriter.replaceOp(op,
                       vector::makeArithReduction(rewriter, loc, op.getKind(),
                                                  rows[0], op.getAcc()));
    return success();
  }
};

/// Whether `op` has a parallel dim that indexes both operands and the
/// accumulator (the lanes of the head-dim-on-lanes score contraction) and
/// only unit reduction dims: elementwise FMAs, which the outer-product
/// lowering cannot express (it would unroll the shared dim to scalars).
static bool isLaneParallelContraction(vector::ContractionOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> sizes;
  op.getIterationBounds(sizes);
  bool shared = false;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    auto indexes = [&, dim = dim](AffineMap map) {
      return map.getResultPosition(getAffineDimExpr(dim, op.getContext()))
          .has_value();
    };
    if (iterator == vector::IteratorType::reduction && sizes[dim] != 1)
      return false;
    if (iterator == vector::IteratorType::parallel &&
        llvm::all_of(maps, indexes))
      shared = true;
  }
  return shared;
}

/// Tiles `op` by `sizes` and vectorizes each tile.
static void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                             ArrayRef<int64_t> sizes) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return;
  rewriter.replaceOp(op, tiled->replacements);
  for (Operation *tile : tiled->tiledOps)
    vectorizeIfStatic(rewriter, tile);
}

/// Tiles a reduction `op` marked with `posenc.vector_tile_fuse_init` in two
/// levels: first its parallel dims, with the producer of its destination (a
/// zero fill, or the online softmax's rescale `alpha * acc`) fused into
/// each tile by upstream tile-and-fuse, then the reduction dims of that
/// tile. Each accumulator tile is then initialized (zeroed or rescaled)
/// right before its reduction loop: no pass over the whole destination
/// first, which LLVM interleaves with the register tiles (keeping the next
/// tile's rescaled accumulators live, spilling its own) or stores as a
/// zero-filled buffer. Tiling all dims at once cannot fuse the producer:
/// its slice would be recomputed in every step of the reduction loop.
static void tileFusingInit(RewriterBase &rewriter, linalg::LinalgOp op,
                           ArrayRef<int64_t> sizes) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> parallel(sizes);
  for (auto [loop, size] : llvm::enumerate(parallel))
    if (iterators[loop] == utils::IteratorType::reduction)
      size = 0;
  // The destinations' producers that only this op uses.
  llvm::SmallDenseSet<Value> fusable;
  for (Value init : op.getDpsInits())
    if (init.hasOneUse() && init.getDefiningOp<linalg::LinalgOp>())
      fusable.insert(init);
  // And the operands' producers marked to be fused into the tiles.
  for (Value input : op.getDpsInputs())
    if (Operation *producer = input.getDefiningOp<linalg::LinalgOp>())
      if (input.hasOneUse() && producer->hasAttr(kFuseIntoTilesAttr))
        fusable.insert(input);
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), parallel));
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!fusable.contains(producer))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(fused)) {
    tileAndVectorize(rewriter, op, sizes);
    return;
  }
  for (OpResult result : op->getResults())
    rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
  auto tiled = cast<linalg::LinalgOp>(fused->tiledAndFusedOps.front());
  for (Operation *producer : llvm::drop_begin(fused->tiledAndFusedOps))
    vectorizeIfStatic(rewriter, producer);
  // The reduction dims of the tile; its parallel dims are whole already.
  SmallVector<int64_t> reduction(sizes);
  for (auto [loop, size] : llvm::enumerate(reduction))
    if (iterators[loop] == utils::IteratorType::parallel)
      size = 0;
  tileAndVectorize(rewriter, tiled, reduction);
}

struct PosencVectorizeAttentionTilesPass
    : posenc::impl::PosencVectorizeAttentionTilesPassBase<
          PosencVectorizeAttentionTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    int64_t bits = posenc::resolveVectorBits(vectorBits);
    SmallVector<linalg::LinalgOp> marked;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorTileAttr))
        marked.push_back(op);
    });
    // Reductions fusing their destination's producer first: a producer
    // fused into their tiles is left without uses and erased below.
    std::stable_partition(
        marked.begin(), marked.end(),
        [](linalg::LinalgOp op) { return op->hasAttr(kFuseInitAttr); });
    IRRewriter rewriter(ctx);
    for (linalg::LinalgOp op : marked) {
      if (op->getNumResults() && op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      ArrayRef<int64_t> marks =
          cast<DenseI64ArrayAttr>(op->getAttr(kVectorTileAttr)).asArrayRef();
      bool exact = op->hasAttr(kExactTileAttr);
      SmallVector<int64_t> sizes = exact ? SmallVector<int64_t>(marks)
                                         : scaleRegisterTile(op, marks, bits);
      op->removeAttr(kVectorTileAttr);
      op->removeAttr(kExactTileAttr);
      bool fuseInit = op->hasAttr(kFuseInitAttr);
      op->removeAttr(kFuseInitAttr);
      if (llvm::all_of(sizes, [](int64_t s) { return s == 0; })) {
        vectorizeIfStatic(rewriter, op);
        continue;
      }
      if (fuseInit)
        tileFusingInit(rewriter, op, sizes);
      else
        tileAndVectorize(rewriter, op, sizes);
    }

    // Fold the broadcast-multiply-reduce form of the contractions into
    // vector.contract and clean up the transfers of the tiles.
    RewritePatternSet patterns(ctx);
    // Broadcasting reads become read + vector.broadcast, which the contract
    // patterns fold into the contraction's indexing maps.
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    vector::ContractionOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

struct PosencLowerAttentionVectorsPass
    : posenc::impl::PosencLowerAttentionVectorsPassBase<
          PosencLowerAttentionVectorsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    // The accumulator of each register tile stays in registers across its
    // reduction loop.
    linalg::hoistRedundantVectorTransfers(func, /*verifyNonZeroTrip=*/true);
    // Hoisting leaves each register tile's accumulator as "write the
    // initial value (the fused zero fill, the rescaled P V accumulator);
    // read it; loop; write the result" on the tile's buffer: the initial
    // value goes to the loop in registers and the write the result
    // overwrites is dropped (16 stores per [4 x 4 x 16] score tile;
    // LocalTileForwarding.cpp says why not upstream's transferOpflowOpt).
    posenc::decompose::forwardLocalTileStores(func);

    // Contractions whose lanes are a dim of both operands: elementwise FMAs.
    SmallVector<Operation *> laneParallel;
    func.walk([&](vector::ContractionOp op) {
      if (isLaneParallelContraction(op))
        laneParallel.push_back(op);
    });
    RewritePatternSet elementwise(ctx);
    vector::populateVectorContractLoweringPatterns(
        elementwise, vector::VectorContractLowering::ParallelArith);
    if (failed(applyOpPatternsGreedily(laneParallel, std::move(elementwise))))
      return signalPassFailure();

    RewritePatternSet patterns(ctx);
    patterns.add<ReduceLaneBlockByTree>(ctx, /*benefit=*/2);
    patterns.add<ReduceRowsByTree>(ctx, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // Polynomial exp/sin/cos for the vectorized tiles only: scalar math
    // (the reference lowering, unvectorized fallbacks) keeps libm.
    SmallVector<Operation *> vectorMath;
    func.walk([&](Operation *op) {
      if (isa<math::ExpOp, math::SinOp, math::CosOp>(op) &&
          isa<VectorType>(op->getResult(0).getType()))
        vectorMath.push_back(op);
    });
    RewritePatternSet mathPatterns(ctx);
    populateMathPolynomialApproximationPatterns(
        mathPatterns, [](StringRef name) {
          return name == math::ExpOp::getOperationName() ||
                 name == math::SinOp::getOperationName() ||
                 name == math::CosOp::getOperationName();
        });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(vectorMath, std::move(mathPatterns),
                                       config)))
      return signalPassFailure();

    // SCF-to-OpenMP wraps each parallel iteration in memref.alloca_scope,
    // a single-block region that SCF-to-CF would then split into several
    // blocks (invalid). Nothing inside allocates on the stack (tiles are
    // heap buffers, transfers are fully unrolled), so the scope is inlined.
    SmallVector<memref::AllocaScopeOp> scopes;
    func.walk([&](memref::AllocaScopeOp scope) {
      bool allocates = false;
      scope.walk([&](memref::AllocaOp) { allocates = true; });
      if (!allocates)
        scopes.push_back(scope);
    });
    IRRewriter rewriter(ctx);
    for (memref::AllocaScopeOp scope : scopes) {
      Block &body = scope.getBodyRegion().front();
      Operation *terminator = body.getTerminator();
      SmallVector<Value> results(terminator->getOperands());
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(&body, scope);
      rewriter.replaceOp(scope, results);
    }
  }
};

} // namespace
