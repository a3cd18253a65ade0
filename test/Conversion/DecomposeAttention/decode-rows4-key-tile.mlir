// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512 rows4-key-tile=0" | FileCheck %s --check-prefix=OFF
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=256 rows4-key-tile=32" | FileCheck %s --check-prefix=R32
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=512" --mlir-print-ir-after=posenc-spread-decode-prefetches --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPREAD
// RUN: not posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 rows4-key-tile=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// Decode tiles of at most 4 rows (here Sq = 1 with GQA 8/2: 4 rows; Sq = 1
// MHA: 1 row; Sq = 4 MHA: 4 rows) take 16 keys per key step
// (rows4-key-tile, docs/pipelines.md "Short key steps for narrow decode
// tiles"): a full-tile loop stepping by 16 over the 16-key K tile, with
// the head dim on the lanes (one [16 keys x 16 lanes] block of partial
// products per row), then the tail loop. rows4-key-tile=0 gives key-tile
// (64); 16-row tiles keep rows16-key-tile (64) and 64-row tiles key-tile.

// CHECK-LABEL: func.func @gqa_q1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
// CHECK: tensor.extract_slice %{{.*}} : tensor<1x2x300x128xf32> to tensor<16x128xf32>
// CHECK: outs(%{{.*}} : tensor<4x16x16xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
// OFF-LABEL: func.func @gqa_q1
// OFF: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// OFF: tensor.extract_slice %{{.*}} : tensor<1x2x300x128xf32> to tensor<64x128xf32>
// R32-LABEL: func.func @gqa_q1
// R32: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args
// R32: tensor.extract_slice %{{.*}} : tensor<1x2x300x128xf32> to tensor<32x128xf32>
func.func @gqa_q1(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// The spread pass hands a 16-key step's prefetch rows (16 of K and 16 of
// V, the spread mark) out over its contraction loops: the score's [4 rows
// x 4 keys] register tiles (8 iterations over the head dim each) and the
// P V tiles (16 keys each); one f16 row of K or V is 4 lines.
// SPREAD-LABEL: func.func @gqa_q1_f16
// SPREAD: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 {
// SPREAD-NOT: memref.prefetch
// SPREAD: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// SPREAD-COUNT-4: memref.prefetch %arg1
// SPREAD-COUNT-4: memref.prefetch %arg2
// SPREAD: vector.contract {{.*}} : vector<4x1x16xf32>, vector<4x1x16xf32> into vector<4x4x16xf32>
// SPREAD: scf.for %{{.*}} = %c0 to %c16 step %c1 {
// SPREAD-COUNT-4: memref.prefetch %arg1
// SPREAD-COUNT-4: memref.prefetch %arg2
// SPREAD: vector.contract {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// SPREAD-NOT: posenc.spread_prefetch_rows
// SPREAD-LABEL: func.func @mha_q1
// CHECK-LABEL: func.func @gqa_q1_f16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
// CHECK: posenc.spread_prefetch_rows = 16 : i64}
func.func @gqa_q1_f16(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x300x128xf16>, %v: tensor<1x2x300x128xf16>) -> tensor<1x8x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x128xf32>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// CHECK-LABEL: func.func @mha_q1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
// OFF-LABEL: func.func @mha_q1
// OFF: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
func.func @mha_q1(%q: tensor<1x2x1x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x2x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x1x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x2x1x128xf32>
  return %o : tensor<1x2x1x128xf32>
}

// CHECK-LABEL: func.func @mha_q4
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
// R32-LABEL: func.func @mha_q4
// R32: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args
func.func @mha_q4(%q: tensor<1x2x4x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x2x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x4x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x2x4x128xf32>
  return %o : tensor<1x2x4x128xf32>
}

// Wider tiles keep their key steps: 16 rows (Sq = 4, GQA 4)
// rows16-key-tile (64 keys, also with rows4-key-tile=32), 64 rows (Sq =
// 16, GQA 4) key-tile.
// CHECK-LABEL: func.func @gqa_q4
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// R32-LABEL: func.func @gqa_q4
// R32: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
func.func @gqa_q4(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}
// CHECK-LABEL: func.func @gqa_q16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
func.func @gqa_q16(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}

// BAD: rows4-key-tile (-1) must be >= 0 (0: key-tile)
