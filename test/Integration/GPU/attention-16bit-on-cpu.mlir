// The f16 / bf16 attention programs of the GPU execution tests
// (attention-{f16-noncausal,bf16-rope-half-causal,f16-gqa-alibi-causal,
// bf16-sq-lt-sk-causal,f16-rope-interleaved}.mlir, which need a GPU), checked
// on the CPU against python/posenc/reference.py with the same cases and
// tolerances (derived in Inputs/check_against_reference.py). This validates
// each program, its 16-bit inputs, its float64 reference and that the
// tolerance admits a correct f32-arithmetic implementation:
//  - `cpu`: --posenc-cpu-pipeline (f32 arithmetic, 16-bit storage);
//  - `mapped-cpu`: the GPU pipeline's preparation and thread mapping of the
//    reference (fused=false) kernels, run as plain loops;
//  - `fused-mapped-cpu`: the fused FMA-kernel mapping (6x5 tiles, 8 threads)
//    emulated on the CPU.
// The tensor-core kernel's own numerics (P rounded to the element type before
// P.V) only run on a GPU.

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_f16_noncausal %S/attention-f16-noncausal.mlir | FileCheck %s --check-prefix=CPU-NONCAUSAL
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_f16_noncausal %S/attention-f16-noncausal.mlir | FileCheck %s --check-prefix=MAP-NONCAUSAL
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_f16_noncausal %S/attention-f16-noncausal.mlir | FileCheck %s --check-prefix=FUSED-NONCAUSAL
// CPU-NONCAUSAL: attention_f16_noncausal (cpu): {{.*}} -> AGREES
// MAP-NONCAUSAL: attention_f16_noncausal (mapped-cpu): {{.*}} -> AGREES
// FUSED-NONCAUSAL: attention_f16_noncausal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_bf16_rope_half_causal %S/attention-bf16-rope-half-causal.mlir | FileCheck %s --check-prefix=CPU-ROPEHALF
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_bf16_rope_half_causal %S/attention-bf16-rope-half-causal.mlir | FileCheck %s --check-prefix=MAP-ROPEHALF
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_bf16_rope_half_causal %S/attention-bf16-rope-half-causal.mlir | FileCheck %s --check-prefix=FUSED-ROPEHALF
// CPU-ROPEHALF: attention_bf16_rope_half_causal (cpu): {{.*}} -> AGREES
// MAP-ROPEHALF: attention_bf16_rope_half_causal (mapped-cpu): {{.*}} -> AGREES
// FUSED-ROPEHALF: attention_bf16_rope_half_causal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_f16_gqa_alibi_causal %S/attention-f16-gqa-alibi-causal.mlir | FileCheck %s --check-prefix=CPU-ALIBI
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_f16_gqa_alibi_causal %S/attention-f16-gqa-alibi-causal.mlir | FileCheck %s --check-prefix=MAP-ALIBI
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_f16_gqa_alibi_causal %S/attention-f16-gqa-alibi-causal.mlir | FileCheck %s --check-prefix=FUSED-ALIBI
// CPU-ALIBI: attention_f16_gqa_alibi_causal (cpu): {{.*}} -> AGREES
// MAP-ALIBI: attention_f16_gqa_alibi_causal (mapped-cpu): {{.*}} -> AGREES
// FUSED-ALIBI: attention_f16_gqa_alibi_causal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_bf16_sq_lt_sk_causal %S/attention-bf16-sq-lt-sk-causal.mlir | FileCheck %s --check-prefix=CPU-SQSK
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_bf16_sq_lt_sk_causal %S/attention-bf16-sq-lt-sk-causal.mlir | FileCheck %s --check-prefix=MAP-SQSK
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_bf16_sq_lt_sk_causal %S/attention-bf16-sq-lt-sk-causal.mlir | FileCheck %s --check-prefix=FUSED-SQSK
// CPU-SQSK: attention_bf16_sq_lt_sk_causal (cpu): {{.*}} -> AGREES
// MAP-SQSK: attention_bf16_sq_lt_sk_causal (mapped-cpu): {{.*}} -> AGREES
// FUSED-SQSK: attention_bf16_sq_lt_sk_causal (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_f16_rope_interleaved %S/attention-f16-rope-interleaved.mlir | FileCheck %s --check-prefix=CPU-ROPEINT
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_f16_rope_interleaved %S/attention-f16-rope-interleaved.mlir | FileCheck %s --check-prefix=MAP-ROPEINT
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_f16_rope_interleaved %S/attention-f16-rope-interleaved.mlir | FileCheck %s --check-prefix=FUSED-ROPEINT
// CPU-ROPEINT: attention_f16_rope_interleaved (cpu): {{.*}} -> AGREES
// MAP-ROPEINT: attention_f16_rope_interleaved (mapped-cpu): {{.*}} -> AGREES
// FUSED-ROPEINT: attention_f16_rope_interleaved (fused-mapped-cpu): {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline cpu --case attention_f16_bias_dv_scale %S/attention-f16-bias-dv-scale.mlir | FileCheck %s --check-prefix=CPU-BIASDV
// CPU-BIASDV: attention_f16_bias_dv_scale (cpu): {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline mapped-cpu --case attention_f16_bias_dv_scale %S/attention-f16-bias-dv-scale.mlir | FileCheck %s --check-prefix=MAP-BIASDV
// RUN: %python %S/Inputs/check_against_reference.py --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN:   --pipeline fused-mapped-cpu --case attention_f16_bias_dv_scale %S/attention-f16-bias-dv-scale.mlir | FileCheck %s --check-prefix=FUSED-BIASDV
// MAP-BIASDV: attention_f16_bias_dv_scale (mapped-cpu): {{.*}} -> AGREES
// FUSED-BIASDV: attention_f16_bias_dv_scale (fused-mapped-cpu): {{.*}} -> AGREES
