// RUN: posenc-opt %s --posenc-to-linalg | FileCheck %s

// posenc.rope with xpos: cos and sin of each pair are scaled by
// exp((pos - center) * logDecay[p]) with logDecay[p] = s ln(zeta_p) /
// scale_base precomputed in f64 (key role, s = -1: -ln(0.4/1.4)/512 =
// 0.00244680257 for p = 0, -ln((30/32 + 0.4)/1.4)/512 = 8.91992895e-05 for
// the last of R/2 = 16 pairs), the offset pos - center in i64.
// CHECK-LABEL: func.func @xpos_key
// CHECK-DAG:     %[[LOGDECAY:.*]] = arith.constant dense<[0.00244680257, {{.*}}, 8.91992895E-5]> : tensor<16xf32>
// CHECK-DAG:     %[[CENTER:.*]] = arith.constant 9 : i64
// CHECK:         linalg.generic
// CHECK:           ^bb0(%{{.*}}: f16, %[[POS:.*]]: i32, %{{.*}}: f16):
// CHECK:             %[[COS:.*]] = math.cos
// CHECK:             %[[SIN:.*]] = math.sin
// CHECK:             %[[LD:.*]] = tensor.extract %[[LOGDECAY]]
// CHECK:             %[[P64:.*]] = arith.extsi %[[POS]] : i32 to i64
// CHECK:             %[[OFF:.*]] = arith.subi %[[P64]], %[[CENTER]] : i64
// CHECK:             %[[OFFF:.*]] = arith.sitofp %[[OFF]] : i64 to f32
// CHECK:             %[[E:.*]] = arith.mulf %[[OFFF]], %[[LD]] : f32
// CHECK:             %[[DECAY:.*]] = math.exp %[[E]] : f32
// CHECK:             arith.mulf %[[COS]], %[[DECAY]] : f32
// CHECK:             arith.mulf %[[SIN]], %[[DECAY]] : f32
func.func @xpos_key(%x: tensor<2x?x64xf16>, %pos: tensor<?xi32>) -> tensor<2x?x64xf16> {
  %r = posenc.rope %x, %pos layout half
      {rotary_dim = 32 : i64, xpos = #posenc.xpos<role = key, center = 9>}
      : tensor<2x?x64xf16>, tensor<?xi32>
  return %r : tensor<2x?x64xf16>
}
