// RUN: posenc-opt %s --posenc-fuse-attention --split-input-file | FileCheck %s

// T5's bias becomes fused_attention's t5_table term: the table and the
// bucket attributes carried over, the score_mod stays the identity, the
// t5_bias op is gone (no H x Sq x Sk tensor).
// CHECK-LABEL: func.func @t5_encoder
// CHECK-NOT: posenc.t5_bias
// CHECK-NOT: tensor<4x9x12xf32>
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2 t5_table(%arg3 : tensor<32x4xf32>) {scale = 1.000000e+00 : f64, t5_bidirectional, t5_max_distance = 128 : i64}
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: posenc.yield %[[S]] : f32
func.func @t5_encoder(%q: tensor<1x4x9x16xf32>, %k: tensor<1x4x12x16xf32>,
                      %v: tensor<1x4x12x16xf32>, %t: tensor<32x4xf32>) -> tensor<1x4x9x16xf32> {
  %b = posenc.t5_bias %t {bidirectional} : tensor<32x4xf32> -> tensor<4x9x12xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x9x12xf32>) {scale = 1.0 : f64}
      : tensor<1x4x9x16xf32>, tensor<1x4x12x16xf32>, tensor<1x4x12x16xf32> -> tensor<1x4x9x16xf32>
  return %o : tensor<1x4x9x16xf32>
}

// -----

// Decoder buckets, dynamic sizes: the bias' Sq and Sk are checked against
// the scores' at run time.
// CHECK-LABEL: func.func @t5_decoder_dynamic
// CHECK-NOT: posenc.t5_bias
// CHECK: cf.assert %{{.*}}, "posenc.attention: 'bias' dim Sq does not match the scores"
// CHECK: cf.assert %{{.*}}, "posenc.attention: 'bias' dim Sk does not match the scores"
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2 t5_table(%arg3 : tensor<32x4xf16>) {causal, t5_max_distance = 64 : i64}
func.func @t5_decoder_dynamic(%q: tensor<4x?x16xf16>, %k: tensor<4x?x16xf16>,
                              %v: tensor<4x?x16xf16>, %t: tensor<32x4xf16>,
                              %sq: index, %sk: index) -> tensor<4x?x16xf16> {
  %b = posenc.t5_bias %t (%sq, %sk) {max_distance = 64 : i64}
      : tensor<32x4xf16> -> tensor<4x?x?xf16>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x?x?xf16>) {causal}
      : tensor<4x?x16xf16>, tensor<4x?x16xf16>, tensor<4x?x16xf16> -> tensor<4x?x16xf16>
  return %o : tensor<4x?x16xf16>
}

// -----

// A bias with a broadcast head (one head for all) or with another user is
// not folded: it stays a materialized tensor read by score_mod.
// CHECK-LABEL: func.func @t5_not_folded
// CHECK: posenc.t5_bias
// CHECK: posenc.fused_attention {{.*}} mods(
// CHECK-NOT: t5_table
// CHECK: posenc.t5_bias
// CHECK: posenc.fused_attention {{.*}} mods(
// CHECK-NOT: t5_table
func.func @t5_not_folded(%q: tensor<4x8x16xf32>, %t: tensor<32x1xf32>, %t4: tensor<32x4xf32>)
    -> (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x8xf32>) {
  %b1 = posenc.t5_bias %t : tensor<32x1xf32> -> tensor<1x8x8xf32>
  %o1 = posenc.attention %q, %q, %q bias(%b1 : tensor<1x8x8xf32>)
      : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  %b2 = posenc.t5_bias %t4 : tensor<32x4xf32> -> tensor<4x8x8xf32>
  %o2 = posenc.attention %q, %q, %q bias(%b2 : tensor<4x8x8xf32>)
      : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  return %o1, %o2, %b2 : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x8xf32>
}
