//===- Passes.h - passes of the posenc pipelines ----------------*- C++ -*-===//

#ifndef POSENC_PIPELINES_PASSES_H
#define POSENC_PIPELINES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace posenc {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "posenc/Pipelines/Passes.h.inc"

} // namespace posenc

#endif // POSENC_PIPELINES_PASSES_H
