// RUN: posenc-opt %s --posenc-lower-attention-vectors --split-input-file | FileCheck %s

// A reduction of the lanes of an R x N block with R a multiple of 4 below N
// (the row max and row sum of a decode tile of 4 or 8 rows with the keys on
// the lanes): the transpose-and-add tree's two levels within 128-bit
// chunks, then each group of four rows folded in halves to one chunk (no
// transpose of the block, no per-row horizontal reduction), combined with
// the accumulator last.

// CHECK-LABEL: func.func @max_4x16
// CHECK-SAME: (%[[S:.*]]: vector<4x16xf32>, %[[ACC:.*]]: vector<4xf32>)
// CHECK-NOT: vector.transpose
// CHECK-NOT: vector.reduction
// CHECK: %[[R0:.*]] = vector.extract %[[S]][0]
// CHECK: %[[R1:.*]] = vector.extract %[[S]][1]
// CHECK: %[[R2:.*]] = vector.extract %[[S]][2]
// CHECK: %[[R3:.*]] = vector.extract %[[S]][3]
// CHECK: %[[A0:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
// CHECK: %[[B0:.*]] = vector.shuffle %[[R0]], %[[R1]] [2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31]
// CHECK: %[[L0:.*]] = arith.maxnumf %[[A0]], %[[B0]] : vector<16xf32>
// CHECK: %[[A1:.*]] = vector.shuffle %[[R2]], %[[R3]] [0, 1, 16, 17,
// CHECK: %[[B1:.*]] = vector.shuffle %[[R2]], %[[R3]] [2, 3, 18, 19,
// CHECK: %[[L1:.*]] = arith.maxnumf %[[A1]], %[[B1]] : vector<16xf32>
// CHECK: %[[A2:.*]] = vector.shuffle %[[L0]], %[[L1]] [0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30]
// CHECK: %[[B2:.*]] = vector.shuffle %[[L0]], %[[L1]] [1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31]
// CHECK: %[[C:.*]] = arith.maxnumf %[[A2]], %[[B2]] : vector<16xf32>
// CHECK: %[[LO8:.*]] = vector.shuffle %[[C]], %[[C]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: %[[HI8:.*]] = vector.shuffle %[[C]], %[[C]] [8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: %[[C8:.*]] = arith.maxnumf %[[LO8]], %[[HI8]] : vector<8xf32>
// CHECK: %[[LO4:.*]] = vector.shuffle %[[C8]], %[[C8]] [0, 1, 2, 3]
// CHECK: %[[HI4:.*]] = vector.shuffle %[[C8]], %[[C8]] [4, 5, 6, 7]
// CHECK: %[[C4:.*]] = arith.maxnumf %[[LO4]], %[[HI4]] : vector<4xf32>
// CHECK: %[[OUT:.*]] = arith.maxnumf %[[C4]], %[[ACC]] : vector<4xf32>
// CHECK: return %[[OUT]]
func.func @max_4x16(%s: vector<4x16xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %r = vector.multi_reduction <maxnumf>, %s, %acc [1] : vector<4x16xf32> to vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// Eight rows: two groups of four, each folded to a chunk, then the chunks
// concatenated in row order; the sum's combining ops are adds.
// CHECK-LABEL: func.func @sum_8x16
// CHECK-NOT: vector.transpose
// CHECK-COUNT-4: arith.addf {{.*}} : vector<16xf32>
// CHECK: %[[G0:.*]] = arith.addf {{.*}} : vector<16xf32>
// CHECK: %[[G1:.*]] = arith.addf {{.*}} : vector<16xf32>
// CHECK: vector.shuffle %[[G0]], %[[G0]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: %[[F0:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK: vector.shuffle %[[G1]], %[[G1]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: %[[F1:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK: %[[CAT:.*]] = vector.shuffle %[[F0]], %[[F1]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK: arith.addf %[[CAT]], %{{.*}} : vector<8xf32>
func.func @sum_8x16(%s: vector<8x16xf32>, %acc: vector<8xf32>) -> vector<8xf32> {
  %r = vector.multi_reduction <add>, %s, %acc [1] : vector<8x16xf32> to vector<8xf32>
  return %r : vector<8xf32>
}

// -----

// 256-bit lanes: [4 x 8], one fold.
// CHECK-LABEL: func.func @max_4x8
// CHECK-NOT: vector.transpose
// CHECK: arith.maxnumf {{.*}} : vector<8xf32>
// CHECK: arith.maxnumf {{.*}} : vector<8xf32>
// CHECK: %[[C:.*]] = arith.maxnumf {{.*}} : vector<8xf32>
// CHECK: vector.shuffle %[[C]], %[[C]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle %[[C]], %[[C]] [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK: arith.maxnumf {{.*}} : vector<4xf32>
// CHECK: arith.maxnumf {{.*}} : vector<4xf32>
// CHECK-NOT: arith.maxnumf
// CHECK: return
func.func @max_4x8(%s: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %r = vector.multi_reduction <maxnumf>, %s, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// Rows the tree does not take stay with upstream's lowering: 2 rows (not a
// multiple of 4) and 12 rows (not dividing the 16 lanes).
// CHECK-LABEL: func.func @upstream_2x16
// CHECK-NOT: vector.shuffle {{.*}} [0, 1, 16, 17,
// CHECK: return
func.func @upstream_2x16(%s: vector<2x16xf32>, %acc: vector<2xf32>) -> vector<2xf32> {
  %r = vector.multi_reduction <maxnumf>, %s, %acc [1] : vector<2x16xf32> to vector<2xf32>
  return %r : vector<2xf32>
}
// CHECK-LABEL: func.func @upstream_12x16
// CHECK-NOT: vector.shuffle {{.*}} [0, 1, 16, 17,
// CHECK: return
func.func @upstream_12x16(%s: vector<12x16xf32>, %acc: vector<12xf32>) -> vector<12xf32> {
  %r = vector.multi_reduction <add>, %s, %acc [1] : vector<12x16xf32> to vector<12xf32>
  return %r : vector<12xf32>
}

// -----

// A reduction over the rows of a block (the keys of a register tile with
// the rows on the lanes: the row max and row sum of 16- and 64-row decode
// tiles and of the prefill tile): a pairwise tree over the rows, then one
// combining op with the accumulator, so a loop carrying the accumulator
// has one op on its chain per register tile instead of one per row.
// CHECK-LABEL: func.func @max_rows_8x16
// CHECK-SAME: (%[[S:.*]]: vector<8x16xf32>, %[[ACC:.*]]: vector<16xf32>)
// CHECK-DAG: %[[R0:.*]] = vector.extract %[[S]][0]
// CHECK-DAG: %[[R1:.*]] = vector.extract %[[S]][1]
// CHECK-DAG: %[[R2:.*]] = vector.extract %[[S]][2]
// CHECK-DAG: %[[R3:.*]] = vector.extract %[[S]][3]
// CHECK-DAG: %[[R4:.*]] = vector.extract %[[S]][4]
// CHECK-DAG: %[[R5:.*]] = vector.extract %[[S]][5]
// CHECK-DAG: %[[R6:.*]] = vector.extract %[[S]][6]
// CHECK-DAG: %[[R7:.*]] = vector.extract %[[S]][7]
// CHECK: %[[M01:.*]] = arith.maxnumf %[[R0]], %[[R1]] : vector<16xf32>
// CHECK: %[[M23:.*]] = arith.maxnumf %[[R2]], %[[R3]] : vector<16xf32>
// CHECK: %[[M45:.*]] = arith.maxnumf %[[R4]], %[[R5]] : vector<16xf32>
// CHECK: %[[M67:.*]] = arith.maxnumf %[[R6]], %[[R7]] : vector<16xf32>
// CHECK: %[[M03:.*]] = arith.maxnumf %[[M01]], %[[M23]] : vector<16xf32>
// CHECK: %[[M47:.*]] = arith.maxnumf %[[M45]], %[[M67]] : vector<16xf32>
// CHECK: %[[M:.*]] = arith.maxnumf %[[M03]], %[[M47]] : vector<16xf32>
// CHECK: %[[OUT:.*]] = arith.maxnumf %[[M]], %[[ACC]] : vector<16xf32>
// CHECK: return %[[OUT]]
func.func @max_rows_8x16(%s: vector<8x16xf32>, %acc: vector<16xf32>) -> vector<16xf32> {
  %r = vector.multi_reduction <maxnumf>, %s, %acc [0] : vector<8x16xf32> to vector<16xf32>
  return %r : vector<16xf32>
}

// An odd row count: the last row joins at the next level.
// CHECK-LABEL: func.func @sum_rows_3x64
// CHECK-SAME: (%[[S:.*]]: vector<3x64xf32>, %[[ACC:.*]]: vector<64xf32>)
// CHECK: %[[R0:.*]] = vector.extract %[[S]][0]
// CHECK: %[[R1:.*]] = vector.extract %[[S]][1]
// CHECK: %[[R2:.*]] = vector.extract %[[S]][2]
// CHECK: %[[A01:.*]] = arith.addf %[[R0]], %[[R1]] : vector<64xf32>
// CHECK: %[[A:.*]] = arith.addf %[[A01]], %[[R2]] : vector<64xf32>
// CHECK: arith.addf %[[A]], %[[ACC]] : vector<64xf32>
func.func @sum_rows_3x64(%s: vector<3x64xf32>, %acc: vector<64xf32>) -> vector<64xf32> {
  %r = vector.multi_reduction <add>, %s, %acc [0] : vector<3x64xf32> to vector<64xf32>
  return %r : vector<64xf32>
}

// -----

// Masked reductions (a vector.mask holds exactly one op) stay with
// upstream's mask-aware lowering: a select per combined row, valid IR,
// neither tree.
// CHECK-LABEL: func.func @masked_rows
// CHECK-NOT: vector.mask
// CHECK: arith.select
// CHECK: return
func.func @masked_rows(%s: vector<8x16xf32>, %acc: vector<16xf32>, %m: vector<8x16xi1>) -> vector<16xf32> {
  %r = vector.mask %m { vector.multi_reduction <add>, %s, %acc [0] : vector<8x16xf32> to vector<16xf32> } : vector<8x16xi1> -> vector<16xf32>
  return %r : vector<16xf32>
}
// CHECK-LABEL: func.func @masked_lanes
// CHECK-NOT: vector.shuffle {{.*}} [0, 1, 16, 17,
// CHECK: return
func.func @masked_lanes(%s: vector<4x16xf32>, %acc: vector<4xf32>, %m: vector<4x16xi1>) -> vector<4xf32> {
  %r = vector.mask %m { vector.multi_reduction <maxnumf>, %s, %acc [1] : vector<4x16xf32> to vector<4xf32> } : vector<4x16xi1> -> vector<4xf32>
  return %r : vector<4xf32>
}
// CHECK-LABEL: func.func @masked_square
// CHECK-NOT: vector.shuffle {{.*}} [0, 1, 16, 17,
// CHECK: return
func.func @masked_square(%s: vector<16x16xf32>, %acc: vector<16xf32>, %m: vector<16x16xi1>) -> vector<16xf32> {
  %r = vector.mask %m { vector.multi_reduction <add>, %s, %acc [1] : vector<16x16xf32> to vector<16xf32> } : vector<16x16xi1> -> vector<16xf32>
  return %r : vector<16xf32>
}
