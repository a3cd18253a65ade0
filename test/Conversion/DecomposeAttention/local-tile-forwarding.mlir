// RUN: posenc-opt %s --posenc-lower-attention-vectors --split-input-file | FileCheck %s

// The pattern upstream hoisting leaves for a register tile's accumulator
// (write the initial value; read it; loop; write the result) on a buffer
// the function allocates: the initial value goes to the loop in registers
// and its write, which the result overwrites, is dropped
// (LocalTileForwarding.cpp).
// CHECK-LABEL: func.func @local_tile
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NOT: vector.transfer_write
// CHECK-NOT: vector.transfer_read %[[BUF]]
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (vector<16xf32>)
// CHECK: vector.transfer_write %[[R]], %[[BUF]][%{{.*}}]
// CHECK: call @use(%[[R]])
func.func private @use(vector<16xf32>)
func.func @local_tile(%a: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant dense<0.0> : vector<16xf32>
  %f = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<16xf32>
  vector.transfer_write %z, %buf[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %init = vector.transfer_read %buf[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %x = vector.transfer_read %a[%i, %c0], %f {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32>
    %s = arith.addf %acc, %x : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  vector.transfer_write %r, %buf[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %o = vector.transfer_read %buf[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  func.call @use(%o) : (vector<16xf32>) -> ()
  memref.dealloc %buf : memref<16xf32>
  return
}

// -----

// Function arguments may alias each other: the write through %b may change
// what %a holds, so nothing is forwarded or dropped (upstream
// transferOpflowOpt, which looks at %a's own uses, would forward %v).
// CHECK-LABEL: func.func @arguments
// CHECK: vector.transfer_write %{{.*}}, %arg0
// CHECK: vector.transfer_write %{{.*}}, %arg1
// CHECK: %[[R:.*]] = vector.transfer_read %arg0
// CHECK: vector.transfer_write %{{.*}}, %arg0
// CHECK: return %[[R]]
func.func @arguments(%a: memref<16xf32>, %b: memref<16xf32>, %v: vector<16xf32>, %w: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  vector.transfer_write %v, %a[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  vector.transfer_write %w, %b[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %r = vector.transfer_read %a[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  vector.transfer_write %w, %a[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return %r : vector<16xf32>
}

// -----

// A local buffer that escapes (passed to a call) keeps every access.
// CHECK-LABEL: func.func @escapes
// CHECK: vector.transfer_write
// CHECK-NEXT: vector.transfer_read
// CHECK-NEXT: call @keep
// CHECK-NEXT: vector.transfer_write
func.func private @keep(memref<16xf32>, vector<16xf32>)
func.func @escapes(%v: vector<16xf32>, %w: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<16xf32>
  vector.transfer_write %v, %buf[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %r = vector.transfer_read %buf[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  func.call @keep(%buf, %r) : (memref<16xf32>, vector<16xf32>) -> ()
  vector.transfer_write %w, %buf[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}

// -----

// A read of other elements, or a read between the two writes, keeps the
// first write: only an exact overwrite with nothing reading in between
// makes it dead.
// CHECK-LABEL: func.func @read_between
// CHECK: vector.transfer_write %arg0
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write %arg1
func.func @read_between(%v: vector<8xf32>, %w: vector<8xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<16xf32>
  vector.transfer_write %v, %buf[%c0] {in_bounds = [true]} : vector<8xf32>, memref<16xf32>
  %r = vector.transfer_read %buf[%c4], %f {in_bounds = [true]} : memref<16xf32>, vector<8xf32>
  vector.transfer_write %w, %buf[%c0] {in_bounds = [true]} : vector<8xf32>, memref<16xf32>
  memref.dealloc %buf : memref<16xf32>
  return %r : vector<8xf32>
}

// -----

// Near misses of "the same elements": a write or read that may run out of
// bounds, a masked write, or a read of another vector type keeps both
// accesses.
// CHECK-LABEL: func.func @near_misses
// CHECK: vector.transfer_write %arg0, %[[B:.*]][%arg2] : vector<8xf32>
// CHECK-NEXT: %[[R0:.*]] = vector.transfer_read %[[B]][%arg2]
// CHECK: vector.transfer_write %arg0, %[[B]][%c0], %arg3 {in_bounds = [true]}
// CHECK-NEXT: %[[R1:.*]] = vector.transfer_read %[[B]][%c0]
// CHECK: vector.transfer_write %arg0, %[[B]][%c0] {in_bounds = [true]}
// CHECK-NEXT: %[[R2:.*]] = vector.transfer_read %[[B]][%c0]{{.*}} vector<4xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]]
func.func @near_misses(%v: vector<8xf32>, %w: vector<8xf32>, %i: index, %m: vector<8xi1>) -> (vector<8xf32>, vector<8xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<16xf32>
  vector.transfer_write %v, %buf[%i] : vector<8xf32>, memref<16xf32>
  %r0 = vector.transfer_read %buf[%i], %f : memref<16xf32>, vector<8xf32>
  vector.transfer_write %v, %buf[%c0], %m {in_bounds = [true]} : vector<8xf32>, memref<16xf32>
  %r1 = vector.transfer_read %buf[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<8xf32>
  vector.transfer_write %v, %buf[%c0] {in_bounds = [true]} : vector<8xf32>, memref<16xf32>
  %r2 = vector.transfer_read %buf[%c0], %f {in_bounds = [true]} : memref<16xf32>, vector<4xf32>
  memref.dealloc %buf : memref<16xf32>
  return %r0, %r1, %r2 : vector<8xf32>, vector<8xf32>, vector<4xf32>
}
