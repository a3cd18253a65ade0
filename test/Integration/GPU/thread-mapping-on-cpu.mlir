// The GPU execution tests' programs and cases, checked on the CPU (this file
// runs on every machine; the GPU runs themselves need a GPU):
//  - `cpu`: through --posenc-cpu-pipeline (its tile loop runs on OpenMP, hence
//    libomp), which validates each program, its inputs and its reference
//    result;
//  - `mapped-cpu`: through the GPU pipeline's own preparation (constant
//    copies, bufferization, posenc-gpu-map-parallel-loops with 100-thread
//    blocks, so that blocks are partial) with the mapped loops then run as
//    plain loops: validates the thread mapping's linearization and guards;
//  - `fused-mapped-cpu` (programs with attention): the fused path with
//    posenc-gpu-map-attention's block/thread mapping (6x5 tiles, 8 threads),
//    each mapped tile op run as a sequential loop over the thread ids.
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case rope_llama3 %S/rope-llama3.mlir | FileCheck %s --check-prefix=CPU-ROPE
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case rope_llama3 %S/rope-llama3.mlir | FileCheck %s --check-prefix=MAP-ROPE
// CPU-ROPE: rope_llama3 (cpu): {{.*}} -> AGREES
// MAP-ROPE: rope_llama3 (mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case rope_interleaved_exact %S/rope-interleaved-exact.mlir | FileCheck %s --check-prefix=CPU-EXACT
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case rope_interleaved_exact %S/rope-interleaved-exact.mlir | FileCheck %s --check-prefix=MAP-EXACT
// CPU-EXACT: rope_interleaved_exact (cpu): {{.*}} -> AGREES
// MAP-EXACT: rope_interleaved_exact (mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case sinusoidal %S/sinusoidal.mlir | FileCheck %s --check-prefix=CPU-SIN
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case sinusoidal %S/sinusoidal.mlir | FileCheck %s --check-prefix=MAP-SIN
// CPU-SIN: sinusoidal (cpu): {{.*}} -> AGREES
// MAP-SIN: sinusoidal (mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case alibi %S/alibi.mlir | FileCheck %s --check-prefix=CPU-ALIBI
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case alibi %S/alibi.mlir | FileCheck %s --check-prefix=MAP-ALIBI
// CPU-ALIBI: alibi (cpu): {{.*}} -> AGREES
// MAP-ALIBI: alibi (mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_gqa_causal %S/attention-gqa-causal.mlir | FileCheck %s --check-prefix=CPU-GQA
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_gqa_causal %S/attention-gqa-causal.mlir | FileCheck %s --check-prefix=MAP-GQA
// CPU-GQA: attention_gqa_causal (cpu): {{.*}} -> AGREES
// MAP-GQA: attention_gqa_causal (mapped-cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_gqa_causal %S/attention-gqa-causal.mlir | FileCheck %s --check-prefix=FUSED-GQA
// FUSED-GQA: attention_gqa_causal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_bias_causal %S/attention-bias-causal.mlir | FileCheck %s --check-prefix=CPU-BIAS
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_bias_causal %S/attention-bias-causal.mlir | FileCheck %s --check-prefix=MAP-BIAS
// CPU-BIAS: attention_bias_causal (cpu): {{.*}} -> AGREES
// MAP-BIAS: attention_bias_causal (mapped-cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_bias_causal %S/attention-bias-causal.mlir | FileCheck %s --check-prefix=FUSED-BIAS
// FUSED-BIAS: attention_bias_causal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case rel_pos_attention %S/rel-pos-attention.mlir | FileCheck %s --check-prefix=CPU-REL
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case rel_pos_attention %S/rel-pos-attention.mlir | FileCheck %s --check-prefix=MAP-REL
// CPU-REL: rel_pos_attention (cpu): {{.*}} -> AGREES
// MAP-REL: rel_pos_attention (mapped-cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case rel_pos_attention %S/rel-pos-attention.mlir | FileCheck %s --check-prefix=FUSED-REL
// FUSED-REL: rel_pos_attention (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case example_llama_rope_attention %posenc_src/examples/llama_rope_attention.mlir | FileCheck %s --check-prefix=CPU-LLAMA
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case example_llama_rope_attention %posenc_src/examples/llama_rope_attention.mlir | FileCheck %s --check-prefix=MAP-LLAMA
// CPU-LLAMA: example_llama_rope_attention (cpu): {{.*}} -> AGREES
// MAP-LLAMA: example_llama_rope_attention (mapped-cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case example_llama_rope_attention %posenc_src/examples/llama_rope_attention.mlir | FileCheck %s --check-prefix=FUSED-LLAMA
// FUSED-LLAMA: example_llama_rope_attention (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case example_alibi_attention %posenc_src/examples/alibi_attention.mlir | FileCheck %s --check-prefix=CPU-EXALIBI
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case example_alibi_attention %posenc_src/examples/alibi_attention.mlir | FileCheck %s --check-prefix=MAP-EXALIBI
// CPU-EXALIBI: example_alibi_attention (cpu): {{.*}} -> AGREES
// MAP-EXALIBI: example_alibi_attention (mapped-cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case example_alibi_attention %posenc_src/examples/alibi_attention.mlir | FileCheck %s --check-prefix=FUSED-EXALIBI
// FUSED-EXALIBI: example_alibi_attention (fused-mapped-cpu): {{.*}} -> AGREES
