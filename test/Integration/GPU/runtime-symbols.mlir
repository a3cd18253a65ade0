// libposenc_cuda_runtime.so defines every mgpu* function that the host code
// of --posenc-to-nvvm calls, with cubin/fatbin (mgpuModuleLoad) and with PTX
// (mgpuModuleLoadJIT). Needs no GPU.
// REQUIRES: cuda-runtime
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" | mlir-translate --mlir-to-llvmir \
// RUN:   | %python %S/Inputs/check_runtime_symbols.py %posenc_cuda_runtime \
// RUN:   | FileCheck %s --check-prefixes=COMMON,JIT
// RUN: posenc-opt %s --posenc-to-nvvm="format=bin" | mlir-translate --mlir-to-llvmir \
// RUN:   | %python %S/Inputs/check_runtime_symbols.py %posenc_cuda_runtime \
// RUN:   | FileCheck %s --check-prefixes=COMMON,BIN
// COMMON-DAG: mgpuLaunchKernel: defined
// COMMON-DAG: mgpuMemAlloc: defined
// COMMON-DAG: mgpuMemFree: defined
// COMMON-DAG: mgpuModuleGetFunction: defined
// COMMON-DAG: mgpuModuleUnload: defined
// COMMON-DAG: mgpuStreamCreate: defined
// COMMON-DAG: mgpuStreamDestroy: defined
// COMMON-DAG: mgpuStreamSynchronize: defined
// JIT-DAG:    mgpuModuleLoadJIT: defined
// BIN-DAG:    mgpuModuleLoad: defined
// COMMON-NOT: MISSING

func.func @attention(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                     %v: tensor<1x2x?x64xf32>, %pos: tensor<?xi32>)
    -> tensor<1x8x?x64xf32> {
  %qr = posenc.rope %q, %pos layout half : tensor<1x8x?x64xf32>, tensor<?xi32>
  %o = posenc.attention %qr, %k, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}
