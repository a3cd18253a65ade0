// --posenc-to-nvvm="fused=false": the reference attention (one thread per
// element, Sq x Sk scores) still runs and agrees with the reference, on the
// causal GQA and the relative-position programs. Needs an NVIDIA GPU
// (UNSUPPORTED otherwise).
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_gqa_causal --pipeline gpu \
// RUN:   --options "fused=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   %S/attention-gqa-causal.mlir | FileCheck %s --check-prefix=GQA
// GQA: attention_gqa_causal (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case rel_pos_attention --pipeline gpu \
// RUN:   --options "fused=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   %S/rel-pos-attention.mlir | FileCheck %s --check-prefix=REL
// REL: rel_pos_attention (gpu): max |result - reference| = {{.*}} -> AGREES
