// RUN: posenc-opt %s --posenc-lower-rope --split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-lower-rope="block-rows=4" --split-input-file | FileCheck %s --check-prefix=ROWS

// Half layout: a parallel loop over blocks of rows, cos/sin once per
// (row, pair) into a [rows, R/2] table (16 KiB: 32 rows of 2 x 64 f32), and
// per (head, row) the two halves of the pair read as vectors.
// CHECK-LABEL: func.func @half
// CHECK-NOT:     linalg.generic
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %c2048, %c32
// CHECK:         scf.forall (%[[B:.*]]) in (%[[BLOCKS]]) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x8x2048x128xf32>)
// CHECK:           tensor.empty() : tensor<32x64xf32>
// CHECK:           scf.for
// CHECK:             tensor.extract %{{.*}} : tensor<2048xi32>
// CHECK:             math.cos %{{.*}} : vector<64xf32>
// CHECK:             math.sin %{{.*}} : vector<64xf32>
// CHECK:           %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][0, 0, %{{.*}}, 0] [1, 8, %{{.*}}, 128]
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[SLICE]])
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 %[[A:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %c0]{{.*}} : tensor<1x8x2048x128xf32>, vector<64xf32>
// CHECK:                 %[[BB:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %c64]{{.*}} : tensor<1x8x2048x128xf32>, vector<64xf32>
// CHECK:                 %[[COS:.*]] = vector.transfer_read {{.*}} : tensor<32x64xf32>, vector<64xf32>
// CHECK:                 %[[SIN:.*]] = vector.transfer_read {{.*}} : tensor<32x64xf32>, vector<64xf32>
// CHECK-DAG:             arith.mulf %[[A]], %[[COS]]
// CHECK-DAG:             arith.mulf %[[BB]], %[[SIN]]
// CHECK:                 vector.transfer_write {{.*}}, %c0]
// CHECK:                 vector.transfer_write {{.*}}, %c64]
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.*}} into %[[OUT]]
// CHECK-NOT:     posenc.rope
// ROWS-LABEL: func.func @half
// ROWS:         arith.ceildivui %c2048, %c4
// ROWS:         tensor.empty() : tensor<4x64xf32>
func.func @half(%x: tensor<1x8x2048x128xf32>, %pos: tensor<2048xi32>) -> tensor<1x8x2048x128xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<1x8x2048x128xf32>, tensor<2048xi32>
  return %r : tensor<1x8x2048x128xf32>
}

// -----

// Interleaved: the table holds cos/sin per lane (pair p at lanes 2p, 2p+1),
// the partner of each lane comes from a pairwise swap of the row. The sin of
// lane 2p is negated in the table (x cos - y sin for the first element of a
// pair; lane mask 0x55...), so a row is x cos + y sin' with no select.
// CHECK-LABEL: func.func @interleaved
// CHECK:         %[[FIRST:.*]] = arith.constant dense<"0x55555555555555555555555555555555"> : vector<128xi1>
// CHECK:         tensor.empty() : tensor<16x128xf32>
// CHECK:         vector.shuffle %{{.*}}, %{{.*}} [0, 0, 1, 1, 2, 2,
// CHECK:         %[[SIN:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 0, 1, 1, 2, 2,
// CHECK:         %[[NEG:.*]] = arith.negf %[[SIN]] : vector<128xf32>
// CHECK:         arith.select %[[FIRST]], %[[NEG]], %[[SIN]]
// CHECK:         %[[X:.*]] = vector.transfer_read %arg0{{.*}} : tensor<4x2048x128xf32>, vector<64xf32>
// CHECK:         %[[Y:.*]] = vector.shuffle %[[X]], %[[X]] [1, 0, 3, 2, 5, 4,
// CHECK:         %[[C:.*]] = vector.transfer_read
// CHECK:         %[[S:.*]] = vector.transfer_read
// CHECK-DAG:     %[[YS:.*]] = arith.mulf %[[Y]], %[[S]]
// CHECK-DAG:     %[[XC:.*]] = arith.mulf %[[X]], %[[C]]
// CHECK:         arith.addf %[[XC]], %[[YS]]
// CHECK:         vector.transfer_write {{.*}}, %c0]
// CHECK:         vector.transfer_read %arg0{{.*}}, %c64]{{.*}} : tensor<4x2048x128xf32>, vector<64xf32>
// CHECK:         vector.transfer_write {{.*}}, %c64]
func.func @interleaved(%x: tensor<4x2048x128xf32>, %pos: tensor<2048xi32>) -> tensor<4x2048x128xf32> {
  %r = posenc.rope %x, %pos layout interleaved : tensor<4x2048x128xf32>, tensor<2048xi32>
  return %r : tensor<4x2048x128xf32>
}

// -----

// f16 with rotary_dim < D and a dynamic sequence: a run-time length check,
// f32 arithmetic, and the dims past rotary_dim copied unchanged.
// CHECK-LABEL: func.func @f16_partial_dynamic
// CHECK:         cf.assert %{{.*}}, "posenc.rope: length of 'positions' differs from the sequence dim of 'input'"
// CHECK:         scf.forall
// CHECK:           tensor.empty() : tensor<{{[0-9]+}}x24xf32>
// CHECK:           vector.transfer_read %arg0{{.*}}, %c0]{{.*}} : tensor<2x?x64xf16>, vector<24xf16>
// CHECK:           arith.extf %{{.*}} : vector<24xf16> to vector<24xf32>
// CHECK:           vector.transfer_read %arg0{{.*}}, %c24]{{.*}} : tensor<2x?x64xf16>, vector<24xf16>
// CHECK:           arith.truncf %{{.*}} : vector<24xf32> to vector<24xf16>
// CHECK:           %[[PASS:.*]] = vector.transfer_read %arg0{{.*}}, %c48]{{.*}} : tensor<2x?x64xf16>, vector<16xf16>
// CHECK:           vector.transfer_write %[[PASS]], {{.*}}, %c48]
func.func @f16_partial_dynamic(%x: tensor<2x?x64xf16>, %pos: tensor<?xi32>) -> tensor<2x?x64xf16> {
  %r = posenc.rope %x, %pos layout half {rotary_dim = 48 : i64} : tensor<2x?x64xf16>, tensor<?xi32>
  return %r : tensor<2x?x64xf16>
}

// -----

// Fast precision: the f32 angle is reduced modulo pi/2 in f64 before the
// (polynomial, once lowered) f32 cos/sin.
// CHECK-LABEL: func.func @fast_angle_reduction
// CHECK:         %[[THETA:.*]] = arith.mulf %{{.*}} : vector<4xf32>
// CHECK:         arith.extf %[[THETA]] : vector<4xf32> to vector<4xf64>
// CHECK:         math.roundeven %{{.*}} : vector<4xf64>
// CHECK:         math.cos %{{.*}} : vector<4xf32>
// CHECK:         math.sin %{{.*}} : vector<4xf32>
func.func @fast_angle_reduction(%x: tensor<3x8xf32>, %pos: tensor<3xi32>) -> tensor<3x8xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<3x8xf32>, tensor<3xi32>
  return %r : tensor<3x8xf32>
}

// -----

// Exact precision and a run-time (dynamic NTK) table: the reference
// lowering's table builder (L = max(positions) + 1, f64), angles and cos/sin
// in f64, rounded to f32.
// CHECK-LABEL: func.func @exact_dynamic_ntk
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK:         math.log %{{.*}} : f64
// CHECK:         %[[INV:.*]] = linalg.generic
// CHECK:           math.exp %{{.*}} : f64
// CHECK:         } -> tensor<4xf64>
// CHECK:         scf.forall
// CHECK:           vector.transfer_read %[[INV]]{{.*}} : tensor<4xf64>, vector<4xf64>
// CHECK:           math.cos %{{.*}} : vector<4xf64>
// CHECK:           arith.truncf %{{.*}} : vector<4xf64> to vector<4xf32>
func.func @exact_dynamic_ntk(%x: tensor<?x8xf32>, %pos: tensor<?xi64>) -> tensor<?x8xf32> {
  %r = posenc.rope %x, %pos layout interleaved precision exact
      {scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 16>}
      : tensor<?x8xf32>, tensor<?xi64>
  return %r : tensor<?x8xf32>
}

// -----

// Head dims above 1024 are left to the reference lowering.
// CHECK-LABEL: func.func @huge_head_dim
// CHECK:         posenc.rope
// CHECK-NOT:     scf.forall
func.func @huge_head_dim(%x: tensor<4x2048xf32>, %pos: tensor<4xi32>) -> tensor<4x2048xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<4x2048xf32>, tensor<4xi32>
  return %r : tensor<4x2048xf32>
}

// -----

// The table form: no per-block table; each row reads its own row of the
// op's tables ([S, R], broadcast over batch and heads), both halves with
// their own columns: first half x1 cos1 - x2 sin1, second x2 cos2 + x1 sin2.
// CHECK-LABEL: func.func @table_form_half
// CHECK:         cf.assert %{{.*}}, "posenc.rope: dim 0 of the cos/sin tables differs from dim 2 of the input"
// CHECK:         scf.forall
// CHECK-NOT:     math.cos
// CHECK:           %[[S:.*]] = arith.addi
// CHECK:           %[[X1:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %[[S]], %c0]{{.*}} vector<16xf32>
// CHECK:           %[[X2:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %[[S]], %c16]{{.*}} vector<16xf32>
// CHECK:           %[[C1:.*]] = vector.transfer_read %arg1[%[[S]], %c0]
// CHECK:           %[[S1:.*]] = vector.transfer_read %arg2[%[[S]], %c0]
// CHECK:           %[[C2:.*]] = vector.transfer_read %arg1[%[[S]], %c16]
// CHECK:           %[[S2:.*]] = vector.transfer_read %arg2[%[[S]], %c16]
// CHECK:           %[[A:.*]] = arith.mulf %[[X1]], %[[C1]]
// CHECK:           %[[B:.*]] = arith.mulf %[[X2]], %[[S1]]
// CHECK:           arith.subf %[[A]], %[[B]]
// CHECK:           %[[C:.*]] = arith.mulf %[[X2]], %[[C2]]
// CHECK:           %[[D:.*]] = arith.mulf %[[X1]], %[[S2]]
// CHECK:           arith.addf %[[C]], %[[D]]
// CHECK-NOT:     posenc.rope
func.func @table_form_half(%x: tensor<2x3x?x32xf32>, %c: tensor<?x32xf32>, %s: tensor<?x32xf32>) -> tensor<2x3x?x32xf32> {
  %r = posenc.rope %x tables(%c, %s : tensor<?x32xf32>, tensor<?x32xf32>) layout half : tensor<2x3x?x32xf32>
  return %r : tensor<2x3x?x32xf32>
}

// -----

// Interleaved table form: pairs swapped in registers, the op's own sin
// negated on the first lane of each pair.
// CHECK-LABEL: func.func @table_form_interleaved
// CHECK:           %[[X:.*]] = vector.transfer_read %arg0{{.*}} vector<8xf32>
// CHECK:           %[[Y:.*]] = vector.shuffle %[[X]], %[[X]] [1, 0, 3, 2, 5, 4, 7, 6]
// CHECK:           vector.transfer_read %arg1
// CHECK:           %[[SIN:.*]] = vector.transfer_read %arg2
// CHECK:           %[[NEG:.*]] = arith.negf %[[SIN]]
// CHECK:           arith.select %{{.*}}, %[[NEG]], %[[SIN]] : vector<8xi1>, vector<8xf32>
func.func @table_form_interleaved(%x: tensor<4x?x8xf32>, %c: tensor<4x?x8xf32>, %s: tensor<4x?x8xf32>) -> tensor<4x?x8xf32> {
  %r = posenc.rope %x tables(%c, %s : tensor<4x?x8xf32>, tensor<4x?x8xf32>) layout interleaved : tensor<4x?x8xf32>
  return %r : tensor<4x?x8xf32>
}
