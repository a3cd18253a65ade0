//===- InitAllTestPasses.cpp - registration of the test-only passes -------===//

#include "InitAllTestPasses.h"

#include "Conversion/AttentionToGPU/TestPasses.h"

void posenc::registerPosencTestPasses() {
  static bool registered = [] {
    registerPosencTestAttentionToGPUPasses();
    return true;
  }();
  (void)registered;
}
