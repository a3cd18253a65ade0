// The KV-cache forms of SPEC.md's additions (kv_lengths, per-batch
// positions, f16/bf16 key/value under an f32 query) verify, but no lowering
// implements them yet: each lowering reports the form instead of generating
// code that would ignore it.
// RUN: posenc-opt %s --split-input-file --posenc-to-linalg -verify-diagnostics
// RUN: not posenc-opt %s --split-input-file --posenc-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not posenc-opt %s --split-input-file --posenc-cpu-pipeline="reference=true" 2>&1 | FileCheck %s --check-prefix=REF
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" 2>&1 | FileCheck %s --check-prefix=REF

// FUSED: 'posenc.fused_attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which this lowering does not implement yet
// REF: 'posenc.attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which this lowering does not implement yet
func.func @kv_lengths(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+2 {{failed to legalize operation 'posenc.attention'}}
  // expected-error @+1 {{'posenc.attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which this lowering does not implement yet}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// FUSED: 'posenc.fused_attention' op uses a key/value element type (f16) other than the query's (f32)
// REF: 'posenc.attention' op uses a key/value element type (f16) other than the query's (f32)
func.func @mixed_types(%q: tensor<1x8x1x64xf32>, %k: tensor<1x2x16x64xf16>) -> tensor<1x8x1x64xf32> {
  // expected-error @+2 {{failed to legalize operation 'posenc.attention'}}
  // expected-error @+1 {{'posenc.attention' op uses a key/value element type (f16) other than the query's (f32) (SPEC.md: attention over a KV cache), which this lowering does not implement yet}}
  %0 = posenc.attention %q, %k, %k : tensor<1x8x1x64xf32>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x1x64xf32>
  return %0 : tensor<1x8x1x64xf32>
}

// -----

// FUSED: 'posenc.rope' op uses per-batch positions (B x S)
// REF: 'posenc.rope' op uses per-batch positions (B x S)
func.func @rope_per_batch(%x: tensor<2x8x1x64xf32>, %pos: tensor<2x1xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+2 {{failed to legalize operation 'posenc.rope'}}
  // expected-error @+1 {{'posenc.rope' op uses per-batch positions (B x S) (SPEC.md: attention over a KV cache), which this lowering does not implement yet}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x1x64xf32>, tensor<2x1xi32>
  return %0 : tensor<2x8x1x64xf32>
}
