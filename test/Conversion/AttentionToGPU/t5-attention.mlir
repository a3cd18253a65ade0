// T5 attention on the GPU path. The tensor-core kernel does not take the
// t5_table term (whyNotTensorCores says so), so f16 T5 attention stays a
// fused op after posenc-gpu-tensor-core-attention and --posenc-to-nvvm
// lowers it with the FMA kernel, whose generic tile layout computes the
// bucket (the f64 logarithm: libdevice's log, inlined as f64 FMAs) and
// loads the table per score.
// RUN: posenc-opt %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)" \
// RUN:   | FileCheck %s --check-prefix=TC
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" | FileCheck %s --check-prefix=PTX

// TC-LABEL: func.func @t5_f16
// TC-NOT: gpu.launch
// TC: posenc.fused_attention %arg0, %arg1, %arg2 t5_table(%arg3 : tensor<32x4xf16>) {t5_bidirectional, t5_max_distance = 128 : i64}
// TC-NOT: gpu.launch
// PTX: gpu.binary @t5_f16_kernel
// PTX-NOT: mma.sync
// PTX: fma.rn.f64
// PTX: ex2.approx
func.func @t5_f16(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x64x64xf16>,
                  %v: tensor<1x4x64x64xf16>, %t: tensor<32x4xf16>) -> tensor<1x4x64x64xf16> {
  %b = posenc.t5_bias %t {bidirectional} : tensor<32x4xf16> -> tensor<4x64x64xf16>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x64x64xf16>)
      : tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16> -> tensor<1x4x64x64xf16>
  return %o : tensor<1x4x64x64xf16>
}
