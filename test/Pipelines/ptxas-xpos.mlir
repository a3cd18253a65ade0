// The PTX of the xPos attention kernel (the FMA kernel with the decay in its
// RoPE prologue, ../Conversion/AttentionToGPU/xpos-attention.mlir) is
// accepted by the CUDA toolkit's ptxas for sm_80 and sm_90, as ptxas.mlir
// checks for the other kernels.
// REQUIRES: ptxas

// RUN: posenc-opt %S/../Conversion/AttentionToGPU/xpos-attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=XPOS80
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/xpos-attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=XPOS90

// XPOS80: xpos_f16_kernel: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// XPOS80-NOT: FAILED
// XPOS90: xpos_f16_kernel: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// XPOS90-NOT: FAILED
