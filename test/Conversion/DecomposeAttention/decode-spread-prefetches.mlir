// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 rows16-key-tile=128" | FileCheck %s --check-prefix=MARKS
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 spread-prefetches=0 rows16-key-tile=128" | FileCheck %s --check-prefix=NOMARKS
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 prefetch-between-contractions=0 rows16-key-tile=128" | FileCheck %s --check-prefix=NOBETWEEN
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 prefetch-alternate-kv=0 rows16-key-tile=128" | FileCheck %s --check-prefix=NOALTERNATE
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 prefetch-tiles=2 rows16-key-tile=128" | FileCheck %s --check-prefix=TILES2
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=256 rows16-key-tile=128" | FileCheck %s --check-prefix=NOMARKS256
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=128 vector-bits=512" --mlir-print-ir-after=posenc-spread-decode-prefetches --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=0 attention-rows16-key-tile=128 vector-bits=256 target-features=-avx512f" --mlir-print-ir-after=posenc-spread-decode-prefetches --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS256

// The decode schedule marks each full key step's prefetch loops (K, then
// V; the next tile's rows) with their bound, the key tile, for
// --posenc-spread-decode-prefetches, with 512-bit vectors; not for a
// 1-row tile with f32 K/V (one load per FMA: the burst measured faster
// there), nor with the option off, nor with 256-bit vectors. Tiles of 16
// rows or more mark V's loop first, over the step's own rows (the key
// step's induction variable, all 128 of them), then K's, over the next
// tile's rows (clamped to the task's keys): half a step ahead of use.
// MARKS-LABEL: func.func @gqa_q4_f32
// MARKS: scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step %c128 iter_args
// MARKS: %[[NEXT:.*]] = arith.addi %[[KS]], %c128
// MARKS: %[[NROWS:.*]] = arith.minsi %c128,
// MARKS: %[[V:.*]] = bufferization.to_buffer %arg2 read_only
// MARKS: scf.for %[[R:.*]] = %c0 to %c128 step %c1 {
// MARKS-NEXT: %[[VROW:.*]] = arith.addi %[[KS]], %[[R]]
// MARKS-NEXT: memref.prefetch %[[V]][%{{.*}}, %{{.*}}, %[[VROW]], %c0]
// MARKS: } {posenc.spread_prefetch_rows = 128 : i64}
// MARKS: %[[K:.*]] = bufferization.to_buffer %arg1 read_only
// MARKS: scf.for %[[R2:.*]] = %c0 to %[[NROWS]] step %c1 {
// MARKS-NEXT: %[[KROW:.*]] = arith.addi %[[NEXT]], %[[R2]]
// MARKS-NEXT: memref.prefetch %[[K]][%{{.*}}, %{{.*}}, %[[KROW]], %c0]
// MARKS: } {posenc.spread_prefetch_rows = 128 : i64}
// Prefetching further ahead (prefetch-tiles=2), the 16-row step marks the
// K and V rows of the tile two ahead, K's first, as smaller tiles do.
// TILES2-LABEL: func.func @gqa_q4_f32
// TILES2: scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step %c128 iter_args
// TILES2: %[[NEXT:.*]] = arith.addi %[[KS]], %c256
// TILES2: bufferization.to_buffer %arg1 read_only
// TILES2: scf.for
// TILES2-NEXT: arith.addi %[[NEXT]],
// TILES2: } {posenc.spread_prefetch_rows = 128 : i64}
// TILES2: bufferization.to_buffer %arg2 read_only
// TILES2: scf.for
// TILES2-NEXT: arith.addi %[[NEXT]],
// TILES2: } {posenc.spread_prefetch_rows = 128 : i64}
// MARKS-LABEL: func.func @mha_q1_f32
// MARKS-NOT: posenc.spread_prefetch_rows
// Tiles of at most 4 rows also ask the spread to hand rows to the ops
// between the contractions (posenc.spread_prefetch_between).
// MARKS-LABEL: func.func @mha_q1_f16
// MARKS: } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 64 : i64}
// MARKS: } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 64 : i64}
// A tile of at most 4 rows with f32 K/V marks loops over the rows' cache
// lines (4 per row of 64 f32), bound 64 x 4; the next tile's K, then V.
// MARKS-LABEL: func.func @gqa_q1_f32
// MARKS: bufferization.to_buffer %arg1 read_only
// MARKS: scf.for %[[U:.*]] = %c0 to %{{.*}} step %c1 {
// MARKS-NEXT: %[[ROW:.*]] = arith.divui %[[U]], %c4
// MARKS-NEXT: %[[LINE:.*]] = arith.remui %[[U]], %c4
// MARKS-NEXT: %[[AT:.*]] = arith.addi %{{.*}}, %[[ROW]]
// MARKS-NEXT: %[[COL:.*]] = arith.muli %[[LINE]], %c16
// MARKS-NEXT: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}, %[[AT]], %[[COL]]]
// MARKS-NEXT: } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 256 : i64}
// MARKS: bufferization.to_buffer %arg2 read_only
// MARKS: memref.prefetch
// MARKS-NEXT: } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 256 : i64}
// (f32 K only: the f16 tile above has no posenc.spread_prefetch_alternate.)
// NOBETWEEN-LABEL: func.func @gqa_q1_f32
// NOBETWEEN: memref.prefetch
// NOBETWEEN-NEXT: } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_rows = 256 : i64}
// NOALTERNATE-LABEL: func.func @gqa_q1_f32
// NOALTERNATE: memref.prefetch
// NOALTERNATE-NEXT: } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 256 : i64}
// NOMARKS-LABEL: func.func @gqa_q4_f32
// NOMARKS-NOT: posenc.spread_prefetch_rows
// NOMARKS: memref.prefetch
// NOMARKS-NOT: posenc.spread_prefetch_rows
// NOMARKS: return

// In the pipeline: a 16-row tile's full key step has no burst; its score
// loop (16 keys x 16 rows, one head dim per iteration: 8 x 64 iterations)
// and its P V loop (2 x 2 x 128 iterations) issue the 2 x 128 rows, a row
// every 4 iterations (when 4 divides the iteration's index), in the order of the marked loops: the step's own V
// rows (the score loop's iterations), then the next tile's K rows (P V's).
// LOOPS-LABEL: func.func @gqa_q4_f32
// LOOPS: scf.for %[[KS:.*]] = %{{.*}} to %{{.*}} step %c128 {
// LOOPS-NOT: memref.prefetch
// LOOPS: scf.for %{{.*}} = %c0 to %c128 step %c16 {
// LOOPS: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// LOOPS: %[[REM:.*]] = arith.remui %{{.*}}, %c4{{(_[0-9]+)?}} :
// LOOPS: %[[ON:.*]] = arith.cmpi eq, %[[REM]], %c0{{(_[0-9]+)?}} :
// LOOPS-NEXT: scf.if %[[ON]] {
// LOOPS-NEXT: arith.divui %{{.*}}, %c4{{(_[0-9]+)?}} :
// LOOPS: scf.if
// LOOPS: memref.prefetch %arg2
// LOOPS: scf.if
// LOOPS: memref.prefetch %arg1
// LOOPS: vector.contract {{.*}} : vector<16x1xf32>, vector<1x16xf32> into vector<16x16xf32>
// LOOPS: scf.for %{{.*}} = %c0 to %c16 step %c8 {
// LOOPS-NEXT: scf.for %{{.*}} = %c0 to %c64 step %c32 {
// LOOPS: scf.for %{{.*}} = %c0 to %c128 step %c1 {
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// The tail step prefetches nothing.
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 {
// LOOPS-NOT: memref.prefetch
// The 1-row f32 tile keeps its burst before the score loop.
// LOOPS-LABEL: func.func @mha_q1_f32
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NEXT: arith.addi
// LOOPS: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// LOOPS-NEXT: arith.addi
// LOOPS-NEXT: memref.prefetch %arg1
// LOOPS-LABEL: func.func @mha_q1_f16
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS-NOT: {posenc.spread_prefetch_rows
// LOOPS: scf.if
// LOOPS: memref.prefetch %arg1
// LOOPS: vector.contract
// LOOPS-NOT: posenc.spread_prefetch_rows
// The 4-row f32 tile's 2 x 64 x 4 lines, K's and V's in turn (line u of
// the step: K's line u / 2 for even u, V's for odd): the score loops' 64
// iterations issue the first 256, 4 per iteration (g 4 .. g 4 + 3, no
// division, no loop), each tested against K's and V's turn.
// LOOPS-LABEL: func.func @gqa_q1_f32
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
// LOOPS: scf.for %{{.*}} = %c0 to %c64 step %c4 {
// LOOPS: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// LOOPS-NOT: scf.for
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS-NOT: memref.prefetch
// LOOPS: vector.contract
// The ops between the score loops and P V (the score reduction and the
// softmax, which issue no prefetch of their own) issue the next 64 lines
// (lines 256-319 of the step: K's and V's lines 128-159), one per P V
// iteration, in 8 groups of 8: the first right after the score loops,
// before the reduction, the last right before P V.
// LOOPS: arith.constant 256 : index
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: vector.multi_reduction <add>
// LOOPS: math.exp
// LOOPS: arith.constant 319 : index
// LOOPS: memref.prefetch %arg2
// LOOPS-NOT: vector.contract
// LOOPS: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// P V's 64 iterations issue the other 192, 3 per iteration from line 320.
// LOOPS: %[[M:.*]] = arith.muli %{{.*}}, %c3{{(_[0-9]+)?}} : index
// LOOPS: arith.addi %[[M]], %c320{{(_[0-9]+)?}} : index
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS: memref.prefetch %arg1
// LOOPS: memref.prefetch %arg2
// LOOPS-NOT: memref.prefetch
// LOOPS: vector.contract {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>

// With 256-bit tiles (AVX2 code) no tile spreads (measured slower than
// the burst for most): the 16-row step keeps its burst before the score
// loop.
// LOOPS256-LABEL: func.func @gqa_q4_f32
// LOOPS256: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 {
// LOOPS256: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// LOOPS256-NEXT: arith.addi
// LOOPS256-NEXT: memref.prefetch %arg1
// LOOPS256: vector.contract
// LOOPS256-NOT: posenc.spread_prefetch_rows
// LOOPS256-LABEL: func.func @mha_q1_f16
// LOOPS256: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// LOOPS256-NEXT: arith.addi
// LOOPS256-NEXT: memref.prefetch %arg1
// LOOPS256: vector.contract
// NOMARKS256-NOT: posenc.spread_prefetch_rows
// NOMARKS256: memref.prefetch
// NOMARKS256-NOT: posenc.spread_prefetch_rows

func.func @gqa_q4_f32(%q: tensor<1x8x4x64xf32>, %k: tensor<1x2x512x64xf32>, %v: tensor<1x2x512x64xf32>) -> tensor<1x8x4x64xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x4x64xf32>, tensor<1x2x512x64xf32>, tensor<1x2x512x64xf32> -> tensor<1x8x4x64xf32>
  return %o : tensor<1x8x4x64xf32>
}
func.func @mha_q1_f32(%q: tensor<1x2x1x64xf32>, %k: tensor<1x2x512x64xf32>, %v: tensor<1x2x512x64xf32>) -> tensor<1x2x1x64xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x1x64xf32>, tensor<1x2x512x64xf32>, tensor<1x2x512x64xf32> -> tensor<1x2x1x64xf32>
  return %o : tensor<1x2x1x64xf32>
}
func.func @mha_q1_f16(%q: tensor<1x2x1x64xf32>, %k: tensor<1x2x512x64xf16>, %v: tensor<1x2x512x64xf16>) -> tensor<1x2x1x64xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x1x64xf32>, tensor<1x2x512x64xf16>, tensor<1x2x512x64xf16> -> tensor<1x2x1x64xf32>
  return %o : tensor<1x2x1x64xf32>
}
func.func @gqa_q1_f32(%q: tensor<1x8x1x64xf32>, %k: tensor<1x2x512x64xf32>, %v: tensor<1x2x512x64xf32>) -> tensor<1x8x1x64xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x64xf32>, tensor<1x2x512x64xf32>, tensor<1x2x512x64xf32> -> tensor<1x8x1x64xf32>
  return %o : tensor<1x8x1x64xf32>
}
