// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of posenc.rope's xpos attribute (#posenc.xpos) and of the
// fused_attention prologues that carry it, through the custom and the
// generic assembly: default parameters are not printed, set ones are.

// CHECK-LABEL: func.func @xpos_defaults
// CHECK:         posenc.rope %{{.*}}, %{{.*}} layout half {xpos = #posenc.xpos<role = query>} : tensor<2x16x64xf32>, tensor<16xi32>
func.func @xpos_defaults(%x: tensor<2x16x64xf32>, %pos: tensor<16xi32>) -> tensor<2x16x64xf32> {
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = query>}
      : tensor<2x16x64xf32>, tensor<16xi32>
  return %r : tensor<2x16x64xf32>
}

// CHECK-LABEL: func.func @xpos_all_parameters
// CHECK:         posenc.rope %{{.*}}, %{{.*}} layout interleaved precision exact {rotary_dim = 32 : i64, xpos = #posenc.xpos<role = key, scale_base = 1.024000e+03, gamma = 5.000000e-01, center = -4096>} : tensor<1x4x?x64xbf16>, tensor<1x?xi64>
func.func @xpos_all_parameters(%x: tensor<1x4x?x64xbf16>, %pos: tensor<1x?xi64>)
    -> tensor<1x4x?x64xbf16> {
  %r = posenc.rope %x, %pos layout interleaved precision exact
      {rotary_dim = 32 : i64,
       xpos = #posenc.xpos<role = key, scale_base = 1024.0, gamma = 0.5, center = -4096>}
      : tensor<1x4x?x64xbf16>, tensor<1x?xi64>
  return %r : tensor<1x4x?x64xbf16>
}

// A gamma below -1 keeps every zeta_p > 0 and is accepted.
// CHECK-LABEL: func.func @xpos_gamma_below_minus_one
// CHECK:         #posenc.xpos<role = query, gamma = -2.000000e+00>
func.func @xpos_gamma_below_minus_one(%x: tensor<8x16xf16>, %pos: tensor<8xi32>) -> tensor<8x16xf16> {
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = query, gamma = -2.0>}
      : tensor<8x16xf16>, tensor<8xi32>
  return %r : tensor<8x16xf16>
}

// CHECK-LABEL: func.func @fused_xpos_pair
// CHECK:         q_rope(<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast, xpos = <role = query, center = 7>>
// CHECK-SAME:    k_rope(<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast, xpos = <role = key>>
func.func @fused_xpos_pair(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>,
                           %v: tensor<1x4x16x64xf32>, %pos: tensor<16xi32>) -> tensor<1x4x16x64xf32> {
  %o = posenc.fused_attention %q, %k, %v
      q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = query, center = 7>>, %pos : tensor<16xi32>)
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = key>>, %pos : tensor<16xi32>)
      {causal}
      : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
      score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return %o : tensor<1x4x16x64xf32>
}
