// Inputs of test/Plugin/every-pass.mlir for the passes that run on buffers
// and vectors; the check prefixes are that test's.

// COPY-LABEL: func.func @constants
// COPY:         %[[TABLE:.*]] = memref.get_global @table
// COPY:         %[[COPY:.*]] = memref.alloc() : memref<4xf32>
// COPY:         memref.copy %[[TABLE]], %[[COPY]]
// COPY:         memref.load %[[COPY]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @constants(%i: index) -> f32 {
  %t = memref.get_global @table : memref<4xf32>
  %v = memref.load %t[%i] : memref<4xf32>
  return %v : f32
}

// MAPLOOPS-LABEL: func.func @loops
// MAPLOOPS:         scf.parallel
// MAPLOOPS:           scf.parallel
// MAPLOOPS:             scf.if
// MAPLOOPS:               memref.store
// MAPLOOPS:         {mapping = [#gpu.loop_dim_map<processor = thread_x
// MAPLOOPS:       {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @loops(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// MANAGED-LABEL: func.func @buffers
// MANAGED:         gpu.alloc host_shared
// MANAGED:         gpu.dealloc
// MANAGED-NOT:     memref.dealloc
func.func @buffers(%n: index) {
  %a = memref.alloc(%n) : memref<?x64xf32>
  memref.dealloc %a : memref<?x64xf32>
  return
}

// The loop over the private row is unrolled: four stores at constant
// indices, no loop.
// UNROLL-LABEL: func.func @private_row
// UNROLL:         gpu.launch
// UNROLL-NOT:       scf.for
// UNROLL-COUNT-4:   memref.store {{.*}} : memref<4xf32, #gpu.address_space<private>>
// UNROLL-NOT:       scf.for
// UNROLL:           gpu.terminator
func.func @private_row(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
             private(%row : memref<4xf32, #gpu.address_space<private>>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %one {
      memref.store %f, %row[%i] : memref<4xf32, #gpu.address_space<private>>
    }
    gpu.terminator
  }
  return
}

// VECTORS-LABEL: func.func @contract
// VECTORS-NOT:     vector.contract
// VECTORS:         vector.fma
// VECTORS:         return
func.func @contract(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>) -> vector<4x4xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                         affine_map<(i, j, k) -> (k, j)>,
                                         affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>}
      %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  return %r : vector<4x4xf32>
}
