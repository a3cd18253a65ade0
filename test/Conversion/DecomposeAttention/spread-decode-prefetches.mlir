// RUN: posenc-opt %s --split-input-file --posenc-spread-decode-prefetches --canonicalize --verify-diagnostics | FileCheck %s

// A key step as the decomposition leaves it after bufferization: two
// marked loops of prefetches (K, then V; at most 4 rows each, `%rows` of
// them this step), then a contraction nest of 2 x 4 iterations and one of
// 8. The 8 rows go one per two of the 16 contraction iterations: I / N = 2
// is a whole number, so iteration g issues row g / 2 when 2 divides g (no
// ceil bounds, no loop), each row under its loop's bound.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK-SAME: %{{[^:]*}}: memref<4x4xf32>, %[[NEXT:[^:]*]]: index, %[[ROWS:[^:]*]]: index)
// CHECK-NOT: memref.prefetch
// The first nest: iterations 0 .. 7.
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[I4:.*]] = arith.muli %[[I]], %c4
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I4]], %[[J]]
// CHECK-NEXT: %[[REM:.*]] = arith.remui %[[G]], %c2
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi eq, %[[REM]], %c0
// CHECK-NEXT: scf.if %[[ON]] {
// CHECK-NEXT: %[[U:.*]] = arith.divui %[[G]], %c2
// Row u of K's loop (rows 0 .. 3), if below its bound:
// CHECK-NEXT: %[[KLT:.*]] = arith.cmpi ult, %[[U]], %c4
// CHECK-NEXT: %[[KIN:.*]] = arith.cmpi slt, %[[U]], %[[ROWS]]
// CHECK-NEXT: %[[KC:.*]] = arith.andi %[[KLT]], %[[KIN]]
// CHECK-NEXT: scf.if %[[KC]] {
// CHECK-NEXT: %[[KR:.*]] = arith.addi %[[NEXT]], %[[U]]
// CHECK-NEXT: memref.prefetch %[[K]][%[[KR]], %c0], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[K]][%[[KR]], %c16], read, locality<3>, data
// CHECK-NEXT: }
// Row u - 4 of V's loop (rows 4 .. 7):
// CHECK-NEXT: %[[VL:.*]] = arith.subi %[[U]], %c4
// CHECK-NEXT: %[[VLT:.*]] = arith.cmpi ult, %[[U]], %c8
// CHECK-NEXT: %[[VGE:.*]] = arith.cmpi uge, %[[U]], %c4
// CHECK-NEXT: %[[VM:.*]] = arith.andi %[[VGE]], %[[VLT]]
// CHECK-NEXT: %[[VIN:.*]] = arith.cmpi slt, %[[VL]], %[[ROWS]]
// CHECK-NEXT: %[[VC:.*]] = arith.andi %[[VM]], %[[VIN]]
// CHECK-NEXT: scf.if %[[VC]] {
// CHECK-NEXT: %[[VR:.*]] = arith.addi %[[NEXT]], %[[VL]]
// CHECK-NEXT: memref.prefetch %[[V]][%[[VR]], %c0]
// CHECK-NEXT: memref.prefetch %[[V]][%[[VR]], %c16]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: vector.contract
// The second nest continues at iteration 8.
// CHECK: scf.for %[[J2:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[G2:.*]] = arith.addi %[[J2]], %c8
// CHECK-NEXT: %[[REM2:.*]] = arith.remui %[[G2]], %c2
// CHECK-NEXT: %[[ON2:.*]] = arith.cmpi eq, %[[REM2]], %c0
// CHECK-NEXT: scf.if %[[ON2]] {
// CHECK-NEXT: arith.divui %[[G2]], %c2
// CHECK: memref.prefetch %[[K]]
// CHECK: memref.prefetch %[[V]]
// CHECK: vector.contract
// CHECK-NOT: posenc.spread_prefetch_rows
// CHECK: return
func.func @step(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
    memref.prefetch %k[%row, %c16], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 4 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
    memref.prefetch %v[%row, %c16], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 4 : i64}
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %a = vector.transfer_read %k[%i, %j], %f0 : memref<64x32xf32>, vector<4x1xf32>
      %b = vector.transfer_read %v[%j, %i], %f0 : memref<64x32xf32>, vector<1x4xf32>
      %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
      %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
      vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
    }
  }
  scf.for %j = %c0 to %c8 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// 3 + 3 rows over 16 iterations: neither N / I nor I / N is a whole
// number, so iteration g issues the rows [ceil(6 g / 16), ceil(6 (g + 1)
// / 16)) in a loop of 0 or 1 trips.
// CHECK-LABEL: func.func @uneven(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK: scf.for %[[J:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: %[[A:.*]] = arith.muli %[[J]], %c6
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A]], %c15
// CHECK-NEXT: %[[FROM:.*]] = arith.divui %[[B]], %c16
// CHECK-NEXT: %[[GN:.*]] = arith.addi %[[J]], %c1
// CHECK-NEXT: %[[C:.*]] = arith.muli %[[GN]], %c6
// CHECK-NEXT: %[[D:.*]] = arith.addi %[[C]], %c15
// CHECK-NEXT: %[[TO:.*]] = arith.divui %[[D]], %c16
// CHECK-NEXT: scf.for %[[U:.*]] = %[[FROM]] to %[[TO]] step %c1 {
// CHECK-NEXT: arith.cmpi ult, %[[U]], %c3
// CHECK: memref.prefetch %[[K]]
// CHECK: arith.cmpi ult, %[[U]], %c6
// CHECK: memref.prefetch %[[V]]
// CHECK: vector.contract
func.func @uneven(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                  %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 3 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 3 : i64}
  scf.for %j = %c0 to %c16 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// 8 + 8 rows over one nest of 2 x 4 iterations: N is a multiple of I, so
// iteration g issues rows 2 g and 2 g + 1 with no division and no loop,
// each tested against both bursts.
// CHECK-LABEL: func.func @rows_per_iteration(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[I4:.*]] = arith.muli %[[I]], %c4
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I4]], %[[J]]
// CHECK-NEXT: %[[U0:.*]] = arith.muli %[[G]], %c2
// CHECK-NOT: arith.divui
// CHECK-NOT: scf.for
// CHECK: arith.cmpi ult, %[[U0]], %c8
// CHECK: memref.prefetch %[[K]]
// CHECK: arith.cmpi uge, %[[U0]], %c8
// CHECK: memref.prefetch %[[V]]
// CHECK: %[[U1:.*]] = arith.addi %[[U0]], %c1
// CHECK: arith.cmpi ult, %[[U1]], %c8
// CHECK: memref.prefetch %[[K]]
// CHECK: arith.cmpi uge, %[[U1]], %c8
// CHECK: memref.prefetch %[[V]]
// CHECK: vector.contract
func.func @rows_per_iteration(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                              %acc: memref<4x4xf32>, %next: index,
                              %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 8 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 8 : i64}
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %a = vector.transfer_read %k[%i, %j], %f0 : memref<64x32xf32>, vector<4x1xf32>
      %b = vector.transfer_read %v[%j, %i], %f0 : memref<64x32xf32>, vector<1x4xf32>
      %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
      %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
      vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
    }
  }
  return
}

// -----

// A step whose only contraction loop has a dynamic trip count keeps its
// burst (the mark is dropped).
// CHECK-LABEL: func.func @dynamic_nest(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: memref.prefetch
// CHECK-NEXT: }
// CHECK-NOT: posenc.spread_prefetch_rows
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @dynamic_nest(%k: memref<64x32xf32>, %acc: memref<4x4xf32>,
                        %next: index, %rows: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 4 : i64}
  scf.for %j = %c0 to %n step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

func.func @bad_bound(%k: memref<64x32xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{expects 'posenc.spread_prefetch_rows' to be a positive integer, got 0 : i64}}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 0 : i64}
  return
}

// -----

func.func @bad_iv_type(%k: memref<64x32xf32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // expected-error @below {{marked 'posenc.spread_prefetch_rows' expects an index induction variable, got 'i32'}}
  scf.for %r = %z to %n step %one : i32 {
    %row = arith.index_cast %r : i32 to index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = 4 : i64}
  return
}

// -----

func.func @bad_results(%k: memref<64x32xf32>, %rows: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{marked 'posenc.spread_prefetch_rows' expects no results (loop-carried values), got 1}}
  %last = scf.for %r = %c0 to %rows step %c1 iter_args(%a = %c0) -> (index) {
    memref.prefetch %k[%r, %c0], read, locality<3>, data : memref<64x32xf32>
    scf.yield %r : index
  } {posenc.spread_prefetch_rows = 4 : i64}
  return %last : index
}

// -----

func.func @not_an_integer(%k: memref<64x32xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{expects 'posenc.spread_prefetch_rows' to be a positive integer, got "four"}}
  scf.for %r = %c0 to %rows step %c1 {
    memref.prefetch %k[%r, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_rows = "four"}
  return
}

// -----

// Marked posenc.spread_prefetch_between: the ops between the two nests
// take rows too. 8 + 8 single-line rows over 4 + 4 iterations: the even
// spread gives each nest 8 rows (2 per iteration); the ops between (two
// stores) issue the first 4 of the second nest's rows, 8 .. 11, one per
// iteration of that nest, in two groups before the stores, and the second
// nest issues the other 4, one per iteration from row 12.
// CHECK-LABEL: func.func @between_lines(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK-SAME: %{{[^:]*}}: memref<4x4xf32>, %[[NEXT:[^:]*]]: index, %[[ROWS:[^:]*]]: index)
// The first nest: rows 2 g and 2 g + 1, as without the mark.
// CHECK: scf.for %[[J:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[U0:.*]] = arith.muli %[[J]], %c2
// CHECK: memref.prefetch %[[K]]
// CHECK: %[[U1:.*]] = arith.addi %[[U0]], %c1
// CHECK: memref.prefetch %[[K]]
// CHECK: vector.contract
// CHECK-NEXT: vector.transfer_write {{.*}} : vector<4x4xf32>, memref<4x4xf32>
// CHECK-NEXT: }
// Rows 8, 9 (V's rows 0, 1) before the first store, 10, 11 before the
// second, each under V's bound only.
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi sgt, %[[ROWS]], %c0
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK-NEXT: memref.prefetch %[[V]][%[[NEXT]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi sgt, %[[ROWS]], %c1
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[NEXT]], %c1
// CHECK-NEXT: memref.prefetch %[[V]][%[[R1]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store
// CHECK-NEXT: %[[IN2:.*]] = arith.cmpi sgt, %[[ROWS]], %c2
// CHECK-NEXT: scf.if %[[IN2]] {
// CHECK: memref.prefetch %[[V]]
// CHECK: %[[IN3:.*]] = arith.cmpi sgt, %[[ROWS]], %c3
// CHECK-NEXT: scf.if %[[IN3]] {
// CHECK: memref.prefetch %[[V]]
// CHECK: }
// CHECK-NEXT: memref.store
// The second nest: row 12 + j.
// CHECK-NEXT: scf.for %[[J2:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[U2:.*]] = arith.addi %[[J2]], %c12
// CHECK-NOT: arith.muli
// CHECK: arith.cmpi ult, %[[U2]], %c16
// CHECK: memref.prefetch %[[V]]
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
// CHECK-NOT: posenc.spread_prefetch
// CHECK: return
func.func @between_lines(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                         %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 8 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 8 : i64}
  scf.for %j = %c0 to %c4 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  memref.store %f0, %acc[%c0, %c0] : memref<4x4xf32>
  memref.store %f0, %acc[%c1, %c1] : memref<4x4xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// Rows of 2 prefetches each (8 + 8 rows over 8 + 8 iterations, one row per
// iteration spread evenly): the ops between the nests take 8 / 2 = 4 of
// the second nest's 8 rows (one line per iteration of that nest), and the
// second nest issues the other 4, one every 2 iterations from row 12.
// CHECK-LABEL: func.func @between_rows(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK: vector.contract
// CHECK-COUNT-4: memref.prefetch %[[V]][%{{.*}}, %c16]
// CHECK: memref.store
// CHECK-NEXT: scf.for %[[J2:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[REM:.*]] = arith.remui %[[J2]], %c2
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi eq, %[[REM]], %c0
// CHECK-NEXT: scf.if %[[ON]] {
// CHECK-NEXT: %[[H:.*]] = arith.divui %[[J2]], %c2
// CHECK-NEXT: %[[U:.*]] = arith.addi %[[H]], %c12
// CHECK: memref.prefetch %[[V]]
// CHECK: memref.prefetch %[[V]]
// CHECK: vector.contract
func.func @between_rows(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                        %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
    memref.prefetch %k[%row, %c16], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 8 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
    memref.prefetch %v[%row, %c16], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 8 : i64}
  scf.for %j = %c0 to %c8 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  memref.store %f0, %acc[%c0, %c0] : memref<4x4xf32>
  scf.for %j = %c0 to %c8 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// 3 + 3 single-line rows over 4 + 2 iterations: the second nest's share is
// 2 rows, and the ops between would take all of them (one per iteration),
// so the step is spread evenly as without the mark: one row per iteration,
// the second nest from row 4, no prefetch between the nests.
// CHECK-LABEL: func.func @between_all_or_nothing(
// CHECK: vector.contract
// CHECK-NOT: memref.prefetch
// CHECK: memref.store
// CHECK-NEXT: scf.for %[[J2:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[U:.*]] = arith.addi %[[J2]], %c4
// CHECK: memref.prefetch
// CHECK: vector.contract
func.func @between_all_or_nothing(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                                  %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 3 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_between, posenc.spread_prefetch_rows = 3 : i64}
  scf.for %j = %c0 to %c4 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  memref.store %f0, %acc[%c0, %c0] : memref<4x4xf32>
  scf.for %j = %c0 to %c2 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// Marked posenc.spread_prefetch_alternate: the two loops take turns, the
// step's row u being K's row u / 2 for even u and V's for odd u. 4 + 4 rows
// over 8 iterations, one per iteration.
// CHECK-LABEL: func.func @alternate(
// CHECK-SAME: %[[K:[^:]*]]: memref<64x32xf32>, %[[V:[^:]*]]: memref<64x32xf32>,
// CHECK-SAME: %{{[^:]*}}: memref<4x4xf32>, %[[NEXT:[^:]*]]: index, %[[ROWS:[^:]*]]: index)
// CHECK: scf.for %[[J:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[KROW:.*]] = arith.divui %[[J]], %c2
// CHECK-NEXT: %[[KTURN:.*]] = arith.remui %[[J]], %c2
// CHECK-NEXT: %[[KMINE:.*]] = arith.cmpi eq, %[[KTURN]], %c0
// CHECK-NEXT: %[[KIN:.*]] = arith.cmpi slt, %[[KROW]], %[[ROWS]]
// CHECK-NEXT: %[[KC:.*]] = arith.andi %[[KMINE]], %[[KIN]]
// CHECK-NEXT: scf.if %[[KC]] {
// CHECK-NEXT: %[[KAT:.*]] = arith.addi %[[NEXT]], %[[KROW]]
// CHECK-NEXT: memref.prefetch %[[K]][%[[KAT]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: %[[VROW:.*]] = arith.divui %[[J]], %c2
// CHECK-NEXT: %[[VTURN:.*]] = arith.remui %[[J]], %c2
// CHECK-NEXT: %[[VMINE:.*]] = arith.cmpi eq, %[[VTURN]], %c1
// CHECK-NEXT: %[[VIN:.*]] = arith.cmpi slt, %[[VROW]], %[[ROWS]]
// CHECK-NEXT: %[[VC:.*]] = arith.andi %[[VMINE]], %[[VIN]]
// CHECK-NEXT: scf.if %[[VC]] {
// CHECK-NEXT: %[[VAT:.*]] = arith.addi %[[NEXT]], %[[VROW]]
// CHECK-NEXT: memref.prefetch %[[V]][%[[VAT]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: vector.transfer_read
func.func @alternate(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                     %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_rows = 4 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_rows = 4 : i64}
  scf.for %j = %c0 to %c8 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

// Loops of different bounds do not take turns: K's 4 rows, then V's 2, as
// without the mark.
// CHECK-LABEL: func.func @alternate_unequal(
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK: memref.prefetch
// CHECK: arith.cmpi ult, %{{.*}}, %c6
// CHECK: memref.prefetch
// CHECK: vector.contract
func.func @alternate_unequal(%k: memref<64x32xf32>, %v: memref<64x32xf32>,
                     %acc: memref<4x4xf32>, %next: index, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %k[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_rows = 4 : i64}
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.addi %next, %r : index
    memref.prefetch %v[%row, %c0], read, locality<3>, data : memref<64x32xf32>
  } {posenc.spread_prefetch_alternate, posenc.spread_prefetch_rows = 2 : i64}
  scf.for %j = %c0 to %c8 step %c1 {
    %a = vector.transfer_read %k[%j, %c0], %f0 : memref<64x32xf32>, vector<4x1xf32>
    %b = vector.transfer_read %v[%j, %c0], %f0 : memref<64x32xf32>, vector<1x4xf32>
    %c = vector.transfer_read %acc[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %acc[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  }
  return
}
