// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512 rows16-key-tile=0" | FileCheck %s --check-prefix=OFF
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 split-k-tasks=1 vector-bits=512 rows16-prefetch-interleaved=1 spread-prefetches=0" | FileCheck %s --check-prefix=INTERLEAVED
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=512 attention-rows16-prefetch-interleaved=1 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=512 attention-rows16-prefetch-interleaved=1 attention-spread-prefetches=0" | FileCheck %s --check-prefix=LLVM
// RUN: not posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="vector-layout=1 rows16-key-tile=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// Decode tiles of 16 rows (here Sq = 4 with GQA 8/2) take 128 keys per key
// step (rows16-key-tile, docs/pipelines.md "Tiles of 16 rows"); tiles of 4
// and 64 rows keep key-tile (64). S^T = K~ Q~^T is [128 keys x 16 rows],
// P V reads P^T [128 x 16] and V [128 x Dv].
// CHECK-LABEL: func.func @decode_q4_f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<128x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<128x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<128x16xf32>, tensor<128x128xf32>) outs(%{{.*}} : tensor<16x128xf32>) attrs =  {posenc.vector_tile = array<i64: 8, 32, 1>, posenc.vector_tile_fuse_init}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// OFF-LABEL: func.func @decode_q4_f32
// OFF: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// OFF: ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
//
// rows16-prefetch-interleaved: no burst (locality 3) in the full key step;
// per register tile of 16 keys, the next key tile's rows of those keys
// (clamped to the rows before the key end) of K then V into L2, then that
// tile's zeroed [16 keys x 16 rows] slice of S^T, computed in place.
// INTERLEAVED-LABEL: func.func @decode_q4_f32
// INTERLEAVED: scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step %c128 iter_args
// INTERLEAVED-NOT: locality<3>
// INTERLEAVED: %[[NEXT:.*]] = arith.addi %[[KS]], %c128 : index
// INTERLEAVED: %[[ROWS:.*]] = arith.minsi %c128, %{{.*}} : index
// INTERLEAVED-NEXT: %[[S:.*]] = bufferization.alloc_tensor() : tensor<128x16xf32>
// INTERLEAVED-NEXT: %[[B0:.*]] = arith.minsi %c0, %[[ROWS]] : index
// INTERLEAVED-NEXT: %[[E0:.*]] = arith.minsi %c16, %[[ROWS]] : index
// INTERLEAVED-NEXT: %[[KB:.*]] = bufferization.to_buffer %arg1 read_only
// INTERLEAVED-NEXT: scf.for %[[R:.*]] = %[[B0]] to %[[E0]] step %c1 {
// INTERLEAVED-NEXT: %[[ROW:.*]] = arith.addi %[[NEXT]], %[[R]] : index
// INTERLEAVED-NEXT: memref.prefetch %[[KB]][%{{.*}}, %{{.*}}, %[[ROW]], %c0], read, locality<2>, data
// INTERLEAVED-COUNT-7: memref.prefetch %[[KB]]
// INTERLEAVED-NEXT: }
// INTERLEAVED-NEXT: %[[VB:.*]] = bufferization.to_buffer %arg2 read_only
// INTERLEAVED-NEXT: scf.for %{{.*}} = %[[B0]] to %[[E0]] step %c1 {
// INTERLEAVED: memref.prefetch %[[VB]]{{.*}} locality<2>
// INTERLEAVED: %[[K0:.*]] = tensor.extract_slice %{{.*}}[0, 0] [16, 128] [1, 1] : tensor<128x128xf32> to tensor<16x128xf32>
// INTERLEAVED-NEXT: %[[S0:.*]] = tensor.extract_slice %[[S]][0, 0] [16, 16] [1, 1] : tensor<128x16xf32> to tensor<16x16xf32>
// INTERLEAVED-NEXT: %[[Z0:.*]] = linalg.fill {posenc.vector_tile = array<i64: 1, 0>} ins(%{{.*}} : f32) outs(%[[S0]] : tensor<16x16xf32>)
// INTERLEAVED-NEXT: %[[P0:.*]] = linalg.generic {{.*}} ins(%[[K0]], %{{.*}} : tensor<16x128xf32>, tensor<128x16xf32>) outs(%[[Z0]] : tensor<16x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// INTERLEAVED: %[[I0:.*]] = tensor.insert_slice %[[P0]] into %[[S]][0, 0] [16, 16] [1, 1]
// INTERLEAVED-NEXT: arith.minsi %c16, %[[ROWS]] : index
// INTERLEAVED-NEXT: arith.minsi %c32, %[[ROWS]] : index
// INTERLEAVED: tensor.insert_slice %{{.*}} into %[[I0]][16, 0] [16, 16] [1, 1]
// INTERLEAVED: tensor.insert_slice %{{.*}}[112, 0] [16, 16] [1, 1]
// INTERLEAVED-NOT: memref.prefetch
// INTERLEAVED: scf.yield
// The tail step prefetches nothing.
// INTERLEAVED: scf.for %{{.*}} step %c128 iter_args
// INTERLEAVED-NOT: memref.prefetch
// INTERLEAVED: scf.yield
// Each piece is the [16 keys x 16 rows] register tile of the contraction.
// LOOPS-LABEL: func.func @decode_q4_f32
// LOOPS: scf.for {{.*}} to %c128 step %c1 iter_args({{.*}}) -> (vector<16x16xf32>) {
// LOOPS-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// LOOPS: scf.yield %{{.*}} : vector<16x16xf32>
// LLVM: llvm.func @decode_q4_f32
// LLVM: "llvm.intr.prefetch"{{.*}}hint = 2 : i32
func.func @decode_q4_f32(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

// f16 K at 512 bits (the keys on the lanes): 128 keys per step too, S
// [16 rows x 128 keys]; the interleaved prefetches are for f32 K only.
// CHECK-LABEL: func.func @decode_q4_f16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// CHECK: outs(%{{.*}} : tensor<16x128xf32>)
// INTERLEAVED-LABEL: func.func @decode_q4_f16
// INTERLEAVED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// INTERLEAVED: locality<3>
func.func @decode_q4_f16(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x300x128xf16>, %v: tensor<1x2x300x128xf16>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

// Tiles of 4 rows (Sq = 1) and 64 rows (Sq = 16 with GQA 4) keep key-tile.
// CHECK-LABEL: func.func @decode_q1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// INTERLEAVED-LABEL: func.func @decode_q1
// INTERLEAVED: locality<3>
func.func @decode_q1(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}
// CHECK-LABEL: func.func @decode_q16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
func.func @decode_q16(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x300x128xf32>, %v: tensor<1x2x300x128xf32>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x300x128xf32>, tensor<1x2x300x128xf32> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}

// BAD: rows16-key-tile (-1) must be >= 0 (0: key-tile)
