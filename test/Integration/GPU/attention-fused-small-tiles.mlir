// The fused attention kernel with tiles that do not divide the sequence
// (query-tile=6: 6 threads per block, key-tile=5), on the causal GQA program:
// partial query and key tiles, idle threads, several key tiles per block.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and is compared with
// python/posenc/reference.py. Without a GPU the test is UNSUPPORTED;
// thread-mapping-on-cpu.mlir runs the same mapping emulated on the CPU.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_gqa_causal --pipeline gpu \
// RUN:   --options "query-tile=6 key-tile=5" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   %S/attention-gqa-causal.mlir | FileCheck %s
// CHECK: attention_gqa_causal (gpu): max |result - reference| = {{.*}} -> AGREES
