// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows16-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512" | FileCheck %s --check-prefix=TILES
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows16-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 widen-keys=0" | FileCheck %s --check-prefix=OFF
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows16-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=256" | FileCheck %s --check-prefix=TILES256
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows16-key-tile=0 vector-bits=512 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows16-key-tile=0 vector-bits=256 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS256
// rows16-key-tile=0: the 16-row tiles below keep the 64-key step these
// checks were written for (decode-rows16-key-tile.mlir checks the default).

// The 64-row decode tile (Sq = 16, GQA 4; rows on the lanes) converts
// f16/bf16 K to f32 once per key tile (docs/pipelines.md, "The 64-row
// decode tile"): its score contraction S^T = K~ Q~^T broadcasts each K~
// element against 32 rows, and with K~ as stored every broadcast was a
// scalar f16 load and conversion. So does the 16-row tile at 512 bits
// (below); f32 K stays as stored.

// V is not widened at 512 bits: P V converts it in each pass of its
// register tiles (ChooseDecodeSchedule.cpp, kConvertValuesPerPassBits);
// 256-bit tiles still convert it once per key tile into an f32 tile.
// TILES-LABEL: func.func @decode_q16
// TILES: %[[KW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>}
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%[[KW]], %{{.*}} : tensor<64x128xf32>, tensor<128x64xf32>) outs(%{{.*}} : tensor<64x64xf32>) attrs =  {posenc.vector_tile = array<i64: 8, 32, 1>, posenc.vector_tile_fuse_init}
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES256-LABEL: func.func @decode_q16
// TILES256: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>}
// TILES256: %[[VW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>}
// TILES256: ins(%{{.*}}, %[[VW]] : tensor<64x64xf32>, tensor<64x128xf32>) outs(%{{.*}} : tensor<64x128xf32>)
// The tail key tile (padded rows) likewise.
// TILES: %[[KT:.*]] = linalg.generic {{.*}} ins(%padded{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%[[KT]], %{{.*}} : tensor<64x128xf32>, tensor<128x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// OFF-LABEL: func.func @decode_q16
// OFF: ins(%{{.*}}, %{{.*}} : tensor<64x128xf16>, tensor<128x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)

// In the lowered loops: one conversion pass per key tile into an f32
// buffer allocated once per task, which the score contraction's loop over
// the head dim reads (no f16 read and no conversion inside it).
// LOOPS-LABEL: func.func @decode_q16
// LOOPS: omp.loop_nest
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: memref.alloc
// LOOPS: %[[KH:.*]] = vector.transfer_read %arg1{{.*}} : memref<1x2x256x128xf16>, vector<1x128xf16>
// LOOPS-NEXT: %[[KF:.*]] = arith.extf %[[KH]] : vector<1x128xf16> to vector<1x128xf32>
// LOOPS-NEXT: vector.transfer_write %[[KF]], %[[KW:[a-z_0-9]+]][
// LOOPS-NOT: memref.alloc
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>) {
// LOOPS-NEXT: vector.transfer_read %[[KW]]{{.*}} : memref<64x128xf32>, vector<8x1xf32>
// LOOPS-NOT: f16
// LOOPS: scf.yield %{{.*}} : vector<8x32xf32>

// At 256 bits the register tiles halve ([4 x 16]); the same conversion.
// LOOPS256-LABEL: func.func @decode_q16
// LOOPS256: arith.extf %{{.*}} : vector<1x128xf16> to vector<1x128xf32>
// LOOPS256-NEXT: vector.transfer_write %{{.*}}, %[[KW:[a-z_0-9]+]][
// LOOPS256: scf.for {{.*}} iter_args({{.*}}) -> (vector<4x16xf32>) {
// LOOPS256-NEXT: vector.transfer_read %[[KW]]{{.*}} : memref<64x128xf32>, vector<4x1xf32>
// LOOPS256-NOT: f16
// LOOPS256: scf.yield %{{.*}} : vector<4x16xf32>
func.func @decode_q16(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}

// 16 rows (Sq = 4, GQA 4) at 512 bits: the rows on the lanes (S^T), K
// converted once per key tile like the 64-row tile's, V in each P V pass;
// widen-keys=0 converts K per register tile of the contraction instead
// (fused into its tiles, as 256-bit 16-row tiles do).
// TILES-LABEL: func.func @decode_q4
// TILES: %[[KW4:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>} {
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%[[KW4]], %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<64x128xf16>) outs(%{{.*}} : tensor<16x128xf32>)
// OFF-LABEL: func.func @decode_q4
// OFF: %[[KT4:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>, posenc.vector_tile_fuse_into_tiles}
// OFF: ins(%[[KT4]], %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
// Lowered at 512 bits: K's rows converted into an f32 buffer, which the
// score loop over the head dim reads as a column of 16 keys per step (one
// broadcast K element per FMA of 16 rows). At 256 bits the conversion stays
// per register tile of 8 keys (fused into the contraction's tiles).
// LOOPS-LABEL: func.func @decode_q4
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS: %[[K4:.*]] = vector.transfer_read %arg1{{.*}} : memref<1x2x256x128xf16>, vector<1x128xf16>
// LOOPS-NEXT: %[[K4F:.*]] = arith.extf %[[K4]] : vector<1x128xf16> to vector<1x128xf32>
// LOOPS-NEXT: vector.transfer_write %[[K4F]], %[[KW4:[a-z_0-9]+]][
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (vector<16x16xf32>) {
// LOOPS-NEXT: vector.transfer_read %[[KW4]]{{.*}} : memref<64x128xf32>, vector<16x1xf32>
// LOOPS256-LABEL: func.func @decode_q4
// LOOPS256: %[[K8:.*]] = vector.transfer_read %arg1{{.*}} : memref<1x2x256x128xf16>, vector<8x128xf16>
// LOOPS256-NEXT: arith.extf %[[K8]] : vector<8x128xf16> to vector<8x128xf32>
// bf16 K of a 64-row tile: converted too.
// TILES-LABEL: func.func @decode_q16_bf16
// TILES: %[[KB:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xbf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%[[KB]], %{{.*}} : tensor<64x128xf32>, tensor<128x64xf32>)
// f32 K: nothing to convert.
// TILES-LABEL: func.func @decode_q16_f32
// TILES-NOT: outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>}
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
func.func @decode_q4(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

func.func @decode_q16_bf16(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x256x128xbf16>, %v: tensor<1x2x256x128xbf16>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}

func.func @decode_q16_f32(%q: tensor<1x8x16x128xf32>, %k: tensor<1x2x256x128xf32>, %v: tensor<1x2x256x128xf32>) -> tensor<1x8x16x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x16x128xf32>, tensor<1x2x256x128xf32>, tensor<1x2x256x128xf32> -> tensor<1x8x16x128xf32>
  return %o : tensor<1x8x16x128xf32>
}
