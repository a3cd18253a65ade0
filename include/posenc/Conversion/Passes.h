//===- Passes.h - posenc conversion passes ----------------------*- C++ -*-===//

#ifndef POSENC_CONVERSION_PASSES_H
#define POSENC_CONVERSION_PASSES_H

#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "posenc/Conversion/PosencToLinalg/PosencToLinalg.h"
#include "posenc/Conversion/RopeToLoops/RopeToLoops.h"

#include "mlir/Pass/Pass.h"

namespace posenc {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "posenc/Conversion/Passes.h.inc"

} // namespace posenc

#endif // POSENC_CONVERSION_PASSES_H
