// Causal attention with an additive bias and fewer queries than keys (bottom-right aligned mask).
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_bias_causal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_bias_causal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x24x32xf32>,
                     %v: tensor<1x4x24x32xf32>, %b: tensor<4x16x24xf32>)
    -> tensor<1x4x16x32xf32> {
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x16x24xf32>) {causal}
      : tensor<1x4x16x32xf32>, tensor<1x4x24x32xf32>, tensor<1x4x24x32xf32>
      -> tensor<1x4x16x32xf32>
  return %o : tensor<1x4x16x32xf32>
}
