// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s

// The half-layout RoPE written without rotate_half, as a TOSA exporter
// writes it (test/python/tosa_blocks.py, rope_expanded(2, 4, 8)):
// concat(x1 cos - x2 sin, x2 cos + x1 sin) with x1, x2 the two halves of x
// and cos/sin [S, D/2] of float(positions) * inv_freq. Raised to
// posenc.rope layout half.

// CHECK-LABEL: func.func @expanded(
// CHECK: %[[R:.*]] = posenc.rope %arg0, %{{.*}} layout half : tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @expanded(%x: tensor<1x2x4x8xf32>, %pos: tensor<1x4xi32>) -> tensor<1x2x4x8xf32> {
    %t1 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t2 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t3 = tosa.slice %x, %t1, %t2 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t4 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t6 = tosa.slice %x, %t4, %t5 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t7 = "tosa.const"() {values = dense<[[[1.   , 0.1  , 0.01 , 0.001]]]> : tensor<1x1x4xf32>} : () -> tensor<1x1x4xf32>
    %t8 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t9 = tosa.reshape %pos, %t8 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t10 = tosa.cast %t9 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t10, %t7, %t11 : (tensor<1x4x1xf32>, tensor<1x1x4xf32>, tensor<1xi8>) -> tensor<1x4x4xf32>
    %t13 = tosa.cos %t12 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    %t14 = tosa.const_shape {values = dense<[1, 1, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.reshape %t13, %t14 : (tensor<1x4x4xf32>, !tosa.shape<4>) -> tensor<1x1x4x4xf32>
    %t16 = tosa.sin %t12 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    %t17 = tosa.const_shape {values = dense<[1, 1, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.reshape %t16, %t17 : (tensor<1x4x4xf32>, !tosa.shape<4>) -> tensor<1x1x4x4xf32>
    %t19 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t20 = tosa.mul %t3, %t15, %t19 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t21 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t22 = tosa.mul %t6, %t18, %t21 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %t6, %t15, %t23 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t3, %t18, %t25 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t27 = tosa.sub %t20, %t22 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t28 = tosa.add %t24, %t26 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t29 = tosa.concat %t27, %t28 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    return %t29 : tensor<1x2x4x8xf32>
}

// -----

// Near miss: (x1 cos + x2 sin, x2 cos - x1 sin) rotates the other way: left
// alone.
// CHECK-LABEL: func.func @other_direction(
// CHECK-NOT: posenc.rope
func.func @other_direction(%x: tensor<1x2x4x8xf32>, %pos: tensor<1x4xi32>) -> tensor<1x2x4x8xf32> {
    %t1 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t2 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t3 = tosa.slice %x, %t1, %t2 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t4 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t6 = tosa.slice %x, %t4, %t5 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t7 = "tosa.const"() {values = dense<[[[1.   , 0.1  , 0.01 , 0.001]]]> : tensor<1x1x4xf32>} : () -> tensor<1x1x4xf32>
    %t8 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t9 = tosa.reshape %pos, %t8 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t10 = tosa.cast %t9 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t10, %t7, %t11 : (tensor<1x4x1xf32>, tensor<1x1x4xf32>, tensor<1xi8>) -> tensor<1x4x4xf32>
    %t13 = tosa.cos %t12 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    %t14 = tosa.const_shape {values = dense<[1, 1, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.reshape %t13, %t14 : (tensor<1x4x4xf32>, !tosa.shape<4>) -> tensor<1x1x4x4xf32>
    %t16 = tosa.sin %t12 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    %t17 = tosa.const_shape {values = dense<[1, 1, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.reshape %t16, %t17 : (tensor<1x4x4xf32>, !tosa.shape<4>) -> tensor<1x1x4x4xf32>
    %t19 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t20 = tosa.mul %t3, %t15, %t19 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t21 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t22 = tosa.mul %t6, %t18, %t21 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %t6, %t15, %t23 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t3, %t18, %t25 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t27 = tosa.add %t20, %t22 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t28 = tosa.sub %t24, %t26 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t29 = tosa.concat %t27, %t28 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    return %t29 : tensor<1x2x4x8xf32>
}
