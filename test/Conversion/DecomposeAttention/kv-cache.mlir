// RUN: posenc-opt %s --split-input-file --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 query-tile=32" | FileCheck %s
// RUN: posenc-opt %s --split-input-file --posenc-cpu-pipeline="attention-query-tile=32" --mlir-print-ir-after=posenc-lower-attention-vectors -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: posenc-opt %s --split-input-file --posenc-fuse-attention --posenc-decompose-attention | FileCheck %s --check-prefix=GENERIC

// Decode over a KV cache (docs/spec.md, "attention over a KV cache") in the
// prefill schedule (query-tile given; the decode schedule is executed by
// test/python/test_kv_cache_execution.py) of the
// CPU decomposition: each task reads kv_lengths[b] of its batch b (after the
// run-time check of every length against [0, Smax]); its key loops end at
// that length (or the causal diagonal below it) and the causal mask sits at
// i + (kv_lengths[b] - Sq), so the cache rows past the length are never
// read. The f16 cache is read as f16 tiles that the contractions extend in
// registers (vector.transfer_read of f16 + arith.extf on the vector): no
// converted copy of K or V, no Sq x Sk (here 1 x 512) buffer.

// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %[[Q:.*]]: tensor<2x8x1x64xf32>, %[[K:.*]]: tensor<2x2x512x64xf16>, %[[V:.*]]: tensor<2x2x512x64xf16>, %[[LEN:.*]]: tensor<2xi32>)
// CHECK: scf.for
// CHECK:   cf.assert %{{.*}}, "posenc.fused_attention: a 'kv_lengths' value lies outside [0, Smax] (Smax: the sequence dim of 'key')"
// CHECK: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 8, %{{.*}})
// CHECK:   %[[L:.*]] = tensor.extract %[[LEN]][%[[B]]] : tensor<2xi32>
// CHECK:   %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK:   %[[SHIFT:.*]] = arith.subi %[[LI]], %{{.*}} : index
// CHECK:   %[[DIAG:.*]] = arith.maxsi
// CHECK:   %[[KEND:.*]] = arith.minsi %[[DIAG]], %[[LI]] : index
// CHECK:   scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step
// CHECK:     %[[KT:.*]] = tensor.extract_slice %[[K]][%[[B]], %{{.*}}, %[[KS]], 0] [1, 1, 64, 64] [1, 1, 1, 1] : tensor<2x2x512x64xf16> to tensor<64x64xf16>
// CHECK-NOT: tensor<64x64xf32>
// CHECK:     linalg.generic {{.*}} ins(%[[KT]], %{{.*}} : tensor<64x64xf16>, tensor<64x32xf32>)
// CHECK:       arith.extf %{{.*}} : f16 to f32
// CHECK:     arith.addi %{{.*}}, %[[SHIFT]] : index
// CHECK:     arith.cmpi sgt
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[KEND]] step

// VEC-LABEL: func.func @decode(
// VEC-SAME: %[[K:[a-z0-9]+]]: memref<2x2x512x64xf16>, %[[V:[a-z0-9]+]]: memref<2x2x512x64xf16>
// VEC-NOT: memref.alloc() {{.*}}512
// VEC: %[[KV:.*]] = vector.transfer_read %[[K]][{{.*}}], {{.*}} : memref<2x2x512x64xf16>, vector<{{.*}}xf16>
// VEC: arith.extf %[[KV]] : vector<{{.*}}xf16> to vector<{{.*}}xf32>
// VEC-NOT: memref.alloc() {{.*}}512
// VEC: %[[VV:.*]] = vector.transfer_read %[[V]][{{.*}}], {{.*}} : memref<2x2x512x64xf16>, vector<{{.*}}xf16>
// VEC: arith.extf %[[VV]] : vector<{{.*}}xf16> to vector<{{.*}}xf32>
// VEC-NOT: memref.alloc() {{.*}}512
// VEC: return

// GENERIC-LABEL: func.func @decode(
// GENERIC: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 8, %{{.*}})
// GENERIC:   tensor.extract %{{.*}}[%[[B]]] : tensor<2xi32>
// GENERIC:   arith.minsi
func.func @decode(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x512x64xf16>, %v: tensor<2x2x512x64xf16>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  %0 = posenc.attention %q, %k, %v kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x512x64xf16>, tensor<2x2x512x64xf16> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// RoPE at per-sequence offsets: the rotations fold into the fused op with
// their per-batch positions; the K cos/sin tables are built once per op for
// every (batch, position) and each task reads its batch's rows (the rows of
// the keys it reads, rotated once per task before its query tiles).

// CHECK-LABEL: func.func @rope_per_batch(
// CHECK-SAME: %[[KP:[a-z0-9]+]]: tensor<2x16xi32>
// CHECK: linalg.generic {{.*}} ins(%[[KP]], %{{.*}} : tensor<2x16xi32>, tensor<32xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x16x32xf32>, tensor<2x16x32xf32>)
// CHECK: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 8, %{{.*}})
// CHECK:   tensor.extract_slice %{{.*}}[%[[B]], %c0, 0] [1, %{{.*}}, 32] [1, 1, 1] : tensor<2x16x32xf32> to tensor<?x32xf32>
// CHECK:   scf.for
// CHECK:     scf.for

// GENERIC-LABEL: func.func @rope_per_batch(
// GENERIC: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 8, %{{.*}})
// GENERIC:   tensor.extract_slice %{{.*}}[%[[B]], %{{.*}}] [1, %{{.*}}] [1, 1] : tensor<2x1xi32> to tensor<?xi32>
func.func @rope_per_batch(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>,
                          %qp: tensor<2x1xi32>, %kp: tensor<2x16xi32>, %len: tensor<2xi64>) -> tensor<2x8x1x64xf32> {
  %qr = posenc.rope %q, %qp layout half : tensor<2x8x1x64xf32>, tensor<2x1xi32>
  %kr = posenc.rope %k, %kp layout half : tensor<2x2x16x64xf32>, tensor<2x16xi32>
  %0 = posenc.attention %qr, %kr, %k kv_lengths(%len : tensor<2xi64>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}
