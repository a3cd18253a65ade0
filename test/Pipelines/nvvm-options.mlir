// Unusable options of --posenc-to-nvvm are reported, never silently ignored.
// RUN: not posenc-opt %s --posenc-to-nvvm="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: posenc-to-nvvm: format (elf) must be one of auto, isa, bin, fatbin, llvm
// RUN: not posenc-opt %s --posenc-to-nvvm="block-size=2048" 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: posenc-to-nvvm: block-size (2048) must be in [1, 1024]
// RUN: not posenc-opt %s --posenc-to-nvvm="query-tile=2000" 2>&1 | FileCheck %s --check-prefix=QTILE
// QTILE: error: posenc-to-nvvm: query-tile (2000) must be in [1, 1024] (it is the attention kernel's block size)
// RUN: not posenc-opt %s --posenc-to-nvvm="key-tile=0" 2>&1 | FileCheck %s --check-prefix=KTILE
// KTILE: error: posenc-to-nvvm: key-tile (0) must be >= 1
// RUN: not posenc-opt %s --posenc-to-nvvm="opt-level=7" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: posenc-to-nvvm: opt-level (7) must be in [0, 3]
// RUN: rm -rf %t.empty && mkdir -p %t.empty
// RUN: not posenc-opt %s --posenc-to-nvvm="format=isa cuda-path=%t.empty" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LIBDEVICE
// LIBDEVICE: error: posenc-to-nvvm: libdevice not found at {{.*}}nvvm{{/|\\}}libdevice{{/|\\}}libdevice.10.bc

func.func @table(%pos: tensor<16xi32>) -> tensor<16x64xf32> {
  %t = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x64xf32>
  return %t : tensor<16x64xf32>
}
