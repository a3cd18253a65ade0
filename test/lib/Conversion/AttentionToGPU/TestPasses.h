//===- TestPasses.h - test-only passes of AttentionToGPU --------*- C++ -*-===//
//
// The generated declarations and registration of the passes in
// TestPasses.td. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_H
#define POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_H

#include "mlir/Pass/Pass.h"

namespace posenc {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace posenc

#endif // POSENC_TEST_CONVERSION_ATTENTIONTOGPU_TESTPASSES_H
