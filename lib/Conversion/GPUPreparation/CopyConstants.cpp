//===- CopyConstants.cpp - posenc-gpu-copy-constants ----------------------===//
//
// Constants (memref.get_global) are host read-only data that kernels cannot
// read; the host functions' reads are copied into fresh buffers, which the
// deallocation pipeline then frees like any other and
// posenc-gpu-managed-allocs makes device-visible.
//
//===----------------------------------------------------------------------===//

#include "HostFunctions.h"
#include "posenc/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUCOPYCONSTANTSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using posenc::getHostFunctions;

namespace {
struct PosencGpuCopyConstantsPass
    : posenc::impl::PosencGpuCopyConstantsPassBase<PosencGpuCopyConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : getHostFunctions(module)) {
      SmallVector<memref::GetGlobalOp> reads;
      // Reads inside a gpu.launch are the kernel's own (workgroup memory
      // tiles of the tensor-core attention kernel), not host data.
      func.walk([&](memref::GetGlobalOp op) {
        if (!op->getParentOfType<gpu::LaunchOp>())
          reads.push_back(op);
      });
      for (memref::GetGlobalOp read : reads) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            read, read.getNameAttr());
        MemRefType type = read.getType();
        if (!global || !global.getConstant()) {
          // A mutable global would need to live in device memory itself;
          // nothing posenc lowers to creates one.
          read.emitWarning("mutable global is not made device-accessible; "
                           "a kernel reading it will fault");
          continue;
        }
        if (!type.getLayout().isIdentity() || !type.hasStaticShape()) {
          read.emitError("constant global with a non-identity layout or a "
                         "dynamic shape is not supported by the GPU pipeline");
          return signalPassFailure();
        }
        rewriter.setInsertionPointAfter(read);
        auto copyBuffer =
            memref::AllocOp::create(rewriter, read.getLoc(), type);
        auto copy = memref::CopyOp::create(rewriter, read.getLoc(),
                                           read.getResult(), copyBuffer);
        rewriter.replaceAllUsesExcept(read.getResult(), copyBuffer.getResult(),
                                      copy);
      }
    }
  }
};
} // namespace
