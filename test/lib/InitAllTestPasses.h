//===- InitAllTestPasses.h - registration of the test-only passes -*- C++ -*-===//
//
// The passes under test/lib exist for the tests only: posenc-opt registers
// them next to posenc::registerAllPasses() (include/posenc/InitAllPasses.h);
// the pytest suite runs them through posenc-opt. Neither this header nor the
// libraries behind it are installed.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_TEST_LIB_INITALLTESTPASSES_H
#define POSENC_TEST_LIB_INITALLTESTPASSES_H

namespace posenc {

/// Registers every test-only pass (posenc-gpu-emulate-tensor-cores) with the
/// global pass registry. Idempotent.
void registerPosencTestPasses();

} // namespace posenc

#endif // POSENC_TEST_LIB_INITALLTESTPASSES_H
