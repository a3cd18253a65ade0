//===- CheckKVCacheForms.cpp - KV-cache forms the GPU does not lower ------===//
//
// --posenc-gpu-check-kv-cache-forms: every op that uses a KV-cache form of
// SPEC.md's additions (kv_lengths, per-batch positions, mixed key/value
// element types) is an error naming the form (describeUnloweredKVCacheForm),
// so that the NVVM pipeline stops before a kernel that would ignore it.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUCHECKKVCACHEFORMSPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

struct PosencGpuCheckKVCacheFormsPass
    : posenc::impl::PosencGpuCheckKVCacheFormsPassBase<
          PosencGpuCheckKVCacheFormsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (isa<RopeOp, AttentionOp, FusedAttentionOp>(op) &&
          mlir::failed(rejectUnloweredKVCacheForm(op)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
