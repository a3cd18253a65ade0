// ALiBi biases for 12 heads (not a power of two).
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case alibi --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: alibi (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @bias() -> tensor<12x16x16xf32> {
  %b = posenc.alibi_bias : tensor<12x16x16xf32>
  return %b : tensor<12x16x16xf32>
}
