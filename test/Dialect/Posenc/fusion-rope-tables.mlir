// RUN: posenc-opt %s --posenc-fuse-attention --split-input-file | FileCheck %s

// posenc-fuse-attention folds table-form ropes (cos/sin operands) into
// posenc.fused_attention as it folds the attribute form: the prologue reads
// the tables, collapsed to [S, R] (or per batch [B, S, R]), shared by Q and
// K when both ropes read the same tables.

// CHECK-LABEL: func.func @tables_per_batch
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %arg3 {{\[\[}}0], [1, 2], [3]] : tensor<2x1x?x64xf32> into tensor<2x?x64xf32>
// CHECK-DAG: %[[S:.*]] = tensor.collapse_shape %arg4 {{\[\[}}0], [1, 2], [3]] : tensor<2x1x?x64xf32> into tensor<2x?x64xf32>
// CHECK-NOT: posenc.rope
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2
// CHECK-SAME: q_rope(<layout = half, rotary_dim = 64, precision = fast>, tables %[[C]], %[[S]] : tensor<2x?x64xf32>, tensor<2x?x64xf32>)
// CHECK-SAME: k_rope(<layout = half, rotary_dim = 64, precision = fast>, tables %[[C]], %[[S]] : tensor<2x?x64xf32>, tensor<2x?x64xf32>)
// CHECK-SAME: {causal}
func.func @tables_per_batch(%q: tensor<2x8x?x64xf32>, %k: tensor<2x2x?x64xf32>,
    %v: tensor<2x2x?x64xf32>, %c: tensor<2x1x?x64xf32>, %s: tensor<2x1x?x64xf32>) -> tensor<2x8x?x64xf32> {
  %qr = posenc.rope %q tables(%c, %s : tensor<2x1x?x64xf32>, tensor<2x1x?x64xf32>) layout half : tensor<2x8x?x64xf32>
  %kr = posenc.rope %k tables(%c, %s : tensor<2x1x?x64xf32>, tensor<2x1x?x64xf32>) layout half : tensor<2x2x?x64xf32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return %o : tensor<2x8x?x64xf32>
}

// -----

// [S, R] tables are taken as they are; a partial rotary keeps R.
// CHECK-LABEL: func.func @tables_shared_partial
// CHECK-NOT: tensor.collapse_shape
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2
// CHECK-SAME: k_rope(<layout = interleaved, rotary_dim = 32, precision = fast>, tables %arg3, %arg4 : tensor<16x32xf16>, tensor<16x32xf16>)
func.func @tables_shared_partial(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf16>,
    %v: tensor<1x4x16x64xf16>, %c: tensor<16x32xf16>, %s: tensor<16x32xf16>) -> tensor<1x4x16x64xf16> {
  %kr = posenc.rope %k tables(%c, %s : tensor<16x32xf16>, tensor<16x32xf16>) layout interleaved : tensor<1x4x16x64xf16>
  %o = posenc.attention %q, %kr, %v
      : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %o : tensor<1x4x16x64xf16>
}

// -----

// Per-head tables have no [S, R] / [B, S, R] form: the rope stays standalone.
// CHECK-LABEL: func.func @per_head_tables
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%arg3, %arg3 : tensor<4x16x32xf32>, tensor<4x16x32xf32>) layout interleaved
// CHECK: posenc.fused_attention %[[R]], %arg1, %arg2 :
func.func @per_head_tables(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x16x32xf32>,
    %v: tensor<1x4x16x32xf32>, %c: tensor<4x16x32xf32>) -> tensor<1x4x16x32xf32> {
  %qr = posenc.rope %q tables(%c, %c : tensor<4x16x32xf32>, tensor<4x16x32xf32>) layout interleaved : tensor<1x4x16x32xf32>
  %o = posenc.attention %qr, %k, %v
      : tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32> -> tensor<1x4x16x32xf32>
  return %o : tensor<1x4x16x32xf32>
}
