//===- CheckKVCacheForms.cpp - KV-cache forms the GPU does not lower ------===//
//
// --posenc-gpu-check-kv-cache-forms: an op the GPU kernels do not lower is
// an error naming it, so that the NVVM pipeline stops before a kernel that
// would ignore it: Transformer-XL's relative terms (rejectXlTerm) and
// DeBERTa's terms of posenc.fused_attention (rejectDebertaTerms). The
// KV-cache forms of SPEC.md's additions (kv_lengths, per-batch positions,
// f16/bf16 key/value under an f32 query), which the pass was named for, are
// all lowered now (the FMA kernel reads them as the CPU's decomposition
// does; docs/gpu.md), so none of them is reported.
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

/// posenc.fused_attention with DeBERTa's terms is an error, for the reason
/// of rejectXlTerm (a band product per tile). posenc.disentangled_attention
/// itself is not: the NVVM pipeline does not fuse it and lowers it with the
/// reference lowering.
static LogicalResult rejectDebertaTerms(Operation *op) {
  auto fused = dyn_cast<FusedAttentionOp>(op);
  if (!fused || !fused.hasDebertaTerms())
    return success();
  return op->emitOpError(
      "uses DeBERTa's relative terms (deberta_pos_key / deberta_pos_query), "
      "which the GPU kernels do not implement (--posenc-cpu-pipeline does; "
      "on the GPU use posenc.disentangled_attention, which --posenc-to-nvvm "
      "lowers with the reference lowering)");
}

namespace {

struct PosencGpuCheckKVCacheFormsPass
    : posenc::impl::PosencGpuCheckKVCacheFormsPassBase<
          PosencGpuCheckKVCacheFormsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (mlir::failed(rejectXlTerm(op)) ||
          mlir::failed(rejectDebertaTerms(op)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
