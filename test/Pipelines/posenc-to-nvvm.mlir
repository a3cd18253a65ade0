// --posenc-to-nvvm on each posenc op: attention is one fused kernel; every
// parallel loop nest of the reference lowering (the standalone ops, and
// attention with fused=false) becomes a kernel (one thread per output element, blocks
// of 256 threads), compiled to PTX for sm_80 in a gpu.binary; the host
// function is LLVM dialect that allocates managed buffers and launches the
// kernels. format=isa keeps the PTX readable and needs no ptxas (ptxas.mlir
// assembles it, binary-formats.mlir checks cubin and fatbin).
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" | FileCheck %s
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" \
// RUN:   | FileCheck %s --check-prefix=REF

// CHECK-LABEL: llvm.func @rope(
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK:         gpu.launch_func  @rope_kernel::@rope_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64
// CHECK:       gpu.binary @rope_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// CHECK-SAME:    assembly = "
// CHECK-SAME:    .version 8.0
// CHECK-SAME:    .target sm_80
// CHECK-NOT:     .extern .func
// CHECK-SAME:    .visible .entry rope_kernel(
// CHECK-SAME:    .maxntid 256, 1, 1
// CHECK:       llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
func.func @rope(%x: tensor<2x4x?x64xf32>, %pos: tensor<?xi32>) -> tensor<2x4x?x64xf32> {
  %r = posenc.rope %x, %pos layout half {base = 5.0e+05 : f64,
      scaling = #posenc.rope_scaling<llama3, factor = 8.0, original_max_position = 8192>}
      : tensor<2x4x?x64xf32>, tensor<?xi32>
  return %r : tensor<2x4x?x64xf32>
}

// -----

// f64 angles (precision exact) call libdevice's double sin/cos, which the
// pipeline links: no external function remains in the PTX.
// CHECK-LABEL: llvm.func @rope_exact(
// CHECK:         gpu.launch_func  @rope_exact_kernel::@rope_exact_kernel
// CHECK:       gpu.binary @rope_exact_kernel
// CHECK-SAME:    .target sm_80
// CHECK-NOT:     .extern .func
// CHECK-SAME:    .visible .entry rope_exact_kernel(
// CHECK-SAME:    .f64
func.func @rope_exact(%x: tensor<4x?x64xbf16>, %pos: tensor<?xi64>) -> tensor<4x?x64xbf16> {
  %r = posenc.rope %x, %pos layout interleaved precision exact {rotary_dim = 32 : i64}
      : tensor<4x?x64xbf16>, tensor<?xi64>
  return %r : tensor<4x?x64xbf16>
}

// -----

// CHECK-LABEL: llvm.func @sinusoidal(
// CHECK:         gpu.launch_func  @sinusoidal_kernel::@sinusoidal_kernel
// CHECK:       gpu.binary @sinusoidal_kernel
// CHECK-SAME:    .target sm_80
// CHECK-NOT:     .extern .func
// CHECK-SAME:    .visible .entry sinusoidal_kernel(
func.func @sinusoidal(%pos: tensor<?xi32>) -> tensor<?x128xf16> {
  %t = posenc.sinusoidal %pos layout half : tensor<?xi32> -> tensor<?x128xf16>
  return %t : tensor<?x128xf16>
}

// -----

// CHECK-LABEL: llvm.func @alibi_bias(
// CHECK:         gpu.launch_func  @alibi_bias_kernel::@alibi_bias_kernel
// CHECK:       gpu.binary @alibi_bias_kernel
// CHECK-SAME:    .visible .entry alibi_bias_kernel(
func.func @alibi_bias(%sq: index, %sk: index) -> tensor<1x4x?x?xf32> {
  %b = posenc.alibi_bias (%sq, %sk) {num_heads = 12 : i64, head_offset = 4 : i64}
      : tensor<1x4x?x?xf32>
  return %b : tensor<1x4x?x?xf32>
}

// -----

// Attention takes the fused path: one flash-attention kernel (one block per
// (batch, head, query tile), see fused-attention.mlir). With fused=false the
// reference attention is several loop nests (scores, max, exp-sum,
// normalization, P.V), hence several kernels, each in its own gpu.binary.
// CHECK-LABEL: llvm.func @attention(
// CHECK:         gpu.launch_func  @attention_kernel::@attention_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.binary @attention_kernel
// CHECK-SAME:    .visible .entry attention_kernel(
// CHECK-SAME:    .maxntid 64, 1, 1
// REF-LABEL: llvm.func @attention(
// REF-COUNT-2: gpu.launch_func  @attention_kernel{{(_[0-9]+)?}}::@attention_kernel
// REF:       gpu.binary @attention_kernel
// REF-SAME:    .visible .entry attention_kernel(
// REF:       gpu.binary @attention_kernel_0
// REF-SAME:    .visible .entry attention_kernel(
func.func @attention(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                     %v: tensor<1x2x?x64xf32>) -> tensor<1x8x?x64xf32> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}

// -----

// Fused: the one attention kernel; q . rel_key is a [rows x 2K+1] product
// per query tile inside it, no [Sq, 2K+1] table kernels.
// CHECK-LABEL: llvm.func @rel_pos_attention(
// CHECK: gpu.launch_func  @rel_pos_attention_kernel{{(_[0-9]+)?}}::@rel_pos_attention_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.binary @rel_pos_attention_kernel
// CHECK-SAME:    .visible .entry rel_pos_attention_kernel(
// REF-LABEL: llvm.func @rel_pos_attention(
// REF-COUNT-2: gpu.launch_func  @rel_pos_attention_kernel{{(_[0-9]+)?}}::@rel_pos_attention_kernel
func.func @rel_pos_attention(%q: tensor<2x8x?x64xf32>, %k: tensor<2x8x?x64xf32>,
                             %v: tensor<2x8x?x64xf32>, %rk: tensor<33x64xf32>,
                             %rv: tensor<33x64xf32>) -> tensor<2x8x?x64xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<33x64xf32>)
      rel_value(%rv : tensor<33x64xf32>) {causal}
      : tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>
      -> tensor<2x8x?x64xf32>
  return %o : tensor<2x8x?x64xf32>
}
