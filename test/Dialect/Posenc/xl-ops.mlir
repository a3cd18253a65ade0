// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of posenc.xl_attention and of posenc.fused_attention's xl term,
// through the custom and the generic assembly: rel with and without a head
// dim, the default scale not printed, causal a unit attribute, dynamic
// sequence lengths (L = Sq + Sk - 1 then checked at run time).

// CHECK-LABEL: func.func @xl_heads_rel
// CHECK:         posenc.xl_attention %{{.*}}, %{{.*}}, %{{.*}} rel(%{{.*}} : tensor<4x47x16xf32>) content_bias(%{{.*}} : tensor<4x16xf32>) position_bias(%{{.*}} : tensor<4x16xf32>) {causal} : tensor<2x4x16x16xf32>, tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32> -> tensor<2x4x16x16xf32>
func.func @xl_heads_rel(%q: tensor<2x4x16x16xf32>, %k: tensor<2x4x32x16xf32>,
                        %r: tensor<4x47x16xf32>, %u: tensor<4x16xf32>,
                        %v: tensor<4x16xf32>) -> tensor<2x4x16x16xf32> {
  %o = posenc.xl_attention %q, %k, %k rel(%r : tensor<4x47x16xf32>)
      content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>)
      {causal} : tensor<2x4x16x16xf32>, tensor<2x4x32x16xf32>,
      tensor<2x4x32x16xf32> -> tensor<2x4x16x16xf32>
  return %o : tensor<2x4x16x16xf32>
}

// CHECK-LABEL: func.func @xl_shared_rel_dynamic
// CHECK:         posenc.xl_attention %{{.*}}, %{{.*}}, %{{.*}} rel(%{{.*}} : tensor<?x32xbf16>) content_bias(%{{.*}} : tensor<8x32xbf16>) position_bias(%{{.*}} : tensor<8x32xbf16>) {scale = 1.250000e-01 : f64} : tensor<8x?x32xbf16>, tensor<8x?x32xbf16>, tensor<8x?x64xbf16> -> tensor<8x?x64xbf16>
func.func @xl_shared_rel_dynamic(%q: tensor<8x?x32xbf16>, %k: tensor<8x?x32xbf16>,
                                 %val: tensor<8x?x64xbf16>, %r: tensor<?x32xbf16>,
                                 %u: tensor<8x32xbf16>, %v: tensor<8x32xbf16>)
    -> tensor<8x?x64xbf16> {
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<?x32xbf16>)
      content_bias(%u : tensor<8x32xbf16>) position_bias(%v : tensor<8x32xbf16>)
      {scale = 0.125 : f64} : tensor<8x?x32xbf16>, tensor<8x?x32xbf16>,
      tensor<8x?x64xbf16> -> tensor<8x?x64xbf16>
  return %o : tensor<8x?x64xbf16>
}

// CHECK-LABEL: func.func @fused_xl_term
// CHECK:         posenc.fused_attention %{{.*}}, %{{.*}}, %{{.*}} xl(%{{.*}}, %{{.*}}, %{{.*}} : tensor<31x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {causal, scale = 2.500000e-01 : f64} : tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16> -> tensor<1x4x16x16xf16> score_mod {
func.func @fused_xl_term(%q: tensor<1x4x16x16xf16>, %r: tensor<31x16xf16>,
                         %u: tensor<4x16xf16>, %v: tensor<4x16xf16>)
    -> tensor<1x4x16x16xf16> {
  %o = posenc.fused_attention %q, %q, %q
      xl(%r, %u, %v : tensor<31x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>)
      {causal, scale = 0.25 : f64}
      : tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16>
      -> tensor<1x4x16x16xf16> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<1x4x16x16xf16>
}
