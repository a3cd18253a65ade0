//===- AttentionToGPU.cpp - flash attention onto GPU blocks and threads ---===//
//
// The GPU half of "one IR, two targets": the CPU and the GPU both lower
// posenc.fused_attention with --posenc-decompose-attention; this pass maps the
// bufferized result onto a GPU.
//
//   scf.forall (lead..., qt) {                 gpu.launch blocks(qt, h, b...)
//     tile buffers (memref.alloc)          ->  private / workgroup attributions
//     linalg tile ops                      ->  one row per thread (or strided)
//     scf.for key tile { ... }                 + gpu.barrier where shared
//   }
//
// Why not upstream: `transform.gpu.map_forall_to_blocks` and
// `map_nested_forall_to_threads` need static forall bounds (the query tile
// count depends on the dynamic sequence length) and thread-level foralls
// produced by tiling each tile op, with no placement of the tile buffers;
// `gpu-map-parallel-loops` maps three loop dimensions to blocks and runs one
// thread per block. The mapping here is small and specific: rows of a tile to
// threads, buffers that a thread only indexes at its own row to private
// memory, everything else that the block shares to workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "TileBounds.h"

#include "posenc/Conversion/AttentionToGPU/AttentionToGPU.h"
#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUMAPATTENTIONPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

/// Marks the copies that stage a global tile into a block buffer: they are
/// mapped with consecutive threads on consecutive elements (coalesced).
static constexpr StringLiteral kStagingAttr = "posenc.gpu_staging";

/// Whether the index `v` is the thread's row `tid` (directly or through an
/// identity affine.apply, as linalg's loop lowering writes indices).
static bool isThreadRow(Value v, Value tid) {
  if (v == tid)
    return true;
  auto apply = v.getDefiningOp<affine::AffineApplyOp>();
  if (!apply || apply.getAffineMap().getNumResults() != 1)
    return false;
  auto dim = dyn_cast<AffineDimExpr>(apply.getAffineMap().getResult(0));
  return dim && apply.getMapOperands()[dim.getPosition()] == tid;
}

namespace {

/// One mapped tile op: the op that replaced its parallel loop (an scf.if for
/// one row per thread, an scf.for for strided threads) and the barrier after
/// it (null when emulating).
struct MappedOp {
  Operation *op;
  gpu::BarrierOp barrier;
};

class AttentionMapper {
public:
  AttentionMapper(RewriterBase &rewriter, scf::ForallOp forall,
                  const AttentionGPUMappingOptions &options)
      : rewriter(rewriter), forall(forall), options(options) {}

  LogicalResult run();

private:
  LogicalResult checkForall();
  Block *replaceForallByLaunch();
  void stageContractionOperands(Block *body);
  LogicalResult convertTileOpsToLoops(Block *body);
  void mapParallelLoop(scf::ParallelOp loop, bool strided);
  FailureOr<SmallVector<int64_t>> boundedShape(memref::AllocOp alloc);
  LogicalResult replaceDimsBySizes(memref::AllocOp alloc);
  FailureOr<bool> isRowPrivate(memref::AllocOp alloc);
  Value placeBuffer(memref::AllocOp alloc, ArrayRef<int64_t> shape,
                    bool isPrivate, int64_t &workgroupBytes);
  void redirectAccesses(memref::AllocOp alloc, Value replacement,
                        bool isPrivate);
  LogicalResult placeBuffers(Block *body);
  void dropUnneededBarriers();

  RewriterBase &rewriter;
  scf::ForallOp forall;
  const AttentionGPUMappingOptions &options;
  gpu::LaunchOp launch;
  /// The thread id in the launch (GPU mode).
  Value threadId;
  SmallVector<MappedOp> mapped;
};

} // namespace

LogicalResult AttentionMapper::checkForall() {
  if (forall.getNumResults() != 0)
    return forall.emitError("posenc-gpu-map-attention: expected a bufferized "
                            "scf.forall (memref semantics, no results)");
  if (!forall.isNormalized())
    return forall.emitError("posenc-gpu-map-attention: expected a normalized "
                            "scf.forall (lower bounds 0, steps 1)");
  if (options.blockSize < 1 || options.blockSize > 1024)
    return forall.emitError("posenc-gpu-map-attention: block-size (")
           << options.blockSize << ") must be in [1, 1024]";
  return success();
}

/// A contraction (a linalg op with a reduction) reads each element of its
/// operands once per output row: a tile of a global operand that it reads
/// inside the key loop (the V tile of P.V) is first copied into a block
/// buffer (marked as staging, later in shared memory). Element-wise ops that
/// read a global tile once (the K prologue) already write a block buffer.
void AttentionMapper::stageContractionOperands(Block *body) {
  SmallVector<memref::SubViewOp> toStage;
  body->walk([&](memref::SubViewOp subview) {
    if (!subview->getParentOfType<scf::ForOp>())
      return;
    // Only tiles of buffers from outside the block (global memory).
    if (forall->isAncestor(subview.getSource().getParentBlock()->getParentOp()))
      return;
    bool readByContraction = false;
    for (OpOperand &use : subview->getUses()) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!linalgOp || !linalgOp.isDpsInput(&use))
        return;
      if (linalgOp.getNumReductionLoops() > 0)
        readByContraction = true;
    }
    if (readByContraction)
      toStage.push_back(subview);
  });
  for (memref::SubViewOp subview : toStage) {
    Location loc = subview.getLoc();
    rewriter.setInsertionPointAfter(subview);
    MemRefType viewType = subview.getType();
    auto tileType =
        MemRefType::get(viewType.getShape(), viewType.getElementType());
    // The view's dynamic dims are its dynamic sizes, in order (dims the
    // view drops are static unit dims).
    SmallVector<Value> dynamicSizes(subview.getSizes());
    if (dynamicSizes.size() !=
        static_cast<size_t>(tileType.getNumDynamicDims()))
      continue;
    auto tile = memref::AllocOp::create(rewriter, loc, tileType, dynamicSizes);
    auto copy = linalg::CopyOp::create(rewriter, loc, subview.getResult(),
                                       tile.getResult());
    copy->setAttr(kStagingAttr, rewriter.getUnitAttr());
    rewriter.replaceAllUsesExcept(subview.getResult(), tile.getResult(), copy);
    // Freed at the end of its block, as the deallocation pipeline would.
    rewriter.setInsertionPoint(tile->getBlock()->getTerminator());
    memref::DeallocOp::create(rewriter, loc, tile.getResult());
  }
}

/// Every linalg op and memref.copy of the block becomes parallel loops
/// (reductions as sequential scf.for inside), each outermost one then mapped
/// to the threads.
LogicalResult AttentionMapper::convertTileOpsToLoops(Block *body) {
  SmallVector<memref::CopyOp> copies;
  body->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    rewriter.eraseOp(copy);
  }
  SmallVector<linalg::LinalgOp> tileOps;
  body->walk([&](linalg::LinalgOp op) { tileOps.push_back(op); });
  for (linalg::LinalgOp op : tileOps) {
    // A tile op of few rows (kSpreadOverThreadsAttr) is strided like a
    // staging copy: one row per thread would leave most threads idle.
    bool strided = op->hasAttr(kStagingAttr) ||
                   op->hasAttr(kSpreadOverThreadsAttr);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToParallelLoops(rewriter, op);
    if (failed(loops) || loops->empty())
      return op->emitError("posenc-gpu-map-attention: cannot convert this "
                           "tile op to parallel loops");
    rewriter.eraseOp(op);
    auto outer = dyn_cast<scf::ParallelOp>(loops->front());
    if (!outer)
      return loops->front()->emitError(
          "posenc-gpu-map-attention: a tile op without a parallel dimension "
          "is not supported");
    mapParallelLoop(outer, strided);
  }
  return success();
}

/// Replaces `loop` (the outermost parallel loop of a tile op) by its
/// distribution over the block's threads, followed by a barrier:
///  - one row per thread when dimension 0 is [0, ub) with ub <= block size
///    and the op is not `strided`:
///      scf.if %tid < %ub { %i0 = %tid; scf.for %i1 ... { body } }
///  - otherwise strided over the linearized iteration space:
///      scf.for %l = %tid to %total step %block { %i... = delinearize(%l) }
void AttentionMapper::mapParallelLoop(scf::ParallelOp loop, bool strided) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  int64_t numLoops = loop.getNumLoops();
  Value blockSize = indexConst(rewriter, loc, options.blockSize);

  // The thread id; when emulating, a sequential loop over the thread ids
  // around the mapped op.
  Value tid = threadId;
  Operation *emulationLoop = nullptr;
  if (options.emulateOnCPU) {
    auto threads =
        scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0),
                           blockSize, indexConst(rewriter, loc, 1));
    emulationLoop = threads;
    tid = threads.getInductionVar();
    rewriter.setInsertionPointToStart(threads.getBody());
  }

  std::optional<int64_t> rowBound = staticUpperBound(loop.getUpperBound()[0]);
  bool rowPerThread = !strided &&
                      isConstantIntValue(loop.getLowerBound()[0], 0) &&
                      isConstantIntValue(loop.getStep()[0], 1) && rowBound &&
                      *rowBound <= options.blockSize;

  SmallVector<Value> ivs(numLoops);
  Operation *mappedOp;
  if (rowPerThread) {
    Value active = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, tid, loop.getUpperBound()[0]);
    auto guard = scf::IfOp::create(rewriter, loc, active, /*else=*/false);
    mappedOp = guard;
    rewriter.setInsertionPointToStart(guard.thenBlock());
    ivs[0] = tid;
    for (int64_t d = 1; d < numLoops; ++d) {
      auto inner =
          scf::ForOp::create(rewriter, loc, loop.getLowerBound()[d],
                             loop.getUpperBound()[d], loop.getStep()[d]);
      ivs[d] = inner.getInductionVar();
      rewriter.setInsertionPointToStart(inner.getBody());
    }
  } else {
    SmallVector<Value> tripCounts;
    Value total =
        buildParallelLoopTripCounts(rewriter, loc, loop, tripCounts);
    auto strided = scf::ForOp::create(rewriter, loc, tid, total, blockSize);
    mappedOp = strided;
    rewriter.setInsertionPointToStart(strided.getBody());
    // Innermost dimension fastest: neighbouring threads, neighbouring
    // elements.
    SmallVector<Value> linearIvs = delinearizeParallelLoop(
        rewriter, loc, strided.getInductionVar(), loop, tripCounts);
    ivs = std::move(linearIvs);
  }

  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  Block *dest = rewriter.getInsertionBlock();
  rewriter.inlineBlockBefore(body, dest, rewriter.getInsertionPoint(), ivs);
  rewriter.eraseOp(loop);

  gpu::BarrierOp barrier;
  if (!options.emulateOnCPU) {
    rewriter.setInsertionPointAfter(mappedOp);
    barrier = gpu::BarrierOp::create(rewriter, loc);
  }
  mapped.push_back({emulationLoop ? emulationLoop : mappedOp, barrier});
}

/// The static shape of the tile buffer `alloc`: its dynamic sizes bounded
/// by tile sizes.
FailureOr<SmallVector<int64_t>>
AttentionMapper::boundedShape(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return alloc.emitError("posenc-gpu-map-attention: unexpected tile "
                           "buffer type ")
           << type;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(type.getDimSize(d));
      continue;
    }
    std::optional<int64_t> bound = staticUpperBound(dynamicSizeOf(alloc, d));
    if (!bound)
      return alloc.emitError("posenc-gpu-map-attention: cannot bound "
                             "dimension ")
             << d << " of this tile buffer by a tile size";
    shape.push_back(*bound);
  }
  return shape;
}

/// Replaces each memref.dim of the buffer `alloc` by its (dynamic) size, not
/// the static bound it is about to get.
LogicalResult AttentionMapper::replaceDimsBySizes(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
    auto dim = dyn_cast<memref::DimOp>(user);
    if (!dim)
      continue;
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return dim.emitError("posenc-gpu-map-attention: dynamic dim index");
    rewriter.setInsertionPoint(dim);
    Value size =
        type.isDynamicDim(*index)
            ? dynamicSizeOf(alloc, *index)
            : indexConst(rewriter, dim.getLoc(), type.getDimSize(*index));
    rewriter.replaceOp(dim, size);
  }
  return success();
}

/// Whether the buffer `alloc` can live in private memory: each thread only
/// indexes it at its own row (never when emulating, or for a scalar). Fails
/// on a user other than a load, a store into it or a dealloc.
FailureOr<bool> AttentionMapper::isRowPrivate(memref::AllocOp alloc) {
  bool isPrivate = !options.emulateOnCPU && alloc.getType().getRank() >= 1;
  for (Operation *user : alloc->getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(user))
      indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(user);
             store && store.getMemRef() == alloc.getResult())
      indices = store.getIndices();
    else
      return user->emitError("posenc-gpu-map-attention: a tile buffer may "
                             "only be loaded from and stored to here");
    if (isPrivate && !isThreadRow(indices[0], threadId))
      isPrivate = false;
  }
  return isPrivate;
}

/// The buffer that replaces `alloc`, of static `shape`: a host allocation
/// when emulating, else a private (one row, `isPrivate`) or workgroup
/// attribution of the launch, whose bytes are added to `workgroupBytes`.
Value AttentionMapper::placeBuffer(memref::AllocOp alloc,
                                   ArrayRef<int64_t> shape, bool isPrivate,
                                   int64_t &workgroupBytes) {
  MLIRContext *ctx = rewriter.getContext();
  MemRefType type = alloc.getType();
  MemRefType newType;
  if (options.emulateOnCPU) {
    rewriter.setInsertionPoint(alloc);
    newType = MemRefType::get(shape, type.getElementType());
    return memref::AllocOp::create(rewriter, alloc.getLoc(), newType,
                                   ValueRange{}, alloc.getAlignmentAttr());
  }
  if (isPrivate) {
    newType = MemRefType::get(
        shape.drop_front(), type.getElementType(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Private));
    return launch.addPrivateAttribution(newType, alloc.getLoc());
  }
  newType = MemRefType::get(
      shape, type.getElementType(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  workgroupBytes += newType.getNumElements() *
                    llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return launch.addWorkgroupAttribution(newType, alloc.getLoc());
}

/// Points the loads, stores and deallocs of `alloc` at `replacement`
/// (without the row index when it is a private row).
void AttentionMapper::redirectAccesses(memref::AllocOp alloc,
                                       Value replacement, bool isPrivate) {
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (options.emulateOnCPU)
        dealloc.getMemrefMutable().assign(replacement);
      else
        rewriter.eraseOp(dealloc);
      continue;
    }
    rewriter.setInsertionPoint(user);
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      SmallVector<Value> indices(load.getIndices());
      if (isPrivate)
        indices.erase(indices.begin());
      rewriter.replaceOpWithNewOp<memref::LoadOp>(load, replacement, indices);
      continue;
    }
    auto store = cast<memref::StoreOp>(user);
    SmallVector<Value> indices(store.getIndices());
    if (isPrivate)
      indices.erase(indices.begin());
    rewriter.replaceOpWithNewOp<memref::StoreOp>(
        store, store.getValueToStore(), replacement, indices);
  }
}

/// Gives every tile buffer of the block a static size and a place: private
/// (its own row per thread) or workgroup (shared by the block). When
/// emulating, buffers only get their static sizes.
LogicalResult AttentionMapper::placeBuffers(Block *body) {
  SmallVector<memref::AllocOp> allocs;
  body->walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  int64_t workgroupBytes = 0;
  for (memref::AllocOp alloc : allocs) {
    FailureOr<SmallVector<int64_t>> shape = boundedShape(alloc);
    if (failed(shape) || failed(replaceDimsBySizes(alloc)))
      return failure();
    FailureOr<bool> isPrivate = isRowPrivate(alloc);
    if (failed(isPrivate))
      return failure();
    Value replacement =
        placeBuffer(alloc, *shape, *isPrivate, workgroupBytes);
    redirectAccesses(alloc, replacement, *isPrivate);
    rewriter.eraseOp(alloc);
  }
  // Only attributions of the launch count (the forall is erased by now).
  if (workgroupBytes > options.maxWorkgroupBytes)
    return launch.emitError("posenc-gpu-map-attention: the tile buffers need ")
           << workgroupBytes << " bytes of shared memory per block, more than "
           << options.maxWorkgroupBytes
           << "; use a smaller key tile (or query tile)";
  return success();
}

/// A barrier is only needed after a mapped op that reads or writes shared
/// memory (the next op may read what it wrote, or overwrite what it read);
/// private rows are only ever touched by their own thread.
void AttentionMapper::dropUnneededBarriers() {
  for (MappedOp &m : mapped) {
    if (!m.barrier)
      continue;
    bool touchesShared = false;
    m.op->walk([&](Operation *op) {
      Value memref;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        memref = load.getMemRef();
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        memref = store.getMemRef();
      if (memref && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
                        cast<MemRefType>(memref.getType())))
        touchesShared = true;
    });
    if (!touchesShared)
      rewriter.eraseOp(m.barrier);
  }
}

/// Replaces the forall by a gpu.launch with one block per iteration and
/// its body inlined into the launch's; returns that body. Grid: the last
/// forall dim (query tiles) on x, the one before (heads) on y, the rest
/// (batch dims) linearized on z.
Block *AttentionMapper::replaceForallByLaunch() {
  Location loc = forall.getLoc();
  Block *body = forall.getBody();
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> ubs = getValueOrCreateConstantIndexOp(
      rewriter, loc, forall.getMixedUpperBound());
  int64_t n = ubs.size();
  Value one = indexConst(rewriter, loc, 1);
  Value gridX = ubs[n - 1];
  Value gridY = n >= 2 ? ubs[n - 2] : one;
  Value gridZ = one;
  for (int64_t d = 0; d + 2 < n; ++d)
    gridZ = arith::MulIOp::create(rewriter, loc, gridZ, ubs[d]);
  launch = gpu::LaunchOp::create(rewriter, loc, gridX, gridY, gridZ,
                                 indexConst(rewriter, loc, options.blockSize),
                                 one, one);
  Block &launchBody = launch.getBody().front();
  rewriter.setInsertionPointToEnd(&launchBody);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPoint(terminator);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  threadId = launch.getThreadIds().x;
  SmallVector<Value> ivs(n);
  ivs[n - 1] = blockIds.x;
  if (n >= 2)
    ivs[n - 2] = blockIds.y;
  Value rest = blockIds.z;
  for (int64_t d = n - 3; d >= 0; --d) {
    ivs[d] =
        d > 0 ? arith::RemUIOp::create(rewriter, loc, rest, ubs[d]) : rest;
    if (d > 0)
      rest = arith::DivUIOp::create(rewriter, loc, rest, ubs[d]);
  }
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, terminator, ivs);
  rewriter.eraseOp(forall);
  return &launchBody;
}

LogicalResult AttentionMapper::run() {
  if (failed(checkForall()))
    return failure();
  Block *body =
      options.emulateOnCPU ? forall.getBody() : replaceForallByLaunch();

  stageContractionOperands(body);
  if (failed(convertTileOpsToLoops(body)))
    return failure();
  if (failed(placeBuffers(body)))
    return failure();
  dropUnneededBarriers();

  // Everything else the block runs must be uniform index arithmetic: a
  // store outside a mapped op would run once per thread.
  WalkResult stray = body->walk([&](memref::StoreOp store) {
    for (MappedOp &m : mapped)
      if (m.op->isAncestor(store))
        return WalkResult::advance();
    store.emitError("posenc-gpu-map-attention: store outside a mapped tile op");
    return WalkResult::interrupt();
  });
  return failure(stray.wasInterrupted());
}

LogicalResult
posenc::mapAttentionForallToGPU(RewriterBase &rewriter, scf::ForallOp forall,
                                const AttentionGPUMappingOptions &options) {
  return AttentionMapper(rewriter, forall, options).run();
}

namespace {
struct PosencGpuMapAttentionPass
    : posenc::impl::PosencGpuMapAttentionPassBase<PosencGpuMapAttentionPass> {
  using PosencGpuMapAttentionPassBase::PosencGpuMapAttentionPassBase;

  void runOnOperation() override {
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk([&](scf::ForallOp forall) {
      if (!forall->getParentOfType<gpu::GPUModuleOp>() &&
          !forall->getParentOfType<gpu::LaunchOp>() &&
          !forall->getParentOfType<scf::ForallOp>())
        foralls.push_back(forall);
    });
    AttentionGPUMappingOptions options;
    options.blockSize = blockSize;
    options.emulateOnCPU = emulateOnCPU;
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp forall : foralls)
      if (failed(mapAttentionForallToGPU(rewriter, forall, options)))
        return signalPassFailure();
  }
};
} // namespace

