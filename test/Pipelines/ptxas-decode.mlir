// The decode schedule's kernels (test/Conversion/AttentionToGPU/decode.mlir:
// the split attention kernel and the merge kernels, f32 and an f16 cache
// with kv_lengths under f32 queries), generated for sm_80 and sm_90, are
// accepted by the CUDA toolkit's ptxas.
// REQUIRES: ptxas

// RUN: posenc-opt %S/../Conversion/AttentionToGPU/decode.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=SM80
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/decode.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=SM90

// SM80-DAG: {{^}}sq1_gqa_kernel: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// SM80-DAG: {{^}}sq1_gqa_kernel_5: ptxas -arch=sm_80 ok
// SM80-DAG: {{^}}sq4_cache_f16_kernel: ptxas -arch=sm_80 ok
// SM80-NOT: FAILED

// SM90-DAG: {{^}}sq1_gqa_kernel: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// SM90-DAG: {{^}}sq4_cache_f16_kernel: ptxas -arch=sm_90 ok
// SM90-NOT: FAILED
