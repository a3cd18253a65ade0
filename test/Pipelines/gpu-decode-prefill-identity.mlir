// Prefill shapes keep their lowering: with the decode schedule on (the
// default) --posenc-to-nvvm gives byte-identical output to decode=false for
// Sq > 16 (f32 FMA kernel, f16 tensor-core kernel), a dynamic Sq, and a
// small Sq whose op the decode schedule declines (Shaw's relative terms):
// nothing of the decode schedule reaches them. Sq = 17, H = 8: one block
// per head (the unit dims folded), 64 threads, one per query row, and no
// merge kernel.
// (The PTX compile time the binary records is the only field masked.)
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa" \
// RUN:   | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/LLVMIRToISATimeInMs = T/' > %t.default
// RUN: posenc-opt %s --split-input-file --posenc-to-nvvm="format=isa decode=false" \
// RUN:   | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/LLVMIRToISATimeInMs = T/' > %t.off
// RUN: diff %t.default %t.off
// RUN: FileCheck %s < %t.default

// CHECK-LABEL: llvm.func @prefill_f32
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func @prefill_f32_kernel::@prefill_f32_kernel blocks in (%[[C8]], %[[C1]], %[[C1]]) threads in (%[[C64]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @prefill_f32(%q: tensor<1x8x17x64xf32>, %k: tensor<1x2x300x64xf32>, %v: tensor<1x2x300x64xf32>) -> tensor<1x8x17x64xf32> {
  %0 = posenc.attention %q, %k, %v {causal} : tensor<1x8x17x64xf32>, tensor<1x2x300x64xf32>, tensor<1x2x300x64xf32> -> tensor<1x8x17x64xf32>
  return %0 : tensor<1x8x17x64xf32>
}

// -----

// CHECK-LABEL: llvm.func @prefill_f16
// CHECK: gpu.launch_func @prefill_f16_kernel
// CHECK: gpu.binary @prefill_f16_kernel
// CHECK-SAME: mma.sync.aligned.m16n8k16
func.func @prefill_f16(%q: tensor<1x8x64x64xf16>, %k: tensor<1x2x300x64xf16>, %v: tensor<1x2x300x64xf16>) -> tensor<1x8x64x64xf16> {
  %0 = posenc.attention %q, %k, %v {causal} : tensor<1x8x64x64xf16>, tensor<1x2x300x64xf16>, tensor<1x2x300x64xf16> -> tensor<1x8x64x64xf16>
  return %0 : tensor<1x8x64x64xf16>
}

// -----

// CHECK-LABEL: llvm.func @dynamic_sq
// CHECK: gpu.launch_func @dynamic_sq_kernel::@dynamic_sq_kernel
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @dynamic_sq(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>) -> tensor<1x8x?x64xf32> {
  %0 = posenc.attention %q, %k, %v {causal} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  return %0 : tensor<1x8x?x64xf32>
}

// -----

// CHECK-LABEL: llvm.func @shaw_sq1
// CHECK: gpu.launch_func @shaw_sq1_kernel
func.func @shaw_sq1(%q: tensor<2x1x32xf32>, %k: tensor<2x40x32xf32>, %v: tensor<2x40x32xf32>, %rk: tensor<9x32xf32>) -> tensor<2x1x32xf32> {
  %0 = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x32xf32>) : tensor<2x1x32xf32>, tensor<2x40x32xf32>, tensor<2x40x32xf32> -> tensor<2x1x32xf32>
  return %0 : tensor<2x1x32xf32>
}
