// Without a working driver the runtime reports which CUDA call failed and
// why, and exits with status 1 (no crash, no silent wrong result). The
// toolkit's libcuda link stub stands in for the driver: it loads, and every
// call fails with CUDA_ERROR_STUB_LIBRARY. This also checks that mlir-runner
// translates and links the --posenc-to-nvvm output (all mgpu* symbols
// resolve) up to the first runtime call, the module load.
// REQUIRES: cuda-runtime, cuda-stub
// RUN: rm -rf %t.driver && mkdir -p %t.driver && ln -s %cuda_stub %t.driver/libcuda.so.1
// RUN: posenc-opt %s --posenc-to-nvvm -o %t.mlir
// RUN: env LD_LIBRARY_PATH=%t.driver not mlir-runner %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s
// CHECK: posenc_cuda_runtime: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY (34)
// CHECK: posenc_cuda_runtime: libcuda.so.1 is the CUDA toolkit's link stub, not an NVIDIA driver
// CHECK: posenc_cuda_runtime: the program needs an NVIDIA GPU and its driver (check nvidia-smi)
// CHECK-NOT: PLEASE submit a bug report

func.func private @printMemrefF32(tensor<*xf32>)
func.func @main() {
  %pos = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %t = posenc.sinusoidal %pos : tensor<4xi32> -> tensor<4x8xf32>
  %u = tensor.cast %t : tensor<4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
