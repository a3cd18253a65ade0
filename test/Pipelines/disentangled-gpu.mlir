// posenc.disentangled_attention on the GPU path. The NVVM pipeline runs
// posenc-fuse-attention with disentangled=false (its kernels have no band
// product for DeBERTa's fused terms, which the CPU pipeline uses), so
// --posenc-to-nvvm, fused or not, lowers the op with the reference lowering: each parallel loop nest (the
// [Sq, Sk] table-row index with DeBERTa's bucket, the gathered scores, the
// softmax, P V) becomes a kernel. The bucket's f64 logarithm is libdevice's
// log inlined as f64 FMAs (no external call), its ceil cvt.rpi.f32.f32;
// each kernel assembles with ptxas.
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" \
// RUN:   | FileCheck %s --implicit-check-not=".extern .func" --implicit-check-not="posenc."
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa fused=false" \
// RUN:   | FileCheck %s --implicit-check-not=".extern .func" --implicit-check-not="posenc."
// RUN: posenc-opt %s --posenc-to-nvvm="format=isa chip=sm_90" -o %t.sm90.mlir
// RUN: %if ptxas %{ %python %S/Inputs/gpu_objects.py ptxas --arch sm_90 %t.sm90.mlir | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: llvm.func @deberta(
// CHECK:         gpu.launch_func  @deberta_kernel::@deberta_kernel
// CHECK:       gpu.binary @deberta_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// CHECK:       gpu.binary @deberta_kernel_{{[0-9]+}} {{.*}}fma.rn.f64{{.*}}cvt.rpi.f32.f32
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
