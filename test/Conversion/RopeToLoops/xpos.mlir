// RUN: posenc-opt %s --posenc-lower-rope | FileCheck %s

// posenc.rope with xpos through the fast standalone lowering: each row of
// the block's cos/sin table is scaled by the row's decay vector
// exp((pos - center) * logDecay) (R/2 = 16 lanes), so the streamed rotation
// is unchanged.
// CHECK-LABEL: func.func @xpos_key
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             math.cos %{{.*}} : vector<16xf32>
// CHECK:             %[[CENTER:.*]] = vector.broadcast %c9_i64 : i64 to vector<16xi64>
// CHECK:             arith.subi %{{.*}}, %[[CENTER]] : vector<16xi64>
// CHECK:             %[[DECAY:.*]] = math.exp %{{.*}} : vector<16xf32>
// CHECK:             arith.mulf %{{.*}}, %[[DECAY]] : vector<16xf32>
// CHECK:             arith.mulf %{{.*}}, %[[DECAY]] : vector<16xf32>
func.func @xpos_key(%x: tensor<2x?x64xf16>, %pos: tensor<?xi32>) -> tensor<2x?x64xf16> {
  %r = posenc.rope %x, %pos layout half
      {rotary_dim = 32 : i64, xpos = #posenc.xpos<role = key, center = 9>}
      : tensor<2x?x64xf16>, tensor<?xi32>
  return %r : tensor<2x?x64xf16>
}
