// xPos attention on the GPU path. The tensor-core kernel does not apply the
// xPos decay (whyNotTensorCores says so), so the f16 xPos pair stays a fused
// op after posenc-gpu-tensor-core-attention, and --posenc-to-nvvm lowers it
// with the FMA kernel, whose generic tile layout scales each element's cos
// and sin by the decay re-centered at the query tile's first position
// (exp per element: ex2.approx in the PTX).
// RUN: posenc-opt %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)" \
// RUN:   | FileCheck %s --check-prefix=TC
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" | FileCheck %s --check-prefix=PTX

// TC-LABEL: func.func @xpos_f16
// TC-NOT: gpu.launch
// TC-NOT: posenc.rope
// TC: posenc.fused_attention %arg0, %arg1, %arg2 q_rope(<{{.*}}xpos = <role = query>>, %arg3 : tensor<64xi32>) k_rope(<{{.*}}xpos = <role = key>>, %arg3 : tensor<64xi32>) {causal}
// TC-NOT: gpu.launch
// PTX: gpu.binary @xpos_f16_kernel
// PTX-NOT: mma.sync
// PTX: ex2.approx
func.func @xpos_f16(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x64x64xf16>,
                    %v: tensor<1x4x64x64xf16>, %pos: tensor<64xi32>) -> tensor<1x4x64x64xf16> {
  %qr = posenc.rope %q, %pos layout half {xpos = #posenc.xpos<role = query>}
      : tensor<1x4x64x64xf16>, tensor<64xi32>
  %kr = posenc.rope %k, %pos layout half {xpos = #posenc.xpos<role = key>}
      : tensor<1x4x64x64xf16>, tensor<64xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16>, tensor<1x4x64x64xf16> -> tensor<1x4x64x64xf16>
  return %o : tensor<1x4x64x64xf16>
}
