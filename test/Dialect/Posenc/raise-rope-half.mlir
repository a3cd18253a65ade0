// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// RoPE in a half-precision model as HuggingFace runs it and a TOSA exporter
// writes it (test/python/tosa_blocks.py, rope_half_precision(2, 6, 16)):
// cos/sin computed in f32 from the position_ids, cast to the model's type
// (`cos.to(x.dtype)`), the rotation in f16 (bf16). Raised to posenc.rope on
// the half tensor, which rotates in f32 and rounds once (the graph rounds
// the tables, both products and the sum; test_raising.py checks both
// against the float64 reference).

// CHECK-LABEL: func.func @f16_rope(
// CHECK: posenc.rope %arg0, %{{.*}} layout half : tensor<1x2x6x16xf16>, tensor<6xi32>
// CHECK-NOT: tosa.cast
// CHECK-NOT: linalg.generic
func.func @f16_rope(%x: tensor<1x2x6x16xf16>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf16> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1622779e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<1x6x8xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x6x8xf32>, tensor<1x6x8xf32>) -> tensor<1x6x16xf32>
    %t8 = tosa.cos %t7 : (tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
    %t9 = tosa.sin %t7 : (tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
    %t10 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t11 = tosa.reshape %t8, %t10 : (tensor<1x6x16xf32>, !tosa.shape<4>) -> tensor<1x1x6x16xf32>
    %t12 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t13 = tosa.reshape %t9, %t12 : (tensor<1x6x16xf32>, !tosa.shape<4>) -> tensor<1x1x6x16xf32>
    %t14 = tosa.cast %t11 : (tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xf16>
    %t15 = tosa.cast %t13 : (tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xf16>
    %t16 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t17 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.slice %x, %t16, %t17 : (tensor<1x2x6x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf16>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x2x6x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf16>
    %t22 = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
    %t23 = tosa.negate %t21, %t22, %t22 : (tensor<1x2x6x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x6x8xf16>
    %t24 = tosa.concat %t23, %t18 {axis = 3 : i32} : (tensor<1x2x6x8xf16>, tensor<1x2x6x8xf16>) -> tensor<1x2x6x16xf16>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %x, %t14, %t25 : (tensor<1x2x6x16xf16>, tensor<1x1x6x16xf16>, tensor<1xi8>) -> tensor<1x2x6x16xf16>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t24, %t15, %t27 : (tensor<1x2x6x16xf16>, tensor<1x1x6x16xf16>, tensor<1xi8>) -> tensor<1x2x6x16xf16>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t29 = tosa.add %t26, %t28 : (tensor<1x2x6x16xf16>, tensor<1x2x6x16xf16>) -> tensor<1x2x6x16xf16>
    return %t29 : tensor<1x2x6x16xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_rope(
// CHECK: posenc.rope %arg0, %{{.*}} layout half : tensor<1x2x6x16xbf16>, tensor<6xi32>
func.func @bf16_rope(%x: tensor<1x2x6x16xbf16>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xbf16> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1622779e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<1x6x8xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x6x8xf32>, tensor<1x6x8xf32>) -> tensor<1x6x16xf32>
    %t8 = tosa.cos %t7 : (tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
    %t9 = tosa.sin %t7 : (tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
    %t10 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t11 = tosa.reshape %t8, %t10 : (tensor<1x6x16xf32>, !tosa.shape<4>) -> tensor<1x1x6x16xf32>
    %t12 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t13 = tosa.reshape %t9, %t12 : (tensor<1x6x16xf32>, !tosa.shape<4>) -> tensor<1x1x6x16xf32>
    %t14 = tosa.cast %t11 : (tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xbf16>
    %t15 = tosa.cast %t13 : (tensor<1x1x6x16xf32>) -> tensor<1x1x6x16xbf16>
    %t16 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t17 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.slice %x, %t16, %t17 : (tensor<1x2x6x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xbf16>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x2x6x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xbf16>
    %t22 = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
    %t23 = tosa.negate %t21, %t22, %t22 : (tensor<1x2x6x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2x6x8xbf16>
    %t24 = tosa.concat %t23, %t18 {axis = 3 : i32} : (tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>) -> tensor<1x2x6x16xbf16>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %x, %t14, %t25 : (tensor<1x2x6x16xbf16>, tensor<1x1x6x16xbf16>, tensor<1xi8>) -> tensor<1x2x6x16xbf16>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t24, %t15, %t27 : (tensor<1x2x6x16xbf16>, tensor<1x1x6x16xbf16>, tensor<1xi8>) -> tensor<1x2x6x16xbf16>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t29 = tosa.add %t26, %t28 : (tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>) -> tensor<1x2x6x16xbf16>
    return %t29 : tensor<1x2x6x16xbf16>
}

// -----

// Near miss: the angles themselves in f16 (positions and inverse
// frequencies rounded to f16 before the product, so position 2049 is
// 2048): not what posenc.rope computes; left alone.
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @f16_angles(
// CHECK: posenc.rope %arg0 tables(
func.func @f16_angles(%x: tensor<1x2x6x16xf16>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf16> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1622779e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf16>} : () -> tensor<1x1x8xf16>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf16>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf16>, tensor<1x1x8xf16>, tensor<1xi8>) -> tensor<1x6x8xf16>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x6x8xf16>, tensor<1x6x8xf16>) -> tensor<1x6x16xf16>
    %t8 = tosa.cos %t7 : (tensor<1x6x16xf16>) -> tensor<1x6x16xf16>
    %t9 = tosa.sin %t7 : (tensor<1x6x16xf16>) -> tensor<1x6x16xf16>
    %t10 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t11 = tosa.reshape %t8, %t10 : (tensor<1x6x16xf16>, !tosa.shape<4>) -> tensor<1x1x6x16xf16>
    %t12 = tosa.const_shape {values = dense<[1, 1, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t13 = tosa.reshape %t9, %t12 : (tensor<1x6x16xf16>, !tosa.shape<4>) -> tensor<1x1x6x16xf16>
    %t14 = tosa.reshape %t11, %t10 : (tensor<1x1x6x16xf16>, !tosa.shape<4>) -> tensor<1x1x6x16xf16>
    %t15 = tosa.reshape %t13, %t10 : (tensor<1x1x6x16xf16>, !tosa.shape<4>) -> tensor<1x1x6x16xf16>
    %t16 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t17 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.slice %x, %t16, %t17 : (tensor<1x2x6x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf16>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x2x6x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf16>
    %t22 = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
    %t23 = tosa.negate %t21, %t22, %t22 : (tensor<1x2x6x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x6x8xf16>
    %t24 = tosa.concat %t23, %t18 {axis = 3 : i32} : (tensor<1x2x6x8xf16>, tensor<1x2x6x8xf16>) -> tensor<1x2x6x16xf16>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %x, %t14, %t25 : (tensor<1x2x6x16xf16>, tensor<1x1x6x16xf16>, tensor<1xi8>) -> tensor<1x2x6x16xf16>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t24, %t15, %t27 : (tensor<1x2x6x16xf16>, tensor<1x1x6x16xf16>, tensor<1xi8>) -> tensor<1x2x6x16xf16>
    // expected-remark @below {{raised to posenc.rope table form (half layout): the angles are not computed in f32}}
    %t29 = tosa.add %t26, %t28 : (tensor<1x2x6x16xf16>, tensor<1x2x6x16xf16>) -> tensor<1x2x6x16xf16>
    return %t29 : tensor<1x2x6x16xf16>
}
