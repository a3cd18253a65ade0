// The gtest units (PosencMath tables, #posenc.rope_scaling API) run as part
// of the lit suite.
// RUN: posenc-unittests --gtest_brief=1 | FileCheck %s
// CHECK: [  PASSED  ] {{[0-9]+}} tests.
