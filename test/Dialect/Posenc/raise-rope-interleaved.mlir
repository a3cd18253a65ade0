// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on the interleaved RoPE layout as a TOSA exporter writes
// Meta's LLaMA rotation in real arithmetic: x reshaped to [..., D/2, 2], the
// pair elements sliced, (a cos - b sin, a sin + b cos) with cos/sin of
// float(position_ids) * inv_freq (HuggingFace's float32 values), concat and
// reshape back.

// Meta's LLaMA 2 rotation (base 10000) in real arithmetic: interleaved.
// CHECK-LABEL: func.func @meta_llama2(
// CHECK: %[[POS:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<1x6xi32> into tensor<6xi32>
// CHECK: %[[R:.*]] = posenc.rope %arg0, %[[POS]] layout interleaved : tensor<1x2x6x16xf32>, tensor<6xi32>
// CHECK: return %[[R]]
func.func @meta_llama2(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1622779e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<1x6x8xf32>
    %t7 = tosa.cos %t6 : (tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
    %t8 = tosa.const_shape {values = dense<[1, 1, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t9 = tosa.reshape %t7, %t8 : (tensor<1x6x8xf32>, !tosa.shape<5>) -> tensor<1x1x6x8x1xf32>
    %t10 = tosa.sin %t6 : (tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
    %t11 = tosa.const_shape {values = dense<[1, 1, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t12 = tosa.reshape %t10, %t11 : (tensor<1x6x8xf32>, !tosa.shape<5>) -> tensor<1x1x6x8x1xf32>
    %t13 = tosa.const_shape {values = dense<[1, 2, 6, 8, 2]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t14 = tosa.reshape %x, %t13 : (tensor<1x2x6x16xf32>, !tosa.shape<5>) -> tensor<1x2x6x8x2xf32>
    %t15 = tosa.const_shape {values = dense<[0, 0, 0, 0, 0]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t16 = tosa.const_shape {values = dense<[1, 2, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t17 = tosa.slice %t14, %t15, %t16 : (tensor<1x2x6x8x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x6x8x1xf32>
    %t18 = tosa.const_shape {values = dense<[0, 0, 0, 0, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t19 = tosa.const_shape {values = dense<[1, 2, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t20 = tosa.slice %t14, %t18, %t19 : (tensor<1x2x6x8x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x6x8x1xf32>
    %t21 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t22 = tosa.mul %t17, %t9, %t21 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %t20, %t12, %t23 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t17, %t12, %t25 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t20, %t9, %t27 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t29 = tosa.sub %t22, %t24 : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x1xf32>
    %t30 = tosa.add %t26, %t28 : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x1xf32>
    %t31 = tosa.concat %t29, %t30 {axis = 4 : i32} : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x2xf32>
    %t32 = tosa.const_shape {values = dense<[1, 2, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    // expected-remark @below {{raised to posenc.rope (interleaved layout)}}
    %t33 = tosa.reshape %t31, %t32 : (tensor<1x2x6x8x2xf32>, !tosa.shape<4>) -> tensor<1x2x6x16xf32>
    return %t33 : tensor<1x2x6x16xf32>
}

// -----

// Meta's Llama 3 rotation: base 500000, llama3 scaling, recovered by value.
// CHECK-LABEL: func.func @llama3_interleaved(
// CHECK: posenc.rope %arg0, %{{.*}} layout interleaved {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>}
func.func @llama3_interleaved(%x: tensor<1x2x5x64xf32>, %pos: tensor<1x5xi32>) -> tensor<1x2x5x64xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 6.6360122e-01, 4.4036663e-01, 2.9222780e-01, 1.9392276e-01, 1.2868738e-01, 8.5397102e-02, 5.6669619e-02, 3.7606031e-02, 2.4955409e-02, 1.6560441e-02, 1.0989529e-02, 7.2926651e-03, 4.8394212e-03, 3.2114461e-03, 1.3718937e-03, 5.2484602e-04, 1.7850779e-04, 7.7846555e-05, 5.1659074e-05, 3.4281024e-05, 2.2748927e-05, 1.5096218e-05, 1.0017868e-05, 6.6478706e-06, 4.4115345e-06, 2.9274997e-06, 1.9426925e-06, 1.2891732e-06, 8.5549692e-07, 5.6770881e-07, 3.7673229e-07]]]> : tensor<1x1x32xf32>} : () -> tensor<1x1x32xf32>
    %t2 = tosa.const_shape {values = dense<[1, 5, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x5xi32>, !tosa.shape<3>) -> tensor<1x5x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x5x1xi32>) -> tensor<1x5x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x5x1xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<1x5x32xf32>
    %t7 = tosa.cos %t6 : (tensor<1x5x32xf32>) -> tensor<1x5x32xf32>
    %t8 = tosa.const_shape {values = dense<[1, 1, 5, 32, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t9 = tosa.reshape %t7, %t8 : (tensor<1x5x32xf32>, !tosa.shape<5>) -> tensor<1x1x5x32x1xf32>
    %t10 = tosa.sin %t6 : (tensor<1x5x32xf32>) -> tensor<1x5x32xf32>
    %t11 = tosa.const_shape {values = dense<[1, 1, 5, 32, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t12 = tosa.reshape %t10, %t11 : (tensor<1x5x32xf32>, !tosa.shape<5>) -> tensor<1x1x5x32x1xf32>
    %t13 = tosa.const_shape {values = dense<[1, 2, 5, 32, 2]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t14 = tosa.reshape %x, %t13 : (tensor<1x2x5x64xf32>, !tosa.shape<5>) -> tensor<1x2x5x32x2xf32>
    %t15 = tosa.const_shape {values = dense<[0, 0, 0, 0, 0]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t16 = tosa.const_shape {values = dense<[1, 2, 5, 32, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t17 = tosa.slice %t14, %t15, %t16 : (tensor<1x2x5x32x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x5x32x1xf32>
    %t18 = tosa.const_shape {values = dense<[0, 0, 0, 0, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t19 = tosa.const_shape {values = dense<[1, 2, 5, 32, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t20 = tosa.slice %t14, %t18, %t19 : (tensor<1x2x5x32x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x5x32x1xf32>
    %t21 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t22 = tosa.mul %t17, %t9, %t21 : (tensor<1x2x5x32x1xf32>, tensor<1x1x5x32x1xf32>, tensor<1xi8>) -> tensor<1x2x5x32x1xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %t20, %t12, %t23 : (tensor<1x2x5x32x1xf32>, tensor<1x1x5x32x1xf32>, tensor<1xi8>) -> tensor<1x2x5x32x1xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t17, %t12, %t25 : (tensor<1x2x5x32x1xf32>, tensor<1x1x5x32x1xf32>, tensor<1xi8>) -> tensor<1x2x5x32x1xf32>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t20, %t9, %t27 : (tensor<1x2x5x32x1xf32>, tensor<1x1x5x32x1xf32>, tensor<1xi8>) -> tensor<1x2x5x32x1xf32>
    %t29 = tosa.sub %t22, %t24 : (tensor<1x2x5x32x1xf32>, tensor<1x2x5x32x1xf32>) -> tensor<1x2x5x32x1xf32>
    %t30 = tosa.add %t26, %t28 : (tensor<1x2x5x32x1xf32>, tensor<1x2x5x32x1xf32>) -> tensor<1x2x5x32x1xf32>
    %t31 = tosa.concat %t29, %t30 {axis = 4 : i32} : (tensor<1x2x5x32x1xf32>, tensor<1x2x5x32x1xf32>) -> tensor<1x2x5x32x2xf32>
    %t32 = tosa.const_shape {values = dense<[1, 2, 5, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    // expected-remark @below {{raised to posenc.rope (interleaved layout)}}
    %t33 = tosa.reshape %t31, %t32 : (tensor<1x2x5x32x2xf32>, !tosa.shape<4>) -> tensor<1x2x5x64xf32>
    return %t33 : tensor<1x2x5x64xf32>
}

// -----

// Near miss: (a cos + b sin, b cos - a sin) rotates by -theta.
// CHECK-LABEL: func.func @rotation_the_other_way(
// CHECK-NOT: posenc.rope
func.func @rotation_the_other_way(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1622779e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<1x6x8xf32>
    %t7 = tosa.cos %t6 : (tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
    %t8 = tosa.const_shape {values = dense<[1, 1, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t9 = tosa.reshape %t7, %t8 : (tensor<1x6x8xf32>, !tosa.shape<5>) -> tensor<1x1x6x8x1xf32>
    %t10 = tosa.sin %t6 : (tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
    %t11 = tosa.const_shape {values = dense<[1, 1, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t12 = tosa.reshape %t10, %t11 : (tensor<1x6x8xf32>, !tosa.shape<5>) -> tensor<1x1x6x8x1xf32>
    %t13 = tosa.const_shape {values = dense<[1, 2, 6, 8, 2]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t14 = tosa.reshape %x, %t13 : (tensor<1x2x6x16xf32>, !tosa.shape<5>) -> tensor<1x2x6x8x2xf32>
    %t15 = tosa.const_shape {values = dense<[0, 0, 0, 0, 0]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t16 = tosa.const_shape {values = dense<[1, 2, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t17 = tosa.slice %t14, %t15, %t16 : (tensor<1x2x6x8x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x6x8x1xf32>
    %t18 = tosa.const_shape {values = dense<[0, 0, 0, 0, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t19 = tosa.const_shape {values = dense<[1, 2, 6, 8, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t20 = tosa.slice %t14, %t18, %t19 : (tensor<1x2x6x8x2xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x6x8x1xf32>
    %t21 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t22 = tosa.mul %t17, %t9, %t21 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %t20, %t12, %t23 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t17, %t12, %t25 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t27 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t28 = tosa.mul %t20, %t9, %t27 : (tensor<1x2x6x8x1xf32>, tensor<1x1x6x8x1xf32>, tensor<1xi8>) -> tensor<1x2x6x8x1xf32>
    %t29 = tosa.add %t22, %t24 : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x1xf32>
    %t30 = tosa.sub %t28, %t26 : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x1xf32>
    %t31 = tosa.concat %t29, %t30 {axis = 4 : i32} : (tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>) -> tensor<1x2x6x8x2xf32>
    %t32 = tosa.const_shape {values = dense<[1, 2, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    // expected-remark @below {{not raised to posenc.rope (interleaved): the pairs are not (a cos - b sin, a sin + b cos) of a = x[..., 0], b = x[..., 1] with cos/sin tables read along (S, pair)}}
    %t33 = tosa.reshape %t31, %t32 : (tensor<1x2x6x8x2xf32>, !tosa.shape<4>) -> tensor<1x2x6x16xf32>
    return %t33 : tensor<1x2x6x16xf32>
}
