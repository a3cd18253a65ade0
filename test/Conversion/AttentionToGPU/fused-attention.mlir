// The fused attention path of --posenc-to-nvvm (the default, fused=true):
// posenc.fused_attention decomposed flash-style as on the CPU, then
// posenc-gpu-map-attention maps the (head, query tile) forall to GPU blocks
// and the tile ops to threads, one query row per thread.
//
// 1. The mapped GPU IR (before outlining): one gpu.launch per attention, grid
//    (query tiles, heads, batch), 64 threads; the K and V tiles in workgroup
//    (shared) memory, the query row, the score row, the running max and sum
//    and the accumulator in private memory; barriers around the shared tiles;
//    no dynamic 2-d buffer (Sq x Sk) anywhere.
// RUN: posenc-opt %s --split-input-file --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-decompose-attention{query-tile=64 key-tile=32}, posenc-to-linalg, canonicalize, \
// RUN:   posenc-gpu-fuse-elementwise, cse, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, \
// RUN:   buffer-deallocation-pipeline, convert-bufferization-to-memref, \
// RUN:   posenc-gpu-map-attention{block-size=64}, canonicalize, cse)" | FileCheck %s --check-prefix=MAP
//
// 2. The whole pipeline: one kernel, whose PTX declares shared memory and
//    synchronizes the block (format=isa needs no ptxas; ptxas.mlir assembles
//    the same programs for sm_80 and sm_90).
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" | FileCheck %s --check-prefix=NVVM
//
// 3. fused=false keeps the reference mapping: several kernels, one thread per
//    element, an Sq x Sk score buffer.
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" \
// RUN:   --mlir-print-ir-after=posenc-gpu-map-parallel-loops -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REF
//
// 4. The same mapping emulated on the CPU (what thread-mapping-on-cpu.mlir
//    runs): sequential loops over the 64 thread ids, static tile buffers.
// RUN: posenc-opt %s --split-input-file --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-decompose-attention{query-tile=64 key-tile=32}, posenc-to-linalg, canonicalize, \
// RUN:   posenc-gpu-fuse-elementwise, cse, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, \
// RUN:   buffer-deallocation-pipeline, convert-bufferization-to-memref, \
// RUN:   posenc-gpu-map-attention{block-size=64 emulate-on-cpu}, canonicalize, cse)" | FileCheck %s --check-prefix=EMU

// MAP-LABEL: func.func @llama_attention(
// MAP-NOT:     memref<{{[0-9x]*}}?x?x
// MAP:         %[[QTILES:.*]] = arith.ceildivui
// MAP:         gpu.launch blocks(%{{[^,]*}}, %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %[[QTILES]], %{{[^ ]*}} = %c8, %{{[^ ]*}} = %c1)
// MAP-SAME:      threads(%[[TID:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %c64, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// MAP-SAME:      workgroup(%[[KTILE:[^ ]*]] : memref<32x64xf32, #gpu.address_space<workgroup>>, %[[VTILE:[^ ]*]] : memref<32x64xf32, #gpu.address_space<workgroup>>)
// MAP-SAME:      private(%[[QROW:[^ ]*]] : memref<64xf32, #gpu.address_space<private>>,
// MAP-SAME:      memref<32xf32, #gpu.address_space<private>>
// One thread per query row: the rotated query row is private.
// MAP:           %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// MAP:           scf.if %[[ACTIVE]] {
// MAP:             math.cos
// MAP:             memref.store %{{.*}}, %[[QROW]][%{{.*}}] : memref<64xf32, #gpu.address_space<private>>
// The key loop (to the causal diagonal): the K tile is rotated into shared
// memory one key row per thread, the V tile copied in with consecutive
// threads on consecutive elements, both followed by a barrier.
// MAP:           scf.for %[[KSTART:.*]] = %c0 to %{{.*}} step %c32 {
// MAP:             scf.if
// MAP:               memref.store %{{.*}}, %[[KTILE]][%[[TID]], %{{.*}}] : memref<32x64xf32, #gpu.address_space<workgroup>>
// MAP:             gpu.barrier
// MAP:             scf.for %{{.*}} = %[[TID]] to %{{.*}} step %c64 {
// MAP:               memref.store %{{.*}}, %[[VTILE]][%{{.*}}, %{{.*}}] : memref<32x64xf32, #gpu.address_space<workgroup>>
// MAP:             gpu.barrier
// S = Q K^T reads the private query row and the shared K tile.
// MAP:             memref.load %[[QROW]][%{{.*}}] : memref<64xf32, #gpu.address_space<private>>
// MAP:             memref.load %[[KTILE]][%{{.*}}, %{{.*}}] : memref<32x64xf32, #gpu.address_space<workgroup>>
// MAP:             gpu.barrier
// The online softmax and P V: private state, the shared V tile.
// MAP:             math.exp
// MAP:             memref.load %[[VTILE]][%{{.*}}, %{{.*}}] : memref<32x64xf32, #gpu.address_space<workgroup>>
// MAP:             gpu.barrier
// MAP:           }
// MAP:           gpu.terminator
// MAP-NOT:     gpu.launch
// MAP:         return
func.func @llama_attention(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                           %v: tensor<1x2x?x64xf32>, %pos: tensor<?xi32>) -> tensor<1x8x?x64xf32> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64} : tensor<1x8x?x64xf32>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64} : tensor<1x2x?x64xf32>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}

// NVVM-LABEL: llvm.func @llama_attention(
// NVVM:         gpu.launch_func  @llama_attention_kernel::@llama_attention_kernel
// NVVM-NOT:     gpu.launch_func
// NVVM:       gpu.binary @llama_attention_kernel
// NVVM-SAME:    .target sm_80
// NVVM-NOT:     .extern .func
// NVVM-SAME:    .visible .entry llama_attention_kernel(
// NVVM-SAME:    .maxntid 64, 1, 1
// NVVM-SAME:    .shared .align 4 .b8 __wg_llama_attention_kernel_0[8192]
// NVVM-SAME:    .shared .align 4 .b8 __wg_llama_attention_kernel_1[8192]
// NVVM-SAME:    bar.sync
// NVVM-SAME:    st.shared
// NVVM-SAME:    ld.shared

// REF-LABEL: func.func @llama_attention(
// REF:         memref.alloc({{.*}}) {{.*}} : memref<1x8x?x?xf32>
// REF-COUNT-2: scf.parallel
// EMU-LABEL: func.func @llama_attention(
// EMU:         scf.forall
// EMU-NOT:     linalg.
// EMU:           memref.alloc() {{.*}} : memref<64x64xf32>
// EMU:           scf.for %[[T:.*]] = %c0 to %c64 step %c1 {
// EMU:             arith.cmpi ult, %[[T]],
// EMU:           scf.for %{{.*}} = %c0 to %{{.*}} step %c32 {
// EMU-NOT:     gpu.launch

// -----

// f16 inputs: the K tile is converted to f32 as it is staged, the V tile is
// staged in f16 (D = 128: 2 x 32 x 128 x 4/2 bytes of shared memory).
// MAP-LABEL: func.func @attention_f16(
// MAP:         gpu.launch
// MAP-SAME:      workgroup(%{{.*}} : memref<32x128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x128xf16, #gpu.address_space<workgroup>>)
// MAP-NOT:     gpu.launch
// NVVM-LABEL: llvm.func @attention_f16(
// NVVM:         gpu.launch_func  @attention_f16_kernel::@attention_f16_kernel
// NVVM-NOT:     gpu.launch_func
// NVVM:       gpu.binary @attention_f16_kernel
// NVVM-SAME:    .shared
// REF-LABEL: func.func @attention_f16(
// EMU-LABEL: func.func @attention_f16(
func.func @attention_f16(%q: tensor<2x4x?x128xf16>, %k: tensor<2x4x?x128xf16>,
                         %v: tensor<2x4x?x128xf16>) -> tensor<2x4x?x128xf16> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<2x4x?x128xf16>, tensor<2x4x?x128xf16>, tensor<2x4x?x128xf16>
      -> tensor<2x4x?x128xf16>
  return %o : tensor<2x4x?x128xf16>
}

// -----

// More than two lead dims: the first ones share blockIdx.z (delinearized).
// MAP-LABEL: func.func @attention_rank5(
// MAP:         gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:[^)]*]]) in (%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %c4, %{{[^ ]*}} = %c6)
// MAP:           arith.remui %[[BZ]], %c3
// MAP:           arith.divui %[[BZ]], %c3
// NVVM-LABEL: llvm.func @attention_rank5(
// NVVM:         gpu.launch_func  @attention_rank5_kernel::@attention_rank5_kernel
// NVVM-NOT:     gpu.launch_func
// REF-LABEL: func.func @attention_rank5(
// EMU-LABEL: func.func @attention_rank5(
func.func @attention_rank5(%q: tensor<2x3x4x?x32xf32>, %k: tensor<2x3x4x?x32xf32>,
                           %v: tensor<2x3x4x?x32xf32>) -> tensor<2x3x4x?x32xf32> {
  %o = posenc.attention %q, %k, %v
      : tensor<2x3x4x?x32xf32>, tensor<2x3x4x?x32xf32>, tensor<2x3x4x?x32xf32>
      -> tensor<2x3x4x?x32xf32>
  return %o : tensor<2x3x4x?x32xf32>
}
