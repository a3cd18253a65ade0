//===- RopeToLoops.h - fast lowering of standalone posenc.rope --*- C++ -*-===//

#ifndef POSENC_CONVERSION_ROPETOLOOPS_ROPETOLOOPS_H
#define POSENC_CONVERSION_ROPETOLOOPS_ROPETOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace posenc {

/// Patterns that lower `posenc.rope` to a parallel (`scf.forall` over blocks
/// of `blockRows` sequence rows, 0 = automatic) vector loop nest on tensors
/// with one cos/sin computation per (row, pair); see `--posenc-lower-rope`.
void populatePosencLowerRopePatterns(mlir::RewritePatternSet &patterns,
                                     int64_t blockRows = 0);

} // namespace posenc

#endif // POSENC_CONVERSION_ROPETOLOOPS_ROPETOLOOPS_H
