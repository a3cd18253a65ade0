//===- PosencToLinalg.h - reference lowering of posenc ----------*- C++ -*-===//

#ifndef POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H
#define POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// The inverse-frequency table of `op` as `tensor<R/2 x angleType>`, built
/// as the reference lowering builds it: a constant when it is known at
/// compile time, else computed from L = max(positions) + 1 (dynamic NTK,
/// LongRoPE). Shared with the fast standalone RoPE lowering.
mlir::Value buildRopeInvFreqTable(mlir::OpBuilder &b, mlir::Location loc,
                                  RopeOp op, mlir::Value positions,
                                  mlir::FloatType angleType);

/// Patterns that lower every posenc op to linalg/tensor/arith/math on
/// tensors, materializing all intermediates (the reference lowering).
void populatePosencToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace posenc

#endif // POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H
