// bf16 causal attention with RoPE (half layout, base 5e5) on Q and K, D = 128,
// 4 heads, dynamic sequence length (257 at run time: 4 tiles of 64 + 1 row).
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime,
// once on the tensor-core kernel (the default for f16/bf16) and once on the
// FMA kernel (tensor-cores=false), and is compared with
// python/posenc/reference.py (float64 from the 16-bit inputs; tolerances
// derived in Inputs/check_against_reference.py). Without a GPU the test is
// UNSUPPORTED; attention-16bit-on-cpu.mlir runs the same program and case
// through the CPU pipeline.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_rope_half_causal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_bf16_rope_half_causal (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_rope_half_causal --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_bf16_rope_half_causal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<1x4x?x128xbf16>, %k: tensor<1x4x?x128xbf16>,
                     %v: tensor<1x4x?x128xbf16>, %pos: tensor<?xi32>)
    -> tensor<1x4x?x128xbf16> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64}
      : tensor<1x4x?x128xbf16>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64}
      : tensor<1x4x?x128xbf16>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x?x128xbf16>, tensor<1x4x?x128xbf16>, tensor<1x4x?x128xbf16>
      -> tensor<1x4x?x128xbf16>
  return %o : tensor<1x4x?x128xbf16>
}
