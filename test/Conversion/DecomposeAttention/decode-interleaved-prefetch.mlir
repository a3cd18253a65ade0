// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512 spread-prefetches=0" | FileCheck %s --check-prefixes=CHECK,V512
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=256 spread-prefetches=0" | FileCheck %s --check-prefixes=CHECK,V256
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512 prefetch-interleaved=0 spread-prefetches=0" | FileCheck %s --check-prefix=BURST
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 vector-bits=512 attention-spread-prefetches=0" | FileCheck %s --check-prefix=LLVM
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 vector-bits=512 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 vector-bits=256 target-features=-avx512f attention-spread-prefetches=0" | FileCheck %s --check-prefix=LLVM

// A decode tile of 4 rows (Sq = 1, GQA 8/2) with f16 K/V and the head dim
// on the lanes: each full key step issues its prefetches of the next key
// tile among the score contraction's register tiles (InterleavedPrefetch.cpp),
// not in one burst before it. Per register tile of keys (4 keys at 512 bits,
// 2 at 256), the next tile's rows of the same keys, clamped to the rows
// before the task's key end (min(j0, rows) to min(j0 + keys, rows)), of K
// then of V, into L2 (locality 2), then that register tile's partial
// products; the lane reduction (the tree) runs per block of 16 (8) keys.
// CHECK-LABEL: func.func @decode_q1_f16(
// CHECK: scf.forall
// CHECK: scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step %c64 iter_args
// CHECK-NOT: locality<3>
// CHECK: %[[NEXT:.*]] = arith.addi %[[KS]], %c64 : index
// CHECK: %[[ROWS:.*]] = arith.minsi %c64, %{{.*}} : index
// CHECK: %[[B0:.*]] = arith.minsi %c0, %[[ROWS]] : index
// V512-NEXT: %[[E0:.*]] = arith.minsi %c4, %[[ROWS]] : index
// V256-NEXT: %[[E0:.*]] = arith.minsi %c2, %[[ROWS]] : index
// CHECK-NEXT: %[[KB:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK-NEXT: scf.for %[[R:.*]] = %[[B0]] to %[[E0]] step %c1 {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[NEXT]], %[[R]] : index
// CHECK-NEXT: memref.prefetch %[[KB]][%{{.*}}, %{{.*}}, %[[ROW]], %c0], read, locality<2>, data
// CHECK-NEXT: }
// CHECK-NEXT: %[[VB:.*]] = bufferization.to_buffer %arg2 read_only
// CHECK-NEXT: scf.for %[[R2:.*]] = %[[B0]] to %[[E0]] step %c1 {
// CHECK-NEXT: %[[ROW2:.*]] = arith.addi %[[NEXT]], %[[R2]] : index
// CHECK-NEXT: memref.prefetch %[[VB]][%{{.*}}, %{{.*}}, %[[ROW2]], %c0], read, locality<2>, data
// CHECK-NEXT: }
// V512-NEXT: tensor.extract_slice %{{.*}}[0, 0] [4, 32] [1, 1] : tensor<64x32xf16> to tensor<4x32xf16>
// V256-NEXT: tensor.extract_slice %{{.*}}[0, 0] [2, 32] [1, 1] : tensor<64x32xf16> to tensor<2x32xf16>
// V512: linalg.generic {{.*}}posenc.vector_tile = array<i64: 4, 4, 1, 16>
// V256: linalg.generic {{.*}}posenc.vector_tile = array<i64: 4, 2, 1, 8>
// V512: tensor.insert_slice %{{.*}}[0, 0, 0] [4, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> into tensor<4x16x16xf32>
// V256: tensor.insert_slice %{{.*}}[0, 0, 0] [4, 2, 8] [1, 1, 1] : tensor<4x2x8xf32> into tensor<4x8x8xf32>
// The second register tile: the next keys' rows.
// V512-NEXT: %[[B1:.*]] = arith.minsi %c4, %[[ROWS]] : index
// V512-NEXT: %[[E1:.*]] = arith.minsi %c8, %[[ROWS]] : index
// V256-NEXT: %[[B1:.*]] = arith.minsi %c2, %[[ROWS]] : index
// V256-NEXT: %[[E1:.*]] = arith.minsi %c4, %[[ROWS]] : index
// CHECK: scf.for %{{.*}} = %[[B1]] to %[[E1]] step %c1 {
// CHECK: locality<2>
// V512: tensor.insert_slice %{{.*}}[0, 4, 0] [4, 4, 16] [1, 1, 1]
// V256: tensor.insert_slice %{{.*}}[0, 2, 0] [4, 2, 8] [1, 1, 1]
// The tree of the first block, written to its keys of the score tile.
// V512: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16x16xf32>) outs(%{{.*}} : tensor<4x16xf32>) {{.*}}posenc.vector_tile = array<i64: 1, 16, 16>
// V512-NEXT: ^bb0
// V512: tensor.insert_slice %{{.*}}[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x64xf32>
// V256: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) {{.*}}posenc.vector_tile = array<i64: 1, 8, 8>
// V256: tensor.insert_slice %{{.*}}[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x64xf32>
// The last register tile of the step prefetches the tile's last rows.
// (after the last block's register tile before it)
// V512: tensor.insert_slice %{{.*}}[0, 32] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x64xf32>
// V512: tensor.insert_slice %{{.*}}[0, 8, 0] [4, 4, 16] [1, 1, 1]
// V512-NEXT: %[[BL:.*]] = arith.minsi %c60, %[[ROWS]] : index
// V512-NEXT: %[[EL:.*]] = arith.minsi %c64, %[[ROWS]] : index
// V256: tensor.insert_slice %{{.*}}[0, 48] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x64xf32>
// V256: tensor.insert_slice %{{.*}}[0, 4, 0] [4, 2, 8] [1, 1, 1]
// V256-NEXT: %[[BL:.*]] = arith.minsi %c62, %[[ROWS]] : index
// V256-NEXT: %[[EL:.*]] = arith.minsi %c64, %[[ROWS]] : index
// CHECK: scf.for %{{.*}} = %[[BL]] to %[[EL]] step %c1 {
// V512: tensor.insert_slice %{{.*}}[0, 48] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x64xf32>
// V256: tensor.insert_slice %{{.*}}[0, 56] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x64xf32>
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
// The tail tile prefetches nothing and keeps one contraction over its keys.
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: tensor<4x64x{{(16|8)}}xf32>
// CHECK-NOT: memref.prefetch
// CHECK: scf.forall.in_parallel
// With the option off, the burst: rows [0, rows) into L1 first.
// BURST-LABEL: func.func @decode_q1_f16(
// BURST: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// BURST: memref.prefetch {{.*}} read, locality<3>, data
// BURST-NOT: locality<2>
// BURST: tensor<4x64x16xf32>
// Lowered, each register tile of partial products is computed in place in
// its block of the partial buffer and each block's scores in the score
// tile: every buffer is allocated once per task (none in the key loop) and
// nothing is copied between them.
// LOOPS-LABEL: func.func @decode_q1_f16(
// LOOPS: %[[PART:.*]] = memref.alloc() {{.*}} : memref<4x16x16xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: memref.copy
// LOOPS: memref.prefetch {{.*}} locality<2>
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: memref.copy
// LOOPS: vector.transfer_write %{{.*}}, %[[PART]][%c0, %c0, %c0] {{.*}} : vector<4x4x16xf32>, memref<4x16x16xf32>
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: memref.copy
// LOOPS: vector.transfer_write %{{.*}}, %[[PART]][%c0, %c4, %c0] {{.*}} : vector<4x4x16xf32>, memref<4x16x16xf32>
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: memref.copy
// LOOPS: scf.yield
// The pipeline lowers the L2 hint to llvm.intr.prefetch with locality 2.
// LLVM-LABEL: llvm.func @decode_q1_f16(
// LLVM: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// LLVM-LABEL: llvm.func @decode_q1_f32(
// LLVM-NOT: hint = 2
// LLVM: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// LLVM-NOT: hint = 2
// LLVM: llvm.return
func.func @decode_q1_f16(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x300x32xf16>, %v: tensor<1x2x300x32xf16>) -> tensor<1x8x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x32xf32>, tensor<1x2x300x32xf16>, tensor<1x2x300x32xf16> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// f32 K/V keep the burst into L1 (the interleaved form measured slower).
// CHECK-LABEL: func.func @decode_q1_f32(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK: memref.prefetch {{.*}} read, locality<3>, data
// CHECK-NOT: locality<2>
// CHECK: return
func.func @decode_q1_f32(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// A tile of 1 row (MHA, Sq = 1) keeps the burst.
// CHECK-LABEL: func.func @decode_mha_q1_f16(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK: memref.prefetch {{.*}} read, locality<3>, data
// CHECK-NOT: locality<2>
// CHECK: return
func.func @decode_mha_q1_f16(%q: tensor<1x2x1x32xf32>, %k: tensor<1x2x300x32xf16>, %v: tensor<1x2x300x32xf16>) -> tensor<1x2x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x1x32xf32>, tensor<1x2x300x32xf16>, tensor<1x2x300x32xf16> -> tensor<1x2x1x32xf32>
  return %o : tensor<1x2x1x32xf32>
}

// Tiles of 16 rows (Sq = 4, GQA 4) transpose K in registers: the burst.
// CHECK-LABEL: func.func @decode_q4_bf16(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK: memref.prefetch {{.*}} read, locality<3>, data
// CHECK-NOT: locality<2>
// CHECK: return
func.func @decode_q4_bf16(%q: tensor<1x8x4x32xf32>, %k: tensor<1x2x300x32xbf16>, %v: tensor<1x2x300x32xbf16>) -> tensor<1x8x4x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x32xf32>, tensor<1x2x300x32xbf16>, tensor<1x2x300x32xbf16> -> tensor<1x8x4x32xf32>
  return %o : tensor<1x8x4x32xf32>
}
