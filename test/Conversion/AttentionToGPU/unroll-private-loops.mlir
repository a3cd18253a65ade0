// posenc-gpu-unroll-private-loops: loops indexing private buffers are fully
// unrolled (a dynamic bound bounded by a tile size becomes guards), so every
// private access has a constant index; launches with too many private
// elements per thread and loops that touch no private buffer stay.
// RUN: posenc-opt %s --split-input-file --posenc-gpu-unroll-private-loops --canonicalize | FileCheck %s
// RUN: posenc-opt %s --split-input-file --posenc-gpu-unroll-private-loops="max-private-elements=4" \
// RUN:   | FileCheck %s --check-prefix=BUDGET

// CHECK-LABEL: func.func @partial_tile
// CHECK:         gpu.launch
// CHECK:           %[[UB:.*]] = arith.minui
// CHECK-NOT:       scf.for
// CHECK:           arith.cmpi sgt, %[[UB]], %c0
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%c0] : memref<8xf32, #gpu.address_space<private>>
// CHECK-COUNT-7:   memref.store %{{.*}}, %{{.*}}[%c{{[1-7]}}] : memref<8xf32, #gpu.address_space<private>>
// CHECK:           scf.for {{.*}} to %arg1 step
// CHECK:             memref.load %{{.*}} : memref<?xf32>
// BUDGET-LABEL: func.func @partial_tile
// BUDGET:         scf.for
func.func @partial_tile(%n: index, %m: index, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
             private(%row : memref<8xf32, #gpu.address_space<private>>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : index
    %ub = arith.minui %n, %c8 : index
    %f = arith.constant 1.0 : f32
    scf.for %j = %c0 to %ub step %one {
      memref.store %f, %row[%j] : memref<8xf32, #gpu.address_space<private>>
    }
    // No private buffer: not unrolled.
    scf.for %k = %c0 to %m step %one {
      %v = memref.load %out[%k] : memref<?xf32>
      memref.store %v, %out[%c0] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}
