//===- MapParallelLoops.cpp - posenc-gpu-map-parallel-loops ---------------===//
//
// Upstream gpu-map-parallel-loops maps the first three dimensions of a loop
// nest to blocks and launches one thread per block, with further dimensions
// sequential in that thread. Here the whole iteration space is linearized and
// cut into blocks of `block-size` threads, the innermost dimension fastest so
// that neighbouring threads touch neighbouring elements:
//
//   scf.parallel (%i0, ..., %in) = (lb...) to (ub...) step (st...) { body }
//
// becomes a block loop and a thread loop over the linearized iteration space
//
//   %total = prod_k ceildiv(max(ub_k - lb_k, 0), st_k)
//   scf.parallel (%b) = (0) to (ceildiv(%total, B)) step (1) {    // block_x
//     scf.parallel (%t) = (0) to (B) step (1) {                  // thread_x
//       %l = %b * B + %t
//       scf.if %l < %total { %i_k = lb_k + delinearize(%l)_k * st_k; body }
//     }
//   }
//
// Parallel loops nested in `body` run sequentially inside the thread.
//
//===----------------------------------------------------------------------===//

#include "HostFunctions.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUMAPPARALLELLOOPSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using posenc::getHostFunctions;

namespace {
struct PosencGpuMapParallelLoopsPass
    : posenc::impl::PosencGpuMapParallelLoopsPassBase<
          PosencGpuMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError()
          << "block-size (" << static_cast<int64_t>(blockSize)
          << ") must be in [1, 1024]";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : getHostFunctions(getOperation())) {
      SmallVector<scf::ParallelOp> outermost;
      func.walk([&](scf::ParallelOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>() &&
            !loop->getParentOfType<gpu::LaunchOp>() &&
            !loop->hasAttr(gpu::getMappingAttrName()))
          outermost.push_back(loop);
      });
      for (scf::ParallelOp loop : outermost)
        mapToBlocksAndThreads(rewriter, loop);
    }
  }

  void mapToBlocksAndThreads(IRRewriter &rewriter, scf::ParallelOp loop) {
    // A loop with reductions stays on the host (the linalg lowering emits
    // reductions as scf.for inside the parallel loop, so none is expected).
    if (loop.getNumResults() != 0 || loop.getNumLoops() == 0)
      return;
    MLIRContext *ctx = rewriter.getContext();
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
    SmallVector<Value> tripCounts;
    Value total =
        posenc::buildParallelLoopTripCounts(rewriter, loc, loop, tripCounts);
    Value blocks = arith::CeilDivUIOp::create(rewriter, loc, total, threads);

    auto blockLoop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{blocks}, ValueRange{one});
    rewriter.setInsertionPointToStart(blockLoop.getBody());
    auto threadLoop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{threads}, ValueRange{one});
    rewriter.setInsertionPointToStart(threadLoop.getBody());
    Value linear = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, blockLoop.getInductionVars()[0],
                              threads),
        threadLoop.getInductionVars()[0]);
    Value inBounds = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, linear, total);
    auto guard = scf::IfOp::create(rewriter, loc, inBounds,
                                   /*withElseRegion=*/false);

    // Delinearize, innermost dimension fastest.
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
    SmallVector<Value> ivs =
        posenc::delinearizeParallelLoop(rewriter, loc, linear, loop, tripCounts);

    // Move the body (without its scf.reduce terminator) into the guard.
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, guard.thenBlock()->getTerminator(), ivs);
    rewriter.eraseOp(loop);

    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto dimMapping = [&](gpu::Processor processor) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity,
                                                  identity);
    };
    (void)gpu::setMappingAttr(blockLoop, {dimMapping(gpu::Processor::BlockX)});
    (void)gpu::setMappingAttr(threadLoop,
                              {dimMapping(gpu::Processor::ThreadX)});
    guard.walk([&](scf::ParallelOp nested) {
      SmallVector<gpu::ParallelLoopDimMappingAttr> sequential(
          nested.getNumLoops(), dimMapping(gpu::Processor::Sequential));
      (void)gpu::setMappingAttr(nested, sequential);
    });
  }
};
} // namespace
