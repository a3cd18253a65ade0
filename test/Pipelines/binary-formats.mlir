// What the gpu.binary holds for each `format`: PTX text (isa), a cubin ELF
// for the chip (bin), a fatbin with cubin and PTX (fatbin, the default when
// ptxas is available), checked by parsing the objects.
// REQUIRES: ptxas

// RUN: posenc-opt %s --posenc-to-nvvm="format=isa" \
// RUN:   | %python %S/Inputs/gpu_objects.py list /dev/stdin | FileCheck %s --check-prefix=ISA
// ISA: table_kernel: {{[0-9]+}} bytes ptx .version 8.0 .target sm_80 entries table_kernel

// RUN: posenc-opt %s --posenc-to-nvvm="format=bin" \
// RUN:   | %python %S/Inputs/gpu_objects.py list /dev/stdin | FileCheck %s --check-prefix=BIN80
// BIN80: table_kernel: {{[0-9]+}} bytes cubin ELF machine 190 (EM_CUDA) sm_80

// RUN: posenc-opt %s --posenc-to-nvvm="format=bin chip=sm_90" \
// RUN:   | %python %S/Inputs/gpu_objects.py list /dev/stdin | FileCheck %s --check-prefix=BIN90
// BIN90: table_kernel: {{[0-9]+}} bytes cubin ELF machine 190 (EM_CUDA) sm_90

// RUN: posenc-opt %s --posenc-to-nvvm="format=fatbin" \
// RUN:   | %python %S/Inputs/gpu_objects.py list /dev/stdin | FileCheck %s --check-prefix=FATBIN
// RUN: posenc-opt %s --posenc-to-nvvm \
// RUN:   | %python %S/Inputs/gpu_objects.py list /dev/stdin | FileCheck %s --check-prefix=FATBIN
// FATBIN: table_kernel: {{[0-9]+}} bytes fatbin magic 0xba55ed50 (ok)

// The host side does not depend on the format.
// RUN: posenc-opt %s --posenc-to-nvvm="format=bin" | FileCheck %s --check-prefix=HOST
// HOST: llvm.func @table(
// HOST: gpu.launch_func  @table_kernel::@table_kernel
// HOST: gpu.binary @table_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF

func.func @table(%pos: tensor<128xi32>) -> tensor<128x64xf32> {
  %t = posenc.sinusoidal %pos : tensor<128xi32> -> tensor<128x64xf32>
  return %t : tensor<128x64xf32>
}
