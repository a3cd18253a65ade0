//===- RaisePass.cpp - the posenc-raise pass ------------------------------===//
//
// Runs the raising patterns greedily (with the reshape canonicalizations
// that normalize what front ends emit), then, with `remarks`, reports every
// candidate that is still there and why it was left alone.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCRAISEPASS
#include "posenc/Dialect/Posenc/Transforms/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

void posenc::populatePosencRaisingPatterns(RewritePatternSet &patterns,
                                           bool emitRemarks) {
  raise::populateRaiseContractionPatterns(patterns);
  raise::populateRaiseAttentionPatterns(patterns, emitRemarks);
  raise::populateRaiseRopePatterns(patterns, emitRemarks);
  raise::populateRaiseInterleavedRopePatterns(patterns, emitRemarks);
  raise::populateRaiseComplexRopePatterns(patterns, emitRemarks);
  raise::populateRaiseGatherRopePatterns(patterns, emitRemarks);
  raise::populateRaiseSinusoidalPatterns(patterns, emitRemarks);
  raise::populateRaiseTransposePatterns(patterns);
  // Consecutive reshapes merge, so the matchers see one reshape at a time.
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                       patterns.getContext());
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                     patterns.getContext());
  // Dynamic sizes (`tensor.dim` of an op's result) are read from the
  // op's init, so that the sizes and the `cf.assert`s checking them no
  // longer keep the raised subgraph (the Sq x Sk scores) alive.
  tensor::DimOp::getCanonicalizationPatterns(patterns, patterns.getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  tensor::EmptyOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}

namespace {

struct PosencRaisePass
    : posenc::impl::PosencRaisePassBase<PosencRaisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePosencRaisingPatterns(patterns, remarks);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (remarks)
      reportCandidatesLeftAlone();
  }

  /// A remark on each P.V matmul fed by a softmax-like value and each
  /// RoPE-shaped add that is still there, saying why.
  void reportCandidatesLeftAlone() {
    getOperation()->walk([](Operation *op) {
      std::optional<std::string> why;
      StringRef what;
      if (isa<linalg::BatchMatmulOp>(op)) {
        why = raise::explainAttention(op);
        what = "posenc.attention";
      } else if ((why = raise::explainContraction(op)) && !why->empty()) {
        what = "posenc.attention";
      } else if (isa<linalg::GenericOp>(op)) {
        why = raise::explainRope(op);
        what = "posenc.rope";
        if (why && why->empty()) {
          why = raise::explainSinusoidal(op);
          what = "posenc.sinusoidal";
        }
        if (why && why->empty()) {
          why = raise::explainGatherRope(op);
          what = "posenc.rope (gathered cos/sin)";
        }
      } else if (isa<tensor::CollapseShapeOp>(op)) {
        why = raise::explainInterleavedRope(op);
        what = "posenc.rope (interleaved)";
        if (why && why->empty()) {
          why = raise::explainComplexRope(op);
          what = "posenc.rope (interleaved, complex form)";
        }
      }
      if (why && !why->empty())
        op->emitRemark("not raised to ") << what << ": " << *why;
    });
  }
};

} // namespace
