// Transformer-XL (posenc.xl_attention) and DeBERTa
// (posenc.disentangled_attention) on the GPU path. --posenc-to-nvvm fuses
// both into posenc.fused_attention (the xl term; deberta_pos_key /
// deberta_pos_query); the tensor-core kernel declines those terms
// (whyNotTensorCores), so every element type takes the FMA kernel, whose
// generic tile layout computes each position term as a D-long dot product
// per score, next to the score's Q.K^T:
//   XL:      s[i, j] += (q_i + v_h) . rel[i' - j + Sq - 1]   (rel read per d)
//            with q_i + u_h the query row of Q.K^T;
//   DeBERTa: s[i, j] += q_i . pos_key[c] + k_j . pos_query[c], c = c(i - j),
//            with log buckets read from a per-op index of the Sq + Sk - 1
//            distances (its logarithm in a kernel of its own, one thread
//            per distance), without buckets computed in place.
// No Sq x Sk (or Sq x L) buffer: scores exist per key tile.
//
// 1. The tensor-core pass leaves the f16/bf16 ops fused (no gpu.launch).
// RUN: posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)" \
// RUN:   | FileCheck %s --check-prefix=TC
//
// 2. The mapped GPU IR (before outlining), as fused-attention.mlir.
// RUN: posenc-opt %s --split-input-file --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-decompose-attention{query-tile=64 key-tile=32}, posenc-to-linalg, canonicalize, \
// RUN:   posenc-gpu-fuse-elementwise, cse, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, \
// RUN:   buffer-deallocation-pipeline, convert-bufferization-to-memref, \
// RUN:   posenc-gpu-map-attention{block-size=64}, canonicalize, cse)" | FileCheck %s --check-prefix=MAP
//
// 3. The whole pipeline: PTX without mma.sync (ptxas-relative.mlir
//    assembles it for sm_80 and sm_90).
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" \
// RUN:   | FileCheck %s --check-prefix=PTX --implicit-check-not=".extern .func"
//
// 4. fused=false: the reference lowering's kernels (an Sq x Sk score buffer).
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" \
// RUN:   | FileCheck %s --check-prefix=REF --implicit-check-not=".extern .func"
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" \
// RUN:   --mlir-print-ir-after=posenc-gpu-map-parallel-loops -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REFMAP

// TC-LABEL: func.func @xl_f32(
// TC:         posenc.fused_attention {{.*}} xl(
// MAP-LABEL: func.func @xl_f32(
// MAP-SAME:    %[[Q:[^:]*]]: memref<2x4x?x64xf32>, %{{[^:]*}}: memref<2x4x?x64xf32>, %{{[^:]*}}: memref<2x4x?x64xf32>, %[[REL:[^:]*]]: memref<?x64xf32>, %[[U:[^:]*]]: memref<4x64xf32>, %[[V:[^:]*]]: memref<4x64xf32>)
// MAP-NOT:     memref<{{[0-9x]*}}?x?x
// MAP:         gpu.launch blocks(%{{[^,]*}}, %[[HEAD:[^,]*]], %{{[^)]*}}) in (%{{[^ ]*}} = %{{.*}}, %{{[^ ]*}} = %c4, %{{[^ ]*}} = %c2)
// MAP-SAME:      threads(%[[TID:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %c64,
// MAP-SAME:      workgroup(%[[KTILE:[^ ]*]] : memref<32x64xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<32x64xf32, #gpu.address_space<workgroup>>)
// MAP-SAME:      private(%[[QV:[^ ]*]] : memref<64xf32, #gpu.address_space<private>>, %[[QU:[^ ]*]] : memref<64xf32, #gpu.address_space<private>>,
// MAP-SAME:      %[[SROW:[^ ]*]] : memref<32xf32, #gpu.address_space<private>>
// The query row plus u (content) and plus v (position), each a private row.
// MAP:         %[[UROW:.*]] = memref.subview %[[U]][%[[HEAD]], 0] [1, 64]
// MAP:         memref.store %{{.*}}, %[[QU]][%{{.*}}] : memref<64xf32, #gpu.address_space<private>>
// MAP:         %[[VROW:.*]] = memref.subview %[[V]][%[[HEAD]], 0] [1, 64]
// MAP:         memref.store %{{.*}}, %[[QV]][%{{.*}}] : memref<64xf32, #gpu.address_space<private>>
// Per key tile: S = (Q + u) K^T from the shared K tile, then per score the
// D-long product with rel's row Sq - 1 - (j - i') read from global memory.
// MAP:         scf.for %[[KSTART:[^ ]*]] = %c0 to %{{.*}} step %c32 {
// MAP:           memref.load %[[QU]][%{{.*}}] : memref<64xf32, #gpu.address_space<private>>
// MAP:           memref.load %[[KTILE]]
// MAP:           gpu.barrier
// MAP:           scf.if
// MAP-NEXT:        scf.for %[[J:[^ ]*]] = %c0 to %{{.*}} step %c1 {
// MAP-NEXT:          scf.for %[[D:[^ ]*]] = %c0 to %c64 step %c1 {
// MAP-NEXT:            %[[QVD:.*]] = memref.load %[[QV]][%[[D]]]
// MAP-NEXT:            %[[S:.*]] = memref.load %[[SROW]][%[[J]]]
// MAP-NEXT:            %[[I:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// MAP-NEXT:            %[[JABS:.*]] = arith.addi %[[KSTART]], %[[J]] : index
// MAP-NEXT:            %[[IPRIME:.*]] = arith.addi %[[I]], %{{.*}} : index
// MAP-NEXT:            %[[DIST:.*]] = arith.subi %[[JABS]], %[[IPRIME]] : index
// MAP-NEXT:            %[[ROW:.*]] = arith.subi %{{.*}}, %[[DIST]] : index
// MAP-NEXT:            %[[R:.*]] = memref.load %[[REL]][%[[ROW]], %[[D]]] : memref<?x64xf32>
// MAP-NEXT:            %[[P:.*]] = arith.mulf %[[QVD]], %[[R]] : f32
// MAP-NEXT:            %[[SUM:.*]] = arith.addf %[[S]], %[[P]] : f32
// MAP-NEXT:            memref.store %[[SUM]], %[[SROW]][%[[J]]]
// MAP:           math.exp
// MAP:         gpu.terminator
// MAP-NOT:     gpu.launch
// MAP:         return
// PTX-LABEL: llvm.func @xl_f32(
// PTX-COUNT-1: gpu.launch_func
// PTX-NOT:     gpu.launch_func
// PTX:       gpu.binary @xl_f32_kernel
// PTX-SAME:    .shared
// PTX-NOT:     mma.sync
// PTX-SAME:    bar.sync
// REF-LABEL: llvm.func @xl_f32(
// REF-COUNT-4: gpu.launch_func
// REFMAP-LABEL: func.func @xl_f32(
// REFMAP:        memref.alloc(%{{.*}}, %{{.*}}) {{.*}} : memref<2x4x?x?xf32>
func.func @xl_f32(%q: tensor<2x4x?x64xf32>, %k: tensor<2x4x?x64xf32>, %v: tensor<2x4x?x64xf32>,
                  %r: tensor<?x64xf32>, %u: tensor<4x64xf32>, %pb: tensor<4x64xf32>) -> tensor<2x4x?x64xf32> {
  %o = posenc.xl_attention %q, %k, %v rel(%r : tensor<?x64xf32>) content_bias(%u : tensor<4x64xf32>)
      position_bias(%pb : tensor<4x64xf32>) {causal}
      : tensor<2x4x?x64xf32>, tensor<2x4x?x64xf32>, tensor<2x4x?x64xf32> -> tensor<2x4x?x64xf32>
  return %o : tensor<2x4x?x64xf32>
}

// -----

// TC-LABEL: func.func @xl_f16(
// TC-NOT:     gpu.launch
// TC:         posenc.fused_attention %arg0, %arg1, %arg2 xl(%arg3, %arg4, %arg5 : tensor<4x127x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>)
// TC-NOT:     gpu.launch
// MAP-LABEL: func.func @xl_f16(
// MAP:         gpu.launch
// MAP-SAME:      workgroup(%{{[^ ]*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<32x64xf16, #gpu.address_space<workgroup>>)
// MAP:           memref.load %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x127x64xf16>
// MAP:           arith.extf %{{.*}} : f16 to f32
// PTX-LABEL: llvm.func @xl_f16(
// PTX:       gpu.binary @xl_f16_kernel
// PTX-NOT:     mma.sync
// PTX-SAME:    ld.global.{{[a-z.]*}}b16
func.func @xl_f16(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x64x64xf16>, %v: tensor<1x4x64x64xf16>,
                  %r: tensor<4x127x64xf16>, %u: tensor<4x64xf16>, %pb: tensor<4x64xf16>) -> tensor<1x4x64x64xf16> {
  %o = posenc.xl_attention %q, %k, %v rel(%r : tensor<4x127x64xf16>) content_bias(%u : tensor<4x64xf16>)
      position_bias(%pb : tensor<4x64xf16>)
      : tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16> -> tensor<1x4x64x64xf16>
  return %o : tensor<1x4x64x64xf16>
}

// -----

// TC-LABEL: func.func @deberta_f32(
// TC:         posenc.fused_attention {{.*}} deberta_pos_key(
// MAP-LABEL: func.func @deberta_f32(
// MAP-SAME:    %{{[^:]*}}: memref<1x4x?x64xf32>, %{{[^:]*}}: memref<1x4x?x64xf32>, %{{[^:]*}}: memref<1x4x?x64xf32>, %[[PK:[^:]*]]: memref<4x512x64xf32>, %[[PQ:[^:]*]]: memref<4x512x64xf32>)
// MAP-NOT:     memref<{{[0-9x]*}}?x?x
// The per-op index: table row c(r) of each distance, the log bucket's
// logarithm once per distance, outside the attention kernel.
// MAP:         %[[INDEX:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xi32>
// MAP:         linalg.generic {{.*}} outs(%[[INDEX]] : memref<?xi32>)
// MAP:           math.log %{{.*}} : f64
// MAP:           math.ceil
// MAP:         gpu.launch blocks(%{{[^,]*}}, %[[HEAD:[^,]*]], %{{[^)]*}})
// MAP-SAME:      threads(%[[TID:[^,]*]],
// MAP-SAME:      workgroup(%[[KTILE:[^ ]*]] : memref<32x64xf32, #gpu.address_space<workgroup>>,
// MAP-NOT:       math.log
// Per score and d: q_i . pos_key[c] + k_j . pos_query[c], c = index[i - j + Sk - 1].
// MAP:           %[[SKM1:.*]] = arith.subi %{{.*}}, %c1 : index
// MAP-NEXT:      scf.if
// MAP-NEXT:        scf.for %[[J:[^ ]*]] = %c0 to %{{.*}} step %c1 {
// MAP-NEXT:          scf.for %[[D:[^ ]*]] = %c0 to %c64 step %c1 {
// MAP-NEXT:            %[[QD:.*]] = memref.load %{{.*}}[%{{.*}}, %[[D]]] : memref<?x64xf32, strided<[64, 1], offset: ?>>
// MAP-NEXT:            %[[KD:.*]] = memref.load %[[KTILE]][%[[J]], %[[D]]]
// MAP-NEXT:          memref.load
// MAP-NEXT:          %[[I:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// MAP-NEXT:          %[[JABS:.*]] = arith.addi %{{.*}}, %[[J]] : index
// MAP-NEXT:          %[[DIFF:.*]] = arith.subi %[[I]], %[[JABS]] : index
// MAP-NEXT:          %[[AT:.*]] = arith.addi %[[DIFF]], %[[SKM1]] : index
// MAP-NEXT:          %[[C32:.*]] = memref.load %[[INDEX]][%[[AT]]] : memref<?xi32>
// MAP-NEXT:          %[[C:.*]] = arith.index_cast %[[C32]] : i32 to index
// MAP-NEXT:          %[[PKD:.*]] = memref.load %[[PK]][%[[HEAD]], %[[C]], %[[D]]] : memref<4x512x64xf32>
// MAP-NEXT:          arith.mulf %[[QD]], %[[PKD]] : f32
// MAP-NEXT:          arith.addf
// MAP-NEXT:          %[[PQD:.*]] = memref.load %[[PQ]][%[[HEAD]], %[[C]], %[[D]]] : memref<4x512x64xf32>
// MAP-NEXT:          arith.mulf %[[KD]], %[[PQD]] : f32
// MAP:           math.exp
// MAP-NOT:       math.log
// MAP:         gpu.terminator
// MAP-NOT:     gpu.launch
// MAP:         return
// Two kernels: the index (its f64 log as libdevice's inlined FMAs, the
// bucket's ceil) and the attention.
// PTX-LABEL: llvm.func @deberta_f32(
// PTX-COUNT-2: gpu.launch_func
// PTX-NOT:     gpu.launch_func
// PTX:       gpu.binary @deberta_f32_kernel {{.*}}fma.rn.f64{{.*}}cvt.rpi.f32.f32
// PTX:       gpu.binary @deberta_f32_kernel_0
// PTX-NOT:     mma.sync
// PTX-SAME:    bar.sync
// REF-LABEL: llvm.func @deberta_f32(
// REF-COUNT-4: gpu.launch_func
// REFMAP-LABEL: func.func @deberta_f32(
// REFMAP:        memref.alloc(%{{.*}}, %{{.*}}) {{.*}} : memref<1x4x?x?xf32>
func.func @deberta_f32(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>,
                       %pk: tensor<4x512x64xf32>, %pq: tensor<4x512x64xf32>) -> tensor<1x4x?x64xf32> {
  %o = posenc.disentangled_attention %q, %k, %v pos_key(%pk : tensor<4x512x64xf32>)
      pos_query(%pq : tensor<4x512x64xf32>)
      {position_buckets = 256 : i64, max_relative_positions = 512 : i64}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}

// -----

// Without buckets the table row is clamp(i - j + k, 0, 2k - 1) in place: no
// index, no logarithm; one kernel.
// TC-LABEL: func.func @deberta_bf16_c2p(
// TC-NOT:     gpu.launch
// TC:         posenc.fused_attention %arg0, %arg1, %arg2 deberta_pos_key(%arg3 : tensor<16x64xbf16>) {causal, scale = 0.08838834764{{[0-9]*}} : f64}
// TC-NOT:     gpu.launch
// MAP-LABEL: func.func @deberta_bf16_c2p(
// MAP-NOT:     memref<?xi32>
// MAP-NOT:     math.log
// MAP:         gpu.launch
// MAP:           scf.for %{{[^ ]*}} = %c0 to %c64 step %c1 {
// MAP:             %[[ROW:.*]] = arith.minsi %{{.*}}, %c15 : index
// MAP-NEXT:        memref.load %arg3[%[[ROW]], %{{.*}}] : memref<16x64xbf16>
// MAP-NEXT:        arith.extf %{{.*}} : bf16 to f32
// MAP-NOT:     math.log
// MAP:         return
// PTX-LABEL: llvm.func @deberta_bf16_c2p(
// PTX-COUNT-1: gpu.launch_func
// PTX-NOT:     gpu.launch_func
// PTX:       gpu.binary @deberta_bf16_c2p_kernel
// PTX-NOT:     mma.sync
func.func @deberta_bf16_c2p(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                            %pk: tensor<16x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = posenc.disentangled_attention %q, %k, %v pos_key(%pk : tensor<16x64xbf16>) terms c2p {causal}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
