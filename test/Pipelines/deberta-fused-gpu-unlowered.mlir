// posenc.fused_attention with DeBERTa's terms is lowered on the CPU
// (test/Conversion/DecomposeAttention/deberta-band.mlir) but not by the GPU
// kernels (no band product in them): --posenc-to-nvvm stops at its first
// pass, posenc-gpu-check-kv-cache-forms, with an error naming the terms.
// posenc.disentangled_attention itself is not fused by the NVVM pipeline
// and lowers with the reference lowering (disentangled-gpu.mlir).
// RUN: posenc-opt %s --posenc-gpu-check-kv-cache-forms -verify-diagnostics
// RUN: not posenc-opt %s --posenc-to-nvvm="format=isa" 2>&1 | FileCheck %s

// CHECK: 'posenc.fused_attention' op uses DeBERTa's relative terms (deberta_pos_key / deberta_pos_query), which the GPU kernels do not implement
func.func @fused_deberta(%q: tensor<1x4x16x16xf32>, %t: tensor<8x16xf32>) -> tensor<1x4x16x16xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op uses DeBERTa's relative terms (deberta_pos_key / deberta_pos_query), which the GPU kernels do not implement (--posenc-cpu-pipeline does; on the GPU use posenc.disentangled_attention, which --posenc-to-nvvm lowers with the reference lowering)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_query(%t : tensor<8x16xf32>) {scale = 0.25 : f64} : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<1x4x16x16xf32>
}
