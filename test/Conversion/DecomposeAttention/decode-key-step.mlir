// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 rows16-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 prefetch-interleaved=0" | FileCheck %s --check-prefix=TILES
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=512 attention-prefetch-interleaved=0 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=0 vector-bits=256 attention-prefetch-interleaved=0 attention-spread-prefetches=0" --mlir-print-ir-after=posenc-lower-attention-vectors --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS256
// rows16-key-tile=0: the 16-row tiles below keep the 64-key step these
// checks were written for (decode-rows16-key-tile.mlir checks the default).

// The key step of the decode schedule beyond the score contraction
// (docs/pipelines.md, "Where a decode step's time goes"): no buffer is
// allocated inside the key loop (upstream buffer-loop-hoisting: once per
// task); the score tile is zeroed and the accumulator rescaled one register
// tile at a time, right before that tile's reduction loop (the
// contraction's destination producer fused into its tiles); P V keeps each
// [4 x 64] accumulator tile in registers across the 64 keys; f16/bf16 V is
// converted once per key tile when P V passes over V more than twice with
// vectors narrower than 512 bits (else in each pass).
// (The 4-row f16 tile is checked here with its prefetches in one burst;
// decode-interleaved-prefetch.mlir checks the default, interleaved form.)

// GQA 8/2, Sq = 1: a tile of 4 rows, P V in two passes of [4 x 64] that
// read V as stored (f16, converted in the pass).
// TILES-LABEL: func.func @decode_q1
// The score contraction (head dim on the lanes, docs/pipelines.md): its
// partial products and the reduction of their lanes both fuse their zero
// fill into each register tile.
// TILES: ins(%{{.*}}, %{{.*}} : tensor<4x8x16xf32>, tensor<64x8x16xf16>) outs(%{{.*}} : tensor<4x64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 4, 1, 16>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// TILES: ins(%{{.*}} : tensor<4x64x16xf32>) outs(%{{.*}} : tensor<4x64xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 16, 16>, posenc.vector_tile_exact, posenc.vector_tile_fuse_init}
// TILES: ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x128xf16>) outs(%{{.*}} : tensor<4x128xf32>) attrs =  {posenc.vector_tile = array<i64: 4, 64, 1>, posenc.vector_tile_fuse_init}
// TILES-NOT: tensor<64x128xf32>
// TILES-LABEL: func.func @decode_q4

// LOOPS-LABEL: func.func @decode_q1
// The partial products: each [4 x 4 x 16] register tile starts from zeros
// in registers (its fused zero fill forwarded to the loop over the head
// dim; no zero-filled buffer, no store of the zeros) and is stored once.
// LOOPS: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x4x16xf32>
// LOOPS: omp.loop_nest
// LOOPS: %[[PART:.*]] = memref.alloc() {{.*}} : memref<4x64x16xf32>
// LOOPS: %[[S:.*]] = memref.alloc() {{.*}} : memref<4x64xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: memref.alloc
// LOOPS: scf.for %[[J:.*]] = %c0 to %c64 step %c4 {
// LOOPS-NEXT: %[[P:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<4x4x16xf32>)
// LOOPS-NOT: vector.transfer_write
// LOOPS: vector.transfer_write %[[P]], %[[PART]][%c0, %[[J]], %c0] {{.*}} : vector<4x4x16xf32>, memref<4x64x16xf32>
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: vector.transfer_write {{.*}} vector<1x64xf32>, memref<4x64xf32>
// LOOPS: vector.transfer_write %{{.*}}, %[[S]]{{.*}} : vector<1x16xf32>, memref<4x64xf32>
// LOOPS-NOT: memref.alloc
// P V: each [4 x 64] accumulator tile read, rescaled in registers (the
// rescaled tile is not stored and read back) and accumulated over the keys
// in registers (no store in the key loop), then stored once.
// LOOPS: scf.for %[[X:.*]] = %c0 to %c128 step %c64 {
// LOOPS-NEXT: %[[A:.*]] = vector.transfer_read %[[ACC:.*]][%c0, %[[X]]]
// LOOPS-NEXT: %[[R:.*]] = arith.mulf %{{.*}}, %[[A]] : vector<4x64xf32>
// LOOPS-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[R]]) -> (vector<4x64xf32>)
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: vector.transfer_write
// LOOPS: vector.transfer_read %arg2{{.*}} : memref<1x2x256x128xf16>, vector<1x64xf16>
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: vector.transfer_write
// LOOPS: scf.yield %{{.*}} : vector<4x64xf32>
// LOOPS-NEXT: }
// LOOPS-NEXT: vector.transfer_write %{{.*}}, %[[ACC]][%c0, %[[X]]]
func.func @decode_q1(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>) -> tensor<1x8x1x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x128xf32>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// Sq = 4: 16 rows, f16 K/V (the rows on the lanes), P V in eight passes
// of [8 x 32]: K widened to f32 once per key tile, which the score loop
// reads; at 512 bits P V reads f16 V as stored and converts it in each
// pass (ChooseDecodeSchedule.cpp, kConvertValuesPerPassBits).
// TILES: %[[KW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>) attrs =  {posenc.vector_tile = array<i64: 1, 0>}
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%[[KW]], %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
// TILES-NOT: ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<64x128xf16>) outs(%{{.*}} : tensor<16x128xf32>) attrs =  {posenc.vector_tile = array<i64: 8, 32, 1>, posenc.vector_tile_fuse_init}

// LOOPS-LABEL: func.func @decode_q4
// LOOPS: omp.loop_nest
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: memref.alloc
// LOOPS: arith.extf %{{.*}} : vector<1x128xf16> to vector<1x128xf32>
// LOOPS-NEXT: vector.transfer_write %{{.*}}, %[[KW:[a-z_0-9]+]][
// LOOPS-NOT: memref.alloc
// LOOPS-NOT: vector<1x128xf16> to vector<1x128xf32>
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (vector<16x16xf32>) {
// LOOPS-NEXT: vector.transfer_read %[[KW]]{{.*}} : memref<64x128xf32>, vector<16x1xf32>
// LOOPS-NOT: vector<1x128xf16> to vector<1x128xf32>
// LOOPS: scf.for %[[X:.*]] = %c0 to %c128 step %c32 {
// LOOPS-NOT: memref.alloc
// LOOPS: %[[VH:.*]] = vector.transfer_read %arg2{{.*}} : memref<1x2x256x128xf16>, vector<1x32xf16>
// LOOPS-NEXT: arith.extf %[[VH]] : vector<1x32xf16> to vector<1x32xf32>
// LOOPS: scf.yield %{{.*}} : vector<8x32xf32>

// At 256 bits the register tiles halve ([2 x 32]): the same structure.
// LOOPS256-LABEL: func.func @decode_q1
// LOOPS256: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS256-NOT: memref.alloc
// LOOPS256: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x32xf32>)
// LOOPS256-NOT: memref.alloc
// LOOPS256-NOT: vector.transfer_write
// LOOPS256: scf.yield %{{.*}} : vector<2x32xf32>
// 16 rows at 256 bits (the rows on the lanes): [8 keys x 8 rows] score
// tiles, f16 K converted to f32 per 8 keys x D, right before the tile's
// loop over D (the conversion fused into the register tile,
// posenc.vector_tile_fuse_into_tiles), not element by element before
// each broadcast (docs/pipelines.md, "Tiles of 16 rows").
// LOOPS256-LABEL: func.func @decode_q4
// LOOPS256: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS256: scf.for %[[J:.*]] = %c0 to %c64 step %c8 {
// LOOPS256: arith.extf %{{.*}} : vector<8x128xf16> to vector<8x128xf32>
// LOOPS256: scf.for {{.*}} to %c128 step %c1 iter_args({{.*}}) -> (vector<8x8xf32>) {
// LOOPS256-NOT: vector<1xf16>
// LOOPS256-COUNT-8: vector.fma {{.*}} : vector<8xf32>
// LOOPS256: scf.yield %{{.*}} : vector<8x8xf32>
func.func @decode_q4(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}

// Sq = 4 with f32 K at 512 bits: the rows on the lanes (docs/pipelines.md,
// "Tiles of 16 rows"): S^T [keys x rows] = K~ Q~^T in [16 keys x 16 rows]
// register tiles, each FMA a row of Q~^T times a K element broadcast from
// the cache (no transpose of K); P V in [8 x 32] tiles reading P^T.
// TILES-LABEL: func.func @decode_q4_f32
// TILES-NOT: posenc.vector_tile_fuse_into_tiles
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128x16xf32>) outs(%{{.*}} : tensor<64x16xf32>) attrs =  {posenc.vector_tile = array<i64: 16, 16, 1>, posenc.vector_tile_fuse_init}
// TILES: ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<64x128xf32>) outs(%{{.*}} : tensor<16x128xf32>) attrs =  {posenc.vector_tile = array<i64: 8, 32, 1>, posenc.vector_tile_fuse_init}
// LOOPS-LABEL: func.func @decode_q4_f32
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: vector.transpose
// LOOPS: scf.for {{.*}} to %c128 step %c1 iter_args({{.*}}) -> (vector<16x16xf32>) {
// LOOPS-NEXT: vector.transfer_read %arg1{{.*}} : memref<1x2x256x128xf32>, vector<16x1xf32>
// LOOPS-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// LOOPS: scf.yield %{{.*}} : vector<16x16xf32>
// LOOPS: scf.yield %{{.*}} : vector<8x32xf32>
func.func @decode_q4_f32(%q: tensor<1x8x4x128xf32>, %k: tensor<1x2x256x128xf32>, %v: tensor<1x2x256x128xf32>) -> tensor<1x8x4x128xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x128xf32>, tensor<1x2x256x128xf32>, tensor<1x2x256x128xf32> -> tensor<1x8x4x128xf32>
  return %o : tensor<1x8x4x128xf32>
}
