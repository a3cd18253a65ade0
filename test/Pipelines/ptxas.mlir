// The PTX that --posenc-to-nvvm emits for sm_80 and for sm_90 (features
// +ptx80), for every posenc op, the fused attention kernels and both example
// programs, is accepted by the
// CUDA toolkit's ptxas: each kernel assembles into a cubin for its chip.
// REQUIRES: ptxas

// RUN: posenc-opt %S/posenc-to-nvvm.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.ops.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.ops.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=OPS80
// RUN: posenc-opt %S/posenc-to-nvvm.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.ops.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.ops.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=OPS90

// OPS80-DAG: {{^}}rope_kernel: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// OPS80-DAG: rope_exact_kernel: ptxas -arch=sm_80 ok
// OPS80-DAG: sinusoidal_kernel: ptxas -arch=sm_80 ok
// OPS80-DAG: alibi_bias_kernel: ptxas -arch=sm_80 ok
// OPS80-DAG: {{^}}attention_kernel: ptxas -arch=sm_80 ok
// OPS80-DAG: rel_pos_attention_kernel: ptxas -arch=sm_80 ok
// OPS80-NOT: FAILED

// OPS90-DAG: {{^}}rope_kernel: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// OPS90-DAG: rope_exact_kernel: ptxas -arch=sm_90 ok
// OPS90-DAG: sinusoidal_kernel: ptxas -arch=sm_90 ok
// OPS90-DAG: alibi_bias_kernel: ptxas -arch=sm_90 ok
// OPS90-DAG: {{^}}attention_kernel: ptxas -arch=sm_90 ok
// OPS90-DAG: rel_pos_attention_kernel: ptxas -arch=sm_90 ok
// OPS90-NOT: FAILED

// The fused attention kernels (f32 with RoPE, f16 with D = 128, five dims)
// and, with fused=false, the reference kernels of every op.
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/fused-attention.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.fused.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.fused.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=FUSED80
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/fused-attention.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.fused.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.fused.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=FUSED90
// RUN: posenc-opt %S/posenc-to-nvvm.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80 fused=false" -o %t.ref.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.ref.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=REF80

// FUSED80-DAG: llama_attention_kernel: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// FUSED80-DAG: attention_f16_kernel: ptxas -arch=sm_80 ok
// FUSED80-DAG: attention_rank5_kernel: ptxas -arch=sm_80 ok
// FUSED80-NOT: FAILED
// FUSED90-DAG: llama_attention_kernel: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// FUSED90-DAG: attention_f16_kernel: ptxas -arch=sm_90 ok
// FUSED90-DAG: attention_rank5_kernel: ptxas -arch=sm_90 ok
// FUSED90-NOT: FAILED
// REF80-DAG: {{^}}attention_kernel: ptxas -arch=sm_80 ok
// REF80-DAG: rel_pos_attention_kernel: ptxas -arch=sm_80 ok
// REF80-NOT: FAILED

// RUN: posenc-opt %posenc_src/examples/llama_rope_attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.llama.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.llama.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=LLAMA80
// RUN: posenc-opt %posenc_src/examples/llama_rope_attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.llama.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.llama.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=LLAMA90
// RUN: posenc-opt %posenc_src/examples/alibi_attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.alibi.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.alibi.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=ALIBI80
// RUN: posenc-opt %posenc_src/examples/alibi_attention.mlir \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.alibi.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.alibi.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=ALIBI90

// LLAMA80: attention_kernel: ptxas -arch=sm_80 ok, {{.*}} sm_80
// LLAMA80-NOT: FAILED
// LLAMA90: attention_kernel: ptxas -arch=sm_90 ok, {{.*}} sm_90
// LLAMA90-NOT: FAILED
// ALIBI80: attention_kernel: ptxas -arch=sm_80 ok, {{.*}} sm_80
// ALIBI80-NOT: FAILED
// ALIBI90: attention_kernel: ptxas -arch=sm_90 ok, {{.*}} sm_90
// ALIBI90-NOT: FAILED

// The tensor-core kernels (f16 and bf16 mma.sync, ldmatrix) for sm_80 and
// sm_90, and ptxas's resource report: no spills to local memory.
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/tensor-cores.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_80" -o %t.tc.sm80.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_80 %t.tc.sm80.mlir \
// RUN:   | FileCheck %s --check-prefix=TC80
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/tensor-cores.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90" -o %t.tc.sm90.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.tc.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=TC90
// RUN: rm -rf %t.tc.ptx && mkdir -p %t.tc.ptx
// RUN: %python %S/Inputs/gpu_objects.py extract %t.tc.sm80.mlir %t.tc.ptx
// RUN: ptxas -arch=sm_80 -v %t.tc.ptx/llama_f16_kernel_0.ptx -o %t.tc.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPILL
// RUN: ptxas -arch=sm_80 -v %t.tc.ptx/alibi_bf16_kernel.ptx -o %t.tc.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPILL

// The warpgroup-MMA kernels (chip=sm_90a: wgmma.mma_async, fence.proxy.async)
// assemble for sm_90a, without spills, and without ptxas's performance note
// that it serialized the wgmmas ("wgmma.mma_async instructions are
// serialized due to ...", which it prints when it cannot pipeline them).
// RUN: posenc-opt %S/../Conversion/AttentionToGPU/tensor-cores.mlir --split-input-file \
// RUN:   --posenc-to-nvvm="format=isa chip=sm_90a" -o %t.tc.sm90a.mlir
// RUN: %python %S/Inputs/gpu_objects.py ptxas --arch sm_90a %t.tc.sm90a.mlir \
// RUN:   | FileCheck %s --check-prefix=TC90A
// RUN: rm -rf %t.wg.ptx && mkdir -p %t.wg.ptx
// RUN: %python %S/Inputs/gpu_objects.py extract %t.tc.sm90a.mlir %t.wg.ptx
// RUN: ptxas -arch=sm_90a -v %t.wg.ptx/llama_f16_kernel_0.ptx -o %t.wg.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPILL --implicit-check-not=serialized
// RUN: ptxas -arch=sm_90a -v %t.wg.ptx/alibi_bf16_kernel.ptx -o %t.wg.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPILL --implicit-check-not=serialized
// TC90A-DAG: llama_f16_kernel_0: ptxas -arch=sm_90a ok
// TC90A-DAG: alibi_bf16_kernel: ptxas -arch=sm_90a ok
// TC90A-NOT: FAILED

// The f32 FMA kernel with D = 32 keeps its private rows in registers
// (posenc-gpu-unroll-private-loops): no stack frame.
// RUN: rm -rf %t.fused.ptx && mkdir -p %t.fused.ptx
// RUN: %python %S/Inputs/gpu_objects.py extract %t.fused.sm80.mlir %t.fused.ptx
// RUN: ptxas -arch=sm_80 -v %t.fused.ptx/attention_rank5_kernel.ptx -o %t.fused.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPILL

// TC80-DAG: llama_f16_kernel_0: ptxas -arch=sm_80 ok, cubin ELF machine 190 (EM_CUDA) sm_80
// TC80-DAG: alibi_bf16_kernel: ptxas -arch=sm_80 ok
// TC80-NOT: FAILED
// TC90-DAG: llama_f16_kernel_0: ptxas -arch=sm_90 ok, cubin ELF machine 190 (EM_CUDA) sm_90
// TC90-DAG: alibi_bf16_kernel: ptxas -arch=sm_90 ok
// TC90-NOT: FAILED
// SPILL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
