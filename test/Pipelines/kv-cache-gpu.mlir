// The KV-cache forms of SPEC.md's additions (kv_lengths, per-batch
// positions, f16/bf16 key/value under an f32 query) lower through
// --posenc-to-nvvm, fused (the FMA kernel: the decode schedule for these
// Sq <= 16, the prefill schedule for larger Sq) and with fused=false (the
// reference kernels). A hand-written
// fused op with these forms: test/Conversion/AttentionToGPU/decode.mlir. Execution
// through the CPU emulation of the mapping: test/python/test_gpu_decode_emulation.py.
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" | FileCheck %s
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" | FileCheck %s

// CHECK-LABEL: llvm.func @kv_lengths
// CHECK: gpu.launch_func
// CHECK: gpu.binary
func.func @kv_lengths(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// CHECK-LABEL: llvm.func @mixed_types
// CHECK: gpu.launch_func
// CHECK: gpu.binary
func.func @mixed_types(%q: tensor<1x8x1x64xf32>, %k: tensor<1x2x16x64xf16>) -> tensor<1x8x1x64xf32> {
  %0 = posenc.attention %q, %k, %k : tensor<1x8x1x64xf32>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x1x64xf32>
  return %0 : tensor<1x8x1x64xf32>
}

// -----

// Prefill (Sq = 40) over a bf16 cache with kv_lengths.
// CHECK-LABEL: llvm.func @prefill_cache
// CHECK: gpu.launch_func
// CHECK: gpu.binary
func.func @prefill_cache(%q: tensor<2x8x40x64xf32>, %k: tensor<2x2x128x64xbf16>, %len: tensor<2xi64>) -> tensor<2x8x40x64xf32> {
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi64>) {causal} : tensor<2x8x40x64xf32>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16> -> tensor<2x8x40x64xf32>
  return %0 : tensor<2x8x40x64xf32>
}

// -----

// CHECK-LABEL: llvm.func @rope_per_batch
// CHECK: gpu.launch_func
// CHECK: gpu.binary
func.func @rope_per_batch(%x: tensor<2x8x1x64xf32>, %pos: tensor<2x1xi32>) -> tensor<2x8x1x64xf32> {
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x1x64xf32>, tensor<2x1xi32>
  return %0 : tensor<2x8x1x64xf32>
}

