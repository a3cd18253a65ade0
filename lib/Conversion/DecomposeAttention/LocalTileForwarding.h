//===- LocalTileForwarding.h - initial accumulators kept in registers -----===//
//
// After upstream hoisting, a register tile's accumulator reads
// "write init; read; loop; write result" on its tile buffer. This forwards
// the init to the read and drops the write the result overwrites, on
// buffers the function allocates itself (LocalTileForwarding.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_CONVERSION_DECOMPOSEATTENTION_LOCALTILEFORWARDING_H
#define POSENC_LIB_CONVERSION_DECOMPOSEATTENTION_LOCALTILEFORWARDING_H

namespace mlir {
class Operation;
} // namespace mlir

namespace posenc::decompose {

/// Within `root`, for every vector.transfer_write to a buffer allocated in
/// `root` (memref.alloc/alloca whose every use is a vector transfer, a
/// load or store, a view of it or its deallocation): transfer_reads of the same
/// elements that are the next ops of its block to touch the buffer take the
/// written vector, and the write is erased when the next op of its block that
/// touches the buffer then overwrites the same elements.
void forwardLocalTileStores(mlir::Operation *root);

} // namespace posenc::decompose

#endif // POSENC_LIB_CONVERSION_DECOMPOSEATTENTION_LOCALTILEFORWARDING_H
