// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise | FileCheck %s --check-prefix=RAISE
// RUN: posenc-opt %s --posenc-import-tosa --posenc-cpu-pipeline="raise=false" --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=UNRAISED
// RUN: posenc-opt %s --posenc-import-tosa --posenc-cpu-pipeline --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=FUSED

// BLOOM's attention (HuggingFace modeling_bloom) written the way a TOSA
// exporter writes it (test/python/tosa_blocks.py, bloom_block(1, 20, 4,
// 16)): alibi = slopes * arange(Sk) as a [B*H, 1, Sk] product of two
// constants in the graph (build_alibi_tensor with an all-ones mask, BLOOM's
// float32 powf slopes); baddbmm as alibi + (1/sqrt(D)) * q k^T; masked_fill
// of the boolean causal mask with finfo(float32).min as tosa.select;
// softmax; tosa.matmul with V.
//
// Raised: one posenc.attention (causal) whose bias is a posenc.alibi_bias
// in the attribute form: BLOOM's slopes for 4 heads are the rule's with
// max_bias 8 (the default); slope * j differs from slope * (j - i) by a
// constant per row.
// RAISE-LABEL: func.func @bloom_block(
// RAISE: %[[ALIBI:.*]] = posenc.alibi_bias : tensor<4x20x20xf32>
// RAISE: posenc.attention {{.*}} bias(%[[ALIBI]] : tensor<4x20x20xf32>) {causal, scale = 2.500000e-01 : f64}
// RAISE-NOT: posenc.attention
// RAISE-NOT: linalg.batch_matmul
// RAISE-NOT: arith.select
//
// Through posenc-cpu-pipeline the unraised graph materializes the 20 x 20
// scores; the raised one adds slope * (j - i) per tile and has none.
// UNRAISED: linalg.batch_matmul {{.*}} -> tensor<4x20x20xf32>
// FUSED-LABEL: IR Dump After PosencDecomposeAttentionPass
// FUSED-NOT: 20x20
// FUSED-NOT: = posenc.
// FUSED: scf.forall
// FUSED-NOT: 20x20
// FUSED: llvm.func @bloom_block

func.func @bloom_block(%q: tensor<1x20x4x16xf32>, %k: tensor<1x20x4x16xf32>, %v: tensor<1x20x4x16xf32>) -> tensor<1x20x64xf32> {
    %t1 = tosa.transpose %q {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x20x4x16xf32>) -> tensor<1x4x20x16xf32>
    %t2 = tosa.const_shape {values = dense<[4, 20, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %t1, %t2 : (tensor<1x4x20x16xf32>, !tosa.shape<3>) -> tensor<4x20x16xf32>
    %t4 = tosa.transpose %k {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x20x4x16xf32>) -> tensor<1x4x20x16xf32>
    %t5 = tosa.const_shape {values = dense<[4, 20, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t6 = tosa.reshape %t4, %t5 : (tensor<1x4x20x16xf32>, !tosa.shape<3>) -> tensor<4x20x16xf32>
    %t7 = tosa.transpose %v {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x20x4x16xf32>) -> tensor<1x4x20x16xf32>
    %t8 = tosa.const_shape {values = dense<[4, 20, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t9 = tosa.reshape %t7, %t8 : (tensor<1x4x20x16xf32>, !tosa.shape<3>) -> tensor<4x20x16xf32>
    %t10 = tosa.transpose %t6 {perms = array<i32: 0, 2, 1>} : (tensor<4x20x16xf32>) -> tensor<4x16x20xf32>
    %t11 = "tosa.const"() {values = dense<[[[0.25      ]],

 [[0.0625    ]],

 [[0.015625  ]],

 [[0.00390625]]]> : tensor<4x1x1xf32>} : () -> tensor<4x1x1xf32>
    %t12 = "tosa.const"() {values = dense<[[[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13., 14., 15., 16., 17., 18., 19.]]]> : tensor<1x1x20xf32>} : () -> tensor<1x1x20xf32>
    %t13 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t14 = tosa.mul %t11, %t12, %t13 : (tensor<4x1x1xf32>, tensor<1x1x20xf32>, tensor<1xi8>) -> tensor<4x1x20xf32>
    %t15 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t16 = tosa.matmul %t3, %t10, %t15, %t15 : (tensor<4x20x16xf32>, tensor<4x16x20xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x20x20xf32>
    %t17 = "tosa.const"() {values = dense<[[[0.25]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t18 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t19 = tosa.mul %t16, %t17, %t18 : (tensor<4x20x20xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x20x20xf32>
    %t20 = tosa.add %t14, %t19 : (tensor<4x1x20xf32>, tensor<4x20x20xf32>) -> tensor<4x20x20xf32>
    %t21 = tosa.const_shape {values = dense<[1, 4, 20, 20]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t22 = tosa.reshape %t20, %t21 : (tensor<4x20x20xf32>, !tosa.shape<4>) -> tensor<1x4x20x20xf32>
    %t23 = "tosa.const"() {values = dense<[false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false]> : tensor<400xi1>} : () -> tensor<400xi1>
    %t24 = tosa.const_shape {values = dense<[1, 1, 20, 20]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t25 = tosa.reshape %t23, %t24 : (tensor<400xi1>, !tosa.shape<4>) -> tensor<1x1x20x20xi1>
    %t26 = "tosa.const"() {values = dense<[[[[-3.4028235e+38]]]]> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
    %t27 = tosa.select %t25, %t26, %t22 : (tensor<1x1x20x20xi1>, tensor<1x1x1x1xf32>, tensor<1x4x20x20xf32>) -> tensor<1x4x20x20xf32>
    %t28 = tosa.reduce_max %t27 {axis = 3 : i32} : (tensor<1x4x20x20xf32>) -> tensor<1x4x20x1xf32>
    %t29 = tosa.sub %t27, %t28 : (tensor<1x4x20x20xf32>, tensor<1x4x20x1xf32>) -> tensor<1x4x20x20xf32>
    %t30 = tosa.exp %t29 : (tensor<1x4x20x20xf32>) -> tensor<1x4x20x20xf32>
    %t31 = tosa.reduce_sum %t30 {axis = 3 : i32} : (tensor<1x4x20x20xf32>) -> tensor<1x4x20x1xf32>
    %t32 = tosa.reciprocal %t31 : (tensor<1x4x20x1xf32>) -> tensor<1x4x20x1xf32>
    %t33 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t34 = tosa.mul %t30, %t32, %t33 : (tensor<1x4x20x20xf32>, tensor<1x4x20x1xf32>, tensor<1xi8>) -> tensor<1x4x20x20xf32>
    %t35 = tosa.const_shape {values = dense<[4, 20, 20]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t36 = tosa.reshape %t34, %t35 : (tensor<1x4x20x20xf32>, !tosa.shape<3>) -> tensor<4x20x20xf32>
    %t37 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t38 = tosa.matmul %t36, %t9, %t37, %t37 : (tensor<4x20x20xf32>, tensor<4x20x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x20x16xf32>
    %t39 = tosa.const_shape {values = dense<[1, 4, 20, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t40 = tosa.reshape %t38, %t39 : (tensor<4x20x16xf32>, !tosa.shape<4>) -> tensor<1x4x20x16xf32>
    %t41 = tosa.transpose %t40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x20x16xf32>) -> tensor<1x20x4x16xf32>
    %t42 = tosa.const_shape {values = dense<[1, 20, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t43 = tosa.reshape %t41, %t42 : (tensor<1x20x4x16xf32>, !tosa.shape<3>) -> tensor<1x20x64xf32>
    return %t43 : tensor<1x20x64xf32>
}
