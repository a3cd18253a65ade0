// RUN: posenc-opt %s --split-input-file --posenc-results-to-destinations=function=f | FileCheck %s --check-prefix=REWRITE
// RUN: posenc-opt %s --split-input-file --posenc-results-to-destinations=function=f --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: posenc-opt %s --split-input-file --posenc-results-to-destinations=function=f --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTENTION
// RUN: not posenc-opt %s --split-input-file --posenc-results-to-destinations=function=missing -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING

// Destination-passing calls: the results become memref arguments written in
// place. After the CPU pipeline nothing of the result's size is allocated
// or copied: the rotation and the fused attention write straight into the
// caller's buffer.

// REWRITE-LABEL: func.func @f(%{{.*}}: tensor<1x4x64x128xf32>
// REWRITE-SAME: , %{{.*}}: tensor<64xi32>, %[[OUT:.*]]: memref<1x4x64x128xf32>) {
// REWRITE: %[[R:.*]] = posenc.rope
// REWRITE: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// REWRITE-NEXT: return{{$}}

// BUFFERS-LABEL: func.func @f(%arg0: memref<1x4x64x128xf32>
// BUFFERS-SAME: %[[OUT:arg2]]: memref<1x4x64x128xf32>) {
// BUFFERS-NOT: memref.alloc() {{.*}}: memref<1x4x64x128xf32>
// BUFFERS-NOT: memref.copy {{.*}} to memref<1x4x64x128xf32>
// BUFFERS: memref.subview %[[OUT]]
// BUFFERS-NOT: memref.alloc() {{.*}}: memref<1x4x64x128xf32>
// BUFFERS-NOT: memref.copy {{.*}} to memref<1x4x64x128xf32>
// BUFFERS: return
func.func @f(%x: tensor<1x4x64x128xf32>, %p: tensor<64xi32>) -> tensor<1x4x64x128xf32> {
  %r = posenc.rope %x, %p layout interleaved : tensor<1x4x64x128xf32>, tensor<64xi32>
  return %r : tensor<1x4x64x128xf32>
}

// -----

// ATTENTION-LABEL: func.func @f(%arg0: memref<1x4x128x64xf32>
// ATTENTION-SAME: %[[OUT:arg3]]: memref<1x4x128x64xf32>) {
// ATTENTION-NOT: memref.alloc() {{.*}}: memref<1x4x128x64xf32>
// ATTENTION-NOT: memref.copy {{.*}} to memref<1x4x128x64xf32>
// ATTENTION: memref.subview %[[OUT]]
// ATTENTION-NOT: memref.alloc() {{.*}}: memref<1x4x128x64xf32>
// ATTENTION-NOT: memref.copy {{.*}} to memref<1x4x128x64xf32>
// ATTENTION: return
func.func @f(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>,
                     %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}

// -----

// A returned argument is copied into the destination (nothing else could
// put it there).
// REWRITE-LABEL: func.func @f(%arg0: tensor<4x8xf32>
// REWRITE-SAME: %[[OUT:[a-z0-9]+]]: memref<4x8xf32>)
// REWRITE: bufferization.materialize_in_destination %arg0 in restrict writable %[[OUT]]
// BUFFERS-LABEL: func.func @f(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>)
// BUFFERS: memref.copy %arg0, %arg1
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// MISSING: error: posenc-results-to-destinations: no function with a body named 'missing'
