// The PTX of the Transformer-XL and DeBERTa kernels
// (../Conversion/AttentionToGPU/relative-attention.mlir: the FMA kernel
// with the position terms per score, f32 / f16 / bf16, DeBERTa's per-op
// index kernel) is accepted by the CUDA toolkit's ptxas for sm_80 and
// sm_90, as ptxas.mlir checks for the other kernels; so are the fused=false
// reference kernels for sm_80.
// REQUIRES: ptxas

// RUN: posenc-opt %S/../Conversion/AttentionToGPU/relative-attention.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=SM80
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/relative-attention.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=SM90
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/relative-attention.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80 fused=false" -o %t.ref.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.ref.mlir \
// RUN:   | FileCheck %s --check-prefix=REF

// SM80: xl_f32_kernel: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// SM80-NEXT: xl_f16_kernel: ptxas -arch=sm_80 ok
// SM80-NEXT: deberta_f32_kernel: ptxas -arch=sm_80 ok
// SM80-NEXT: deberta_f32_kernel_0: ptxas -arch=sm_80 ok
// SM80-NEXT: deberta_bf16_c2p_kernel: ptxas -arch=sm_80 ok
// SM80-NOT: FAILED
// SM90: xl_f32_kernel: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// SM90-NEXT: xl_f16_kernel: ptxas -arch=sm_90 ok
// SM90-NEXT: deberta_f32_kernel: ptxas -arch=sm_90 ok
// SM90-NEXT: deberta_f32_kernel_0: ptxas -arch=sm_90 ok
// SM90-NEXT: deberta_bf16_c2p_kernel: ptxas -arch=sm_90 ok
// SM90-NOT: FAILED
// REF: xl_f32_kernel: ptxas -arch=sm_80 ok
// REF: deberta_bf16_c2p_kernel{{(_[0-9]+)?}}: ptxas -arch=sm_80 ok
// REF-NOT: FAILED
