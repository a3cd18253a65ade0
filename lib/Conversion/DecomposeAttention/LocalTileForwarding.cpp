//===- LocalTileForwarding.cpp - initial accumulators kept in registers ---===//
//
// Upstream vector::transferOpflowOpt does the same two rewrites, but it
// reasons about the uses of each memref value alone: two function arguments
// may alias, and --posenc-lower-attention-vectors runs on the user's whole
// function, so a write through one argument between a write and a read of
// another could be missed. Here both rewrites are limited to buffers the
// function allocates and never lets escape, whose every access is visible,
// and to the one pattern hoisting leaves (docs/pipelines.md, "The key
// step's buffers and `P V`"), which makes them exact.
//
//===----------------------------------------------------------------------===//

#include "LocalTileForwarding.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The buffer `alloc` and every view of it, or none when a use other than
/// a vector transfer, a load or store, a view or a deallocation could let
/// it escape.
std::optional<llvm::SetVector<Value>> localViews(Operation *alloc) {
  llvm::SetVector<Value> views;
  views.insert(alloc->getResult(0));
  for (unsigned i = 0; i < views.size(); ++i) {
    for (Operation *user : views[i].getUsers()) {
      if (isa<vector::TransferReadOp, vector::TransferWriteOp, memref::LoadOp,
              memref::StoreOp, memref::DeallocOp>(user))
        continue;
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (!view || view.getViewSource() != views[i])
        return std::nullopt;
      views.insert(user->getResult(0));
    }
  }
  return views;
}

/// Whether `op` or an op nested in it uses one of `views`.
bool touches(Operation *op, const llvm::SetVector<Value> &views) {
  WalkResult r = op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (views.contains(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// Whether `op` (a transfer) accesses exactly the elements `write` writes:
/// same buffer value, indices, vector type and map, no mask, in bounds.
bool sameElements(VectorTransferOpInterface op, vector::TransferWriteOp write) {
  auto plain = [](VectorTransferOpInterface t) {
    return !t.getMask() && !t.hasOutOfBoundsDim();
  };
  return plain(op) && plain(write) && op.getBase() == write.getBase() &&
         llvm::equal(op.getIndices(), write.getIndices()) &&
         op.getVectorType() == write.getVectorType() &&
         op.getPermutationMap() == write.getPermutationMap();
}

/// The first op after `op` in its block that touches the buffer.
Operation *nextAccess(Operation *op, const llvm::SetVector<Value> &views) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (touches(next, views))
      return next;
  return nullptr;
}

void forwardAndDrop(vector::TransferWriteOp write,
                    const llvm::SetVector<Value> &views) {
  // Reads of the same elements before anything else touches the buffer
  // (nothing outside this function can: it does not escape) take the
  // written vector.
  while (auto read = dyn_cast_or_null<vector::TransferReadOp>(
             nextAccess(write, views))) {
    if (!sameElements(read, write))
      break;
    read.getResult().replaceAllUsesWith(write.getVector());
    read.erase();
  }
  // The write is dead when the next access overwrites the same elements
  // (structured control flow: that op runs whenever the write did).
  auto over =
      dyn_cast_or_null<vector::TransferWriteOp>(nextAccess(write, views));
  if (over && sameElements(over, write))
    write.erase();
}

} // namespace

void posenc::decompose::forwardLocalTileStores(Operation *root) {
  SmallVector<Operation *> allocs;
  root->walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      allocs.push_back(op);
  });
  for (Operation *alloc : allocs) {
    std::optional<llvm::SetVector<Value>> views = localViews(alloc);
    if (!views)
      continue;
    SmallVector<vector::TransferWriteOp> writes;
    for (Value v : *views)
      for (Operation *user : v.getUsers())
        if (auto write = dyn_cast<vector::TransferWriteOp>(user))
          writes.push_back(write);
    for (vector::TransferWriteOp write : writes)
      forwardAndDrop(write, *views);
  }
}
