// RUN: posenc-opt %s --posenc-cpu-pipeline | FileCheck %s --check-prefixes=CHECK,FUSED
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" | FileCheck %s --check-prefixes=CHECK,REF

// The CPU pipeline leaves only the LLVM dialect: no posenc, linalg, tensor or
// memref ops, and the C interface wrapper the JIT and Python call.
// CHECK-NOT: posenc.
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK-LABEL: llvm.func @rope
// The reference lowering calls scalar cos/sin per element; the fused path
// (--posenc-lower-rope) runs its row blocks on OpenMP with vector
// polynomials for cos/sin, its threads taking the blocks as they finish
// (--posenc-omp-schedule).
// REF: llvm.intr.cos
// REF: llvm.intr.sin
// FUSED: omp.wsloop schedule(dynamic)
// FUSED-NOT: llvm.intr.cos
// FUSED-NOT: llvm.intr.sin
// FUSED: llvm.fmul {{.*}} : vector<4xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_rope
func.func @rope(%x: tensor<2x?x8xf32>, %pos: tensor<?xi32>) -> tensor<2x?x8xf32> attributes {llvm.emit_c_interface} {
  %r = posenc.rope %x, %pos layout interleaved : tensor<2x?x8xf32>, tensor<?xi32>
  return %r : tensor<2x?x8xf32>
}
