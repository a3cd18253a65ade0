// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on yarn RoPE as HuggingFace computes it and a TOSA exporter
// writes it: the float32 inverse frequencies of `_compute_yarn_parameters`
// (base 10000, factor 4, original_max_position 4096, default betas: pairs
// up to 5 extrapolated, from 12 on interpolated, a linear ramp between) and
// `cos = emb.cos() * attention_scaling`. The scaling is recovered by value;
// a constant on both tables is the attention factor: implied by yarn when it
// equals yarn's default 0.1 ln(4) + 1, explicit otherwise.

// CHECK-LABEL: func.func @yarn_default_scaling(
// CHECK: posenc.rope %arg0, %{{.*}} layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.000000e+00, original_max_position = 4096, beta_fast = 3.200000e+01, beta_slow = 1.000000e+00>}
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @yarn_default_scaling(%x: tensor<1x1x4x32xf32>, %pos: tensor<1x4xi32>) -> tensor<1x1x4x32xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 5.6234133e-01, 3.1622776e-01, 1.7782794e-01, 1.0000000e-01, 5.6234129e-02, 2.8234623e-02, 1.3972196e-02, 6.7857141e-03, 3.2133791e-03, 1.4682005e-03, 6.3509983e-04, 2.5000001e-04, 1.4058533e-04, 7.9056947e-05, 4.4456985e-05]]]> : tensor<1x1x16xf32>} : () -> tensor<1x1x16xf32>
    %t2 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x4x1xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x32xf32>
    %t8 = tosa.cos %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t9 = tosa.sin %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t10 = "tosa.const"() {values = dense<[[[1.1386294]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t8, %t10, %t11 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t13 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t14 = tosa.mul %t9, %t10, %t13 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t15 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.reshape %t12, %t15 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t17 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.reshape %t14, %t17 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t22 = tosa.const_shape {values = dense<[0, 0, 0, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t23 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.slice %x, %t22, %t23 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t25 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t26 = tosa.negate %t24, %t25, %t25 : (tensor<1x1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x16xf32>
    %t27 = tosa.concat %t26, %t21 {axis = 3 : i32} : (tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) -> tensor<1x1x4x32xf32>
    %t28 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t29 = tosa.mul %x, %t16, %t28 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    %t30 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t31 = tosa.mul %t27, %t18, %t30 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t32 = tosa.add %t29, %t31 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>) -> tensor<1x1x4x32xf32>
    return %t32 : tensor<1x1x4x32xf32>
}

// -----

// The same frequencies with unscaled tables: yarn's default factor would
// scale the result, so the raised op says attention_factor = 1.
// CHECK-LABEL: func.func @yarn_unscaled_tables(
// CHECK: posenc.rope %arg0, %{{.*}} layout half {attention_factor = 1.000000e+00 : f64, scaling = #posenc.rope_scaling<yarn, factor = 4.000000e+00, original_max_position = 4096
func.func @yarn_unscaled_tables(%x: tensor<1x1x4x32xf32>, %pos: tensor<1x4xi32>) -> tensor<1x1x4x32xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 5.6234133e-01, 3.1622776e-01, 1.7782794e-01, 1.0000000e-01, 5.6234129e-02, 2.8234623e-02, 1.3972196e-02, 6.7857141e-03, 3.2133791e-03, 1.4682005e-03, 6.3509983e-04, 2.5000001e-04, 1.4058533e-04, 7.9056947e-05, 4.4456985e-05]]]> : tensor<1x1x16xf32>} : () -> tensor<1x1x16xf32>
    %t2 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x4x1xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x32xf32>
    %t8 = tosa.cos %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t9 = tosa.sin %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t10 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t11 = tosa.reshape %t8, %t10 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t12 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t13 = tosa.reshape %t9, %t12 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t14 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t15 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.slice %x, %t14, %t15 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t17 = tosa.const_shape {values = dense<[0, 0, 0, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t19 = tosa.slice %x, %t17, %t18 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t20 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t21 = tosa.negate %t19, %t20, %t20 : (tensor<1x1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x16xf32>
    %t22 = tosa.concat %t21, %t16 {axis = 3 : i32} : (tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) -> tensor<1x1x4x32xf32>
    %t23 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t24 = tosa.mul %x, %t11, %t23 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    %t25 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t26 = tosa.mul %t22, %t13, %t25 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t27 = tosa.add %t24, %t26 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>) -> tensor<1x1x4x32xf32>
    return %t27 : tensor<1x1x4x32xf32>
}

// -----

// Near miss: one frequency off by 0.1 % matches no formula; left alone.
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @yarn_perturbed(
// CHECK: posenc.rope %arg0 tables(
// CHECK: return
func.func @yarn_perturbed(%x: tensor<1x1x4x32xf32>, %pos: tensor<1x4xi32>) -> tensor<1x1x4x32xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 5.6234133e-01, 3.1622776e-01, 1.7782794e-01, 1.0000000e-01, 5.6234129e-02, 2.8234623e-02, 1.3972196e-02, 6.7924997e-03, 3.2133791e-03, 1.4682005e-03, 6.3509983e-04, 2.5000001e-04, 1.4058533e-04, 7.9056947e-05, 4.4456985e-05]]]> : tensor<1x1x16xf32>} : () -> tensor<1x1x16xf32>
    %t2 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x4x1xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x32xf32>
    %t8 = tosa.cos %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t9 = tosa.sin %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t10 = "tosa.const"() {values = dense<[[[1.1386294]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t8, %t10, %t11 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t13 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t14 = tosa.mul %t9, %t10, %t13 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t15 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.reshape %t12, %t15 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t17 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.reshape %t14, %t17 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t22 = tosa.const_shape {values = dense<[0, 0, 0, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t23 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.slice %x, %t22, %t23 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t25 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t26 = tosa.negate %t24, %t25, %t25 : (tensor<1x1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x16xf32>
    %t27 = tosa.concat %t26, %t21 {axis = 3 : i32} : (tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) -> tensor<1x1x4x32xf32>
    %t28 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t29 = tosa.mul %x, %t16, %t28 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    %t30 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t31 = tosa.mul %t27, %t18, %t30 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    // expected-remark @below {{raised to posenc.rope table form (half layout): the inverse frequencies match no position-independent posenc scaling (none, linear, ntk, llama3, yarn) within 8 f32 ulps}}
    %t32 = tosa.add %t29, %t31 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>) -> tensor<1x1x4x32xf32>
    return %t32 : tensor<1x1x4x32xf32>
}

// -----

// Near miss: cos and sin times different constants is not a rotation.
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @different_table_scales(
// CHECK: posenc.rope %arg0 tables(
// CHECK: return
func.func @different_table_scales(%x: tensor<1x1x4x32xf32>, %pos: tensor<1x4xi32>) -> tensor<1x1x4x32xf32> {
    %t1 = "tosa.const"() {values = dense<[[[1.0000000e+00, 5.6234133e-01, 3.1622776e-01, 1.7782794e-01, 1.0000000e-01, 5.6234129e-02, 2.8234623e-02, 1.3972196e-02, 6.7857141e-03, 3.2133791e-03, 1.4682005e-03, 6.3509983e-04, 2.5000001e-04, 1.4058533e-04, 7.9056947e-05, 4.4456985e-05]]]> : tensor<1x1x16xf32>} : () -> tensor<1x1x16xf32>
    %t2 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t3 = tosa.reshape %pos, %t2 : (tensor<1x4xi32>, !tosa.shape<3>) -> tensor<1x4x1xi32>
    %t4 = tosa.cast %t3 : (tensor<1x4x1xi32>) -> tensor<1x4x1xf32>
    %t5 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t6 = tosa.mul %t4, %t1, %t5 : (tensor<1x4x1xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
    %t7 = tosa.concat %t6, %t6 {axis = 2 : i32} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x32xf32>
    %t8 = tosa.cos %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t9 = tosa.sin %t7 : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
    %t10 = "tosa.const"() {values = dense<[[[1.1386294]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t11 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t12 = tosa.mul %t8, %t10, %t11 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t13 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t10b = "tosa.const"() {values = dense<[[[1.25]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t14 = tosa.mul %t9, %t10b, %t13 : (tensor<1x4x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x32xf32>
    %t15 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t16 = tosa.reshape %t12, %t15 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t17 = tosa.const_shape {values = dense<[1, 1, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t18 = tosa.reshape %t14, %t17 : (tensor<1x4x32xf32>, !tosa.shape<4>) -> tensor<1x1x4x32xf32>
    %t19 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t21 = tosa.slice %x, %t19, %t20 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t22 = tosa.const_shape {values = dense<[0, 0, 0, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t23 = tosa.const_shape {values = dense<[1, 1, 4, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.slice %x, %t22, %t23 : (tensor<1x1x4x32xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x1x4x16xf32>
    %t25 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t26 = tosa.negate %t24, %t25, %t25 : (tensor<1x1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x16xf32>
    %t27 = tosa.concat %t26, %t21 {axis = 3 : i32} : (tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) -> tensor<1x1x4x32xf32>
    %t28 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t29 = tosa.mul %x, %t16, %t28 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    %t30 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t31 = tosa.mul %t27, %t18, %t30 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1xi8>) -> tensor<1x1x4x32xf32>
    // expected-remark @below {{raised to posenc.rope table form (half layout): cos and sin are multiplied by different constants}}
    %t32 = tosa.add %t29, %t31 : (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>) -> tensor<1x1x4x32xf32>
    return %t32 : tensor<1x1x4x32xf32>
}
