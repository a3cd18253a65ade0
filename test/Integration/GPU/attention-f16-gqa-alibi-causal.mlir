// f16 causal grouped-query attention (8 query heads over 2 key/value heads),
// D = 64, S = 77, with an f16 ALiBi bias (folded into the scores).
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime,
// once on the tensor-core kernel (the default for f16/bf16) and once on the
// FMA kernel (tensor-cores=false), and is compared with
// python/posenc/reference.py (float64 from the 16-bit inputs; tolerances
// derived in Inputs/check_against_reference.py). Without a GPU the test is
// UNSUPPORTED; attention-16bit-on-cpu.mlir runs the same program and case
// through the CPU pipeline.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_gqa_alibi_causal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_f16_gqa_alibi_causal (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_gqa_alibi_causal --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_f16_gqa_alibi_causal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<1x8x77x64xf16>, %k: tensor<1x2x77x64xf16>,
                     %v: tensor<1x2x77x64xf16>) -> tensor<1x8x77x64xf16> {
  %b = posenc.alibi_bias : tensor<8x77x77xf16>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<8x77x77xf16>) {causal}
      : tensor<1x8x77x64xf16>, tensor<1x2x77x64xf16>, tensor<1x2x77x64xf16>
      -> tensor<1x8x77x64xf16>
  return %o : tensor<1x8x77x64xf16>
}
