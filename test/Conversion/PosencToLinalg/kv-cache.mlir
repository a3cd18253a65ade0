// RUN: posenc-opt %s --split-input-file --posenc-to-linalg | FileCheck %s

// The reference lowering of the KV-cache forms (docs/spec.md, "attention
// over a KV cache"): kv_lengths checked at run time against [0, Smax], read
// per score by the batch index, the causal mask aligned at each length; an
// f16 cache extended element by element under an f32 query.

// CHECK-DAG: #[[BATCH:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func.func @cache(
// CHECK-SAME: %[[Q:.*]]: tensor<2x8x4x64xf32>, %[[K:.*]]: tensor<2x2x40x64xf16>, %[[V:.*]]: tensor<2x2x40x64xf16>, %[[LEN:.*]]: tensor<2xi32>)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[L:.*]] = tensor.extract %[[LEN]][%[[B]]] : tensor<2xi32>
// CHECK:   arith.index_cast %[[L]] : i32 to index
// CHECK:   cf.assert %{{.*}}, "posenc.attention: a 'kv_lengths' value lies outside [0, Smax] (Smax: the sequence dim of 'key')"
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<2x8x4x64xf32>, tensor<2x2x40x64xf16>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BATCH]], #{{.*}}]
// CHECK-SAME: tensor<2x8x4x40xf32>, tensor<2xi32>
// CHECK: ^bb0(%[[S:.*]]: f32, %[[LI:.*]]: i32, %{{.*}}: f32):
// CHECK:   %[[I:.*]] = linalg.index 2
// CHECK:   %[[J:.*]] = linalg.index 3
// CHECK:   %[[LIDX:.*]] = arith.index_cast %[[LI]] : i32 to index
// CHECK:   %[[SHIFT:.*]] = arith.subi %[[LIDX]], %{{.*}} : index
// CHECK:   %[[IP:.*]] = arith.addi %[[I]], %[[SHIFT]] : index
// CHECK:   arith.cmpi sgt, %[[J]], %[[IP]] : index
// V's rows past the length zeroed (a masked key's 0 x v would be NaN if
// the cache held NaN or inf there), then P V.
// CHECK: %[[VZ:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[BATCH]], #{{.*}}]
// CHECK-SAME: ins(%[[V]], %[[LEN]] : tensor<2x2x40x64xf16>, tensor<2xi32>)
// CHECK: ^bb0(%[[VE:.*]]: f16, %[[LV:.*]]: i32, %{{.*}}: f16):
// CHECK:   %[[LVI:.*]] = arith.index_cast %[[LV]] : i32 to index
// CHECK:   %[[JV:.*]] = linalg.index 2
// CHECK:   %[[PAST:.*]] = arith.cmpi sge, %[[JV]], %[[LVI]] : index
// CHECK:   arith.select %[[PAST]], %{{.*}}, %[[VE]] : f16
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[VZ]] : tensor<2x8x4x40xf32>, tensor<2x2x40x64xf16>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
func.func @cache(%q: tensor<2x8x4x64xf32>, %k: tensor<2x2x40x64xf16>, %v: tensor<2x2x40x64xf16>, %len: tensor<2xi32>) -> tensor<2x8x4x64xf32> {
  %0 = posenc.attention %q, %k, %v kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x4x64xf32>, tensor<2x2x40x64xf16>, tensor<2x2x40x64xf16> -> tensor<2x8x4x64xf32>
  return %0 : tensor<2x8x4x64xf32>
}

// -----

// Not causal: the keys past the length are masked, j >= kv_lengths[b].
// CHECK-LABEL: func.func @cache_not_causal(
// CHECK: ^bb0(%{{.*}}: f32, %[[LI:.*]]: i64, %{{.*}}: f32):
// CHECK:   %[[J:.*]] = linalg.index 3
// CHECK:   %[[LIDX:.*]] = arith.index_cast %[[LI]] : i64 to index
// CHECK:   arith.cmpi sge, %[[J]], %[[LIDX]] : index
func.func @cache_not_causal(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x40x64xf32>, %len: tensor<2xi64>) -> tensor<2x8x1x64xf32> {
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi64>) : tensor<2x8x1x64xf32>, tensor<2x2x40x64xf32>, tensor<2x2x40x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// Per-batch positions [B, S]: batch b reads row b; a dynamic batch dim is
// checked against the input's at run time.
// CHECK-DAG: #[[POS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-LABEL: func.func @rope_per_batch(
// CHECK: cf.assert %{{.*}}, "posenc.rope: batch dim of per-batch positions differs from dim 0 of the input"
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[POS]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x8x3x64xf32>, tensor<?x3xi32>)
func.func @rope_per_batch(%x: tensor<2x8x3x64xf32>, %pos: tensor<?x3xi32>) -> tensor<2x8x3x64xf32> {
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x3x64xf32>, tensor<?x3xi32>
  return %0 : tensor<2x8x3x64xf32>
}
