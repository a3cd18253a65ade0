//===- TileBounds.h - static bounds of tile sizes --------------*- C++ -*-===//
//
// The decomposition sizes partial last tiles as min(tile, S - start); the
// GPU mapping gives tile buffers their static size from such bounds and
// posenc-gpu-unroll-private-loops runs loops to them. Private to
// lib/Conversion/AttentionToGPU.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TILEBOUNDS_H
#define POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TILEBOUNDS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <optional>

namespace posenc {

/// The size operand of dynamic dimension `dim` of `alloc`.
mlir::Value dynamicSizeOf(mlir::memref::AllocOp alloc, int64_t dim);

/// A constant upper bound of the index `v`: constants, min(x, c) (how the
/// decomposition sizes partial last tiles), memref.dim of an allocation.
std::optional<int64_t> staticUpperBound(mlir::Value v, int depth = 0);

} // namespace posenc

#endif // POSENC_LIB_CONVERSION_ATTENTIONTOGPU_TILEBOUNDS_H
