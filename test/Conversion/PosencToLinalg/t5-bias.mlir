// RUN: posenc-opt %s --posenc-to-linalg --split-input-file | FileCheck %s

// posenc.t5_bias: one generic over the result whose body computes T5's
// bucket of j - (i + Sk - Sq) (bidirectional: NB/2 = 16 per direction, e = 8
// exact buckets; the logarithm in f64 rounded to f32, divided by
// f32(log(128/8)) and multiplied by nb - e = 8) and reads table[bucket, h].
// CHECK-LABEL: func.func @t5_encoder
// CHECK-SAME:    (%[[T:.*]]: tensor<32x8xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<8x4x6xf32>)
// CHECK:           %[[H:.*]] = linalg.index 0 : index
// CHECK:           arith.cmpi sgt
// CHECK:           arith.select %{{.*}}, %c16, %c0
// CHECK:           arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           math.log %{{.*}} : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.constant 2.77258873 : f32
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:           arith.fptosi %{{.*}} : f32 to i64
// CHECK:           arith.minsi %{{.*}}, %c15
// CHECK:           %[[V:.*]] = tensor.extract %[[T]][%{{.*}}, %[[H]]] : tensor<32x8xf32>
// CHECK:           linalg.yield %[[V]] : f32
// CHECK-NOT:     posenc.
func.func @t5_encoder(%t: tensor<32x8xf32>) -> tensor<8x4x6xf32> {
  %b = posenc.t5_bias %t {bidirectional} : tensor<32x8xf32> -> tensor<8x4x6xf32>
  return %b : tensor<8x4x6xf32>
}

// -----

// Decoder buckets (n = max(-n, 0), no direction offset); a dynamic head dim
// of the table is checked against the result's at run time.
// CHECK-LABEL: func.func @t5_decoder_dynamic
// CHECK:         cf.assert %{{.*}}, "posenc.t5_bias: dim 1 (H) of 'table' differs from the head dim of the result"
// CHECK:         linalg.generic
// CHECK-NOT:       arith.cmpi sgt
// CHECK:           arith.maxsi
// CHECK:           tensor.extract
// CHECK:           linalg.yield %{{.*}} : f16
func.func @t5_decoder_dynamic(%t: tensor<32x?xf16>, %sq: index, %sk: index)
    -> tensor<2x4x?x?xf16> {
  %b = posenc.t5_bias %t (%sq, %sk) : tensor<32x?xf16> -> tensor<2x4x?x?xf16>
  return %b : tensor<2x4x?x?xf16>
}
