// A TOSA attention block (test/python/tosa_blocks.py style) for the
// posenc-import-tosa and posenc-raise runs of every-pass.mlir.
// RAISE-LABEL: func.func @causal_lowest
// RAISE: posenc.attention {{.*}}causal
// RAISE-NOT: linalg.batch_matmul
func.func @causal_lowest(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<2x4x8xf32> {
    %t1 = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
    %t2 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %q, %t2 : (tensor<1x2x4x8xf32>, !tosa.shape<3>) -> tensor<2x4x8xf32>
    %t4 = tosa.const_shape {values = dense<[2, 8, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t5 = tosa.reshape %t1, %t4 : (tensor<1x2x8x4xf32>, !tosa.shape<3>) -> tensor<2x8x4xf32>
    %t6 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t7 = tosa.matmul %t3, %t5, %t6, %t6 : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
    %t8 = "tosa.const"() {values = dense<[[[0.25]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t9 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t10 = tosa.mul %t7, %t8, %t9 : (tensor<2x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
    %t11 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t12 = tosa.reshape %t10, %t11 : (tensor<2x4x4xf32>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t13 = "tosa.const"() {values = dense<[[[[ 0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00]]]]> : tensor<1x1x4x4xf32>} : () -> tensor<1x1x4x4xf32>
    %t14 = tosa.add %t12, %t13 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t15 = tosa.reduce_max %t14 {axis = 3 : i32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
    %t16 = tosa.sub %t14, %t15 : (tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x4xf32>
    %t17 = tosa.exp %t16 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %t18 = tosa.reduce_sum %t17 {axis = 3 : i32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
    %t19 = tosa.reciprocal %t18 : (tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
    %t20 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t21 = tosa.mul %t17, %t19, %t20 : (tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>, tensor<1xi8>) -> tensor<1x2x4x4xf32>
    %t22 = tosa.const_shape {values = dense<[2, 4, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t23 = tosa.reshape %t21, %t22 : (tensor<1x2x4x4xf32>, !tosa.shape<3>) -> tensor<2x4x4xf32>
    %t24 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t25 = tosa.reshape %v, %t24 : (tensor<1x2x4x8xf32>, !tosa.shape<3>) -> tensor<2x4x8xf32>
    %t26 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t27 = tosa.matmul %t23, %t25, %t26, %t26 : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
    return %t27 : tensor<2x4x8xf32>
}
