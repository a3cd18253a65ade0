//===- CheckKVCacheForms.cpp - KV-cache forms the GPU does not lower ------===//
//
// --posenc-gpu-check-kv-cache-forms: every op that uses a KV-cache form of
// SPEC.md's additions (kv_lengths, per-batch positions, mixed key/value
// element types) is an error naming the form (describeUnloweredKVCacheForm),
// so that the NVVM pipeline stops before a kernel that would ignore it;
// likewise Transformer-XL's relative terms (rejectXlTerm).
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

/// posenc.xl_attention, or posenc.fused_attention with the xl term, is an
/// error: the GPU kernels compute scores one element at a time through the
/// score hook, and the band product per tile that Transformer-XL's position
/// term needs (a D-long product per score otherwise) is not in them.
static LogicalResult rejectXlTerm(Operation *op) {
  auto fused = dyn_cast<FusedAttentionOp>(op);
  if (!isa<XlAttentionOp>(op) && !(fused && fused.getXlRel()))
    return success();
  return op->emitOpError("uses Transformer-XL's relative terms "
                         "(posenc.xl_attention), which the GPU lowering does "
                         "not implement yet (--posenc-cpu-pipeline does)");
}

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
      else if (mlir::failed(rejectXlTerm(op)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
