// The KV-cache forms of SPEC.md's additions (kv_lengths, per-batch
// positions, f16/bf16 key/value under an f32 query) are lowered on the CPU
// (test/Conversion/PosencToLinalg/kv-cache.mlir,
// test/Conversion/DecomposeAttention/kv-cache.mlir) but not by the GPU
// kernels yet: --posenc-to-nvvm (fused or not) stops at its first pass,
// posenc-gpu-check-kv-cache-forms, with an error naming the form instead of
// generating a kernel that would ignore it.
// RUN: posenc-opt %s --split-input-file --posenc-gpu-check-kv-cache-forms -verify-diagnostics
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" 2>&1 | FileCheck %s
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" 2>&1 | FileCheck %s

// CHECK: 'posenc.attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which the GPU lowering does not implement yet
func.func @kv_lengths(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{'posenc.attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which the GPU lowering does not implement yet}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// CHECK: 'posenc.attention' op uses a key/value element type (f16) other than the query's (f32)
func.func @mixed_types(%q: tensor<1x8x1x64xf32>, %k: tensor<1x2x16x64xf16>) -> tensor<1x8x1x64xf32> {
  // expected-error @+1 {{'posenc.attention' op uses a key/value element type (f16) other than the query's (f32) (SPEC.md: attention over a KV cache), which the GPU lowering does not implement yet}}
  %0 = posenc.attention %q, %k, %k : tensor<1x8x1x64xf32>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x1x64xf32>
  return %0 : tensor<1x8x1x64xf32>
}

// -----

// CHECK: 'posenc.rope' op uses per-batch positions (B x S)
func.func @rope_per_batch(%x: tensor<2x8x1x64xf32>, %pos: tensor<2x1xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{'posenc.rope' op uses per-batch positions (B x S) (SPEC.md: attention over a KV cache), which the GPU lowering does not implement yet}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x1x64xf32>, tensor<2x1xi32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// A fused op written by hand: per-batch positions and a bf16 cache.
// CHECK: 'posenc.fused_attention' op uses 'kv_lengths'
func.func @fused(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xbf16>, %len: tensor<2xi64>, %qp: tensor<2x1xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op uses 'kv_lengths'}}
  %0 = posenc.fused_attention %q, %k, %k kv_lengths(%len : tensor<2xi64>) q_rope(#posenc.rotary<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast>, %qp : tensor<2x1xi32>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16> -> tensor<2x8x1x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %0 : tensor<2x8x1x64xf32>
}
