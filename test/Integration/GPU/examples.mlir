// The example programs (examples/*.mlir, what scripts/demo.sh runs on the
// CPU) on an NVIDIA GPU, compared with python/posenc/reference.py: once as a
// fatbin (cubin for sm_80 plus PTX, so any GPU from sm_80 on runs it), once as
// PTX JIT-compiled by the driver (format=isa, mgpuModuleLoadJIT).
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   --case example_llama_rope_attention %posenc_src/examples/llama_rope_attention.mlir \
// RUN:   | FileCheck %s --check-prefix=LLAMA
// RUN: %python %S/Inputs/check_against_reference.py --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   --case example_alibi_attention %posenc_src/examples/alibi_attention.mlir \
// RUN:   | FileCheck %s --check-prefix=ALIBI
// RUN: %python %S/Inputs/check_against_reference.py --pipeline gpu --options "format=isa" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   --case example_llama_rope_attention %posenc_src/examples/llama_rope_attention.mlir \
// RUN:   | FileCheck %s --check-prefix=LLAMA
// LLAMA: example_llama_rope_attention (gpu): {{.*}} -> AGREES
// ALIBI: example_alibi_attention (gpu): {{.*}} -> AGREES
