// RoPE, interleaved layout, partial rotary_dim, exact angles, i64 positions up to 2^20.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case rope_interleaved_exact --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: rope_interleaved_exact (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @rope(%x: tensor<3x24x64xf32>, %pos: tensor<24xi64>) -> tensor<3x24x64xf32> {
  %r = posenc.rope %x, %pos layout interleaved precision exact {rotary_dim = 32 : i64}
      : tensor<3x24x64xf32>, tensor<24xi64>
  return %r : tensor<3x24x64xf32>
}
