//===- PosencToLinalg.h - reference lowering of posenc ----------*- C++ -*-===//

#ifndef POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H
#define POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// Patterns that lower every posenc op to linalg/tensor/arith/math on
/// tensors, materializing all intermediates (the reference lowering).
void populatePosencToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace posenc

#endif // POSENC_CONVERSION_POSENCTOLINALG_POSENCTOLINALG_H
