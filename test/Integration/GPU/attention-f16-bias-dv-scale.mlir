// f16 attention with a general bias broadcast over the heads ([1, Sq, Sk],
// read per element in score_mod), Sq = 50 < Sk = 90 causal, value head dim
// 16 != D = 32, scale 0.3. Runs on an NVIDIA GPU through --posenc-to-nvvm,
// on the tensor-core kernel and on the FMA kernel, compared with
// python/posenc/reference.py (tolerances: Inputs/check_against_reference.py).
// Without a GPU the test is UNSUPPORTED; attention-16bit-on-cpu.mlir and
// attention-tensor-cores-emulated.mlir run the same case on the CPU.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_bias_dv_scale --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_f16_bias_dv_scale (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_bias_dv_scale --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_f16_bias_dv_scale (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<2x50x32xf16>, %k: tensor<2x90x32xf16>,
                     %v: tensor<2x90x16xf16>, %b: tensor<1x50x90xf16>)
    -> tensor<2x50x16xf16> {
  %o = posenc.attention %q, %k, %v bias(%b : tensor<1x50x90xf16>) {causal, scale = 0.3 : f64}
      : tensor<2x50x32xf16>, tensor<2x90x32xf16>, tensor<2x90x16xf16> -> tensor<2x50x16xf16>
  return %o : tensor<2x50x16xf16>
}
