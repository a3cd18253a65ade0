// posenc-gpu-emulate-tensor-cores diagnoses a marked launch it cannot emulate.
// RUN: posenc-opt %s --verify-diagnostics --split-input-file \
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

// -----

// A wgmma the emulation does not model (here B N-major: "row") is diagnosed.
func.func @transposed_wgmma(%desc: i64) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c128, %b = %c1, %c = %c1) {
    %acc = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
    // expected-error @+1 {{posenc-gpu-emulate-tensor-cores: only f16/bf16 m64nNk16 wgmma with an f32 accumulator, K-major A and B (row, col) and unit scales is emulated}}
    %r = nvvm.wgmma.mma_async %desc, %desc, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    gpu.terminator
  } {posenc.tensor_core_kernel}
  return
}

// -----

// Descriptors that do not come from the address of a workgroup global of the
// kernel cannot be followed.
func.func @unaddressed_wgmma(%desc: i64) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c128, %b = %c1, %c = %c1) {
    %acc = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
    // expected-error @+1 {{posenc-gpu-emulate-tensor-cores: wgmma descriptors must address a workgroup global of the kernel}}
    %r = nvvm.wgmma.mma_async %desc, %desc, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    gpu.terminator
  } {posenc.tensor_core_kernel}
  return
}
