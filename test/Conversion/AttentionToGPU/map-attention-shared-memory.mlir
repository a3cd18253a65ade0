// The FMA kernel's tile buffers must fit the block's static shared memory
// (48 KiB): a key tile too large for it is reported on the attention, not a
// crash. Query tile 64, key tile 128, D = 64, f32: the K and V tiles alone
// take 2 x 128 x 64 x 4 = 65536 bytes.
// RUN: not posenc-opt %s --posenc-to-nvvm="format=isa key-tile=128" 2>&1 | FileCheck %s
// CHECK: map-attention-shared-memory.mlir:[[# @LINE + 4]]:8: error: posenc-gpu-map-attention: the tile buffers need 65536 bytes of shared memory per block, more than 49152; use a smaller key tile (or query tile)
func.func @attention(%q: tensor<1x8x?x64xf32>, %k: tensor<1x8x?x64xf32>,
                     %v: tensor<1x8x?x64xf32>)
    -> tensor<1x8x?x64xf32> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>
      -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}
