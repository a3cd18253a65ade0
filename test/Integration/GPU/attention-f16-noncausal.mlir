// f16 attention, D = 64, not causal, Sq = Sk = 100 (partial query and key tiles), 4 heads.
// Runs on an NVIDIA GPU through --posenc-to-nvvm and libposenc_cuda_runtime,
// once on the tensor-core kernel (the default for f16/bf16) and once on the
// FMA kernel (tensor-cores=false), and is compared with
// python/posenc/reference.py (float64 from the 16-bit inputs; tolerances
// derived in Inputs/check_against_reference.py). Without a GPU the test is
// UNSUPPORTED; attention-16bit-on-cpu.mlir runs the same program and case
// through the CPU pipeline.
// REQUIRES: cuda-gpu, cuda-runtime
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_noncausal --pipeline gpu \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s
// CHECK: attention_f16_noncausal (gpu): max |result - reference| = {{.*}} -> AGREES
// RUN: %python %S/Inputs/check_against_reference.py --case attention_f16_noncausal --pipeline gpu \
// RUN:   --options "tensor-cores=false" \
// RUN:   --shared-libs=%posenc_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils %s \
// RUN:   | FileCheck %s --check-prefix=FMA
// FMA: attention_f16_noncausal (gpu): max |result - reference| = {{.*}} -> AGREES

func.func @attention(%q: tensor<1x4x100x64xf16>, %k: tensor<1x4x100x64xf16>,
                     %v: tensor<1x4x100x64xf16>) -> tensor<1x4x100x64xf16> {
  %o = posenc.attention %q, %k, %v
      : tensor<1x4x100x64xf16>, tensor<1x4x100x64xf16>, tensor<1x4x100x64xf16>
      -> tensor<1x4x100x64xf16>
  return %o : tensor<1x4x100x64xf16>
}
