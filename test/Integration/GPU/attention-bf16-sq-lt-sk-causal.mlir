// bf16 causal attention with fewer queries than keys (Sq = 33, Sk = 130: the
// mask is bottom-right aligned), D = 64, batch 2, 3 heads.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime,
// once on the tensor-core kernel (the default for f16/bf16) and once on the
// FMA kernel (tensor-cores=false), and is compared with
// python/posenc/reference.py (float64 from the 16-bit inputs; tolerances
// derived in Inputs/check_against_reference.py). Without a GPU the test is
// UNSUPPORTED; attention-16bit-on-cpu.mlir runs the same program and case
// through the CPU pipeline.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_sq_lt_sk_causal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_bf16_sq_lt_sk_causal (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_sq_lt_sk_causal --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_bf16_sq_lt_sk_causal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<2x3x33x64xbf16>, %k: tensor<2x3x130x64xbf16>,
                     %v: tensor<2x3x130x64xbf16>) -> tensor<2x3x33x64xbf16> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<2x3x33x64xbf16>, tensor<2x3x130x64xbf16>, tensor<2x3x130x64xbf16>
      -> tensor<2x3x33x64xbf16>
  return %o : tensor<2x3x33x64xbf16>
}
