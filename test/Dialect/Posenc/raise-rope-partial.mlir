// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s

// GPT-NeoX/Phi partial rotary as a TOSA exporter writes it
// (test/python/tosa_blocks.py, rope_partial(2, 4, 16, 8)): q_rot = x[..., :8]
// rotated by apply_rotary_pos_emb with 8-wide tables, concatenated with
// q_pass = x[..., 8:]. Raised to one posenc.rope with rotary_dim = 8.

// CHECK-LABEL: func.func @partial(
// CHECK: %[[R:.*]] = posenc.rope %arg0, %{{.*}} layout half {rotary_dim = 8 : i64} : tensor<1x2x4x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @partial(%x: tensor<1x2x4x16xf32>, %pos: tensor<1x4xi32>) -> tensor<1x2x4x16xf32> {
    %t1 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t2 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t3 = tosa.slice %x, %t1, %t2 : (tensor<1x2x4x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x8xf32>
    %t4 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t6 = tosa.slice %x, %t4, %t5 : (tensor<1x2x4x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x8xf32>
    %t7 = "tosa.const"() {values = dense<[[[1.   , 0.1  , 0.01 , 0.001]]]> : tensor<1x1x4xf32>} : () -> tensor<1x1x4xf32>
    %t8 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t9 = tosa.reshape %pos, %t8 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t10 = tosa.cast %t9 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t10, %t7, %t11 : (tensor<1x4x1xf32>, tensor<1x1x4xf32>, tensor<1xi8>) -> tensor<1x4x4xf32>
    %t13 = tosa.concat %t12, %t12 {axis = 2 : i32} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
    %t14 = tosa.cos %t13 : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %t15 = tosa.sin %t13 : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %t16 = tosa.const_shape {values = dense<[1, 1, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t17 = tosa.reshape %t14, %t16 : (tensor<1x4x8xf32>, !tosa.shape<4>) -> tensor<1x1x4x8xf32>
    %t18 = tosa.const_shape {values = dense<[1, 1, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.reshape %t15, %t18 : (tensor<1x4x8xf32>, !tosa.shape<4>) -> tensor<1x1x4x8xf32>
    %t20 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t22 = tosa.slice %t3, %t20, %t21 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t23 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t25 = tosa.slice %t3, %t23, %t24 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t26 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t27 = tosa.negate %t25, %t26, %t26 : (tensor<1x2x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
    %t28 = tosa.concat %t27, %t22 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    %t29 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t30 = tosa.mul %t3, %t17, %t29 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t31 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t32 = tosa.mul %t28, %t19, %t31 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t33 = tosa.add %t30, %t32 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    %t34 = tosa.concat %t33, %t6 {axis = 3 : i32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
    return %t34 : tensor<1x2x4x16xf32>
}

// -----

// Near miss: concat(x[..., 8:], rope(x[..., :8])) puts the rotated part last:
// not rotary_dim (which rotates the first R dims). The 8-wide rotation is
// still raised on its own; no rope over the whole x.
// CHECK-LABEL: func.func @pass_first(
// CHECK: posenc.rope %{{.*}} layout half : tensor<1x2x4x8xf32>
// CHECK-NOT: rotary_dim
// CHECK: tensor.insert_slice
func.func @pass_first(%x: tensor<1x2x4x16xf32>, %pos: tensor<1x4xi32>) -> tensor<1x2x4x16xf32> {
    %t1 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t2 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t3 = tosa.slice %x, %t1, %t2 : (tensor<1x2x4x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x8xf32>
    %t4 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t6 = tosa.slice %x, %t4, %t5 : (tensor<1x2x4x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x8xf32>
    %t7 = "tosa.const"() {values = dense<[[[1.   , 0.1  , 0.01 , 0.001]]]> : tensor<1x1x4xf32>} : () -> tensor<1x1x4xf32>
    %t8 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t9 = tosa.reshape %pos, %t8 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t10 = tosa.cast %t9 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t10, %t7, %t11 : (tensor<1x4x1xf32>, tensor<1x1x4xf32>, tensor<1xi8>) -> tensor<1x4x4xf32>
    %t13 = tosa.concat %t12, %t12 {axis = 2 : i32} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
    %t14 = tosa.cos %t13 : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %t15 = tosa.sin %t13 : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %t16 = tosa.const_shape {values = dense<[1, 1, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t17 = tosa.reshape %t14, %t16 : (tensor<1x4x8xf32>, !tosa.shape<4>) -> tensor<1x1x4x8xf32>
    %t18 = tosa.const_shape {values = dense<[1, 1, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.reshape %t15, %t18 : (tensor<1x4x8xf32>, !tosa.shape<4>) -> tensor<1x1x4x8xf32>
    %t20 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t22 = tosa.slice %t3, %t20, %t21 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t23 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t25 = tosa.slice %t3, %t23, %t24 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t26 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t27 = tosa.negate %t25, %t26, %t26 : (tensor<1x2x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
    %t28 = tosa.concat %t27, %t22 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    %t29 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t30 = tosa.mul %t3, %t17, %t29 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t31 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t32 = tosa.mul %t28, %t19, %t31 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t33 = tosa.add %t30, %t32 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    %t34 = tosa.concat %t6, %t33 {axis = 3 : i32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
    return %t34 : tensor<1x2x4x16xf32>
}
