// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of the table form of posenc.rope (cos/sin operands) and of
// posenc.fused_attention's table-form prologues, through the custom and the
// generic assembly.

// CHECK-LABEL: func.func @rope_tables_broadcast
func.func @rope_tables_broadcast(%x: tensor<2x8x?x64xf32>, %c: tensor<?x64xf32>,
    %s: tensor<?x64xf32>, %cb: tensor<2x1x?x64xf32>, %sb: tensor<2x1x?x64xf32>)
    -> (tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>) {
  // CHECK: posenc.rope %arg0 tables(%arg1, %arg2 : tensor<?x64xf32>, tensor<?x64xf32>) layout half : tensor<2x8x?x64xf32>
  %0 = posenc.rope %x tables(%c, %s : tensor<?x64xf32>, tensor<?x64xf32>) layout half : tensor<2x8x?x64xf32>
  // CHECK: posenc.rope %arg0 tables(%arg3, %arg4 : tensor<2x1x?x64xf32>, tensor<2x1x?x64xf32>) layout interleaved : tensor<2x8x?x64xf32>
  %1 = posenc.rope %x tables(%cb, %sb : tensor<2x1x?x64xf32>, tensor<2x1x?x64xf32>) layout interleaved : tensor<2x8x?x64xf32>
  return %0, %1 : tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>
}

// CHECK-LABEL: func.func @rope_tables_partial
func.func @rope_tables_partial(%x: tensor<4x16x128xbf16>, %c: tensor<4x16x32xf32>,
    %s: tensor<4x16x32xf32>) -> tensor<4x16x128xbf16> {
  // CHECK: posenc.rope %arg0 tables(%arg1, %arg2 : tensor<4x16x32xf32>, tensor<4x16x32xf32>) layout half {rotary_dim = 32 : i64} : tensor<4x16x128xbf16>
  %0 = posenc.rope %x tables(%c, %s : tensor<4x16x32xf32>, tensor<4x16x32xf32>) layout half {rotary_dim = 32 : i64} : tensor<4x16x128xbf16>
  return %0 : tensor<4x16x128xbf16>
}

// CHECK-LABEL: func.func @fused_tables
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2
// CHECK-SAME: q_rope(<layout = half, rotary_dim = 64, precision = fast>, tables %arg3, %arg4 : tensor<?x64xf16>, tensor<?x64xf16>)
// CHECK-SAME: k_rope(<layout = half, rotary_dim = 64, precision = fast>, tables %arg3, %arg4 : tensor<?x64xf16>, tensor<?x64xf16>)
func.func @fused_tables(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>,
    %v: tensor<1x2x?x64xf16>, %c: tensor<?x64xf16>, %s: tensor<?x64xf16>)
    -> tensor<1x8x?x64xf16> {
  %o = posenc.fused_attention %q, %k, %v
      q_rope(#posenc.rotary<layout = half, rotary_dim = 64, precision = fast>, tables %c, %s : tensor<?x64xf16>, tensor<?x64xf16>)
      k_rope(#posenc.rotary<layout = half, rotary_dim = 64, precision = fast>, tables %c, %s : tensor<?x64xf16>, tensor<?x64xf16>)
      {causal} : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> tensor<1x8x?x64xf16>
      score_mod {
    ^bb0(%sc: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %sc : f32
  }
  return %o : tensor<1x8x?x64xf16>
}
