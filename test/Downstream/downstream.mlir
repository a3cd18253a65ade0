// Installs posenc into a fresh prefix, builds the downstream project in this
// directory against it with find_package(Posenc), runs both programs, and
// runs the installed Python package.
// An instrumented build (scripts/test-sanitizers.sh) builds only what its
// suite runs and would hand ASan-instrumented archives to an uninstrumented
// downstream build and Python:
// UNSUPPORTED: sanitizer
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %posenc_obj --prefix %t/prefix > %t/install.log
// RUN: %cmake -G %cmake_generator -S %S -B %t/build -DCMAKE_BUILD_TYPE=Release \
// RUN:   -DCMAKE_CXX_COMPILER=%cxx -DCMAKE_C_COMPILER=%cc \
// RUN:   -DCMAKE_PREFIX_PATH=%t/prefix > %t/configure.log
// RUN: FileCheck %s --check-prefix=CONFIG --input-file=%t/configure.log
// RUN: %cmake --build %t/build > %t/build.log
// RUN: %t/build/posenc-downstream %s | FileCheck %s
// RUN: %t/build/posenc-downstream-capi | FileCheck %s --check-prefix=CAPI
// RUN: env -u POSENC_BUILD_DIR -u POSENC_CAPI_LIB PYTHONPATH=%t/prefix/lib/python3/dist-packages \
// RUN:   %python %S/Inputs/installed_python.py | FileCheck %s --check-prefix=PY

// CONFIG: Using PosencConfig.cmake in: {{.*}}/prefix/lib/cmake/posenc

// CHECK: parsed: posenc.rope
// CHECK: parsed: posenc.alibi_bias
// CHECK: parsed: posenc.attention
// CHECK: lowered: llvm.func @block
// CHECK: posenc ops left: 0

// CAPI: posenc C API version 1
// CAPI: probe(1) = 0.841471
// CAPI: probe(2) = 0.909297

// PY: package: {{.*}}/prefix/lib/python3/dist-packages/posenc/__init__.py
// PY: library: {{.*}}/prefix/lib/python3/dist-packages/posenc/libPosencCAPI.so
// PY: cuda runtime: {{(.*/prefix/lib/libposenc_cuda_runtime.so|none: .*)$}}
// PY: rope matches the reference: True

func.func @block(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>,
                 %v: tensor<1x2x?x16xf32>, %pos: tensor<?xi32>) -> tensor<1x4x?x16xf32> {
  %c2 = arith.constant 2 : index
  %s = tensor.dim %q, %c2 : tensor<1x4x?x16xf32>
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64} : tensor<1x4x?x16xf32>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64} : tensor<1x2x?x16xf32>, tensor<?xi32>
  %b = posenc.alibi_bias (%s, %s) : tensor<4x?x?xf32>
  %o = posenc.attention %qr, %kr, %v bias(%b : tensor<4x?x?xf32>) {causal}
      : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}
