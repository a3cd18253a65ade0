//===- Passes.h - passes of the posenc pipelines ----------------*- C++ -*-===//

#ifndef POSENC_PIPELINES_PASSES_H
#define POSENC_PIPELINES_PASSES_H

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
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

/// Sets `kind` (and, when `chunk` > 0, that chunk size) as the schedule of
/// every omp.wsloop under `root` that has no schedule kind (the rewrite of
/// posenc-omp-schedule).
void setDefaultOmpSchedule(mlir::Operation *root,
                           mlir::omp::ClauseScheduleKind kind,
                           int64_t chunk = 0);

} // namespace posenc

#endif // POSENC_PIPELINES_PASSES_H
