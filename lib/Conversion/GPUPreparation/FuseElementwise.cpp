//===- FuseElementwise.cpp - posenc-gpu-fuse-elementwise ------------------===//
//
// Upstream's linalg-fuse-elementwise-ops (producer into consumer, single-use
// producers), except into the tile ops of a decomposed attention (inside an
// scf.forall): fusing the K prologue (RoPE, conversion) into the Q.K^T
// contraction would recompute it for every query row from global memory,
// where posenc-gpu-map-attention computes a K tile once into shared memory.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUFUSEELEMENTWISEPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;

namespace {
struct PosencGpuFuseElementwisePass
    : posenc::impl::PosencGpuFuseElementwisePassBase<
          PosencGpuFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !fused->getOwner()->getParentOfType<scf::ForallOp>();
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};
} // namespace
