// Test-only code (test/lib: the posenc-gpu-emulate-tensor-cores pass,
// registerPosencTestPasses) is linked into posenc-opt for the tests but never
// installed: no installed library or header carries it, and no installed
// file is named for it.
//
// An instrumented build (scripts/test-sanitizers.sh) builds only what its
// suite runs: the install step would miss the plugin and the Python module.
// UNSUPPORTED: sanitizer
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %posenc_obj --prefix %t/prefix > %t/install.log
// RUN: ls %t/prefix/lib | FileCheck %s --check-prefix=INSTALLED
// RUN: find %t/prefix -iname '*test*' > %t/named.txt
// RUN: FileCheck %s --check-prefix=NONE --allow-empty --input-file=%t/named.txt
// RUN: grep -rl -e posenc-gpu-emulate-tensor-cores -e GpuEmulateTensorCores \
// RUN:   -e registerPosencTestPasses %t/prefix/lib > %t/libs.txt || true
// RUN: FileCheck %s --check-prefix=NONE --allow-empty --input-file=%t/libs.txt
// RUN: grep -rl -e GpuEmulateTensorCores -e registerPosencTestPasses \
// RUN:   %t/prefix/include > %t/headers.txt || true
// RUN: FileCheck %s --check-prefix=NONE --allow-empty --input-file=%t/headers.txt
//
// The same searches find the test code where it is (so the checks above can
// fail): in the build tree's test library and in posenc-opt.
// RUN: grep -l -e GpuEmulateTensorCores %posenc_obj/lib/libPosencTestAttentionToGPU.a \
// RUN:   %posenc_obj/bin/posenc-opt | FileCheck %s --check-prefix=CONTROL

// INSTALLED: libPosencCAPI.so
// INSTALLED: libPosencConversion.a
// NONE-NOT: {{.}}
// CONTROL: libPosencTestAttentionToGPU.a
// CONTROL: posenc-opt
