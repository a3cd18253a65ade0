// A dynamic size that turns out inconsistent at run time is a reported error
// (docs/spec.md, "Conventions"): the RoPE input has 4 rows, the positions
// only 3, and the program aborts with the op's message. (cf.assert prints
// with puts before abort(): stdbuf -oL keeps the line from dying in the
// stdout buffer of a pipe.) Both CPU paths; the fused one runs its RoPE
// blocks on libomp.
// RUN: posenc-opt %s --posenc-cpu-pipeline | \
// RUN:   not --crash stdbuf -oL mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp 2>&1 | FileCheck %s
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" | \
// RUN:   not --crash stdbuf -oL mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s
// CHECK: posenc.rope: length of 'positions' differs from the sequence dim of 'input'

func.func @rope(%x: tensor<?x4xf32>, %pos: tensor<?xi32>) -> tensor<?x4xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<?x4xf32>, tensor<?xi32>
  return %r : tensor<?x4xf32>
}

func.func @main() {
  %x = arith.constant dense<1.0> : tensor<4x4xf32>
  %p = arith.constant dense<[0, 1, 2]> : tensor<3xi32>
  %xd = tensor.cast %x : tensor<4x4xf32> to tensor<?x4xf32>
  %pd = tensor.cast %p : tensor<3xi32> to tensor<?xi32>
  %r = call @rope(%xd, %pd) : (tensor<?x4xf32>, tensor<?xi32>) -> tensor<?x4xf32>
  return
}
