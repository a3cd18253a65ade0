// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s

// posenc-raise on attention as StableHLO's dot_general with two batch dims
// (JAX's `bhqd,bhkd->bhqk` einsum) reaches linalg: each product is one
// contraction linalg.generic over [b, h, m, n, k] into a zero-filled init,
// not a linalg.batch_matmul. Next to a softmax they become batch_matmuls on
// the flattened (b, h) dims (an exact rewrite) and then posenc.attention;
// contractions that are not the two products of an attention stay as they
// are.

// CHECK-LABEL: func.func @einsum_attention(
// CHECK: %[[R:.*]] = posenc.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 0.353553
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: tensor.expand_shape %[[R]]
#qk_a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#qk_b = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#pv_b = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#out = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#mask = affine_map<(b, h, i, j) -> (i, j)>
func.func @einsum_attention(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.35355339 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#qk_a, #qk_b, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) outs(%z : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %mask = arith.constant dense<[[0.0, -3.4028234663852886e+38, -3.4028234663852886e+38, -3.4028234663852886e+38], [0.0, 0.0, -3.4028234663852886e+38, -3.4028234663852886e+38], [0.0, 0.0, 0.0, -3.4028234663852886e+38], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %sm = linalg.generic {indexing_maps = [#id, #mask, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ss, %mask : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %mk: f32, %o: f32):
    %m = arith.addf %a, %mk : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %eo = tensor.empty() : tensor<1x2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#qk_a, #pv_b, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) outs(%zo : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// A Q.K^T-shaped contraction that feeds no softmax is left alone.
// CHECK-LABEL: func.func @contraction_alone(
// CHECK: linalg.generic
// CHECK-NOT: linalg.batch_matmul
#qk_a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#qk_b = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#out = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
func.func @contraction_alone(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#qk_a, #qk_b, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) outs(%z : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  return %s : tensor<1x2x4x4xf32>
}

// -----

// P.V accumulating into a caller's tensor (not a zero fill) is not
// attention's second product: nothing is rewritten.
// CHECK-LABEL: func.func @pv_accumulates(
// CHECK: linalg.softmax
// CHECK: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: posenc.attention
#pv_a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#pv_b = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#pv_o = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
func.func @pv_accumulates(%s: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x8xf32>, %acc: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %o = linalg.generic {indexing_maps = [#pv_a, #pv_b, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) outs(%acc : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// A body that is not out + a * b (here out - a * b) is not a contraction.
// CHECK-LABEL: func.func @not_a_sum_of_products(
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: posenc.attention
#pv_a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#pv_b = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#pv_o = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
func.func @not_a_sum_of_products(%s: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %eo = tensor.empty() : tensor<1x2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#pv_a, #pv_b, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) outs(%zo : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.subf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
