// f16 attention, not causal, with RoPE (interleaved layout, base 1e4) on Q
// and K, i64 positions, D = 128, S = 64, batch 2, 2 heads.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime,
// once on the tensor-core kernel (the default for f16/bf16) and once on the
// FMA kernel (tensor-cores=false), and is compared with
// python/posenc/reference.py (float64 from the 16-bit inputs; tolerances
// derived in Inputs/check_against_reference.py). Without a GPU the test is
// UNSUPPORTED; attention-16bit-on-cpu.mlir runs the same program and case
// through the CPU pipeline.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_rope_interleaved --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_f16_rope_interleaved (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_rope_interleaved --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_f16_rope_interleaved (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<2x2x64x128xf16>, %k: tensor<2x2x64x128xf16>,
                     %v: tensor<2x2x64x128xf16>, %pos: tensor<64xi64>)
    -> tensor<2x2x64x128xf16> {
  %qr = posenc.rope %q, %pos layout interleaved
      : tensor<2x2x64x128xf16>, tensor<64xi64>
  %kr = posenc.rope %k, %pos layout interleaved
      : tensor<2x2x64x128xf16>, tensor<64xi64>
  %o = posenc.attention %qr, %kr, %v
      : tensor<2x2x64x128xf16>, tensor<2x2x64x128xf16>, tensor<2x2x64x128xf16>
      -> tensor<2x2x64x128xf16>
  return %o : tensor<2x2x64x128xf16>
}
