// RUN: posenc-opt %s --posenc-to-linalg | FileCheck %s --implicit-check-not="x16xf32>"

// posenc.disentangled_attention's reference lowering: the table row
// c = clamp(bucket(i - j) + k, 0, 2k - 1) of every (i, j) once, as an
// [Sq, Sk] i64 tensor (DeBERTa's bucket with mid = 4: the f32 quotient
// |r| / 4, its logarithm in f64 rounded to f32, divided by
// f32(log(f32(19 / 4))) = 1.55814457, times mid - 1 = 3, ceil'd); then one
// reduction over D whose body gathers pos_key[h, c, d] (per head) and
// pos_query[c, d] (shared) by that index: no [.., Sq, 2k] product; the scale
// is 1/sqrt(D * 3) = 1/sqrt(24) in f32.
// CHECK-LABEL: func.func @both_terms
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x?x8xf32>, %[[K:.*]]: tensor<1x2x?x8xf32>, %[[PK:.*]]: tensor<2x16x8xf32>, %[[PQ:.*]]: tensor<16x8xf32>)
// CHECK:         %[[IDX:.*]] = linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?xi64>)
// CHECK:           arith.cmpi sle, %{{.*}}, %c4
// CHECK:           arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK:           math.log %{{.*}} : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.constant 1.55814457 : f32
// CHECK:           arith.constant 3.000000e+00 : f32
// CHECK:           math.ceil %{{.*}} : f32
// CHECK:           arith.minsi %{{.*}}, %c15
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[Q]], %[[K]], %[[IDX]] : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<?x?xi64>)
// CHECK:           tensor.extract %[[PK]][%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x16x8xf32>
// CHECK:           tensor.extract %[[PQ]][%{{.*}}, %{{.*}}] : tensor<16x8xf32>
// CHECK:         arith.constant 0.204124153 : f32
// CHECK-NOT:     posenc.
func.func @both_terms(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>,
                      %pk: tensor<2x16x8xf32>, %pq: tensor<16x8xf32>) -> tensor<1x2x?x8xf32> {
  %o = posenc.disentangled_attention %q, %k, %k pos_key(%pk : tensor<2x16x8xf32>)
      pos_query(%pq : tensor<16x8xf32>)
      {position_buckets = 8 : i64, max_relative_positions = 20 : i64, causal}
      : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
      -> tensor<1x2x?x8xf32>
  return %o : tensor<1x2x?x8xf32>
}
