// The tensor-core attention kernel (posenc-gpu-tensor-core-attention) of the
// f16/bf16 programs of the GPU execution tests, run on the CPU by
// posenc-gpu-emulate-tensor-cores (one OpenMP thread per GPU thread;
// ldmatrix, mma.sync m16n8k16, shuffles and barriers emulated from their
// definitions) and compared with python/posenc/reference.py under the same
// per-element tolerances as on a GPU (Inputs/check_against_reference.py).
// This runs the kernel's own IR: fragment addressing, score_mod, masks,
// online softmax, RoPE prologue, GQA, the roundings of RoPE'd Q/K and of P.
// The same six cases also run the warpgroup-MMA kernel (warpgroup-mma=1, what
// --posenc-to-nvvm builds for sm_90a): its shared-memory operand layouts and
// the matrix descriptors wgmma reads them through, decoded by the emulation
// from the PTX ISA's descriptor format.
// Not covered: the NVVM lowering of the collectives (FileCheck and ptxas in
// test/Conversion/AttentionToGPU, test/Pipelines/ptxas.mlir), wgmma's asynchrony (the emulated wgmma completes at
// once: fence/commit/wait placement is FileChecked, not run) and the
// hardware.

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_f16_noncausal %S/attention-f16-noncausal.mlir | FileCheck %s --check-prefix=NONCAUSAL
// NONCAUSAL: attention_f16_noncausal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_bf16_rope_half_causal %S/attention-bf16-rope-half-causal.mlir | FileCheck %s --check-prefix=ROPEHALF
// ROPEHALF: attention_bf16_rope_half_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_f16_gqa_alibi_causal %S/attention-f16-gqa-alibi-causal.mlir | FileCheck %s --check-prefix=GQA
// GQA: attention_f16_gqa_alibi_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_bf16_sq_lt_sk_causal %S/attention-bf16-sq-lt-sk-causal.mlir | FileCheck %s --check-prefix=SQLTSK
// SQLTSK: attention_bf16_sq_lt_sk_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_f16_rope_interleaved %S/attention-f16-rope-interleaved.mlir | FileCheck %s --check-prefix=INTERLEAVED
// INTERLEAVED: attention_f16_rope_interleaved (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --case attention_f16_bias_dv_scale %S/attention-f16-bias-dv-scale.mlir | FileCheck %s --check-prefix=BIASDV
// BIASDV: attention_f16_bias_dv_scale (tc-emulated-cpu): {{.*}} -> AGREES

// Warpgroup MMA.

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_f16_noncausal %S/attention-f16-noncausal.mlir | FileCheck %s --check-prefix=WGNONCAUSAL
// WGNONCAUSAL: attention_f16_noncausal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_bf16_rope_half_causal %S/attention-bf16-rope-half-causal.mlir | FileCheck %s --check-prefix=WGROPEHALF
// WGROPEHALF: attention_bf16_rope_half_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_f16_gqa_alibi_causal %S/attention-f16-gqa-alibi-causal.mlir | FileCheck %s --check-prefix=WGGQA
// WGGQA: attention_f16_gqa_alibi_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_bf16_sq_lt_sk_causal %S/attention-bf16-sq-lt-sk-causal.mlir | FileCheck %s --check-prefix=WGSQLTSK
// WGSQLTSK: attention_bf16_sq_lt_sk_causal (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_f16_rope_interleaved %S/attention-f16-rope-interleaved.mlir | FileCheck %s --check-prefix=WGINTERLEAVED
// WGINTERLEAVED: attention_f16_rope_interleaved (tc-emulated-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline tc-emulated-cpu --options warpgroup-mma=1 --case attention_f16_bias_dv_scale %S/attention-f16-bias-dv-scale.mlir | FileCheck %s --check-prefix=WGBIASDV
// WGBIASDV: attention_f16_bias_dv_scale (tc-emulated-cpu): {{.*}} -> AGREES
