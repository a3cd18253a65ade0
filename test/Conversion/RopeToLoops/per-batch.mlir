// RUN: posenc-opt %s --posenc-lower-rope | FileCheck %s

// Per-batch positions [B, S] (docs/spec.md): the cos/sin table depends on
// the batch, so the parallel loop runs over (batch, block of rows); each
// block reads positions[b, s] for its table and writes its batch's slice.

// CHECK-LABEL: func.func @rope_per_batch(
// CHECK-SAME: %[[X:.*]]: tensor<2x8x3x64xf32>, %[[P:.*]]: tensor<2x3xi32>)
// CHECK: scf.forall (%[[B:.*]], %[[BLK:.*]]) in (2, %{{.*}})
// CHECK:   tensor.extract %[[P]][%[[B]], %{{.*}}] : tensor<2x3xi32>
// CHECK:   %[[OUT:.*]] = tensor.extract_slice %{{.*}}[%[[B]], 0, %{{.*}}, 0] [1, 8, %{{.*}}, 64] [1, 1, 1, 1] : tensor<2x8x3x64xf32> to tensor<1x8x?x64xf32>
// CHECK:   vector.transfer_read %[[X]][%[[B]], %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:   vector.transfer_write %{{.*}}, %{{.*}}[%c0, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[B]], 0, %{{.*}}, 0] [1, 8, %{{.*}}, 64]
func.func @rope_per_batch(%x: tensor<2x8x3x64xf32>, %pos: tensor<2x3xi32>) -> tensor<2x8x3x64xf32> {
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x3x64xf32>, tensor<2x3xi32>
  return %0 : tensor<2x8x3x64xf32>
}
