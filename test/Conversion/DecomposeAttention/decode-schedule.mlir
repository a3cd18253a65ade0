// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=256 score-dims-on-lanes=0" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512" | FileCheck %s --check-prefix=ROWS16
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=1 split-k-max-keys=100" | FileCheck %s --check-prefix=MAXKEYS
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 query-tile=64" | FileCheck %s --check-prefix=FIXED
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512 score-dims-on-lanes=0" --posenc-vectorize-attention-tiles="vector-bits=512" | FileCheck %s --check-prefix=HALF
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512" | FileCheck %s --check-prefixes=DIMS,DIMS16
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=256" | FileCheck %s --check-prefixes=DIMS,DIMS8
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 vector-bits=512" --posenc-vectorize-attention-tiles="vector-bits=512" | FileCheck %s --check-prefix=DIMSHALF
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=512" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefixes=TREE,TREE16
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=256 target-features=-avx512f" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefixes=TREE,TREE8
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=512 attention-score-dims-on-lanes=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1" | FileCheck %s --check-prefix=THREADS
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 prefetch-tiles=2 prefetch-interleaved=0 spread-prefetches=0" | FileCheck %s --check-prefix=PREFETCH
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=8 prefetch-tiles=0" | FileCheck %s --check-prefix=NOPREFETCH
// RUN: not posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 prefetch-tiles=-1" 2>&1 | FileCheck %s --check-prefix=BADPREFETCH
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=256" | FileCheck %s --check-prefix=LLVM
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=512" | FileCheck %s --check-prefix=LLVM
// rows16-key-tile=0: the 16-row tiles below keep the 64-key step these
// checks were written for (decode-rows16-key-tile.mlir checks the default).

// The schedule follows the shapes (docs/pipelines.md, "Attention
// schedules"). Sq <= 16: the decode schedule. Its grid is (batch, K/V head,
// key split); a task's rows are the Sq rows of the Hq/Hkv = 4 query heads
// that share its K/V head (GQA packing: Q[b, 4h : 4h + 4] collapsed to
// [4 Sq x D]), so each K/V tile is read once per group; each task writes
// its unnormalized (m, l, acc) of its split, and a merge outside the forall
// combines the splits by their log-sum-exp into the result, reading grid
// row (h mod 4) * Sq + i of grid head h floordiv 4. No Sq x Sk tensor.
// CHECK-DAG: #[[$Q1ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 4, d1 mod 4 + d2, d3)>
// CHECK-DAG: #[[$Q4ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 4, (d1 mod 4) * 4 + d2, d3)>
// CHECK-DAG: #[[$Q16ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 4, (d1 mod 4) * 16 + d2, d3)>
// CHECK-DAG: #[[$DI:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$JD:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$IJ:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// Tiles of at most 4 rows (score-dims-on-lanes, the default): the score
// contraction keeps the head dim on the lanes. Q~ [4 x 32] and each K tile
// [64 x 32] are viewed as [rows x D/lanes x lanes] (as stored, no copy);
// partial[i, j, l] = sum_c Q~[i, c, l] K~[j, c, l] in [4 rows x keys x
// lanes] register tiles chosen for the width (exact: 4 keys of 16 lanes in
// 16 zmm, 2 keys of 8 lanes in 8 ymm), then S[i, j] = sum_l partial[i, j,
// l] in [1 x lanes x lanes] blocks: S still has the keys on the lanes.
// DIMS-LABEL: func.func @decode_q1(
// DIMS16: tensor.expand_shape {{.*}} output_shape [4, 2, 16] : tensor<4x32xf32> into tensor<4x2x16xf32>
// DIMS8: tensor.expand_shape {{.*}} output_shape [4, 4, 8] : tensor<4x32xf32> into tensor<4x4x8xf32>
// DIMS: scf.for
// DIMS16: tensor.expand_shape {{.*}} output_shape [64, 2, 16] : tensor<64x32xf32> into tensor<64x2x16xf32>
// DIMS16: iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x2x16xf32>, tensor<64x2x16xf32>) outs(%{{.*}} : tensor<4x64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 4, 1, 16>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// DIMS16: iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<4x64x16xf32>) outs(%{{.*}} : tensor<4x64xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 16, 16>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// DIMS8: tensor.expand_shape {{.*}} output_shape [64, 4, 8] : tensor<64x32xf32> into tensor<64x4x8xf32>
// DIMS8: iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x4x8xf32>, tensor<64x4x8xf32>) outs(%{{.*}} : tensor<4x64x8xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 2, 1, 8>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// DIMS8: iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<4x64x8xf32>) outs(%{{.*}} : tensor<4x64xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 8, 8>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// DIMS-NOT: tensor<32x4xf32>
// 16 rows: the rows on the lanes (S^T = K~ Q~^T, no transpose of K).
// DIMS16-LABEL: func.func @decode_q4(
// DIMS16-NOT: posenc.vector_tile_exact
// DIMS16: ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// DIMS16-LABEL: func.func @decode_q16(
// The prefill schedule is untouched.
// DIMS-LABEL: func.func @prefill_q17(
// DIMS-NOT: posenc.vector_tile_exact
// DIMS-LABEL: func.func @dynamic_sq(

// Lowered: the partial products are elementwise FMAs of K rows as loaded
// (no transpose of K, no broadcast element), and each [lanes x lanes]
// block of partials is reduced by the transpose-and-add tree (16 lanes:
// 8 + 4 + 2 + 1 pairs of shuffles, the first levels within 128-bit chunks,
// the last moving chunks; 8 lanes: 4 + 2 + 1), into the keys on the lanes.
// TREE-LABEL: func.func @decode_q1(
// TREE16: vector.fma {{.*}} : vector<4x4x16xf32>
// TREE16-NOT: vector.transpose {{.*}} vector<16x16xf32>
// TREE16-COUNT-16: vector.shuffle {{.*}} [{{0|1|2}}, {{1|2|3}}, {{16|17|18}}, {{17|18|19}}, {{4|5|6}}
// TREE16-COUNT-4: vector.shuffle {{.*}} [{{0|1|2}}, {{2|3}}, {{16|17|18}}, {{18|19}}, {{4|5|6}}
// TREE16-COUNT-4: vector.shuffle {{.*}} [{{0|4}}, {{1|5}}, {{2|6}}, {{3|7}}, {{8|12}}, {{9|13}}, {{10|14}}, {{11|15}}, {{16|20}}
// TREE16-COUNT-2: vector.shuffle {{.*}} [{{0|4}}, {{1|5}}, {{2|6}}, {{3|7}}, {{8|12}}, {{9|13}}, {{10|14}}, {{11|15}}, {{16|20}}
// TREE16-NOT: vector.shuffle
// TREE16: vector.transfer_write {{.*}} : vector<1x16xf32>, memref<4x64xf32>
// TREE8: vector.fma {{.*}} : vector<4x2x8xf32>
// TREE8-NOT: vector.transpose {{.*}} vector<8x8xf32>
// TREE8-COUNT-14: vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// TREE8-NOT: vector.shuffle
// TREE8: vector.transfer_write {{.*}} : vector<1x8xf32>, memref<4x64xf32>
// The softmax's row max over each 16 keys of the [4 x 64] scores (both
// widths: the statistics reduce 16 keys at a time): the tree's two
// in-chunk levels, then halves folded down to the 4 rows, no transpose of
// the block (lane-reduction-tree.mlir checks the shapes one by one).
// TREE-NOT: vector.transpose
// TREE: vector.shuffle {{.*}} [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
// TREE-NEXT: vector.shuffle {{.*}} [2, 3, 18, 19,
// TREE-NEXT: arith.maxnumf {{.*}} : vector<16xf32>
// TREE: vector.shuffle %[[MAX:.*]], %[[MAX]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>, vector<16xf32>
// TREE-NEXT: vector.shuffle %[[MAX]], %[[MAX]] [8, 9, 10, 11, 12, 13, 14, 15]
// TREE-NEXT: arith.maxnumf {{.*}} : vector<8xf32>
// TREE-NEXT: vector.shuffle {{.*}} [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// TREE-NEXT: vector.shuffle {{.*}} [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// TREE-NEXT: arith.maxnumf {{.*}} : vector<4xf32>
// TREE-NEXT: arith.maxnumf {{.*}} : vector<4xf32>
// TREE-LABEL: func.func @decode_q4(
// score-dims-on-lanes=0: the contraction transposes each 16 x 16 block of K.
// TRANSPOSE-LABEL: func.func @decode_q1(
// TRANSPOSE: vector.transpose {{.*}} : vector<16x16xf32> to vector<16x16xf32>
// TRANSPOSE-NOT: vector.fma {{.*}} : vector<4x4x16xf32>
// TRANSPOSE-LABEL: func.func @decode_q4(

// CHECK-LABEL: func.func @decode_q1
// CHECK-NOT: {{x300xf32>|<300x}}
// Split-K: as many splits as the 8 tasks wanted need.
// CHECK: arith.ceildivui %c8
// CHECK: scf.forall ({{.*}}) in (1, %{{.*}}, %{{.*}}) shared_outs({{.*}}) -> (tensor<1x?x?x4xf32>, tensor<1x?x?x4xf32>, tensor<1x?x?x4x32xf32>)
// CHECK: tensor.extract_slice %arg0[{{.*}}] [1, 4, %{{.*}}, 32]
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x1x32xf32> into tensor<4x32xf32>
// Tiles of at most 4 rows (and of fewer rows than an f32 vector has
// lanes): the scores are S [rows x keys], the keys on the vector lanes: S = Q~ K~^T read K as stored ((i, j, d) -> (j, d)) in
// [rows x 16 keys x 16 dims] register tiles; the statistics reduce the keys
// 16 at a time; P V reads P [rows x keys]. Both contractions fuse the
// producer of their destination (the zero fill, the rescale) into their
// register tiles (posenc.vector_tile_fuse_init).
// CHECK: scf.for
// CHECK: linalg.generic {indexing_maps = [#[[$DI]], #[[$JD]], #[[$IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<32x4xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<4x64xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 16, 16>, posenc.vector_tile_fuse_init}
// CHECK: iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x64xf32>) outs(%{{.*}} : tensor<4xf32>) attrs =  {posenc.vector_tile = array<i64: 0, 16>}
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<4x32xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 32, 1>, posenc.vector_tile_fuse_init}
// CHECK-NOT: {{x300xf32>|<300x}}
// CHECK: tensor.parallel_insert_slice {{.*}} : tensor<4x32xf32> into tensor<1x?x?x4x32xf32>
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[$Q1ROW]], {{.*}} outs(%{{.*}} : tensor<1x8x1x32xf32>)
// CHECK: return
func.func @decode_q1(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// CHECK-LABEL: func.func @decode_q4
// CHECK-NOT: {{x300xf32>|<300x}}
// CHECK: scf.forall {{.*}} -> (tensor<1x?x?x16xf32>, tensor<1x?x?x16xf32>, tensor<1x?x?x16x32xf32>)
// 16 rows: S^T [keys x rows], the rows on the lanes, with 256-bit vectors
// (16 rows x 16 keys of accumulators would not fit 16 registers) and with
// 512-bit vectors (the rows fill one vector; docs/pipelines.md, "Tiles of
// 16 rows").
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x4x32xf32> into tensor<16x32xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x16xf32>)
// CHECK-NOT: {{x300xf32>|<300x}}
// CHECK: linalg.generic {indexing_maps = [#[[$Q4ROW]], {{.*}} outs(%{{.*}} : tensor<1x8x4x32xf32>)
// At 512 bits: [16 keys x 16 rows] register tiles of S^T = K~ Q~^T.
// ROWS16-LABEL: func.func @decode_q4
// ROWS16: tensor.collapse_shape {{.*}} : tensor<4x4x32xf32> into tensor<16x32xf32>
// ROWS16-NOT: outs(%{{.*}} : tensor<16x64xf32>)
// ROWS16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// ROWS16-NOT: outs(%{{.*}} : tensor<16x64xf32>)
// ROWS16-LABEL: func.func @decode_q16
// ROWS16: outs(%{{.*}} : tensor<64x64xf32>)
func.func @decode_q4(%q: tensor<1x8x4x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x4x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x4x32xf32>
  return %o : tensor<1x8x4x32xf32>
}

// CHECK-LABEL: func.func @decode_q16
// CHECK: scf.forall {{.*}} -> (tensor<1x?x?x64xf32>, tensor<1x?x?x64xf32>, tensor<1x?x?x64x32xf32>)
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x16x32xf32> into tensor<64x32xf32>
// CHECK-NOT: {{x300xf32>|<300x}}
// CHECK: linalg.generic {indexing_maps = [#[[$Q16ROW]], {{.*}} outs(%{{.*}} : tensor<1x8x16x32xf32>)
func.func @decode_q16(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x16x32xf32> {
  %o = posenc.attention %q, %k, %v : tensor<1x8x16x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x16x32xf32>
  return %o : tensor<1x8x16x32xf32>
}

// Sq > 16: the prefill schedule, one task per (batch, query head, 64-row
// query tile), writing the normalized output; no split, no merge.
// CHECK-LABEL: func.func @prefill_q17
// CHECK: scf.forall ({{.*}}) in (1, 8, %{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x8x17x32xf32>)
// CHECK: tensor.empty() : tensor<32x64xf32>
// CHECK-NOT: floordiv
// CHECK: return
func.func @prefill_q17(%q: tensor<1x8x17x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x17x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x17x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x17x32xf32>
  return %o : tensor<1x8x17x32xf32>
}

// Dynamic Sq: both schedules, one branch on Sq <= 16 at run time; the
// decode one pads each head's rows to 16 (4 heads x 16 rows).
// CHECK-LABEL: func.func @dynamic_sq
// CHECK: %[[SQ:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[SQ]], %c16
// CHECK: scf.if %[[SMALL]] -> (tensor<1x8x?x32xf32>)
// CHECK: scf.forall {{.*}} -> (tensor<1x?x?x64xf32>, tensor<1x?x?x64xf32>, tensor<1x?x?x64x32xf32>)
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x16x32xf32> into tensor<64x32xf32>
// CHECK: } else {
// CHECK: scf.forall ({{.*}}) in (1, 8, %{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x8x?x32xf32>)
func.func @dynamic_sq(%q: tensor<1x8x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>) -> tensor<1x8x?x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x8x?x32xf32>
  return %o : tensor<1x8x?x32xf32>
}

// Keys per task: with one task wanted, split-k-max-keys alone sets the
// split count, ceil(Sk / 100).
// MAXKEYS-LABEL: func.func @decode_q1
// MAXKEYS: arith.ceildivui %{{.*}}, %c100
// MAXKEYS: scf.forall

// An explicit query tile keeps one schedule for every Sq: no packing, no
// split.
// FIXED-LABEL: func.func @decode_q1
// FIXED: scf.forall ({{.*}}) in (1, 8, %{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x8x1x32xf32>)
// FIXED-NOT: floordiv
// FIXED: return

// Both vector widths lower the decode schedule to a parallel OpenMP loop and
// vector FMAs.
// LLVM-LABEL: llvm.func @decode_q4
// LLVM: omp.parallel
// LLVM: omp.wsloop
// LLVM: llvm.intr.fmuladd{{.*}}vector<

// f16 K/V under an f32 query, 4 rows (keys on the lanes): each
// [16 keys x 16 dims] block of K is read as f16 from the cache and extended
// in registers before the contraction transposes it; no f32 copy of K or V.
// HALF-LABEL: func.func @decode_q1_f16
// HALF-NOT: x300x32xf32>
// HALF: %[[KH:.*]] = vector.transfer_read %arg1{{.*}} : tensor<1x2x300x32xf16>, vector<16x16xf16>
// HALF: %[[KF:.*]] = arith.extf %[[KH]] : vector<16x16xf16> to vector<16x16xf32>
// HALF: vector.contract {{.*}} %[[KF]]
// HALF-NOT: x300x32xf32>
// HALF: return
// With the head dim on the lanes: K's rows are read as f16 vectors of
// 16 dims and extended in registers.
// DIMSHALF-LABEL: func.func @decode_q1_f16
// DIMSHALF-NOT: x300x32xf32>
// DIMSHALF: tensor.extract_slice %arg1[{{.*}}] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x2x300x32xf16> to tensor<64x32xf16>
// DIMSHALF: tensor.expand_shape {{.*}} : tensor<64x32xf16> into tensor<64x2x16xf16>
// DIMSHALF: %[[KH:.*]] = vector.transfer_read {{.*}} : tensor<64x2x16xf16>, vector<4x1x16xf16>
// DIMSHALF: arith.extf %[[KH]] : vector<4x1x16xf16> to vector<4x1x16xf32>
// DIMSHALF-NOT: x300x32xf32>
// DIMSHALF: return
func.func @decode_q1_f16(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x300x32xf16>, %v: tensor<1x2x300x32xf16>) -> tensor<1x8x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x32xf32>, tensor<1x2x300x32xf16>, tensor<1x2x300x32xf16> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// Each full key tile of the decode schedule first prefetches (into L1,
// locality 3) the K and V rows of the tile prefetch-tiles ahead, one
// prefetch per 64-byte line of a row (D = 32: f32 rows are two lines, f16
// rows one), only rows before the task's key end (a count clamped to
// [0, key tile]), read from the K/V operands themselves (to_buffer
// read_only: the caller's buffers, e.g. a KV cache, no copy). The partial
// tail tile prefetches nothing; neither does the prefill schedule.
// PREFETCH-LABEL: func.func @decode_q1(
// PREFETCH: scf.forall
// PREFETCH: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c64 iter_args
// PREFETCH-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %c128 : index
// PREFETCH-NEXT: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[NEXT]] : index
// PREFETCH-NEXT: %[[POS:.*]] = arith.maxsi %c0, %[[LEFT]] : index
// PREFETCH-NEXT: %[[ROWS:.*]] = arith.minsi %c64, %[[POS]] : index
// PREFETCH-NEXT: %[[KB:.*]] = bufferization.to_buffer %arg1 read_only
// PREFETCH-NEXT: scf.for %[[R:.*]] = %c0 to %[[ROWS]] step %c1 {
// PREFETCH-NEXT: %[[ROW:.*]] = arith.addi %[[NEXT]], %[[R]] : index
// PREFETCH-NEXT: memref.prefetch %[[KB]][%{{.*}}, %{{.*}}, %[[ROW]], %c0], read, locality<3>, data
// PREFETCH-NEXT: memref.prefetch %[[KB]][%{{.*}}, %{{.*}}, %[[ROW]], %c16], read, locality<3>, data
// PREFETCH-NEXT: }
// PREFETCH-NEXT: %[[VB:.*]] = bufferization.to_buffer %arg2 read_only
// PREFETCH-NEXT: scf.for %[[R2:.*]] = %c0 to %[[ROWS]] step %c1 {
// PREFETCH-NEXT: %[[ROW2:.*]] = arith.addi %[[NEXT]], %[[R2]] : index
// PREFETCH-NEXT: memref.prefetch %[[VB]][%{{.*}}, %{{.*}}, %[[ROW2]], %c0], read, locality<3>, data
// PREFETCH-NEXT: memref.prefetch %[[VB]][%{{.*}}, %{{.*}}, %[[ROW2]], %c16], read, locality<3>, data
// PREFETCH-NEXT: }
// PREFETCH-NEXT: tensor.extract_slice %arg1
// PREFETCH-NOT: memref.prefetch
// PREFETCH: scf.forall.in_parallel
// PREFETCH-LABEL: func.func @prefill_q17(
// PREFETCH-NOT: memref.prefetch
// PREFETCH-LABEL: func.func @dynamic_sq(
// PREFETCH-LABEL: func.func @decode_q1_f16(
// PREFETCH: scf.for %[[RH:.*]] = %c0 to %{{.*}} step %c1 {
// PREFETCH-NEXT: %[[ROWH:.*]] = arith.addi %{{.*}}, %[[RH]] : index
// PREFETCH-NEXT: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}, %[[ROWH]], %c0], read, locality<3>, data : memref<1x2x300x32xf16
// PREFETCH-NEXT: }
// NOPREFETCH-NOT: memref.prefetch
// NOPREFETCH: func.func @decode_q1_f16(
// NOPREFETCH: scf.forall
// NOPREFETCH-NOT: memref.prefetch
// BADPREFETCH: error: posenc-decompose-attention: prefetch-tiles (-1) must be >= 0

// By default the split count follows the thread count of the OpenMP
// runtime at run time (twice omp_get_max_threads()), not the compiling
// host's.
// THREADS: func.func private @omp_get_max_threads() -> i32
// THREADS-LABEL: func.func @decode_q1
// THREADS: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// THREADS: %[[NI:.*]] = arith.index_castui %[[N]] : i32 to index
// THREADS: %[[GOAL:.*]] = arith.muli %c2, %[[NI]]
// THREADS: arith.ceildivui %[[GOAL]]
// THREADS: scf.forall
