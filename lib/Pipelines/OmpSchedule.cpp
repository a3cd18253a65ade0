//===- OmpSchedule.cpp - posenc-omp-schedule ------------------------------===//
//
// A schedule clause for the OpenMP worksharing loops that have none.
//
// Upstream's convert-scf-to-openmp creates every omp.wsloop without a
// schedule (libomp then splits the iterations statically) and has no option
// for one; the CPU pipeline's parallel loops are few coarse tasks, which a
// dynamic schedule balances across threads of unequal speed (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCOMPSCHEDULEPASS
#include "posenc/Pipelines/Passes.h.inc"
} // namespace posenc

using namespace mlir;

void posenc::setDefaultOmpSchedule(Operation *root,
                                   omp::ClauseScheduleKind kind,
                                   int64_t chunk) {
  MLIRContext *ctx = root->getContext();
  root->walk([&](omp::WsloopOp loop) {
    if (loop.getScheduleKind())
      return;
    loop.setScheduleKindAttr(omp::ClauseScheduleKindAttr::get(ctx, kind));
    if (chunk <= 0)
      return;
    OpBuilder b(loop);
    Value size = LLVM::ConstantOp::create(b, loop.getLoc(), b.getI64Type(),
                                          b.getI64IntegerAttr(chunk));
    loop.getScheduleChunkMutable().assign(size);
  });
}

namespace {

struct OmpSchedulePass
    : public posenc::impl::PosencOmpSchedulePassBase<OmpSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<omp::ClauseScheduleKind> kind =
        omp::symbolizeClauseScheduleKind(schedule);
    bool known = kind && (*kind == omp::ClauseScheduleKind::Static ||
                          *kind == omp::ClauseScheduleKind::Dynamic ||
                          *kind == omp::ClauseScheduleKind::Guided ||
                          *kind == omp::ClauseScheduleKind::Auto);
    if (!known) {
      getOperation()->emitError()
          << "posenc-omp-schedule: option 'schedule' must be static, "
             "dynamic, guided or auto, got '"
          << static_cast<std::string>(schedule) << "'";
      return signalPassFailure();
    }
    if (chunk < 0) {
      getOperation()->emitError()
          << "posenc-omp-schedule: option 'chunk' must be at least 0, got "
          << static_cast<int64_t>(chunk);
      return signalPassFailure();
    }
    posenc::setDefaultOmpSchedule(getOperation(), *kind, chunk);
  }
};

} // namespace
