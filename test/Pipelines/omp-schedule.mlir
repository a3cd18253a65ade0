// RUN: posenc-opt %s --posenc-omp-schedule | FileCheck %s
// RUN: posenc-opt %s --posenc-omp-schedule="schedule=guided chunk=4" | FileCheck %s --check-prefix=GUIDED
// RUN: not posenc-opt %s --posenc-omp-schedule="schedule=runtime" 2>&1 | FileCheck %s --check-prefix=BADKIND
// RUN: not posenc-opt %s --posenc-omp-schedule="chunk=-1" 2>&1 | FileCheck %s --check-prefix=BADCHUNK

// --posenc-omp-schedule gives each omp.wsloop without a schedule clause
// (what convert-scf-to-openmp makes) the option's kind, dynamic by
// default, and with `chunk` a chunk size; a loop with a schedule keeps it.

// CHECK-LABEL: func.func @tasks
// CHECK: omp.wsloop schedule(dynamic) {
// CHECK: omp.wsloop schedule(static) {
// GUIDED-LABEL: func.func @tasks
// GUIDED: %[[CHUNK:.*]] = llvm.mlir.constant(4 : i64) : i64
// GUIDED-NEXT: omp.wsloop schedule(guided = %[[CHUNK]] : i64) {
// GUIDED: omp.wsloop schedule(static) {
// BADKIND: error: posenc-omp-schedule: option 'schedule' must be static, dynamic, guided or auto, got 'runtime'
// BADCHUNK: error: posenc-omp-schedule: option 'chunk' must be at least 0, got -1
func.func @tasks(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    omp.wsloop schedule(static) {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
