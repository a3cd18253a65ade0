//===- UnrollPrivateLoops.cpp - private GPU buffers into registers --------===//
//
// posenc-gpu-unroll-private-loops: after posenc-gpu-map-attention has put the
// rows a thread owns into private memory, the loops that index them are
// unrolled so that LLVM can keep those buffers in registers.
//
//===----------------------------------------------------------------------===//

#include "TileBounds.h"

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUUNROLLPRIVATELOOPSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

/// Whether `v` is `iv` or computed from it by one arith/affine op.
static bool dependsOnIV(Value v, Value iv) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  return def && isa<affine::AffineApplyOp, arith::AddIOp, arith::SubIOp,
                    arith::MulIOp>(def) &&
         llvm::is_contained(def->getOperands(), iv);
}

/// Whether `loop` indexes a private-memory buffer with its induction
/// variable (directly in its body or in nested ops).
static bool indexesPrivateBuffer(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  auto isPrivate = [](Value memref) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        cast<MemRefType>(memref.getType()).getMemorySpace());
    return space && space.getValue() == gpu::AddressSpace::Private;
  };
  WalkResult found = loop.getBody()->walk([&](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else {
      return WalkResult::advance();
    }
    if (isPrivate(memref) &&
        llvm::any_of(indices, [&](Value i) { return dependsOnIV(i, iv); }))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// `loop` (no iter_args) with its dynamic upper bound `ub` replaced by the
/// static `bound` >= ub and its body guarded:
///   for iv in [lb, bound): if (iv < ub) body
static scf::ForOp runToStaticBound(RewriterBase &rewriter, scf::ForOp loop,
                                   int64_t bound) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto guarded =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                         indexConst(rewriter, loc, bound), loop.getStep());
  rewriter.setInsertionPointToStart(guarded.getBody());
  Value inRange =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                            guarded.getInductionVar(), loop.getUpperBound());
  auto ifOp = scf::IfOp::create(rewriter, loc, inRange,
                                /*withElseRegion=*/false);
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, ifOp.thenBlock()->getTerminator(),
                             guarded.getInductionVar());
  rewriter.eraseOp(loop);
  return guarded;
}

namespace {
/// In each gpu.launch, loops that index private buffers with their
/// induction variable are fully unrolled, innermost first, so that every
/// private access has a constant index and LLVM keeps the buffer in
/// registers (a private array indexed by a loop counter lives in local
/// memory). A loop whose upper bound is dynamic but bounded by a tile size
/// (a partial last tile: min(tile, S - start)) first runs to the bound with
/// its body guarded by `iv < ub`. Loops longer than `max-trip-count` stay,
/// and so do the loops of a launch whose private buffers hold more than
/// `max-private-elements` elements: in registers they would not fit next to
/// the rest of the kernel (255 per thread) and would spill, which costs more
/// than the local-memory arrays they replace.
struct PosencGpuUnrollPrivateLoopsPass
    : posenc::impl::PosencGpuUnrollPrivateLoopsPassBase<
          PosencGpuUnrollPrivateLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Launches whose private rows fit the register budget.
    DenseSet<Operation *> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      int64_t elements = 0;
      for (BlockArgument arg : launch.getPrivateAttributions())
        elements += cast<MemRefType>(arg.getType()).getNumElements();
      if (elements <= maxPrivateElements)
        launches.insert(launch);
    });
    SmallVector<scf::ForOp> loops;
    getOperation().walk<WalkOrder::PostOrder>([&](scf::ForOp loop) {
      auto launch = loop->getParentOfType<gpu::LaunchOp>();
      if (launch && launches.contains(launch) && indexesPrivateBuffer(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!lb || !step || *step <= 0)
        continue;
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      if (!ub) {
        std::optional<int64_t> bound = staticUpperBound(loop.getUpperBound());
        if (!bound || loop.getNumRegionIterArgs() != 0 ||
            (*bound - *lb) / *step > maxTripCount)
          continue;
        loop = runToStaticBound(rewriter, loop, *bound);
        ub = bound;
      }
      if ((*ub - *lb) / *step > maxTripCount)
        continue;
      if (failed(loopUnrollFull(loop))) {
        loop.emitError("posenc-gpu-unroll-private-loops: cannot unroll");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
