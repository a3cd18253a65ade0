// RoPE through posenc-opt and mlir-runner, checked against numpy: the
// program prints its result and the reference checker recomputes it from the
// same inputs with posenc.reference (written from docs/spec.md) and compares
// within 1e-5 (printMemrefF32 prints 6 significant digits).
// RUN: posenc-opt %s --posenc-cpu-pipeline | \
// RUN:   mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | \
// RUN:   %python %S/Inputs/check_printed.py rope_interleaved_base100

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // x[s, d] = d - 2.5 + 0.25 * s, positions 5, 6, 7 (not starting at 0).
  %x = arith.constant dense<[[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5],
                             [-2.25, -1.25, -0.25, 0.75, 1.75, 2.75],
                             [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0]]> : tensor<3x6xf32>
  %pos = arith.constant dense<[5, 6, 7]> : tensor<3xi32>
  %r = posenc.rope %x, %pos layout interleaved {base = 100.0 : f64} : tensor<3x6xf32>, tensor<3xi32>
  %u = tensor.cast %r : tensor<3x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
