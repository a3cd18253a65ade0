// The f16/bf16 attention programs of the GPU execution tests on the
// warpgroup-MMA kernel: --posenc-to-nvvm with chip=sm_90a (wgmma.mma_async on
// shared-memory operands), compared with python/posenc/reference.py under the
// same per-element tolerances (Inputs/check_against_reference.py). sm_90a
// code runs only on compute capability 9.0 (Hopper), so the test needs one;
// elsewhere it is UNSUPPORTED, and attention-tensor-cores-emulated.mlir runs
// the same kernel on the CPU.
// REQUIRES: cuda-gpu, cuda-runtime, cuda-sm90

// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_noncausal --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-f16-noncausal.mlir \
// RUN:   | FileCheck %s --check-prefix=NONCAUSAL
// NONCAUSAL: attention_f16_noncausal (gpu): max |result - reference| = {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_rope_half_causal --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-bf16-rope-half-causal.mlir \
// RUN:   | FileCheck %s --check-prefix=ROPEHALF
// ROPEHALF: attention_bf16_rope_half_causal (gpu): max |result - reference| = {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_gqa_alibi_causal --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-f16-gqa-alibi-causal.mlir \
// RUN:   | FileCheck %s --check-prefix=GQA
// GQA: attention_f16_gqa_alibi_causal (gpu): max |result - reference| = {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --case attention_bf16_sq_lt_sk_causal --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-bf16-sq-lt-sk-causal.mlir \
// RUN:   | FileCheck %s --check-prefix=SQLTSK
// SQLTSK: attention_bf16_sq_lt_sk_causal (gpu): max |result - reference| = {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_rope_interleaved --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-f16-rope-interleaved.mlir \
// RUN:   | FileCheck %s --check-prefix=INTERLEAVED
// INTERLEAVED: attention_f16_rope_interleaved (gpu): max |result - reference| = {{.*}} -> AGREES

// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_bias_dv_scale --pipeline gpu \
// RUN:   --options "chip=sm_90a" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %S/attention-f16-bias-dv-scale.mlir \
// RUN:   | FileCheck %s --check-prefix=BIASDV
// BIASDV: attention_f16_bias_dv_scale (gpu): max |result - reference| = {{.*}} -> AGREES
