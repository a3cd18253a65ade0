// RUN: posenc-opt %s --split-input-file --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s
// RUN: posenc-opt %s --split-input-file --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREFETCH
// RUN: posenc-opt %s --split-input-file --posenc-cpu-pipeline="reference=true" --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s

// A KV cache used in place: a decode step rotates the new key rows and
// appends them (and the new value rows) into the preallocated caches with
// tensor.insert_slice in destination-passing style, then attends over the
// caches. After bufferization the new rows are written straight into views
// of the caller's cache buffers: no buffer of the cache's size is allocated
// and the cache is never copied (the only copy is the new value row itself,
// into its slot). Both CPU paths. (The fused decode schedule's software
// prefetches name the caller's cache buffer itself: read in place.)

// CHECK-LABEL: func.func @append_rotated_kv(
// CHECK-SAME: %[[CK:[a-z0-9]+]]: memref<1x2x64x32xf32>, %[[CV:[a-z0-9]+]]: memref<1x2x64x32xf32>, %[[KN:[a-z0-9]+]]: memref<1x2x1x32xf32>, %[[VN:[a-z0-9]+]]: memref<1x2x1x32xf32>
// CHECK-NOT: memref<1x2x64x32xf32>{{$}}
// CHECK: %[[SK:.*]] = memref.subview %[[CK]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK-NOT: memref<1x2x64x32xf32>{{$}}
// CHECK: {{vector.transfer_write|linalg.generic}}{{.*}}%[[SK]]
// CHECK-NOT: memref<1x2x64x32xf32>{{$}}
// CHECK: %[[SV:.*]] = memref.subview %[[CV]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK: memref.copy %[[VN]], %[[SV]] : memref<1x2x1x32xf32> to
// CHECK-NOT: memref<1x2x64x32xf32>{{$}}
// CHECK: return
func.func @append_rotated_kv(%cache_k: memref<1x2x64x32xf32>, %cache_v: memref<1x2x64x32xf32>,
                             %k_new: tensor<1x2x1x32xf32>, %v_new: tensor<1x2x1x32xf32>,
                             %pos: tensor<1xi32>, %at: index) {
  %ck = bufferization.to_tensor %cache_k restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %cv = bufferization.to_tensor %cache_v restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %kr = posenc.rope %k_new, %pos layout half : tensor<1x2x1x32xf32>, tensor<1xi32>
  %k2 = tensor.insert_slice %kr into %ck[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  %v2 = tensor.insert_slice %v_new into %cv[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  bufferization.materialize_in_destination %k2 in restrict writable %cache_k : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  bufferization.materialize_in_destination %v2 in restrict writable %cache_v : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @decode_step(
// CHECK-SAME: %[[CK:[a-z0-9]+]]: memref<1x2x64x32xf32>, %[[CV:[a-z0-9]+]]: memref<1x2x64x32xf32>
// PREFETCH-LABEL: func.func @decode_step(
// PREFETCH-SAME: %[[CK:[a-z0-9]+]]: memref<1x2x64x32xf32>, %[[CV:[a-z0-9]+]]: memref<1x2x64x32xf32>
// PREFETCH: memref.prefetch %[[CK]][
// PREFETCH: memref.prefetch %[[CV]][
// CHECK-NOT: {{(alloc|copy|clone).*}}memref<1x2x64x32xf32>{{$}}
// CHECK-DAG: memref.subview %[[CK]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK-DAG: memref.subview %[[CV]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK-NOT: {{(alloc|copy|clone).*}}memref<1x2x64x32xf32>{{$}}
// CHECK: return
func.func @decode_step(%cache_k: memref<1x2x64x32xf32>, %cache_v: memref<1x2x64x32xf32>,
                       %q: tensor<1x4x1x32xf32>, %k_new: tensor<1x2x1x32xf32>, %v_new: tensor<1x2x1x32xf32>,
                       %pos: tensor<1xi32>, %at: index, %out: memref<1x4x1x32xf32>) {
  %ck = bufferization.to_tensor %cache_k restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %cv = bufferization.to_tensor %cache_v restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %kr = posenc.rope %k_new, %pos layout half : tensor<1x2x1x32xf32>, tensor<1xi32>
  %k2 = tensor.insert_slice %kr into %ck[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  %v2 = tensor.insert_slice %v_new into %cv[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  %qr = posenc.rope %q, %pos layout half : tensor<1x4x1x32xf32>, tensor<1xi32>
  %o = posenc.attention %qr, %k2, %v2 {causal} : tensor<1x4x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x4x1x32xf32>
  bufferization.materialize_in_destination %k2 in restrict writable %cache_k : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  bufferization.materialize_in_destination %v2 in restrict writable %cache_v : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  bufferization.materialize_in_destination %o in restrict writable %out : (tensor<1x4x1x32xf32>, memref<1x4x1x32xf32>) -> ()
  return
}

// -----

// The same decode step attending over the whole preallocated cache with
// kv_lengths (no extract_slice of the rows so far) and the new rows rotated
// at per-batch positions [B, 1]: still written into views of the caller's
// caches, which are read in place and never copied.

// CHECK-LABEL: func.func @decode_step_kv_lengths(
// CHECK-SAME: %[[CK:[a-z0-9]+]]: memref<1x2x64x32xf32>, %[[CV:[a-z0-9]+]]: memref<1x2x64x32xf32>
// CHECK-NOT: {{(alloc|copy|clone).*}}memref<1x2x64x32xf32>{{$}}
// CHECK-DAG: memref.subview %[[CK]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK-DAG: memref.subview %[[CV]][0, 0, %{{.*}}, 0] [1, 2, 1, 32] [1, 1, 1, 1]
// CHECK-NOT: {{(alloc|copy|clone).*}}memref<1x2x64x32xf32>{{$}}
// CHECK: return
func.func @decode_step_kv_lengths(%cache_k: memref<1x2x64x32xf32>, %cache_v: memref<1x2x64x32xf32>,
                                  %q: tensor<1x4x1x32xf32>, %k_new: tensor<1x2x1x32xf32>, %v_new: tensor<1x2x1x32xf32>,
                                  %pos: tensor<1x1xi32>, %at: index, %len: tensor<1xi32>, %out: memref<1x4x1x32xf32>) {
  %ck = bufferization.to_tensor %cache_k restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %cv = bufferization.to_tensor %cache_v restrict writable : memref<1x2x64x32xf32> to tensor<1x2x64x32xf32>
  %kr = posenc.rope %k_new, %pos layout half : tensor<1x2x1x32xf32>, tensor<1x1xi32>
  %k2 = tensor.insert_slice %kr into %ck[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  %v2 = tensor.insert_slice %v_new into %cv[0, 0, %at, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x64x32xf32>
  %qr = posenc.rope %q, %pos layout half : tensor<1x4x1x32xf32>, tensor<1x1xi32>
  %o = posenc.attention %qr, %k2, %v2 kv_lengths(%len : tensor<1xi32>) {causal} : tensor<1x4x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x4x1x32xf32>
  bufferization.materialize_in_destination %k2 in restrict writable %cache_k : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  bufferization.materialize_in_destination %v2 in restrict writable %cache_v : (tensor<1x2x64x32xf32>, memref<1x2x64x32xf32>) -> ()
  bufferization.materialize_in_destination %o in restrict writable %out : (tensor<1x4x1x32xf32>, memref<1x4x1x32xf32>) -> ()
  return
}
