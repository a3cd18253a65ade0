// RUN: posenc-opt %s --pass-pipeline="builtin.module(func.func(posenc-decompose-aggregates))" | FileCheck %s
// RUN: posenc-opt %s --pass-pipeline="builtin.module(posenc-cpu-pipeline{raise=false})" | FileCheck %s --check-prefix=LLVM

// linalg.softmax left by raising (here: raising off) becomes upstream's
// decomposition (max, sub + exp, sum, divide generics), which the CPU
// pipeline lowers to LLVM like any generic.

// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: linalg.softmax
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
// LLVM: llvm.func @softmax(
func.func @softmax(%s: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %e = tensor.empty() : tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x4x8xf32>) outs(%e : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %p : tensor<2x4x8xf32>
}
