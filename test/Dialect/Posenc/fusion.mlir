// RUN: posenc-opt %s --posenc-fuse-attention --split-input-file | FileCheck %s

// posenc-fuse-attention folds the encodings feeding attention into
// posenc.fused_attention.

// CHECK-LABEL: func.func @rope_qk
// CHECK-NOT: posenc.rope
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2
// CHECK-SAME: q_rope(<layout = half, base = 5.000000e+05 : f64, rotary_dim = 64, precision = fast>, %arg3 : tensor<?xi32>)
// CHECK-SAME: k_rope(<layout = half, base = 5.000000e+05 : f64, rotary_dim = 64, precision = fast>, %arg3 : tensor<?xi32>)
// CHECK-SAME: {causal}
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: posenc.yield %[[S]] : f32
func.func @rope_qk(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                   %v: tensor<1x2x?x64xf32>, %pos: tensor<?xi32>) -> tensor<1x8x?x64xf32> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64} : tensor<1x8x?x64xf32>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64} : tensor<1x2x?x64xf32>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}

// -----

// A rope whose result has another user stays; the fused op reads its result.
// CHECK-LABEL: func.func @rope_shared
// CHECK: %[[QR:.*]] = posenc.rope
// CHECK: posenc.fused_attention %[[QR]], %arg1, %arg2 :
// CHECK: return
func.func @rope_shared(%q: tensor<4x16x32xf32>, %k: tensor<4x16x32xf32>,
                       %v: tensor<4x16x32xf32>, %pos: tensor<16xi32>)
    -> (tensor<4x16x32xf32>, tensor<4x16x32xf32>) {
  %qr = posenc.rope %q, %pos layout interleaved : tensor<4x16x32xf32>, tensor<16xi32>
  %o = posenc.attention %qr, %k, %v
      : tensor<4x16x32xf32>, tensor<4x16x32xf32>, tensor<4x16x32xf32> -> tensor<4x16x32xf32>
  return %o, %qr : tensor<4x16x32xf32>, tensor<4x16x32xf32>
}

// -----

// Sequence-length-dependent scalings are not folded (their frequencies are
// computed at run time by the reference lowering).
// CHECK-LABEL: func.func @rope_dynamic_ntk
// CHECK: posenc.rope
// CHECK: posenc.fused_attention
// CHECK-NOT: q_rope
func.func @rope_dynamic_ntk(%q: tensor<4x16x32xf32>, %v: tensor<4x16x32xf32>,
                            %pos: tensor<16xi32>) -> tensor<4x16x32xf32> {
  %qr = posenc.rope %q, %pos layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 8>}
      : tensor<4x16x32xf32>, tensor<16xi32>
  %o = posenc.attention %qr, %v, %v
      : tensor<4x16x32xf32>, tensor<4x16x32xf32>, tensor<4x16x32xf32> -> tensor<4x16x32xf32>
  return %o : tensor<4x16x32xf32>
}

// -----

// ALiBi becomes slope[h] * (j - (i + Sk - Sq)) in score_mod: no Sq x Sk tensor.
// CHECK-LABEL: func.func @alibi
// CHECK-NOT: posenc.alibi_bias
// CHECK-NOT: tensor<4x9x9xf32>
// CHECK: %[[SLOPES:.*]] = arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf32>
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2 mods(%[[SLOPES]], %{{.*}} : tensor<4xf32>, index) {causal}
// CHECK: ^bb0(%[[S:.*]]: f32, %[[H:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index, %[[SL:.*]]: tensor<4xf32>, %[[SH:.*]]: index):
// CHECK: %[[M:.*]] = tensor.extract %[[SL]][%[[H]]]
// CHECK: %[[IP:.*]] = arith.addi %[[I]], %[[SH]]
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[IP]]
// CHECK: arith.mulf %[[M]]
// CHECK: arith.addf %[[S]]
// CHECK: posenc.yield
func.func @alibi(%q: tensor<4x9x16xf32>, %k: tensor<4x9x16xf32>, %v: tensor<4x9x16xf32>) -> tensor<4x9x16xf32> {
  %b = posenc.alibi_bias : tensor<4x9x9xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x9x9xf32>) {causal}
      : tensor<4x9x16xf32>, tensor<4x9x16xf32>, tensor<4x9x16xf32> -> tensor<4x9x16xf32>
  return %o : tensor<4x9x16xf32>
}

// -----

// Symmetric ALiBi with dynamic sizes: -slope * |j - i'|, sizes checked.
// CHECK-LABEL: func.func @alibi_symmetric_dynamic
// CHECK-NOT: posenc.alibi_bias
// CHECK: cf.assert
// CHECK: posenc.fused_attention
// CHECK: math.absf
// CHECK: arith.negf
func.func @alibi_symmetric_dynamic(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>,
                                   %v: tensor<1x4x?x16xf32>, %sq: index, %sk: index)
    -> tensor<1x4x?x16xf32> {
  %b = posenc.alibi_bias (%sq, %sk) {symmetric} : tensor<4x?x?xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x?x?xf32>)
      : tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}

// -----

// Any other bias is read per element inside score_mod (broadcast dims at 0).
// CHECK-LABEL: func.func @general_bias
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2 mods(%arg3 : tensor<1x9x9xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[I:.*]]: index, %[[J:.*]]: index, %[[B:.*]]: tensor<1x9x9xf32>):
// CHECK: tensor.extract %[[B]][%{{.*}}, %[[I]], %[[J]]]
func.func @general_bias(%q: tensor<2x4x9x16xf32>, %k: tensor<2x4x9x16xf32>,
                        %v: tensor<2x4x9x16xf32>, %b: tensor<1x9x9xf32>) -> tensor<2x4x9x16xf32> {
  %o = posenc.attention %q, %k, %v bias(%b : tensor<1x9x9xf32>)
      : tensor<2x4x9x16xf32>, tensor<2x4x9x16xf32>, tensor<2x4x9x16xf32> -> tensor<2x4x9x16xf32>
  return %o : tensor<2x4x9x16xf32>
}

// -----

// Shaw: rel_key and rel_value carried to the fused op as operands, the
// score_mod stays the identity; no [Sq, 2K+1] table, no [Sq, Sk, D] tensor.
// CHECK-LABEL: func.func @shaw
// CHECK-NOT: posenc.rel_pos_attention
// CHECK-NOT: linalg.generic
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2 rel_key(%arg3 : tensor<5x16xf32>) rel_value(%arg4 : tensor<5x8xf32>) {causal, scale = 2.500000e-01 : f64}
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: posenc.yield %[[S]] : f32
func.func @shaw(%q: tensor<7x16xf32>, %k: tensor<9x16xf32>, %v: tensor<9x8xf32>,
                %rk: tensor<5x16xf32>, %rv: tensor<5x8xf32>) -> tensor<7x8xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<5x16xf32>)
      rel_value(%rv : tensor<5x8xf32>) {causal}
      : tensor<7x16xf32>, tensor<9x16xf32>, tensor<9x8xf32> -> tensor<7x8xf32>
  return %o : tensor<7x8xf32>
}
