// posenc.disentangled_attention through --posenc-to-nvvm. Fused (the
// default), posenc-fuse-attention folds it into posenc.fused_attention's
// DeBERTa terms and the FMA kernel computes them per score
// (../Conversion/AttentionToGPU/relative-attention.mlir): two kernels, the
// per-op index of the distances (DeBERTa-v2's log bucket: its f64 logarithm
// is libdevice's log inlined as f64 FMAs, no external call, its ceil
// cvt.rpi.f32.f32) and the attention. With fused=false the reference
// lowering's kernels (the [Sq, Sk] table-row index with the bucket fused
// into the gathered scores, the softmax, P V), one thread per element.
// Each kernel assembles with ptxas.
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" \
// RUN:   | FileCheck %s --check-prefixes=CHECK,FUSED --implicit-check-not=".extern .func" --implicit-check-not="posenc."
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa fused=false" \
// RUN:   | FileCheck %s --check-prefixes=CHECK,REF --implicit-check-not=".extern .func" --implicit-check-not="posenc."
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa chip=sm_90" -o %t.sm90.mlir
// RUN: %if ptxas %{ %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.sm90.mlir | FileCheck %s --check-prefix=PTXAS %}
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa chip=sm_90 fused=false" -o %t.ref.sm90.mlir
// RUN: %if ptxas %{ %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.ref.sm90.mlir | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: llvm.func @deberta(
// CHECK:         gpu.launch_func  @deberta_kernel::@deberta_kernel
// FUSED:         gpu.launch_func  @deberta_kernel_0::@deberta_kernel
// FUSED-NOT:     gpu.launch_func
// FUSED:       gpu.binary @deberta_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">{{.*}}fma.rn.f64{{.*}}cvt.rpi.f32.f32
// FUSED:       gpu.binary @deberta_kernel_0
// FUSED-NOT:   gpu.binary
// REF:         gpu.binary @deberta_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// REF:         gpu.binary @deberta_kernel_{{[0-9]+}} {{.*}}fma.rn.f64{{.*}}cvt.rpi.f32.f32
// REF:         gpu.binary @deberta_kernel_8
// PTXAS:       deberta_kernel: ptxas -arch=sm_90 ok
// PTXAS-NOT:   FAILED
func.func @deberta(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>,
                   %pk: tensor<16x8xf32>, %pq: tensor<2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %o = posenc.disentangled_attention %q, %k, %k pos_key(%pk : tensor<16x8xf32>)
      pos_query(%pq : tensor<2x16x8xf32>)
      {position_buckets = 8 : i64, max_relative_positions = 20 : i64, causal}
      : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
      -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
