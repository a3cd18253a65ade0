// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of posenc.t5_bias, through the custom and the generic assembly:
// the default max_distance is not printed, a set one is, bidirectional is a
// unit attribute, dynamic sizes are index operands in order.

// CHECK-LABEL: func.func @t5_encoder
// CHECK:         posenc.t5_bias %{{.*}} {bidirectional} : tensor<32x8xf32> -> tensor<8x16x16xf32>
func.func @t5_encoder(%t: tensor<32x8xf32>) -> tensor<8x16x16xf32> {
  %b = posenc.t5_bias %t {bidirectional} : tensor<32x8xf32> -> tensor<8x16x16xf32>
  return %b : tensor<8x16x16xf32>
}

// CHECK-LABEL: func.func @t5_decoder_dynamic
// CHECK:         posenc.t5_bias %{{.*}}(%{{.*}}, %{{.*}}) {max_distance = 256 : i64} : tensor<32x8xf16> -> tensor<1x8x?x?xf16>
func.func @t5_decoder_dynamic(%t: tensor<32x8xf16>, %sq: index, %sk: index)
    -> tensor<1x8x?x?xf16> {
  %b = posenc.t5_bias %t (%sq, %sk) {max_distance = 256 : i64}
      : tensor<32x8xf16> -> tensor<1x8x?x?xf16>
  return %b : tensor<1x8x?x?xf16>
}

// A dynamic head dim in the table is checked at run time by the lowering.
// CHECK-LABEL: func.func @t5_dynamic_heads
// CHECK:         posenc.t5_bias %{{.*}} : tensor<32x?xbf16> -> tensor<4x3x5xbf16>
func.func @t5_dynamic_heads(%t: tensor<32x?xbf16>) -> tensor<4x3x5xbf16> {
  %b = posenc.t5_bias %t : tensor<32x?xbf16> -> tensor<4x3x5xbf16>
  return %b : tensor<4x3x5xbf16>
}

// posenc.fused_attention with T5's term: the t5_table operand, its
// attributes in the attribute dictionary.
// CHECK-LABEL: func.func @fused_t5
// CHECK:         posenc.fused_attention %{{.*}}, %{{.*}}, %{{.*}} t5_table(%{{.*}} : tensor<32x8xf32>) {causal, t5_max_distance = 64 : i64}
// CHECK-LABEL: func.func @fused_t5_bidirectional
// CHECK:         t5_table(%{{.*}} : tensor<16x8xf16>) {scale = 1.000000e+00 : f64, t5_bidirectional}
func.func @fused_t5(%q: tensor<1x8x?x64xf32>, %k: tensor<1x8x?x64xf32>,
                    %v: tensor<1x8x?x64xf32>, %t: tensor<32x8xf32>)
    -> tensor<1x8x?x64xf32> {
  %o = posenc.fused_attention %q, %k, %v t5_table(%t : tensor<32x8xf32>)
      {causal, t5_max_distance = 64 : i64}
      : tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>
      -> tensor<1x8x?x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<1x8x?x64xf32>
}

func.func @fused_t5_bidirectional(%q: tensor<8x5x64xf16>, %k: tensor<8x7x64xf16>,
                                  %v: tensor<8x7x64xf16>, %t: tensor<16x8xf16>)
    -> tensor<8x5x64xf16> {
  %o = posenc.fused_attention %q, %k, %v t5_table(%t : tensor<16x8xf16>)
      {scale = 1.0 : f64, t5_bidirectional}
      : tensor<8x5x64xf16>, tensor<8x7x64xf16>, tensor<8x7x64xf16>
      -> tensor<8x5x64xf16> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<8x5x64xf16>
}
