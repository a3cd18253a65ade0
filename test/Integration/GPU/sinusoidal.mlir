// The sinusoidal table (interleaved sin/cos).
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case sinusoidal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: sinusoidal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @table(%pos: tensor<48xi64>) -> tensor<48x64xf32> {
  %t = posenc.sinusoidal %pos : tensor<48xi64> -> tensor<48x64xf32>
  return %t : tensor<48x64xf32>
}
