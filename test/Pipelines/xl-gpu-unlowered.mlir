// Transformer-XL's relative terms (posenc.xl_attention, fused_attention's xl
// term) are lowered on the CPU (test/Conversion/DecomposeAttention/xl-band.mlir)
// but not by the GPU kernels: --posenc-to-nvvm (fused or not) stops at its
// first pass, posenc-gpu-check-kv-cache-forms, with an error naming the op
// instead of generating a kernel without the term.
// RUN: posenc-opt %s --split-input-file --posenc-gpu-check-kv-cache-forms -verify-diagnostics
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" 2>&1 | FileCheck %s
// RUN: not posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa fused=false" 2>&1 | FileCheck %s

// CHECK: 'posenc.xl_attention' op uses Transformer-XL's relative terms (posenc.xl_attention), which the GPU lowering does not implement yet
func.func @xl(%q: tensor<1x4x16x16xf16>, %r: tensor<4x31x16xf16>, %u: tensor<4x16xf16>) -> tensor<1x4x16x16xf16> {
  // expected-error @+1 {{'posenc.xl_attention' op uses Transformer-XL's relative terms (posenc.xl_attention), which the GPU lowering does not implement yet (--posenc-cpu-pipeline does)}}
  %o = posenc.xl_attention %q, %q, %q rel(%r : tensor<4x31x16xf16>) content_bias(%u : tensor<4x16xf16>) position_bias(%u : tensor<4x16xf16>) {causal} : tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16> -> tensor<1x4x16x16xf16>
  return %o : tensor<1x4x16x16xf16>
}

// -----

// CHECK: 'posenc.fused_attention' op uses Transformer-XL's relative terms
func.func @fused_xl(%q: tensor<1x4x16x16xf32>, %r: tensor<31x16xf32>, %u: tensor<4x16xf32>) -> tensor<1x4x16x16xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op uses Transformer-XL's relative terms (posenc.xl_attention), which the GPU lowering does not implement yet (--posenc-cpu-pipeline does)}}
  %o = posenc.fused_attention %q, %q, %q xl(%r, %u, %u : tensor<31x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<1x4x16x16xf32>
}
