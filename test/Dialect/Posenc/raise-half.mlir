// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-import-tosa --posenc-cpu-pipeline -split-input-file -o /dev/null

// Half-precision attention as HuggingFace runs it and a TOSA exporter
// writes it (test/python/tosa_blocks.py, half_attention_block(4, 2, 8)):
// products, scale and the finfo.min causal mask in f16 (bf16), softmax in
// f32 between two tosa.cast, the second product in f16 (bf16). Raised to
// posenc.attention on the half tensors (f32 inside, SPEC.md); the scale is
// the half constant the graph multiplies by (1/sqrt(8) rounded).

// CHECK-LABEL: func.func @half_attention(
// CHECK: posenc.attention {{.*}} {causal, scale = 0.353515625 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: arith.extf
func.func @half_attention(%q: tensor<1x2x4x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16> {
    %t1 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t2 = tosa.reshape %q, %t1 : (tensor<1x2x4x8xf16>, !tosa.shape<3>) -> tensor<2x4x8xf16>
    %t3 = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x4x8xf16>) -> tensor<1x2x8x4xf16>
    %t4 = tosa.const_shape {values = dense<[2, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t5 = tosa.reshape %t3, %t4 : (tensor<1x2x8x4xf16>, !tosa.shape<3>) -> tensor<2x8x4xf16>
    %t6 = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
    %t7 = tosa.matmul %t2, %t5, %t6, %t6 : (tensor<2x4x8xf16>, tensor<2x8x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x4xf16>
    %t8 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t9 = "tosa.const"() {values = dense<0.35355339059327373> : tensor<1x1x1xf16>} : () -> tensor<1x1x1xf16>
    %t10 = tosa.mul %t7, %t9, %t8 : (tensor<2x4x4xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x4x4xf16>
    %t11 = "tosa.const"() {values = dense<[[[     0., -65504., -65504., -65504.],
  [     0.,      0., -65504., -65504.],
  [     0.,      0.,      0., -65504.],
  [     0.,      0.,      0.,      0.]]]> : tensor<1x4x4xf16>} : () -> tensor<1x4x4xf16>
    %t12 = tosa.add %t10, %t11 : (tensor<2x4x4xf16>, tensor<1x4x4xf16>) -> tensor<2x4x4xf16>
    %t13 = tosa.cast %t12 : (tensor<2x4x4xf16>) -> tensor<2x4x4xf32>
    %t14 = tosa.reduce_max %t13 {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
    %t15 = tosa.sub %t13, %t14 : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
    %t16 = tosa.exp %t15 : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %t17 = tosa.reduce_sum %t16 {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
    %t18 = tosa.reciprocal %t17 : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %t19 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t20 = tosa.mul %t16, %t18, %t19 : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
    %t21 = tosa.cast %t20 : (tensor<2x4x4xf32>) -> tensor<2x4x4xf16>
    %t22 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t23 = tosa.reshape %v, %t22 : (tensor<1x2x4x8xf16>, !tosa.shape<3>) -> tensor<2x4x8xf16>
    %t24 = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
    %t25 = tosa.matmul %t21, %t23, %t24, %t24 : (tensor<2x4x4xf16>, tensor<2x4x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x8xf16>
    %t26 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t27 = tosa.reshape %t25, %t26 : (tensor<2x4x8xf16>, !tosa.shape<4>) -> tensor<1x2x4x8xf16>
    return %t27 : tensor<1x2x4x8xf16>
}

// -----

// CHECK-LABEL: func.func @half_attention(
// CHECK: posenc.attention {{.*}} {causal, scale = 0.353515625 : f64} : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x8xbf16>
func.func @half_attention(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16> {
    %t1 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t2 = tosa.reshape %q, %t1 : (tensor<1x2x4x8xbf16>, !tosa.shape<3>) -> tensor<2x4x8xbf16>
    %t3 = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x4x8xbf16>) -> tensor<1x2x8x4xbf16>
    %t4 = tosa.const_shape {values = dense<[2, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t5 = tosa.reshape %t3, %t4 : (tensor<1x2x8x4xbf16>, !tosa.shape<3>) -> tensor<2x8x4xbf16>
    %t6 = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
    %t7 = tosa.matmul %t2, %t5, %t6, %t6 : (tensor<2x4x8xbf16>, tensor<2x8x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x4x4xbf16>
    %t8 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t9 = "tosa.const"() {values = dense<0.35355339059327373> : tensor<1x1x1xbf16>} : () -> tensor<1x1x1xbf16>
    %t10 = tosa.mul %t7, %t9, %t8 : (tensor<2x4x4xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<2x4x4xbf16>
    %t11 = "tosa.const"() {values = dense<[[[ 0.00000000e+00, -3.38953139e+38, -3.38953139e+38, -3.38953139e+38],
  [ 0.00000000e+00,  0.00000000e+00, -3.38953139e+38, -3.38953139e+38],
  [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00, -3.38953139e+38],
  [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]]> : tensor<1x4x4xbf16>} : () -> tensor<1x4x4xbf16>
    %t12 = tosa.add %t10, %t11 : (tensor<2x4x4xbf16>, tensor<1x4x4xbf16>) -> tensor<2x4x4xbf16>
    %t13 = tosa.cast %t12 : (tensor<2x4x4xbf16>) -> tensor<2x4x4xf32>
    %t14 = tosa.reduce_max %t13 {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
    %t15 = tosa.sub %t13, %t14 : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
    %t16 = tosa.exp %t15 : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %t17 = tosa.reduce_sum %t16 {axis = 2 : i32} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
    %t18 = tosa.reciprocal %t17 : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %t19 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t20 = tosa.mul %t16, %t18, %t19 : (tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
    %t21 = tosa.cast %t20 : (tensor<2x4x4xf32>) -> tensor<2x4x4xbf16>
    %t22 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t23 = tosa.reshape %v, %t22 : (tensor<1x2x4x8xbf16>, !tosa.shape<3>) -> tensor<2x4x8xbf16>
    %t24 = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
    %t25 = tosa.matmul %t21, %t23, %t24, %t24 : (tensor<2x4x4xbf16>, tensor<2x4x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x4x8xbf16>
    %t26 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t27 = tosa.reshape %t25, %t26 : (tensor<2x4x8xbf16>, !tosa.shape<4>) -> tensor<1x2x4x8xbf16>
    return %t27 : tensor<1x2x4x8xbf16>
}
