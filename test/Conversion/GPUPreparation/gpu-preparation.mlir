// Three of the GPU preparation passes of --posenc-to-nvvm
// (lib/Conversion/GPUPreparation), one at a time; posenc-gpu-fuse-elementwise
// is checked on the fused path in test/Conversion/AttentionToGPU/fused-attention.mlir.
// RUN: posenc-opt %s --split-input-file --posenc-gpu-map-parallel-loops="block-size=128" \
// RUN:   | FileCheck %s --check-prefix=MAP
// RUN: posenc-opt %s --split-input-file --posenc-gpu-copy-constants \
// RUN:   | FileCheck %s --check-prefix=COPY
// RUN: posenc-opt %s --split-input-file --posenc-gpu-copy-constants \
// RUN:   --verify-diagnostics -o /dev/null
// RUN: posenc-opt %s --split-input-file --posenc-gpu-managed-allocs \
// RUN:   | FileCheck %s --check-prefix=MANAGED
// RUN: not posenc-opt %s --split-input-file --posenc-gpu-map-parallel-loops="block-size=0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASSBLOCK
// PASSBLOCK: error: block-size (0) must be in [1, 1024]

// The 2-D loop (lower bound 1, step 2 in the inner dim) becomes 128-thread
// blocks over its linearized iterations, innermost dimension fastest; the
// nested loop runs sequentially inside the thread.
// MAP-LABEL: func.func @loops(
// MAP-SAME:      %[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// MAP-DAG:     %[[C0:.*]] = arith.constant 0 : index
// MAP-DAG:     %[[C1:.*]] = arith.constant 1 : index
// MAP-DAG:     %[[C2:.*]] = arith.constant 2 : index
// MAP-DAG:     %[[C128:.*]] = arith.constant 128 : index
// MAP:         %[[EXT0:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// MAP:         %[[TRIP0:.*]] = arith.ceildivui %[[EXT0]], %[[C1]] : index
// MAP:         %[[EXT1:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// MAP:         %[[TRIP1:.*]] = arith.ceildivui %[[EXT1]], %[[C2]] : index
// MAP:         %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[TRIP1]] : index
// MAP:         %[[BLOCKS:.*]] = arith.ceildivui %[[TOTAL]], %[[C128]] : index
// MAP:         scf.parallel (%[[BID:.*]]) = (%{{.*}}) to (%[[BLOCKS]]) step (%{{.*}}) {
// MAP:           scf.parallel (%[[TID:.*]]) = (%{{.*}}) to (%[[C128]]) step (%{{.*}}) {
// MAP:             %[[BASE:.*]] = arith.muli %[[BID]], %[[C128]] : index
// MAP:             %[[LIN:.*]] = arith.addi %[[BASE]], %[[TID]] : index
// MAP:             %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[TOTAL]] : index
// MAP:             scf.if %[[IN]] {
// MAP:               %[[J:.*]] = arith.remui %[[LIN]], %[[TRIP1]] : index
// MAP:               %[[I:.*]] = arith.divui %[[LIN]], %[[TRIP1]] : index
// MAP:               %[[JS:.*]] = arith.muli %[[J]], %[[C2]] : index
// MAP:               %[[JJ:.*]] = arith.addi %[[C0]], %[[JS]] : index
// MAP:               %[[IS:.*]] = arith.muli %[[I]], %[[C1]] : index
// MAP:               %[[II:.*]] = arith.addi %[[C1]], %[[IS]] : index
// MAP:               memref.load %[[A]][%[[II]], %[[JJ]]]
// MAP:               scf.parallel
// MAP:               } {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// MAP:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// MAP:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
func.func @loops(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i, %j) = (%c1, %c0) to (%n, %m) step (%c1, %c2) {
    %v = memref.load %a[%i, %j] : memref<?x?xf32>
    scf.parallel (%k) = (%c0) to (%c2) step (%c1) {
      memref.store %v, %b[%i, %k] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// Constants are host read-only data: kernels get a copy in a buffer (which
// the deallocation pipeline frees and posenc-gpu-managed-allocs makes
// managed). Mutable globals are left alone, with a warning.
// COPY:       memref.global "private" constant @table
// COPY-LABEL: func.func @constants(
// COPY:         %[[G:.*]] = memref.get_global @table : memref<4xf32>
// COPY:         %[[BUF:.*]] = memref.alloc() : memref<4xf32>
// COPY:         memref.copy %[[G]], %[[BUF]] : memref<4xf32> to memref<4xf32>
// COPY:         memref.load %[[BUF]][
// COPY:         return %{{.*}}, %[[BUF]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @constants(%i: index) -> (f32, memref<4xf32>) {
  %t = memref.get_global @table : memref<4xf32>
  %v = memref.load %t[%i] : memref<4xf32>
  return %v, %t : f32, memref<4xf32>
}

// -----

memref.global "private" @counter : memref<1xi32> = dense<0>
func.func @mutable() -> memref<1xi32> {
  // expected-warning @+1 {{mutable global is not made device-accessible; a kernel reading it will fault}}
  %c = memref.get_global @counter : memref<1xi32>
  return %c : memref<1xi32>
}

// -----

// Host allocations become managed memory; gpu.dealloc lowers only in its
// async form, so a free is a stream, the dealloc on it, and a wait.
// MANAGED-LABEL: func.func @buffers(
// MANAGED:         %[[A:.*]] = gpu.alloc  host_shared (%{{.*}}) : memref<?x64xf32>
// MANAGED:         %[[T:.*]] = gpu.wait async
// MANAGED:         %[[D:.*]] = gpu.dealloc async [%[[T]]] %[[A]] : memref<?x64xf32>
// MANAGED:         gpu.wait [%[[D]]]
// MANAGED-NOT:     memref.alloc
// MANAGED-NOT:     memref.dealloc
func.func @buffers(%n: index) {
  %a = memref.alloc(%n) : memref<?x64xf32>
  memref.dealloc %a : memref<?x64xf32>
  return
}
