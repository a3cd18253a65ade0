//===- ResultsToDestinations.cpp - posenc-results-to-destinations --------===//
//
// A function's tensor results as destination memref arguments, written with
// bufferization.materialize_in_destination (see Passes.td).
//
// Upstream's buffer-results-to-out-params does the same after bufferization,
// but it only avoids the copy for a result that is a memref.alloc of the
// function itself, and it must run inside the pipeline, between
// bufferization and deallocation. This rewrite is made on tensors, before
// any pipeline: the callers of the C API and the Python package choose their
// pipeline freely, and the pipelines' empty-tensor elimination turns the
// destination into the result's own buffer for every destination-style
// producer, not only for allocations.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCRESULTSTODESTINATIONSPASS
#include "posenc/Pipelines/Passes.h.inc"
} // namespace posenc

using namespace mlir;

/// The destination type of each result of `func`, or failure (diagnosed)
/// when one is not a statically shaped ranked tensor.
static FailureOr<SmallVector<Type>> destinationTypes(func::FuncOp func) {
  SmallVector<Type> types;
  for (auto [index, type] : llvm::enumerate(func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError() << "posenc-results-to-destinations: result #"
                              << index << " has type " << type
                              << ", expected a statically shaped ranked tensor";
    types.push_back(
        MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }
  return types;
}

/// Appends the destinations to `func`'s arguments and makes every return
/// materialize its values in them.
static void rewriteToDestinations(func::FuncOp func, ArrayRef<Type> types) {
  unsigned first = func.getNumArguments();
  SmallVector<unsigned> positions(types.size(), first);
  SmallVector<DictionaryAttr> attrs(types.size());
  SmallVector<Location> locs(types.size(), func.getLoc());
  (void)func.insertArguments(positions, types, attrs, locs);

  func.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          builder, ret.getLoc(), value, func.getArgument(first + index));
      materialize.setRestrict(true);
      materialize.setWritable(true);
    }
    ret->setOperands({});
  });
  llvm::BitVector allResults(func.getNumResults(), true);
  (void)func.eraseResults(allResults);
}

namespace {

struct PosencResultsToDestinationsPass
    : posenc::impl::PosencResultsToDestinationsPassBase<
          PosencResultsToDestinationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = dyn_cast_or_null<func::FuncOp>(
        SymbolTable::lookupSymbolIn(module, functionName));
    if (!func || func.isExternal()) {
      module.emitError() << "posenc-results-to-destinations: no function "
                            "with a body named '"
                         << functionName << "'";
      return signalPassFailure();
    }
    if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
      func.emitError() << "posenc-results-to-destinations: @" << functionName
                       << " is used inside the module; its call sites "
                          "would keep the old signature";
      return signalPassFailure();
    }
    FailureOr<SmallVector<Type>> types = destinationTypes(func);
    if (failed(types))
      return signalPassFailure();
    rewriteToDestinations(func, *types);
  }
};

} // namespace
