// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 key-regions=2" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 key-regions=4 prefetch-tiles=0" | FileCheck %s --check-prefix=NOPF
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 split-k-tasks=1 vector-bits=512 spread-prefetches=0" | FileCheck %s --check-prefix=ORDER
// RUN: not posenc-opt %s --posenc-decompose-attention="rows4-key-tile=0 vector-layout=1 key-regions=0" 2>&1 | FileCheck %s --check-prefix=BAD

// The decode schedule's full key tiles visited over R regions of the
// task's keys (KeyRegions.cpp): n = R q + r full tiles; step j < R q visits
// tile (j mod R) q + min(j mod R, r) + j / R, step j >= R q the last tile
// of region j - R q; the prefetch targets the tile of step j + 1 (past the
// full tiles: the tile j + 1 in key order, clamped to the key end). The
// tail tile stays last, in order.
// CHECK-LABEL: func.func @decode_q1(
// CHECK: %[[Q:.*]] = arith.divui %[[N:.*]], %c2 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[N]], %c2 : index
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %[[N]] step %c1 iter_args
// CHECK-NEXT: %[[RQ:.*]] = arith.muli %[[Q]], %c2 : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[J]], %[[RQ]] : index
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[J]], %[[RQ]] : index
// CHECK-NEXT: %[[MOD:.*]] = arith.remui %[[J]], %c2 : index
// CHECK-NEXT: %[[REG:.*]] = arith.select %[[IN]], %[[MOD]], %[[LAST]] : index
// CHECK-NEXT: %[[DIV:.*]] = arith.divui %[[J]], %c2 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.select %[[IN]], %[[DIV]], %[[Q]] : index
// CHECK-NEXT: %[[MIN:.*]] = arith.minui %[[REG]], %[[R]] : index
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[REG]], %[[Q]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[MIN]] : index
// CHECK-NEXT: %[[TILE:.*]] = arith.addi %[[FIRST]], %[[OFF]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[TILE]], %c64 : index
// CHECK-NEXT: %[[KS:.*]] = arith.addi %[[KB:.*]], %[[ROW]] : index
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[J]], %c1 : index
// CHECK-NEXT: %[[INFULL:.*]] = arith.cmpi ult, %[[AHEAD]], %[[N]] : index
// CHECK-NEXT: %[[RQ2:.*]] = arith.muli %[[Q]], %c2 : index
// CHECK-NEXT: %[[IN2:.*]] = arith.cmpi ult, %[[AHEAD]], %[[RQ2]] : index
// CHECK-NEXT: %[[LAST2:.*]] = arith.subi %[[AHEAD]], %[[RQ2]] : index
// CHECK-NEXT: %[[MOD2:.*]] = arith.remui %[[AHEAD]], %c2 : index
// CHECK-NEXT: %[[REG2:.*]] = arith.select %[[IN2]], %[[MOD2]], %[[LAST2]] : index
// CHECK-NEXT: %[[DIV2:.*]] = arith.divui %[[AHEAD]], %c2 : index
// CHECK-NEXT: %[[OFF2:.*]] = arith.select %[[IN2]], %[[DIV2]], %[[Q]] : index
// CHECK-NEXT: %[[MIN2:.*]] = arith.minui %[[REG2]], %[[R]] : index
// CHECK-NEXT: %[[BASE2:.*]] = arith.muli %[[REG2]], %[[Q]] : index
// CHECK-NEXT: %[[FIRST2:.*]] = arith.addi %[[BASE2]], %[[MIN2]] : index
// CHECK-NEXT: %[[NTILE:.*]] = arith.addi %[[FIRST2]], %[[OFF2]] : index
// CHECK-NEXT: %[[PICK:.*]] = arith.select %[[INFULL]], %[[NTILE]], %[[AHEAD]] : index
// CHECK-NEXT: %[[NROW:.*]] = arith.muli %[[PICK]], %c64 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[KB]], %[[NROW]] : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[NEXT]] : index
// CHECK-NEXT: %[[POS:.*]] = arith.maxsi %c0, %[[LEFT]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.minsi %c64, %[[POS]] : index
// Spread a line at a time (f32 rows of two lines): units [0, 2 rows).
// CHECK: %[[UNITS:.*]] = arith.muli %[[ROWS]], %c2 : index
// CHECK-NEXT: scf.for %[[P:.*]] = %c0 to %[[UNITS]] step %c1 {
// CHECK-NEXT: %[[PROW:.*]] = arith.divui %[[P]], %c2 : index
// CHECK-NEXT: arith.remui %[[P]], %c2 : index
// CHECK-NEXT: arith.addi %[[NEXT]], %[[PROW]] : index
// CHECK-NEXT: arith.muli
// CHECK-NEXT: memref.prefetch
// CHECK: tensor.extract_slice %arg1[%{{.*}}, %{{.*}}, %[[KS]], 0] [1, 1, 64, 32]
// CHECK-NEXT: tensor.extract_slice %arg2[%{{.*}}, %{{.*}}, %[[KS]], 0] [1, 1, 64, 32]
// CHECK: scf.yield
// The tail: keys [fullEnd, kEnd), in key order.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// CHECK-NOT: memref.prefetch
// CHECK: scf.forall.in_parallel
// R = 4 without prefetches: the same order, nothing of the step ahead.
// NOPF-LABEL: func.func @decode_q1(
// NOPF: %[[Q:.*]] = arith.divui %{{.*}}, %c4 : index
// NOPF: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// NOPF-NOT: memref.prefetch
// NOPF: scf.yield
// By default (key-regions=1) the full tiles run in key order.
// ORDER-LABEL: func.func @decode_q1(
// ORDER: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// ORDER-NOT: arith.remui
// ORDER: memref.prefetch
// ORDER: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// BAD: key-regions (0) must be >= 1
func.func @decode_q1(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x8x1x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x1x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// Prefill (Sq > 16) keeps its in-order key loop with the option on.
// CHECK-LABEL: func.func @prefill(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args
// CHECK-NOT: arith.remui %{{.*}}, %c2
// CHECK: return
func.func @prefill(%q: tensor<1x2x40x32xf32>, %k: tensor<1x2x300x32xf32>, %v: tensor<1x2x300x32xf32>) -> tensor<1x2x40x32xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x2x40x32xf32>, tensor<1x2x300x32xf32>, tensor<1x2x300x32xf32> -> tensor<1x2x40x32xf32>
  return %o : tensor<1x2x40x32xf32>
}
