// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of every posenc op and attribute form, through the custom and
// the generic assembly.

//===----------------------------------------------------------------------===//
// posenc.sinusoidal
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @sinusoidal_default
func.func @sinusoidal_default(%pos: tensor<16xi32>) -> tensor<16x64xf32> {
  // CHECK: posenc.sinusoidal %arg0 : tensor<16xi32> -> tensor<16x64xf32>
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// CHECK-LABEL: func.func @sinusoidal_layouts
func.func @sinusoidal_layouts(%pos: tensor<?xi64>) -> (tensor<?x512xf32>, tensor<?x512xf32>) {
  // CHECK: posenc.sinusoidal %arg0 : tensor<?xi64> -> tensor<?x512xf32>
  %0 = posenc.sinusoidal %pos layout interleaved : tensor<?xi64> -> tensor<?x512xf32>
  // CHECK: posenc.sinusoidal %arg0 layout half {base = 1.000000e+05 : f64} : tensor<?xi64> -> tensor<?x512xf32>
  %1 = posenc.sinusoidal %pos layout half {base = 1.0e+05 : f64} : tensor<?xi64> -> tensor<?x512xf32>
  return %0, %1 : tensor<?x512xf32>, tensor<?x512xf32>
}

// CHECK-LABEL: func.func @sinusoidal_types
func.func @sinusoidal_types(%pos: tensor<8xi32>) -> (tensor<8x2xf16>, tensor<8x32xbf16>, tensor<8x4xf64>) {
  // CHECK: posenc.sinusoidal %arg0 : tensor<8xi32> -> tensor<8x2xf16>
  %0 = posenc.sinusoidal %pos : tensor<8xi32> -> tensor<8x2xf16>
  // CHECK: posenc.sinusoidal %arg0 layout half : tensor<8xi32> -> tensor<8x32xbf16>
  %1 = posenc.sinusoidal %pos layout half : tensor<8xi32> -> tensor<8x32xbf16>
  // CHECK: posenc.sinusoidal %arg0 : tensor<8xi32> -> tensor<8x4xf64>
  %2 = posenc.sinusoidal %pos : tensor<8xi32> -> tensor<8x4xf64>
  return %0, %1, %2 : tensor<8x2xf16>, tensor<8x32xbf16>, tensor<8x4xf64>
}

//===----------------------------------------------------------------------===//
// posenc.rope
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @rope_layouts
func.func @rope_layouts(%x: tensor<2x8x16x64xf32>, %pos: tensor<16xi32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) {
  // CHECK: posenc.rope %arg0, %arg1 layout interleaved : tensor<2x8x16x64xf32>, tensor<16xi32>
  %0 = posenc.rope %x, %pos layout interleaved : tensor<2x8x16x64xf32>, tensor<16xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half : tensor<2x8x16x64xf32>, tensor<16xi32>
  %1 = posenc.rope %x, %pos layout half : tensor<2x8x16x64xf32>, tensor<16xi32>
  return %0, %1 : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
}

// CHECK-LABEL: func.func @rope_precision
func.func @rope_precision(%x: tensor<16x64xf32>, %pos: tensor<16xi64>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  // CHECK: posenc.rope %arg0, %arg1 layout half precision exact : tensor<16x64xf32>, tensor<16xi64>
  %0 = posenc.rope %x, %pos layout half precision exact : tensor<16x64xf32>, tensor<16xi64>
  // CHECK: posenc.rope %arg0, %arg1 layout half : tensor<16x64xf32>, tensor<16xi64>
  %1 = posenc.rope %x, %pos layout half precision fast : tensor<16x64xf32>, tensor<16xi64>
  return %0, %1 : tensor<16x64xf32>, tensor<16x64xf32>
}

// CHECK-LABEL: func.func @rope_attrs
func.func @rope_attrs(%x: tensor<4x?x64xf32>, %pos: tensor<?xi64>) -> tensor<4x?x64xf32> {
  // CHECK: posenc.rope %arg0, %arg1 layout interleaved precision exact {attention_factor = 1.500000e+00 : f64, base = 5.000000e+05 : f64, rotary_dim = 32 : i64} : tensor<4x?x64xf32>, tensor<?xi64>
  %0 = posenc.rope %x, %pos layout interleaved precision exact {base = 5.0e+05 : f64, rotary_dim = 32 : i64, attention_factor = 1.5 : f64} : tensor<4x?x64xf32>, tensor<?xi64>
  return %0 : tensor<4x?x64xf32>
}

// CHECK-LABEL: func.func @rope_types
func.func @rope_types(%a: tensor<1x32x?x128xbf16>, %b: tensor<?x?x8xf16>, %c: tensor<3x2xf64>, %pa: tensor<?xi32>, %pc: tensor<3xi32>) -> (tensor<1x32x?x128xbf16>, tensor<?x?x8xf16>, tensor<3x2xf64>) {
  // CHECK: posenc.rope %arg0, %arg3 layout half : tensor<1x32x?x128xbf16>, tensor<?xi32>
  %0 = posenc.rope %a, %pa layout half : tensor<1x32x?x128xbf16>, tensor<?xi32>
  // CHECK: posenc.rope %arg1, %arg3 layout interleaved : tensor<?x?x8xf16>, tensor<?xi32>
  %1 = posenc.rope %b, %pa layout interleaved : tensor<?x?x8xf16>, tensor<?xi32>
  // CHECK: posenc.rope %arg2, %arg4 layout interleaved : tensor<3x2xf64>, tensor<3xi32>
  %2 = posenc.rope %c, %pc layout interleaved : tensor<3x2xf64>, tensor<3xi32>
  return %0, %1, %2 : tensor<1x32x?x128xbf16>, tensor<?x?x8xf16>, tensor<3x2xf64>
}

// CHECK-LABEL: func.func @rope_scaling_simple
func.func @rope_scaling_simple(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<none>} : tensor<16x64xf32>, tensor<16xi32>
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<none>} : tensor<16x64xf32>, tensor<16xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<linear, factor = 4.000000e+00>} : tensor<16x64xf32>, tensor<16xi32>
  %1 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = 4.0>} : tensor<16x64xf32>, tensor<16xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<ntk, factor = 2.000000e+00>} : tensor<16x64xf32>, tensor<16xi32>
  %2 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<ntk, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.000000e+00, original_max_position = 2048>} : tensor<16x64xf32>, tensor<16xi32>
  %3 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 2048>} : tensor<16x64xf32>, tensor<16xi32>
  return %0, %1, %2, %3 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// CHECK-LABEL: func.func @rope_scaling_yarn
func.func @rope_scaling_yarn(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.000000e+00, original_max_position = 4096, beta_fast = 3.200000e+01, beta_slow = 1.000000e+00>} : tensor<16x64xf32>, tensor<16xi32>
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>} : tensor<16x64xf32>, tensor<16xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half {scaling = #posenc.rope_scaling<yarn, factor = 8.000000e+00, original_max_position = 4096, beta_fast = 1.600000e+01, beta_slow = 2.000000e+00, attention_factor = 1.250000e+00>} : tensor<16x64xf32>, tensor<16xi32>
  %1 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, attention_factor = 1.25, beta_slow = 2.0, beta_fast = 16.0, original_max_position = 4096, factor = 8.0>} : tensor<16x64xf32>, tensor<16xi32>
  return %0, %1 : tensor<16x64xf32>, tensor<16x64xf32>
}

// CHECK-LABEL: func.func @rope_scaling_llama3
func.func @rope_scaling_llama3(%x: tensor<1x32x?x128xbf16>, %pos: tensor<?xi32>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>) {
  // CHECK: posenc.rope %arg0, %arg1 layout half {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>} : tensor<1x32x?x128xbf16>, tensor<?xi32>
  %0 = posenc.rope %x, %pos layout half {base = 5.0e+05 : f64, scaling = #posenc.rope_scaling<llama3>} : tensor<1x32x?x128xbf16>, tensor<?xi32>
  // CHECK: posenc.rope %arg0, %arg1 layout half {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 3.200000e+01, low_freq_factor = 1.500000e+00, high_freq_factor = 3.000000e+00, original_max_position = 4096>} : tensor<1x32x?x128xbf16>, tensor<?xi32>
  %1 = posenc.rope %x, %pos layout half {base = 5.0e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 32.0, low_freq_factor = 1.5, high_freq_factor = 3.0, original_max_position = 4096>} : tensor<1x32x?x128xbf16>, tensor<?xi32>
  return %0, %1 : tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>
}

// CHECK-LABEL: func.func @rope_scaling_longrope
func.func @rope_scaling_longrope(%x: tensor<2x?x16xf32>, %pos: tensor<?xi64>) -> (tensor<2x?x16xf32>, tensor<2x?x16xf32>) {
  // CHECK: posenc.rope %arg0, %arg1 layout half {rotary_dim = 8 : i64, scaling = #posenc.rope_scaling<longrope, short_factor = [1.000000e+00, 1.000000e+00, 1.500000e+00, 2.000000e+00], long_factor = [2.000000e+00, 4.000000e+00, 8.000000e+00, 1.600000e+01], original_max_position = 4096>} : tensor<2x?x16xf32>, tensor<?xi64>
  %0 = posenc.rope %x, %pos layout half {rotary_dim = 8 : i64, scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0, 1.5, 2.0], long_factor = [2.0, 4.0, 8.0, 16.0], original_max_position = 4096>} : tensor<2x?x16xf32>, tensor<?xi64>
  // CHECK: posenc.rope %arg0, %arg1 layout interleaved {scaling = #posenc.rope_scaling<longrope, short_factor = [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], long_factor = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], original_max_position = 2048, attention_factor = 1.100000e+00>} : tensor<2x?x16xf32>, tensor<?xi64>
  %1 = posenc.rope %x, %pos layout interleaved {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], long_factor = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], original_max_position = 2048, attention_factor = 1.1>} : tensor<2x?x16xf32>, tensor<?xi64>
  return %0, %1 : tensor<2x?x16xf32>, tensor<2x?x16xf32>
}

//===----------------------------------------------------------------------===//
// posenc.alibi_bias
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @alibi_static
func.func @alibi_static() -> (tensor<8x16x16xf32>, tensor<2x12x4x8xf16>) {
  // CHECK: posenc.alibi_bias : tensor<8x16x16xf32>
  %0 = posenc.alibi_bias : tensor<8x16x16xf32>
  // CHECK: posenc.alibi_bias {max_bias = 4.000000e+00 : f64} : tensor<2x12x4x8xf16>
  %1 = posenc.alibi_bias {max_bias = 4.0 : f64} : tensor<2x12x4x8xf16>
  return %0, %1 : tensor<8x16x16xf32>, tensor<2x12x4x8xf16>
}

// CHECK-LABEL: func.func @alibi_dynamic
func.func @alibi_dynamic(%b: index, %sq: index, %sk: index) -> (tensor<4x?x16xf32>, tensor<?x4x?x?xbf16>) {
  // CHECK: posenc.alibi_bias(%arg1) : tensor<4x?x16xf32>
  %0 = posenc.alibi_bias (%sq) : tensor<4x?x16xf32>
  // CHECK: posenc.alibi_bias(%arg0, %arg1, %arg2) : tensor<?x4x?x?xbf16>
  %1 = posenc.alibi_bias (%b, %sq, %sk) : tensor<?x4x?x?xbf16>
  return %0, %1 : tensor<4x?x16xf32>, tensor<?x4x?x?xbf16>
}

// CHECK-LABEL: func.func @alibi_sharded
func.func @alibi_sharded(%sq: index, %sk: index) -> (tensor<1x4x?x?xf32>, tensor<5x8x8xf32>) {
  // CHECK: posenc.alibi_bias(%arg0, %arg1) {head_offset = 4 : i64, num_heads = 12 : i64} : tensor<1x4x?x?xf32>
  %0 = posenc.alibi_bias (%sq, %sk) {num_heads = 12 : i64, head_offset = 4 : i64} : tensor<1x4x?x?xf32>
  // CHECK: posenc.alibi_bias {num_heads = 5 : i64, symmetric} : tensor<5x8x8xf32>
  %1 = posenc.alibi_bias {num_heads = 5 : i64, symmetric} : tensor<5x8x8xf32>
  return %0, %1 : tensor<1x4x?x?xf32>, tensor<5x8x8xf32>
}

// CHECK-LABEL: func.func @alibi_slopes
func.func @alibi_slopes(%s: tensor<4xf32>, %d: tensor<?xf32>, %h: index) -> (tensor<4x7x9xf16>, tensor<?x8x8xf32>) {
  // CHECK: posenc.alibi_bias slopes(%arg0 : tensor<4xf32>) {symmetric} : tensor<4x7x9xf16>
  %0 = posenc.alibi_bias slopes(%s : tensor<4xf32>) {symmetric} : tensor<4x7x9xf16>
  // CHECK: posenc.alibi_bias(%arg2) slopes(%arg1 : tensor<?xf32>) : tensor<?x8x8xf32>
  %1 = posenc.alibi_bias (%h) slopes(%d : tensor<?xf32>) : tensor<?x8x8xf32>
  return %0, %1 : tensor<4x7x9xf16>, tensor<?x8x8xf32>
}

//===----------------------------------------------------------------------===//
// posenc.attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention_basic
func.func @attention_basic(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %v: tensor<1x8x32x48xf32>) -> tensor<1x8x16x48xf32> {
  // CHECK: posenc.attention %arg0, %arg1, %arg2 : tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x48xf32> -> tensor<1x8x16x48xf32>
  %0 = posenc.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x48xf32> -> tensor<1x8x16x48xf32>
  return %0 : tensor<1x8x16x48xf32>
}

// CHECK-LABEL: func.func @attention_causal_gqa_dynamic
func.func @attention_causal_gqa_dynamic(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x8x?x64xf32> {
  // CHECK: posenc.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  %0 = posenc.attention %q, %k, %v {causal, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %0 : tensor<?x8x?x64xf32>
}

// CHECK-LABEL: func.func @attention_bias
func.func @attention_bias(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>, %b3: tensor<8x16x16xf32>, %b4: tensor<1x8x1x16xf32>, %b0: tensor<f32>, %bd: tensor<?x?xf32>) -> (tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) {
  // CHECK: posenc.attention %arg0, %arg1, %arg2 bias(%arg3 : tensor<8x16x16xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  %0 = posenc.attention %q, %k, %v bias(%b3 : tensor<8x16x16xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  // CHECK: posenc.attention %arg0, %arg1, %arg2 bias(%arg4 : tensor<1x8x1x16xf32>) {causal} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  %1 = posenc.attention %q, %k, %v bias(%b4 : tensor<1x8x1x16xf32>) {causal} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  // CHECK: posenc.attention %arg0, %arg1, %arg2 bias(%arg5 : tensor<f32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  %2 = posenc.attention %q, %k, %v bias(%b0 : tensor<f32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  // CHECK: posenc.attention %arg0, %arg1, %arg2 bias(%arg6 : tensor<?x?xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  %3 = posenc.attention %q, %k, %v bias(%bd : tensor<?x?xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %0, %1, %2, %3 : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>
}

// CHECK-LABEL: func.func @attention_types
func.func @attention_types(%q: tensor<4x?x32xf16>, %k: tensor<4x?x32xf16>, %bq: tensor<2x3x4x6x32xbf16>, %bk: tensor<2x3x1x5x32xbf16>, %bb: tensor<1x4x6x5xbf16>) -> (tensor<4x?x32xf16>, tensor<2x3x4x6x32xbf16>) {
  // CHECK: posenc.attention %arg0, %arg1, %arg1 : tensor<4x?x32xf16>, tensor<4x?x32xf16>, tensor<4x?x32xf16> -> tensor<4x?x32xf16>
  %0 = posenc.attention %q, %k, %k : tensor<4x?x32xf16>, tensor<4x?x32xf16>, tensor<4x?x32xf16> -> tensor<4x?x32xf16>
  // CHECK: posenc.attention %arg2, %arg3, %arg3 bias(%arg4 : tensor<1x4x6x5xbf16>) {causal} : tensor<2x3x4x6x32xbf16>, tensor<2x3x1x5x32xbf16>, tensor<2x3x1x5x32xbf16> -> tensor<2x3x4x6x32xbf16>
  %1 = posenc.attention %bq, %bk, %bk bias(%bb : tensor<1x4x6x5xbf16>) {causal} : tensor<2x3x4x6x32xbf16>, tensor<2x3x1x5x32xbf16>, tensor<2x3x1x5x32xbf16> -> tensor<2x3x4x6x32xbf16>
  return %0, %1 : tensor<4x?x32xf16>, tensor<2x3x4x6x32xbf16>
}

//===----------------------------------------------------------------------===//
// posenc.rel_pos_attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @rel_pos_attention_key_only
func.func @rel_pos_attention_key_only(%q: tensor<16x64xf32>, %k: tensor<24x64xf32>, %v: tensor<24x32xf32>, %rk: tensor<9x64xf32>) -> tensor<16x32xf32> {
  // CHECK: posenc.rel_pos_attention %arg0, %arg1, %arg2 rel_key(%arg3 : tensor<9x64xf32>) : tensor<16x64xf32>, tensor<24x64xf32>, tensor<24x32xf32> -> tensor<16x32xf32>
  %0 = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x64xf32>) : tensor<16x64xf32>, tensor<24x64xf32>, tensor<24x32xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @rel_pos_attention_key_value
func.func @rel_pos_attention_key_value(%q: tensor<2x8x?x64xf32>, %k: tensor<2x8x?x64xf32>, %v: tensor<2x8x?x64xf32>, %rk: tensor<33x64xf32>, %rv: tensor<33x64xf32>) -> tensor<2x8x?x64xf32> {
  // CHECK: posenc.rel_pos_attention %arg0, %arg1, %arg2 rel_key(%arg3 : tensor<33x64xf32>) rel_value(%arg4 : tensor<33x64xf32>) {causal, scale = 1.000000e+00 : f64} : tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32> -> tensor<2x8x?x64xf32>
  %0 = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<33x64xf32>) rel_value(%rv : tensor<33x64xf32>) {causal, scale = 1.0 : f64} : tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32> -> tensor<2x8x?x64xf32>
  return %0 : tensor<2x8x?x64xf32>
}

// CHECK-LABEL: func.func @rel_pos_attention_types
func.func @rel_pos_attention_types(%q: tensor<?x?x16xbf16>, %rk: tensor<1x16xbf16>, %h: tensor<3x8xf16>, %hr: tensor<5x8xf16>) -> (tensor<?x?x16xbf16>, tensor<3x8xf16>) {
  // CHECK: posenc.rel_pos_attention %arg0, %arg0, %arg0 rel_key(%arg1 : tensor<1x16xbf16>) rel_value(%arg1 : tensor<1x16xbf16>) : tensor<?x?x16xbf16>, tensor<?x?x16xbf16>, tensor<?x?x16xbf16> -> tensor<?x?x16xbf16>
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<1x16xbf16>) rel_value(%rk : tensor<1x16xbf16>) : tensor<?x?x16xbf16>, tensor<?x?x16xbf16>, tensor<?x?x16xbf16> -> tensor<?x?x16xbf16>
  // CHECK: posenc.rel_pos_attention %arg2, %arg2, %arg2 rel_key(%arg3 : tensor<5x8xf16>) {causal} : tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16> -> tensor<3x8xf16>
  %1 = posenc.rel_pos_attention %h, %h, %h rel_key(%hr : tensor<5x8xf16>) {causal} : tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16> -> tensor<3x8xf16>
  return %0, %1 : tensor<?x?x16xbf16>, tensor<3x8xf16>
}
