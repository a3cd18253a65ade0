// Shaw relative-position attention with rel_key and rel_value (K = 4), causal.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case rel_pos_attention --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: rel_pos_attention (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<2x4x12x16xf32>, %k: tensor<2x4x12x16xf32>,
                     %v: tensor<2x4x12x16xf32>, %rk: tensor<9x16xf32>,
                     %rv: tensor<9x16xf32>) -> tensor<2x4x12x16xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x16xf32>)
      rel_value(%rv : tensor<9x16xf32>) {causal}
      : tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>
      -> tensor<2x4x12x16xf32>
  return %o : tensor<2x4x12x16xf32>
}
