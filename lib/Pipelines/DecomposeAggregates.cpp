//===- DecomposeAggregates.cpp - posenc-decompose-aggregates ---------------===//
//
// linalg.softmax (linalg's AggregatedOpInterface) into the generics its
// decomposeOperation builds, so that the loop lowering of the pipelines
// reaches it (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCDECOMPOSEAGGREGATESPASS
#include "posenc/Pipelines/Passes.h.inc"
} // namespace posenc

using namespace mlir;

namespace {
struct PosencDecomposeAggregatesPass
    : posenc::impl::PosencDecomposeAggregatesPassBase<
          PosencDecomposeAggregatesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
      if (failed(parts)) {
        op->emitError("posenc-decompose-aggregates: '")
            << op->getName() << "' cannot be decomposed into generics";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
  }
};
} // namespace
