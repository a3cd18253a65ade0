// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on half-layout RoPE as a TOSA exporter writes HuggingFace's
// apply_rotary_pos_emb: x * cos + rotate_half(x) * sin with rotate_half as
// two tosa.slice, tosa.negate and tosa.concat, and cos/sin computed in the
// graph from the position_ids argument and HuggingFace's float32 inverse
// frequencies. base and scaling are recovered by comparing the values with
// posenc's formulas; near misses are left alone with the remark that says why.

// HuggingFace apply_rotary_pos_emb, base 10000: the default base.
// CHECK-LABEL: func.func @hf_default_base(
// CHECK: %[[POS:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<1x6xi32> into tensor<6xi32>
// CHECK: %[[R:.*]] = posenc.rope %arg0, %[[POS]] layout half : tensor<1x2x6x16xf32>, tensor<6xi32>
// CHECK: return %[[R]]
func.func @hf_default_base(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Position interpolation (linear, factor 4): recovered from the values.
// CHECK-LABEL: func.func @linear_scaling(
// CHECK: posenc.rope %arg0, %{{.*}} layout half {scaling = #posenc.rope_scaling<linear, factor = 4.000000e+00>}
func.func @linear_scaling(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
    %t1 = "tosa.const"() {values = dense<[[[2.5000000e-01, 7.9056941e-02, 2.5000000e-02, 7.9056947e-03, 2.4999999e-03, 7.9056947e-04, 2.5000001e-04, 7.9056947e-05]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Llama 3: base 500000 with llama3 scaling, HuggingFace's float32 table.
// CHECK-LABEL: func.func @llama3_base_500000(
// CHECK: posenc.rope %arg0, %{{.*}} layout half {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>}
func.func @llama3_base_500000(%x: tensor<1x2x6x64xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x64xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 6.6360122e-01, 4.4036663e-01, 2.9222780e-01, 1.9392276e-01, 1.2868738e-01, 8.5397102e-02, 5.6669619e-02, 3.7606031e-02, 2.4955409e-02, 1.6560441e-02, 1.0989529e-02, 7.2926651e-03, 4.8394212e-03, 3.2114461e-03, 1.3718937e-03, 5.2484602e-04, 1.7850779e-04, 7.7846555e-05, 5.1659074e-05, 3.4281024e-05, 2.2748927e-05, 1.5096218e-05, 1.0017868e-05, 6.6478706e-06, 4.4115345e-06, 2.9274997e-06, 1.9426925e-06, 1.2891732e-06, 8.5549692e-07, 5.6770881e-07, 3.7673229e-07]]]> : tensor<1x1x32xf32>} : () -> tensor<1x1x32xf32>
    %t2 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x6xi32>, !tosa.shape<3>) -> tensor<1x6x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x6x1xi32>) -> tensor<1x6x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x6x1xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<1x6x32xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x6x32xf32>, tensor<1x6x32xf32>) -> tensor<1x6x64xf32>
    %t8 = tosa.cos %t7 : (tensor<1x6x64xf32>) -> tensor<1x6x64xf32>
    %t9 = tosa.sin %t7 : (tensor<1x6x64xf32>) -> tensor<1x6x64xf32>
    %t10 = tosa.const_shape {values = dense<[1, 1, 6, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t11 = tosa.reshape %t8, %t10 : (tensor<1x6x64xf32>, !tosa.shape<4>) -> tensor<1x1x6x64xf32>
    %t12 = tosa.const_shape {values = dense<[1, 1, 6, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t13 = tosa.reshape %t9, %t12 : (tensor<1x6x64xf32>, !tosa.shape<4>) -> tensor<1x1x6x64xf32>
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x32xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x32xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x32xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x32xf32>, tensor<1x2x6x32xf32>) -> tensor<1x2x6x64xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x64xf32>, tensor<1x1x6x64xf32>, tensor<1xi8>) -> tensor<1x2x6x64xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x64xf32>, tensor<1x1x6x64xf32>, tensor<1xi8>) -> tensor<1x2x6x64xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x64xf32>, tensor<1x2x6x64xf32>) -> tensor<1x2x6x64xf32>
    return %t27 : tensor<1x2x6x64xf32>
}

// -----

// NTK-aware scaling is base' = base * factor^(R/(R-2)): raised as that base.
// CHECK-LABEL: func.func @ntk_is_none_with_adjusted_base(
// CHECK: posenc.rope %arg0, %{{.*}} layout half {base = 4.8760{{[0-9]*}}e+04 : f64}
func.func @ntk_is_none_with_adjusted_base(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 2.5941283e-01, 6.7295007e-02, 1.7457189e-02, 4.5286184e-03, 1.1747816e-03, 3.0475340e-04, 7.9056947e-05]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Near miss: rotate_half built as concat(-x1, x2).
// CHECK-LABEL: func.func @halves_swapped(
// CHECK-NOT: posenc.rope
func.func @halves_swapped(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t16, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t19 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{not raised to posenc.rope: no product is rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2]) times a table while the other is x times a table}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Near miss: concat(x2, -x1) rotates the other way.
// CHECK-LABEL: func.func @sign_on_wrong_half(
// CHECK-NOT: posenc.rope
func.func @sign_on_wrong_half(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t16, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t19, %t21 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{not raised to posenc.rope: no product is rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2]) times a table while the other is x times a table}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Near miss: x * sin + rotate_half(x) * cos.
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @cos_sin_swapped(
// CHECK: posenc.rope %arg0 tables(
func.func @cos_sin_swapped(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t13, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t11, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{raised to posenc.rope table form (half layout): x is not multiplied by cos(emb) and rotate_half(x) by sin(emb) of one angle tensor emb read along (S, D)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}

// -----

// Near miss: one inverse frequency off by 0.1%: no posenc formula.
// (A uniform 0.1% drift per pair would be another base, and raised.)
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @frequencies_match_no_formula(
// CHECK: posenc.rope %arg0 tables(
func.func @frequencies_match_no_formula(%x: tensor<1x2x6x16xf32>, %pos: tensor<1x6xi32>) -> tensor<1x2x6x16xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 3.1622776e-01, 1.0000000e-01, 3.1654403e-02, 9.9999998e-03, 3.1622779e-03, 1.0000000e-03, 3.1622779e-04]]]> : tensor<1x1x8xf32>} : () -> tensor<1x1x8xf32>
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
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 2, 6, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x2x6x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x6x8xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x8xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x16xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1xi8>) -> tensor<1x2x6x16xf32>
    // expected-remark @below {{raised to posenc.rope table form (half layout): the inverse frequencies match no position-independent posenc scaling (none, linear, ntk, llama3, yarn) within 8 f32 ulps}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32>
    return %t27 : tensor<1x2x6x16xf32>
}
