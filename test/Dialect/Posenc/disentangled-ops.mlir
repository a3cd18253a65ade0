// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of posenc.disentangled_attention, through the custom and the
// generic assembly: the default terms (c2p|p2c) and position_buckets (0) are
// not printed, set ones are; each table is present with its term.

// CHECK-LABEL: func.func @both_terms_buckets
// CHECK:         posenc.disentangled_attention %{{.*}}, %{{.*}}, %{{.*}} pos_key(%{{.*}} : tensor<512x64xf32>) pos_query(%{{.*}} : tensor<512x64xf32>) {max_relative_positions = 512 : i64, position_buckets = 256 : i64} : tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32> -> tensor<2x12x?x64xf32>
func.func @both_terms_buckets(%q: tensor<2x12x?x64xf32>, %k: tensor<2x12x?x64xf32>,
                              %v: tensor<2x12x?x64xf32>, %pk: tensor<512x64xf32>,
                              %pq: tensor<512x64xf32>) -> tensor<2x12x?x64xf32> {
  %o = posenc.disentangled_attention %q, %k, %v
      pos_key(%pk : tensor<512x64xf32>) pos_query(%pq : tensor<512x64xf32>)
      {position_buckets = 256 : i64, max_relative_positions = 512 : i64}
      : tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32>
      -> tensor<2x12x?x64xf32>
  return %o : tensor<2x12x?x64xf32>
}

// CHECK-LABEL: func.func @c2p_per_head_causal
// CHECK:         posenc.disentangled_attention %{{.*}}, %{{.*}}, %{{.*}} pos_key(%{{.*}} : tensor<12x256x64xf16>) terms c2p {causal} : tensor<1x12x16x64xf16>, tensor<1x12x32x64xf16>, tensor<1x12x32x64xf16> -> tensor<1x12x16x64xf16>
func.func @c2p_per_head_causal(%q: tensor<1x12x16x64xf16>, %k: tensor<1x12x32x64xf16>,
                               %v: tensor<1x12x32x64xf16>, %pk: tensor<12x256x64xf16>)
    -> tensor<1x12x16x64xf16> {
  %o = posenc.disentangled_attention %q, %k, %v pos_key(%pk : tensor<12x256x64xf16>)
      terms c2p {causal}
      : tensor<1x12x16x64xf16>, tensor<1x12x32x64xf16>, tensor<1x12x32x64xf16>
      -> tensor<1x12x16x64xf16>
  return %o : tensor<1x12x16x64xf16>
}

// CHECK-LABEL: func.func @p2c_scale
// CHECK:         posenc.disentangled_attention %{{.*}}, %{{.*}}, %{{.*}} pos_query(%{{.*}} : tensor<8x32xbf16>) terms p2c {max_relative_positions = 4 : i64, scale = 1.250000e-01 : f64} : tensor<4x8x32xbf16>, tensor<4x8x32xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x16xbf16>
func.func @p2c_scale(%q: tensor<4x8x32xbf16>, %k: tensor<4x8x32xbf16>,
                     %v: tensor<4x8x16xbf16>, %pq: tensor<8x32xbf16>) -> tensor<4x8x16xbf16> {
  %o = posenc.disentangled_attention %q, %k, %v pos_query(%pq : tensor<8x32xbf16>)
      terms p2c {scale = 0.125 : f64, max_relative_positions = 4 : i64}
      : tensor<4x8x32xbf16>, tensor<4x8x32xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x16xbf16>
  return %o : tensor<4x8x16xbf16>
}

// CHECK-LABEL: func.func @explicit_both
// CHECK:         posenc.disentangled_attention %{{.*}}, %{{.*}}, %{{.*}} pos_key(%{{.*}} : tensor<8x4xf32>) pos_query(%{{.*}} : tensor<8x4xf32>) : tensor<1x3x4xf32>
func.func @explicit_both(%q: tensor<1x3x4xf32>, %pk: tensor<8x4xf32>) -> tensor<1x3x4xf32> {
  %o = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>)
      pos_query(%pk : tensor<8x4xf32>) terms c2p|p2c
      : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x3x4xf32>
  return %o : tensor<1x3x4xf32>
}
