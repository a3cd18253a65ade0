//===- ManagedAllocs.cpp - posenc-gpu-managed-allocs ----------------------===//
//
// Every host buffer becomes CUDA managed memory, so that host code (copies,
// scalar reads, printing, the caller) and kernels share it without explicit
// transfers.
//
//===----------------------------------------------------------------------===//

#include "HostFunctions.h"
#include "posenc/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUMANAGEDALLOCSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using posenc::getHostFunctions;

namespace {
struct PosencGpuManagedAllocsPass
    : posenc::impl::PosencGpuManagedAllocsPassBase<PosencGpuManagedAllocsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto tokenType = gpu::AsyncTokenType::get(&getContext());
    for (func::FuncOp func : getHostFunctions(getOperation())) {
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
            !op->getParentOfType<gpu::LaunchOp>())
          ops.push_back(op);
      });
      for (Operation *op : ops) {
        rewriter.setInsertionPoint(op);
        if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
          MemRefType type = alloc.getType();
          if (!type.getLayout().isIdentity() || type.getMemorySpace())
            continue;
          auto managed = gpu::AllocOp::create(
              rewriter, alloc.getLoc(), type, /*asyncToken=*/Type(),
              /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
              alloc.getSymbolOperands(), /*hostShared=*/true);
          rewriter.replaceOp(alloc, managed.getMemref());
          continue;
        }
        // gpu.dealloc only lowers in its async form: free on a fresh stream
        // and wait for it.
        auto dealloc = cast<memref::DeallocOp>(op);
        Location loc = dealloc.getLoc();
        auto stream =
            gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{});
        auto free = gpu::DeallocOp::create(rewriter, loc, tokenType,
                                           ValueRange{stream.getAsyncToken()},
                                           dealloc.getMemref());
        gpu::WaitOp::create(rewriter, loc, Type(),
                            ValueRange{free.getAsyncToken()});
        rewriter.eraseOp(dealloc);
      }
    }
  }
};
} // namespace
