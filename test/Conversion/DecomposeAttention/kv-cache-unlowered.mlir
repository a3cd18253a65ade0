// posenc-decompose-attention (and the GPU tensor-core kernel, which leaves
// them to it) reports the fused op's KV-cache forms it does not lower yet.
// RUN: posenc-opt %s --split-input-file --posenc-fuse-attention --posenc-decompose-attention -verify-diagnostics

func.func @rope_per_batch_into_attention(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>,
                                         %qp: tensor<2x1xi32>, %kp: tensor<2x16xi32>) -> tensor<2x8x1x64xf32> {
  %qr = posenc.rope %q, %qp layout half : tensor<2x8x1x64xf32>, tensor<2x1xi32>
  %kr = posenc.rope %k, %kp layout half : tensor<2x2x16x64xf32>, tensor<2x16xi32>
  // expected-error @+1 {{'posenc.fused_attention' op uses per-batch positions (B x S) (SPEC.md: attention over a KV cache), which this lowering does not implement yet}}
  %0 = posenc.attention %qr, %kr, %k {causal} : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

func.func @kv_lengths(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xbf16>, %len: tensor<2xi64>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op uses 'kv_lengths' (SPEC.md: attention over a KV cache), which this lowering does not implement yet}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xi64>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}
