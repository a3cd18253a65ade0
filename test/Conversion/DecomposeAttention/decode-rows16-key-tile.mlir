// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512 rows16-key-tile=128" | FileCheck %s --check-prefix=LONG
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512 rows16-key-tile=0 key-tile=32" | FileCheck %s --check-prefix=OFF
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=512" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 rows16-key-tile=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// Decode tiles of 16 rows (here Sq = 4 with GQA 8/2) take rows16-key-tile
// keys per key step (default 64, docs/pipelines.md "Tiles of 16 rows";
// 128 with the option, 0: key-tile); tiles of 4 rows take rows4-key-tile
// (16, decode-rows4-key-tile.mlir), tiles of 64 rows keep key-tile (64).
// S^T = K~ Q~^T is [64 keys x 16 rows], P V reads P^T [64 x 16] and V
// [64 x Dv].
// CHECK-LABEL: func.func @decode_q4_f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<64x128xf32>) outs(%{{.*}} : tensor<16x128xf32>) attrs =  {posenc.vector_tile = array<i64: 8, 32, 1>, posenc.vector_tile_fuse_init}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// LONG-LABEL: func.func @decode_q4_f32
// LONG: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// LONG: ins(%{{.*}}, %{{.*}} : tensor<128x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<128x16xf32>)
// LONG: ins(%{{.*}}, %{{.*}} : tensor<128x16xf32>, tensor<128x128xf32>) outs(%{{.*}} : tensor<16x128xf32>)
// OFF-LABEL: func.func @decode_q4_f32
// OFF: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args
// OFF: ins(%{{.*}}, %{{.*}} : tensor<32x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
// The score contraction's [16 keys x 16 rows] register tile: 16 FMAs per
// head dim (the spread prefetches issued first in each iteration).
// LOOPS-LABEL: func.func @decode_q4_f32
// LOOPS: scf.for {{.*}} to %c128 step %c1 iter_args({{.*}}) -> (vector<16x16xf32>) {
// LOOPS-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// LOOPS: scf.yield %{{.*}} : vector<16x16xf32>
func.func @decode_q4_f32(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

// f16 K at 512 bits (widened to f32 per key tile, the rows on the lanes):
// the same step, S^T [64 keys x 16 rows] (128 keys with the option).
// CHECK-LABEL: func.func @decode_q4_f16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// CHECK: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// CHECK: outs(%{{.*}} : tensor<64x16xf32>)
// LONG-LABEL: func.func @decode_q4_f16
// LONG: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// LONG: outs(%{{.*}} : tensor<128x16xf32>)
func.func @decode_q4_f16(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x300x128xf16>, %v: tensor<1x2x300x128xf16>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

// Tiles of 4 rows (Sq = 1) take rows4-key-tile (16); tiles of 64 rows
// (Sq = 16 with GQA 4) keep key-tile, whatever rows16-key-tile says.
// CHECK-LABEL: func.func @decode_q1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 iter_args
func.func @decode_q1(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}
// CHECK-LABEL: func.func @decode_q16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// LONG-LABEL: func.func @decode_q16
// LONG: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
func.func @decode_q16(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}

// BAD: rows16-key-tile (-1) must be >= 0 (0: key-tile)
