// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64 vector-layout=1" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64" | FileCheck %s --check-prefix=GENERIC

// An xPos query/key pair fused into attention, re-centered per query tile
// (posenc.fused_attention): the task reads the position c of its first
// query row; the query's cos/sin rows decay by exp((pos - c) logDecay_q),
// the key tile's by exp((pos - (c - center_q + center_k)) logDecay_k)
// (center_k - center_q = -8 here), so no factor depends on the absolute
// positions. No Sq x Sk tensor (96x160) and no rotated copy of Q or K
// (the CPU layout's K~ buffer holds the keys of one task).
//
// CPU vector layout: the decay scales the tiles' rows of the per-op cos/sin
// tables before padding. The key tables carry, once per op, each row's decay
// relative to the first row of its 64-row key tile. A task is a chunk of 8
// query tiles (256 rows) of one head (RotatedKeyChunks.cpp), re-centered on
// the chunk's first row c: it rotates the keys the chunk reads once, into a
// [keys x D] buffer, each key tile taking one [R/2] factor
// exp((pos_kStart - c_k) logDecay) (16 exps, not 64 x 16); then its query
// tiles' key loops read their K~ tiles from that buffer: no rotation and no
// decay inside them.
// CHECK-LABEL: func.func @xpos_attention
// CHECK-NOT:     tensor<96x160xf32>
// CHECK:         linalg.generic
// CHECK:           %[[T:.*]] = arith.divui %{{.*}}, %c64 : index
// CHECK:           arith.muli %[[T]], %c64 : index
// CHECK:           math.exp
// CHECK:         scf.forall
// CHECK:           %[[CHUNK:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:           %[[FIRST:.*]] = tensor.extract %arg3[%[[CHUNK]]] : tensor<96xi32>
// CHECK:           %[[C:.*]] = arith.extsi %[[FIRST]] : i32 to i64
// CHECK:           %[[CK:.*]] = arith.addi %[[C]], %c-8_i64 : i64
// CHECK:           %[[KROT:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c64 iter_args(%{{.*}}) -> (tensor<?x32xf32>)
// CHECK:             %[[KFIRST:.*]] = tensor.extract %arg4[%{{.*}}] : tensor<160xi32>
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK:               %[[KF64:.*]] = arith.extsi %[[KFIRST]] : i32 to i64
// CHECK:               arith.subi %[[KF64]], %[[CK]] : i64
// CHECK:               math.exp
// CHECK:             tensor.insert_slice
// CHECK:           scf.for %{{.*}} = %[[CHUNK]] to %{{.*}} step %c32 iter_args
// CHECK:             %[[QF:.*]] = tensor.extract %arg3[%[[CHUNK]]] : tensor<96xi32>
// CHECK:             %[[QC:.*]] = arith.extsi %[[QF]] : i32 to i64
// CHECK:             linalg.generic
// CHECK:               arith.subi %{{.*}}, %[[QC]] : i64
// CHECK:               math.exp
// CHECK:             scf.for
// CHECK-NOT:           tensor.extract %arg4
// CHECK:               tensor.extract_slice %[[KROT]][%{{.*}}, 0] [64, 32] [1, 1] : tensor<?x32xf32> to tensor<64x32xf32>
// CHECK-NOT:           tensor.extract %arg4
// CHECK:             scf.for
// CHECK:               tensor.extract_slice %[[KROT]]
// CHECK-NOT:           tensor.extract %arg4
// CHECK:             tensor.insert_slice
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     tensor<96x160xf32>
//
// Generic layout (the GPU's FMA kernel): the decay per element, next to
// the angle's cos and sin.
// GENERIC-LABEL: func.func @xpos_attention
// GENERIC:         scf.forall
// GENERIC:           %[[FIRST:.*]] = tensor.extract %arg3[%{{.*}}] : tensor<96xi32>
// GENERIC:           %[[C:.*]] = arith.extsi %[[FIRST]] : i32 to i64
// GENERIC:           %[[CK:.*]] = arith.addi %[[C]], %c-8_i64 : i64
// GENERIC:           math.cos
// GENERIC:           arith.subi %{{.*}}, %[[C]] : i64
// GENERIC:           math.exp
// GENERIC:           scf.for
// GENERIC:             math.cos
// GENERIC:             arith.subi %{{.*}}, %[[CK]] : i64
// GENERIC:             math.exp
func.func @xpos_attention(%q: tensor<1x4x96x32xf32>, %k: tensor<1x4x160x32xf32>,
                          %v: tensor<1x4x160x32xf32>, %qp: tensor<96xi32>,
                          %kp: tensor<160xi32>) -> tensor<1x4x96x32xf32> {
  %qr = posenc.rope %q, %qp layout interleaved
      {xpos = #posenc.xpos<role = query, center = 5>}
      : tensor<1x4x96x32xf32>, tensor<96xi32>
  %kr = posenc.rope %k, %kp layout interleaved
      {xpos = #posenc.xpos<role = key, center = -3>}
      : tensor<1x4x160x32xf32>, tensor<160xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x96x32xf32>, tensor<1x4x160x32xf32>, tensor<1x4x160x32xf32> -> tensor<1x4x96x32xf32>
  return %o : tensor<1x4x96x32xf32>
}
