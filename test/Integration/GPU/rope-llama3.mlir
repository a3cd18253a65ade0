// RoPE, half layout, base 5e5 with llama3 scaling, dynamic sequence length.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime
// and is compared with python/posenc/reference.py (tolerances: see
// Inputs/check_against_reference.py). Without a GPU the test is UNSUPPORTED;
// cpu-and-mapping.mlir runs the same program and case on the CPU, directly and
// through the GPU pipeline's thread mapping.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case rope_llama3 --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: rope_llama3 (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @rope(%x: tensor<2x4x?x64xf32>, %pos: tensor<?xi32>) -> tensor<2x4x?x64xf32> {
  %r = posenc.rope %x, %pos layout half {base = 5.0e+05 : f64,
      scaling = #posenc.rope_scaling<llama3, factor = 8.0, original_max_position = 8192>}
      : tensor<2x4x?x64xf32>, tensor<?xi32>
  return %r : tensor<2x4x?x64xf32>
}
