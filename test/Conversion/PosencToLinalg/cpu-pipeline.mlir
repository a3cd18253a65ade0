// RUN: posenc-opt %s --posenc-cpu-pipeline | FileCheck %s

// The CPU pipeline leaves only the LLVM dialect: no posenc, linalg, tensor or
// memref ops, and the C interface wrapper the JIT and Python call.
// CHECK-NOT: posenc.
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK-LABEL: llvm.func @rope
// CHECK: llvm.intr.cos
// CHECK: llvm.intr.sin
// CHECK-LABEL: llvm.func @_mlir_ciface_rope
func.func @rope(%x: tensor<2x?x8xf32>, %pos: tensor<?xi32>) -> tensor<2x?x8xf32> attributes {llvm.emit_c_interface} {
  %r = posenc.rope %x, %pos layout interleaved : tensor<2x?x8xf32>, tensor<?xi32>
  return %r : tensor<2x?x8xf32>
}
