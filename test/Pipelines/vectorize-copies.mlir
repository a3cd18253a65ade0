// RUN: posenc-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(posenc-vectorize-copies))" | FileCheck %s
// RUN: posenc-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(posenc-vectorize-copies{max-vector-bits=256}))" | FileCheck %s --check-prefix=NARROW
// RUN: not posenc-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(posenc-vectorize-copies{max-vector-bits=4}))" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: posenc-opt %s --split-input-file --posenc-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// memref.copy that upstream would hand to the runtime's element-by-element
// memrefCopy (a side that is neither identity-laid-out nor static and
// contiguous) becomes a loop over rows of full-row vector transfers when
// the rows are static with unit stride. Copies upstream turns into
// llvm.memcpy, and copies without static unit-stride rows, are left alone.

// BADOPT: posenc-vectorize-copies: max-vector-bits must be at least 8, got 4

// A query tile copied out of a [.., S, D] tensor into its padded buffer.
// CHECK-LABEL: func.func @tile_rows(
// CHECK-SAME: %[[SRC:.*]]: memref<1x8x?x128xf32>, %[[DST:.*]]: memref<64x128xf32>, %[[N:.*]]: index
// CHECK-NOT: memref.copy
// CHECK: %[[S:.*]] = memref.subview %[[SRC]]
// CHECK: %[[D:.*]] = memref.subview %[[DST]]
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1
// CHECK: scf.for %[[J:.*]] = %c0 to %c128 step %c128
// CHECK: %[[ROW:.*]] = vector.transfer_read %[[S]][%[[I]], %[[J]]], %{{.*}} {in_bounds = [true]} : memref<?x128xf32, strided<[128, 1], offset: ?>>, vector<128xf32>
// CHECK: vector.transfer_write %[[ROW]], %[[D]][%[[I]], %[[J]]] {in_bounds = [true]} : vector<128xf32>, memref<?x128xf32, strided<[128, 1]>>
// NARROW-LABEL: func.func @tile_rows(
// NARROW: scf.for %{{.*}} = %c0 to %c128 step %c8
// NARROW: vector.transfer_read {{.*}} vector<8xf32>
// LLVM-LABEL: llvm.func @tile_rows(
// LLVM-NOT: memrefCopy
// LLVM: llvm.load {{.*}} -> vector<128xf32>
// LLVM-NOT: memrefCopy
// LLVM: llvm.return
func.func @tile_rows(%src: memref<1x8x?x128xf32>, %dst: memref<64x128xf32>, %n: index) {
  %c3 = arith.constant 3 : index
  %s = memref.subview %src[0, %c3, 0, 0] [1, 1, %n, 128] [1, 1, 1, 1]
      : memref<1x8x?x128xf32> to memref<?x128xf32, strided<[128, 1], offset: ?>>
  %d = memref.subview %dst[0, 0] [%n, 128] [1, 1]
      : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1]>>
  memref.copy %s, %d : memref<?x128xf32, strided<[128, 1], offset: ?>> to memref<?x128xf32, strided<[128, 1]>>
  return
}

// -----

// Rows of 96 half-precision elements with a row stride of 200: chunks of the
// largest power of two dividing 96 that fits (32 x f16 = 512 bits; 16 with
// 256 bits).
// CHECK-LABEL: func.func @half_rows(
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c32
// CHECK: vector.transfer_read {{.*}} vector<32xf16>
// CHECK: vector.transfer_write {{.*}} vector<32xf16>
// NARROW-LABEL: func.func @half_rows(
// NARROW: vector.transfer_read {{.*}} vector<16xf16>
func.func @half_rows(%src: memref<4x96xf16, strided<[200, 1]>>, %dst: memref<4x96xf16>) {
  memref.copy %src, %dst : memref<4x96xf16, strided<[200, 1]>> to memref<4x96xf16>
  return
}

// -----

// Odd row length: one element per transfer, still no runtime call.
// CHECK-LABEL: func.func @odd_rows(
// CHECK: vector.transfer_read {{.*}} vector<1xf32>
func.func @odd_rows(%src: memref<3x5xf32, strided<[7, 1]>>, %dst: memref<3x5xf32>) {
  memref.copy %src, %dst : memref<3x5xf32, strided<[7, 1]>> to memref<3x5xf32>
  return
}

// -----

// Left alone: both sides contiguous (upstream emits llvm.memcpy), a dynamic
// row length, and a column (stride 2 innermost).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-3: memref.copy
// CHECK-NOT: vector.transfer_read
func.func @left_alone(%a: memref<64xf32>, %b: memref<64xf32>,
                      %c: memref<4x?xf32, strided<[?, 1], offset: ?>>, %d: memref<4x?xf32>,
                      %e: memref<8xf32, strided<[2]>>, %f: memref<8xf32>) {
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  memref.copy %c, %d : memref<4x?xf32, strided<[?, 1], offset: ?>> to memref<4x?xf32>
  memref.copy %e, %f : memref<8xf32, strided<[2]>> to memref<8xf32>
  return
}
