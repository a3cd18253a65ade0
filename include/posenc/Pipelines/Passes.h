//===- Passes.h - passes of the posenc pipelines ----------------*- C++ -*-===//

#ifndef POSENC_PIPELINES_PASSES_H
#define POSENC_PIPELINES_PASSES_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace posenc {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "posenc/Pipelines/Passes.h.inc"

/// memref.copy ops that upstream would lower to the runtime's
/// element-by-element memrefCopy, as row loops of vector transfers of at
/// most `maxVectorBits` bits (the patterns of posenc-vectorize-copies).
void populateVectorizeCopiesPatterns(mlir::RewritePatternSet &patterns,
                                     int64_t maxVectorBits = 4096);

} // namespace posenc

#endif // POSENC_PIPELINES_PASSES_H
