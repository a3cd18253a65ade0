// f16/bf16 attention on tensor cores (posenc-gpu-tensor-core-attention, part
// of --posenc-to-nvvm unless tensor-cores=false).
//
// 1. On tensors, after fusion: one gpu.launch per attention on buffers of the
//    operands, 128 threads (4 warps of 16 query rows), K/V tiles in
//    workgroup memory (padded rows), ldmatrix fragments, mma.sync m16n8k16
//    with f32 accumulators (nvgpu for f16, nvvm for bf16), quad shuffles for
//    the softmax row max and sum; no Sq x Sk buffer. f32 and the Shaw
//    rel_value term are left to the FMA kernel.
// RUN: posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)" \
// RUN:   | FileCheck %s --check-prefix=TC
//
// 2. The whole pipeline: PTX with mma.sync, ldmatrix (plain and .trans) on
//    shared memory.
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" \
// RUN:   | FileCheck %s --check-prefix=PTX
//
// 3. tensor-cores=false: the FMA kernel for f16 too.
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa tensor-cores=false" \
// RUN:   | FileCheck %s --check-prefix=FMA
//
// 4. Bad options are diagnosed.
// RUN: not posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-tensor-core-attention{key-tile=24})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT
// RUN: not posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-tensor-core-attention{warps=33})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT33
//
// 5. warpgroup-mma (sm_90a): one warpgroup per block; Q, K, P (over K's
//    bytes) and V^T in one workgroup window in the K-major core-matrix
//    layout ([rows/8, cols/8, 8, 8]); stores fenced for the async proxy
//    before the barrier; wgmma batches of fence, mma_async, commit, wait 0;
//    no ldmatrix.
// RUN: posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention{warpgroup-mma=1})" \
// RUN:   | FileCheck %s --check-prefix=WG
//    A window over the shared-memory budget (D = 128 with an 80-key tile:
//    56 KiB) falls back to mma.sync, whose padded tiles fit (43 KiB); the
//    D = 64 kernel keeps wgmma.
// RUN: posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention{warpgroup-mma=1 key-tile=80})" \
// RUN:   | FileCheck %s --check-prefix=FALLBACK
//
// 6. --posenc-to-nvvm with chip=sm_90a uses it; warpgroup-mma=false keeps
//    mma.sync there.
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa chip=sm_90a" \
// RUN:   | FileCheck %s --check-prefix=PTX90A
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa chip=sm_90a warpgroup-mma=false" \
// RUN:   | FileCheck %s --check-prefix=PTX
//
// 7. warpgroup-mma needs one warpgroup and a key tile that is a wgmma N.
// RUN: not posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-tensor-core-attention{warpgroup-mma=1 warps=2})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPTWG
// RUN: not posenc-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-tensor-core-attention{warpgroup-mma=1 key-tile=272})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPTWG272
// OPTWG: posenc-gpu-tensor-core-attention: warpgroup-mma runs one warpgroup per block: warps must be 4 (got 2)
// OPTWG272: key-tile at most 256, the largest wgmma N (got 272)

// OPT: posenc-gpu-tensor-core-attention: warps (4) must be in [1, 32] (at most 1024 threads per block) and key-tile (24) a positive multiple of 16
// OPT33: posenc-gpu-tensor-core-attention: warps (33) must be in [1, 32]

// TC-DAG: memref.global "private" @__posenc_tc_k_tile : memref<64x136xf16, #gpu.address_space<workgroup>>
// TC-DAG: memref.global "private" @__posenc_tc_v_tile : memref<64x136xf16, #gpu.address_space<workgroup>>
// TC-LABEL: func.func @llama_f16(
// TC-NOT:     posenc.fused_attention %
// TC-NOT:     tensor<{{.*}}?x?xf32>
// TC:         bufferization.to_buffer %arg0
// RoPE angles: position-only [S x R/2] cos/sin tables, once, outside the kernel.
// TC:         linalg.generic {{.*}} ins(%arg3, %{{.*}} : tensor<?xi32>, tensor<64xf32>) outs(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x64xf32>)
// TC:           math.cos
// TC:         %[[COS:.*]] = bufferization.to_buffer %{{.*}}#0 read_only : tensor<?x64xf32> to memref<?x64xf32>
// TC:         memref.alloc({{.*}}) {alignment = 64 : i64} : memref<1x8x?x128xf16>
// TC:         gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %{{.*}}, {{.*}} = %{{.*}}) threads({{.*}}) in ({{.*}} = %c128
// TC:           memref.get_global @__posenc_tc_k_tile
// TC-NOT:       math.cos
// TC:           memref.load %[[COS]][%{{.*}}, %{{.*}}] : memref<?x64xf32>
// TC:           gpu.barrier
// TC:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x136xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// TC:           scf.for
// TC:             nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false}
// TC:             nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// TC:             gpu.shuffle  xor
// TC:             math.exp
// TC:             nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// TC:             nvgpu.mma.sync
// TC:           memref.store {{.*}} : memref<1x8x?x128xf16>
// TC:         bufferization.to_tensor {{.*}} restrict writable
// D = 128, key tile 64: window of 2 (64 x 128 + 64 x 128 + 128 x 64) bytes.
// WG:       memref.global "private" @__posenc_tc_wgmma_tiles : memref<49152xi8, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// WG-LABEL: func.func @llama_f16(
// WG:         gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128
// WG:           %[[WIN:.*]] = memref.get_global @__posenc_tc_wgmma_tiles
// WG:           memref.extract_aligned_pointer_as_index %[[WIN]]
// WG:           %[[QT:.*]] = memref.view %[[WIN]][%c0{{.*}}][] : {{.*}} to memref<8x16x8x8xf16, #gpu.address_space<workgroup>>
// WG:           %[[KT:.*]] = memref.view %[[WIN]][%c16384{{.*}}][] : {{.*}} to memref<8x16x8x8xf16, #gpu.address_space<workgroup>>
// WG:           %[[PT:.*]] = memref.view %[[WIN]][%c16384{{.*}}][] : {{.*}} to memref<8x8x8x8xf16, #gpu.address_space<workgroup>>
// WG:           %[[VT:.*]] = memref.view %[[WIN]][%c32768{{.*}}][] : {{.*}} to memref<16x8x8x8xf16, #gpu.address_space<workgroup>>
// WG-NOT:       nvgpu.ldmatrix
// WG:           memref.store {{.*}}, %[[QT]]
// WG:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WG-NEXT:      gpu.barrier
// WG:           scf.for
// WG:             memref.store {{.*}}, %[[KT]]
// WG:             memref.store {{.*}}, %[[VT]]
// WG:             nvvm.fence.proxy
// WG-NEXT:        gpu.barrier
// WG:             nvvm.wgmma.fence.aligned
// WG-COUNT-8:     nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// WG-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// WG-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// WG:             gpu.shuffle  xor
// WG:             gpu.barrier
// WG:             memref.store {{.*}}, %[[PT]]
// WG:             nvvm.fence.proxy
// WG-NEXT:        gpu.barrier
// WG:             nvvm.wgmma.fence.aligned
// WG-COUNT-4:     nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// WG-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// WG-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// WG:             gpu.barrier
// WG-NOT:       nvgpu.ldmatrix
// WG:         bufferization.to_tensor
// FALLBACK-LABEL: func.func @llama_f16(
// FALLBACK-NOT:     nvvm.wgmma
// FALLBACK:         nvgpu.mma.sync
// FALLBACK-NOT:     nvvm.wgmma
// FALLBACK:         return
func.func @llama_f16(%q: tensor<1x8x?x128xf16>, %k: tensor<1x2x?x128xf16>,
                     %v: tensor<1x2x?x128xf16>, %pos: tensor<?xi32>)
    -> tensor<1x8x?x128xf16> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64}
      : tensor<1x8x?x128xf16>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64}
      : tensor<1x2x?x128xf16>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x8x?x128xf16>, tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>
      -> tensor<1x8x?x128xf16>
  return %o : tensor<1x8x?x128xf16>
}

// Two kernels: the cos/sin tables (elementwise), then attention.
// PTX-LABEL: gpu.binary @llama_f16_kernel
// PTX-NOT: mma.sync
// PTX-LABEL: gpu.binary @llama_f16_kernel_0
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-SAME: shfl.sync.bfly
// PTX90A-LABEL: gpu.binary @llama_f16_kernel_0
// PTX90A-SAME: .target sm_90a
// PTX90A-SAME: fence.proxy.async.shared::cta
// PTX90A-SAME: wgmma.fence.sync.aligned
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX90A-SAME: wgmma.commit_group.sync.aligned
// PTX90A-SAME: wgmma.wait_group.sync.aligned
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// FMA-LABEL: gpu.binary @llama_f16_kernel
// FMA-NOT: mma.sync
// FMA-NOT: ldmatrix

// -----

// bf16 ALiBi: the score_mod reads the slopes from a buffer per element; the
// mma is nvvm.mma.sync with bf16 multiplicands.
// TC-LABEL: func.func @alibi_bf16(
// TC-NOT:     posenc.fused_attention %
// TC:         gpu.launch
// TC:           memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// TC:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
func.func @alibi_bf16(%q: tensor<4x100x64xbf16>, %k: tensor<4x100x64xbf16>,
                      %v: tensor<4x100x64xbf16>) -> tensor<4x100x64xbf16> {
  %b = posenc.alibi_bias : tensor<4x100x100xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x100x100xf32>) {causal}
      : tensor<4x100x64xbf16>, tensor<4x100x64xbf16>, tensor<4x100x64xbf16>
      -> tensor<4x100x64xbf16>
  return %o : tensor<4x100x64xbf16>
}

// FALLBACK-LABEL: func.func @alibi_bf16(
// FALLBACK:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 80, k = 16>
// WG-LABEL: func.func @alibi_bf16(
// WG:           nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WG:           nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// PTX90A-LABEL: gpu.binary @alibi_bf16_kernel
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-LABEL: gpu.binary @alibi_bf16_kernel
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// -----

// f32 stays on the FMA kernel.
// TC-LABEL: func.func @plain_f32(
// TC:         posenc.fused_attention
// TC-NOT:     gpu.launch
func.func @plain_f32(%q: tensor<2x33x64xf32>, %k: tensor<2x33x64xf32>,
                     %v: tensor<2x33x64xf32>) -> tensor<2x33x64xf32> {
  %o = posenc.attention %q, %k, %v
      : tensor<2x33x64xf32>, tensor<2x33x64xf32>, tensor<2x33x64xf32>
      -> tensor<2x33x64xf32>
  return %o : tensor<2x33x64xf32>
}

// PTX-LABEL: gpu.binary @plain_f32_kernel
// PTX-NOT: mma.sync

// -----

// Shaw's rel_value term and D > 128 are left to the FMA kernel.
// TC-LABEL: func.func @shaw_f16(
// TC:         posenc.fused_attention
// TC-SAME:      rel_value
// TC-NOT:     gpu.launch
func.func @shaw_f16(%q: tensor<7x16xf16>, %k: tensor<9x16xf16>, %v: tensor<9x8xf16>,
                    %rk: tensor<5x16xf16>, %rv: tensor<5x8xf16>) -> tensor<7x8xf16> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<5x16xf16>)
      rel_value(%rv : tensor<5x8xf16>)
      : tensor<7x16xf16>, tensor<9x16xf16>, tensor<9x8xf16> -> tensor<7x8xf16>
  return %o : tensor<7x8xf16>
}
