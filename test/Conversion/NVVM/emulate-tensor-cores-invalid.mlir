// posenc-gpu-emulate-tensor-cores diagnoses a marked launch it cannot emulate.
// RUN: posenc-opt %s --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-emulate-tensor-cores)" -o /dev/null

// A marked launch of another shape is diagnosed, not emulated wrongly.
func.func @bad_shape(%n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{posenc-gpu-emulate-tensor-cores: expected the tensor-core kernel's launch shape}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c2)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    gpu.terminator
  } {posenc.tensor_core_kernel}
  return
}
