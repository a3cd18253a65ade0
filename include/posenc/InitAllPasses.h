//===- InitAllPasses.h - posenc pass registration ---------------*- C++ -*-===//
//
// The one place that says which passes and pipelines posenc registers, in
// the style of upstream's mlir/InitAllPasses.h and CIRCT's
// circt/InitAllPasses.h: posenc-opt, the C API (libPosencCAPI.so) and the
// mlir-opt plugin (libPosencPlugin.so) all call registerAllPasses(), so a
// pass added to a Passes.td is known to all three. The test-only passes
// (test/lib) are not here: posenc-opt registers them itself.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_INITALLPASSES_H
#define POSENC_INITALLPASSES_H

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Pipelines/NVVMPipeline.h"
#include "posenc/Pipelines/Passes.h"
#include "posenc/Pipelines/Pipelines.h"

namespace posenc {

/// Registers every posenc pass (the groups of
/// Dialect/Posenc/Transforms/Passes.td, Conversion/Passes.td and
/// Pipelines/Passes.td) and every posenc pipeline (--posenc-cpu-pipeline,
/// --posenc-to-nvvm) with the global pass registry. Only the first call
/// registers.
inline void registerAllPasses() {
  static bool registered = [] {
    registerPosencTransformsPasses();
    registerPosencConversionPasses();
    registerPosencPipelinesPasses();
    registerPosencPipelines();
    return true;
  }();
  (void)registered;
}

} // namespace posenc

#endif // POSENC_INITALLPASSES_H
