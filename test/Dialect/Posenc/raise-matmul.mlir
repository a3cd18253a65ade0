// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on attention products written as 2-D linalg.matmul (a
// single head, or a graph that flattened its heads away) and as
// contraction generics whose reduction loop is not the last loop. They are
// rewritten into the batch_matmul form the attention matcher reads (a unit
// batch dim for 2-D), an exact rewrite, then raised.

// -----

// MLIR 22 spells matmul_transpose_b as linalg.matmul with indexing maps
// (K read as [n, k]); P.V a plain linalg.matmul.
#qk_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#qk_b = affine_map<(d0, d1, d2) -> (d1, d2)>
#qk_c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_b_maps(
// CHECK-SAME: %[[Q:.*]]: tensor<8x16xf32>, %[[K:.*]]: tensor<12x16xf32>, %[[V:.*]]: tensor<12x16xf32>
// CHECK-DAG: %[[Q3:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2]] {{.*}} into tensor<1x8x16xf32>
// CHECK-DAG: %[[K3:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0, 1], [2]] {{.*}} into tensor<1x12x16xf32>
// CHECK-DAG: %[[V3:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1], [2]] {{.*}} into tensor<1x12x16xf32>
// CHECK: %[[O:.*]] = posenc.attention %[[Q3]], %[[K3]], %[[V3]] {scale = 2.500000e-01 : f64} : tensor<1x8x16xf32>, tensor<1x12x16xf32>, tensor<1x12x16xf32> -> tensor<1x8x16xf32>
// CHECK: %[[O2:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK-NEXT: return %[[O2]]
func.func @matmul_transpose_b_maps(%q: tensor<8x16xf32>, %k: tensor<12x16xf32>,
                                   %v: tensor<12x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<8x12xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x12xf32>) -> tensor<8x12xf32>
  %s = linalg.matmul indexing_maps = [#qk_a, #qk_b, #qk_c]
      ins(%q, %k : tensor<8x16xf32>, tensor<12x16xf32>) outs(%zs : tensor<8x12xf32>) -> tensor<8x12xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x12xf32>) outs(%es : tensor<8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %in, %quarter : f32
    linalg.yield %d : f32
  } -> tensor<8x12xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<8x12xf32>) outs(%es : tensor<8x12xf32>) -> tensor<8x12xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @below {{raised to posenc.attention}}
  %o = linalg.matmul ins(%p, %v : tensor<8x12xf32>, tensor<12x16xf32>) outs(%zo : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Dynamic length, K^T by a 2-D linalg.transpose, the default matmul maps,
// torch-mlir's triu causal mask with the broadcast assert: causal.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dynamic_matmul_transpose_causal(
// CHECK: posenc.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 2.500000e-01 : f64} : tensor<1x?x16xf32>, tensor<1x?x16xf32>, tensor<1x?x16xf32> -> tensor<1x?x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.batch_matmul
func.func @dynamic_matmul_transpose_causal(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>,
                                           %v: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %sq = tensor.dim %q, %c0 : tensor<?x16xf32>
  %sk = tensor.dim %k, %c0 : tensor<?x16xf32>
  %et = tensor.empty(%sk) : tensor<16x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x16xf32>) outs(%et : tensor<16x?xf32>) permutation = [1, 0]
  %es = tensor.empty(%sq, %sk) : tensor<?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<?x16xf32>, tensor<16x?xf32>) outs(%zs : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %in, %quarter : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  %em = tensor.empty(%sq, %sq) : tensor<?x?xf32>
  %full = linalg.fill ins(%lowest : f32) outs(%em : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mask = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%full : tensor<?x?xf32>) outs(%em : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %b = arith.cmpi sgt, %j, %i : index
    %r = arith.select %b, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %d1 = tensor.dim %mask, %c0 : tensor<?x?xf32>
  %eq = arith.cmpi eq, %d1, %sk : index
  cf.assert %eq, "mismatched size for broadcast"
  %sm = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ss, %mask : tensor<?x?xf32>, tensor<?x?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<?x?xf32>) outs(%es : tensor<?x?xf32>) -> tensor<?x?xf32>
  %eo = tensor.empty(%sq) : tensor<?x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x16xf32>) -> tensor<?x16xf32>
  // expected-remark @below {{raised to posenc.attention (causal)}}
  %o = linalg.matmul ins(%p, %v : tensor<?x?xf32>, tensor<?x16xf32>) outs(%zo : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %o : tensor<?x16xf32>
}

// -----

// Contraction generics whose reduction loop is not the last: Q.K^T over
// loops (b, h, m, k, n), P.V over (b, h, k, m, n).
#qa = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#qb = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#qc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#pa = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d2)>
#pb = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#pc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @generic_reduction_not_last(
// CHECK: posenc.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.000000e+00 : f64} : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x16xf32>
// CHECK-NOT: linalg.generic
func.func @generic_reduction_not_last(%q: tensor<2x2x8x16xf32>, %k: tensor<2x2x8x16xf32>,
                                      %v: tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x2x8x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qa, #qb, #qc], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%q, %k : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) outs(%zs : tensor<2x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x8xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<2x2x8x8xf32>) outs(%es : tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %eo = tensor.empty() : tensor<2x2x8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
  // expected-remark @below {{raised to posenc.attention}}
  %o = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>) outs(%zo : tensor<2x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8x16xf32>
  return %o : tensor<2x2x8x16xf32>
}

// -----

// Near miss: P read transposed ((k, m): P^T . V, not P . V). Left alone.
#pa = affine_map<(d0, d1, d2) -> (d2, d0)>
#pb = affine_map<(d0, d1, d2) -> (d2, d1)>
#pc = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transposed_p(
// CHECK-NOT: posenc.attention
func.func @matmul_transposed_p(%s: tensor<8x8xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @below {{not raised to posenc.attention: the P.V product is not a contraction out + P * V read as [L..., m, k] x [L..., k, n]}}
  %o = linalg.matmul indexing_maps = [#pa, #pb, #pc]
      ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%zo : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Near miss: the P.V matmul accumulates into the scores' own values (an
// init that is not zero-filled). Left alone.
// CHECK-LABEL: func.func @matmul_accumulates(
// CHECK-NOT: posenc.attention
func.func @matmul_accumulates(%s: tensor<8x8xf32>, %v: tensor<8x16xf32>,
                              %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %es = tensor.empty() : tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{not raised to posenc.attention: the P.V product is not a contraction}}
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
