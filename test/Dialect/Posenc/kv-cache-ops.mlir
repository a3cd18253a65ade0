// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of the KV-cache forms (SPEC.md "Additions"): kv_lengths on
// posenc.attention and posenc.fused_attention, per-batch positions [B, S]
// for posenc.rope and the fused prologue, f32 queries against f16/bf16 K/V.

// CHECK-LABEL: func.func @decode_over_cache
// CHECK: posenc.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<2xi32>) {causal} : tensor<2x32x1x128xf32>, tensor<2x8x4096x128xf16>, tensor<2x8x4096x128xf16> -> tensor<2x32x1x128xf32>
func.func @decode_over_cache(%q: tensor<2x32x1x128xf32>, %k: tensor<2x8x4096x128xf16>,
                             %v: tensor<2x8x4096x128xf16>, %len: tensor<2xi32>)
    -> tensor<2x32x1x128xf32> {
  %o = posenc.attention %q, %k, %v kv_lengths(%len : tensor<2xi32>) {causal}
      : tensor<2x32x1x128xf32>, tensor<2x8x4096x128xf16>, tensor<2x8x4096x128xf16>
      -> tensor<2x32x1x128xf32>
  return %o : tensor<2x32x1x128xf32>
}

// CHECK-LABEL: func.func @bias_and_lengths
// CHECK: posenc.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<4x?x?xf32>) kv_lengths(%{{.*}} : tensor<?xi64>) : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
func.func @bias_and_lengths(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>,
                            %b: tensor<4x?x?xf32>, %len: tensor<?xi64>)
    -> tensor<?x4x?x64xbf16> {
  %o = posenc.attention %q, %k, %k bias(%b : tensor<4x?x?xf32>) kv_lengths(%len : tensor<?xi64>)
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// CHECK-LABEL: func.func @mixed_types
// CHECK: posenc.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4x64xf32>, tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<8x4x64xf32>
func.func @mixed_types(%q: tensor<8x4x64xf32>, %k: tensor<2x16x64xbf16>) -> tensor<8x4x64xf32> {
  %o = posenc.attention %q, %k, %k : tensor<8x4x64xf32>, tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<8x4x64xf32>
  return %o : tensor<8x4x64xf32>
}

// CHECK-LABEL: func.func @rope_per_batch
// CHECK: posenc.rope %{{.*}}, %{{.*}} layout half : tensor<2x8x1x128xf32>, tensor<2x1xi32>
// CHECK: posenc.rope %{{.*}}, %{{.*}} layout interleaved : tensor<?x?x64xf16>, tensor<?x?xi64>
func.func @rope_per_batch(%x: tensor<2x8x1x128xf32>, %pos: tensor<2x1xi32>,
                          %y: tensor<?x?x64xf16>, %pos2: tensor<?x?xi64>)
    -> (tensor<2x8x1x128xf32>, tensor<?x?x64xf16>) {
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x1x128xf32>, tensor<2x1xi32>
  %1 = posenc.rope %y, %pos2 layout interleaved : tensor<?x?x64xf16>, tensor<?x?xi64>
  return %0, %1 : tensor<2x8x1x128xf32>, tensor<?x?x64xf16>
}

// CHECK-LABEL: func.func @fused_over_cache
// CHECK: posenc.fused_attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<2xi64>)
// CHECK-SAME: q_rope(<layout = half, base = 5.000000e+05 : f64, rotary_dim = 64, precision = fast>, %{{.*}} : tensor<2x1xi32>)
// CHECK-SAME: k_rope(<layout = half, base = 5.000000e+05 : f64, rotary_dim = 64, precision = fast>, %{{.*}} : tensor<2x?xi32>)
// CHECK-SAME: {causal} : tensor<2x8x1x64xf32>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16> -> tensor<2x8x1x64xf32> score_mod
func.func @fused_over_cache(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x?x64xf16>,
                            %v: tensor<2x2x?x64xf16>, %len: tensor<2xi64>,
                            %qp: tensor<2x1xi32>, %kp: tensor<2x?xi32>)
    -> tensor<2x8x1x64xf32> {
  %o = posenc.fused_attention %q, %k, %v kv_lengths(%len : tensor<2xi64>)
      q_rope(#posenc.rotary<layout = half, base = 5.0e+05 : f64, rotary_dim = 64,
             precision = fast>, %qp : tensor<2x1xi32>)
      k_rope(#posenc.rotary<layout = half, base = 5.0e+05 : f64, rotary_dim = 64,
             precision = fast>, %kp : tensor<2x?xi32>) {causal}
      : tensor<2x8x1x64xf32>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>
      -> tensor<2x8x1x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x8x1x64xf32>
}
