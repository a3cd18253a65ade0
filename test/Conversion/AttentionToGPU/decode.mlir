// The decode schedule of --posenc-to-nvvm (docs/gpu.md, "Decode schedule"):
// for a static Sq <= 16 the decomposition (generic-decode) packs the query
// heads of a GQA group into one task's tile, splits the keys across tasks
// until the grid has at least decode-blocks (264: two per SM of a 132-SM
// H100) blocks, writes each task's unnormalized (max, sum, accumulator) to
// a workspace and merges the splits by their log-sum-exp in kernels of their
// own; its tile ops are marked to be spread over the block's threads. No
// Sq x Sk buffer exists. Execution of the same IR through the CPU emulation
// of the mapping: test/python/test_gpu_decode_emulation.py; ptxas:
// test/Pipelines/ptxas-decode.mlir.
// RUN: posenc-opt %s --split-input-file --posenc-fuse-attention \
// RUN:   --posenc-decompose-attention="generic-decode query-tile=64 key-tile=32 split-k-tasks=264 split-k-max-keys=0" \
// RUN:   --canonicalize | FileCheck %s --check-prefix=DEC
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" | FileCheck %s --check-prefix=GPU
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa decode-splits=3" | FileCheck %s --check-prefix=SPLITS
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa decode-blocks=1000" | FileCheck %s --check-prefix=BLOCKS

// Sq = 1, GQA 32/8, Sk = 16384, D = 128, f32: 4 query heads per tile, 8
// tasks before the split; 264 / 8 -> 33 splits of 496 keys, rounded down to
// 15 key tiles (480 keys) -> 35 splits: 280 blocks of 64 threads.
// DEC-LABEL: func.func @sq1_gqa
// DEC: scf.forall (%{{.*}}, %{{.*}}) in (8, 35) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1x8x35x4xf32>, tensor<1x8x35x4xf32>, tensor<1x8x35x4x128xf32>)
// The four heads' query rows, one tile.
// DEC: tensor.extract_slice %{{.*}} : tensor<1x32x1x128xf32> to tensor<4x1x128xf32>
// DEC: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x1x128xf32> into tensor<4x128xf32>
// DEC: scf.for
// DEC: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x128xf32>, tensor<?x128xf32>) outs(%{{.*}} : tensor<4x?xf32>) attrs = {posenc.spread_over_threads}
// DEC: scf.forall.in_parallel
// The merge: max over the splits, weights, weighted sums, A / L.
// DEC: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<1x8x35x4xf32>)
// DEC-NOT: tensor<{{[0-9]+}}x16384xf32>
// DEC: return

// GPU-LABEL: llvm.func @sq1_gqa
// GPU-DAG: %[[C35:.*]] = llvm.mlir.constant(35 : index) : i64
// GPU-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : index) : i64
// GPU-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : index) : i64
// GPU-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// GPU: gpu.launch_func @sq1_gqa_kernel::@sq1_gqa_kernel blocks in (%[[C35]], %[[C8]], %[[C1]]) threads in (%[[C64]], %[[C1]], %[[C1]])
// GPU: gpu.launch_func @sq1_gqa_kernel_{{[0-9]+}}::@sq1_gqa_kernel
// GPU: llvm.return
// The attention kernel: K and V tiles (32 x 128 f32) in shared memory,
// barriers; no Sq x Sk buffer anywhere.
// GPU: gpu.binary @sq1_gqa_kernel
// GPU-SAME: .shared .align 4 .b8 __wg_sq1_gqa_kernel_{{[0-9]+}}[16384];
// GPU-SAME: bar.sync
// GPU-NOT: x16384xf32>
// SPLITS-LABEL: llvm.func @sq1_gqa
// SPLITS-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : index) : i64
// SPLITS-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : index) : i64
// SPLITS-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// SPLITS: gpu.launch_func @sq1_gqa_kernel::@sq1_gqa_kernel blocks in (%[[C3]], %[[C8]], %[[C1]])
// 1000 / 8 -> 125 splits of 131 keys, rounded down to 4 key tiles (128
// keys) -> 128 splits, the most the 4-tile minimum allows.
// BLOCKS-LABEL: llvm.func @sq1_gqa
// BLOCKS-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : index) : i64
// BLOCKS-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : index) : i64
// BLOCKS-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// BLOCKS: gpu.launch_func @sq1_gqa_kernel::@sq1_gqa_kernel blocks in (%[[C128]], %[[C8]], %[[C1]])
func.func @sq1_gqa(%q: tensor<1x32x1x128xf32>, %k: tensor<1x8x16384x128xf32>, %v: tensor<1x8x16384x128xf32>) -> tensor<1x32x1x128xf32> {
  %0 = posenc.attention %q, %k, %v {causal} : tensor<1x32x1x128xf32>, tensor<1x8x16384x128xf32>, tensor<1x8x16384x128xf32> -> tensor<1x32x1x128xf32>
  return %0 : tensor<1x32x1x128xf32>
}

// -----

// Sq = 4 over a ragged f16 cache (kv_lengths) with an f32 query, GQA 8/2:
// 4 heads x 4 rows per tile; B x Hq/4 = 4 tasks; Smax = 512 allows at most
// 4 splits of 4 key tiles: grid (4 splits, 2, 2 batches). Each task reads
// its batch's length; K is read as f16 and extended in the contraction
// (no f32 copy of the cache). The tensor-core kernel leaves it (f16 K/V
// under f32 queries, and Sq <= 16).
// DEC-LABEL: func.func @sq4_cache_f16
// DEC: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 2, 4) shared_outs
// DEC: tensor.extract %{{.*}}[%[[B]]] : tensor<2xi32>
// DEC: scf.for
// DEC: tensor.extract_slice %{{.*}} : tensor<2x2x512x64xf16> to tensor<?x64xf16>
// DEC: arith.extf %{{.*}} : f16 to f32
// DEC-NOT: tensor<{{[0-9]+}}x512xf32>
// DEC: return

// GPU-LABEL: llvm.func @sq4_cache_f16
// GPU-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : index) : i64
// GPU-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : index) : i64
// GPU-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : index) : i64
// GPU-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// GPU: gpu.launch_func @sq4_cache_f16_kernel::@sq4_cache_f16_kernel blocks in (%[[C4]], %[[C2]], %[[C2]]) threads in (%[[C64]], %[[C1]], %[[C1]])
// GPU: gpu.binary @sq4_cache_f16_kernel
// GPU-SAME: cvt.f32.f16
// GPU-NOT: mma.sync
func.func @sq4_cache_f16(%q: tensor<2x8x4x64xf32>, %k: tensor<2x2x512x64xf16>, %v: tensor<2x2x512x64xf16>, %len: tensor<2xi32>) -> tensor<2x8x4x64xf32> {
  %0 = posenc.attention %q, %k, %v kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x4x64xf32>, tensor<2x2x512x64xf16>, tensor<2x2x512x64xf16> -> tensor<2x8x4x64xf32>
  return %0 : tensor<2x8x4x64xf32>
}

// -----

// A fused op written by hand: per-batch RoPE positions on the query, a
// bf16 cache with kv_lengths (the KV-cache forms together), Sq = 1.
// DEC-LABEL: func.func @fused_cache
// DEC: scf.forall
// GPU-LABEL: llvm.func @fused_cache
// GPU: gpu.launch_func @fused_cache_kernel::@fused_cache_kernel
// GPU: gpu.binary @fused_cache_kernel
func.func @fused_cache(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xbf16>, %len: tensor<2xi64>, %qp: tensor<2x1xi32>) -> tensor<2x8x1x64xf32> {
  %0 = posenc.fused_attention %q, %k, %k kv_lengths(%len : tensor<2xi64>) q_rope(#posenc.rotary<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast>, %qp : tensor<2x1xi32>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16> -> tensor<2x8x1x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %0 : tensor<2x8x1x64xf32>
}
