// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on attention written directly in linalg (as torch-mlir and
// StableHLO's legalization write it, rather than through TOSA):
// linalg.softmax, a divide by a captured scalar scale, K transposed by a
// rank-3 linalg.transpose, GQA by linalg.broadcast + collapse_shape.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linalg_softmax_broadcast_gqa(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>
// CHECK-DAG: %[[K3:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// CHECK-DAG: %[[V3:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// CHECK: %[[O:.*]] = posenc.attention %[[Q]], %[[K3]], %[[V3]] {scale = 2.500000e-01 : f64} : tensor<4x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<4x8x16xf32>
// CHECK-NEXT: return %[[O]]
func.func @linalg_softmax_broadcast_gqa(%q: tensor<4x8x16xf32>, %k: tensor<1x2x8x16xf32>,
                                        %v: tensor<1x2x8x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  // repeat_kv: [1, 2, 8, 16] -> [1, 2, 2, 8, 16] -> [4, 8, 16]
  %e5 = tensor.empty() : tensor<1x2x2x8x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x8x16xf32>) outs(%e5 : tensor<1x2x2x8x16xf32>) dimensions = [2]
  %k3 = tensor.collapse_shape %kb [[0, 1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<4x8x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x8x16xf32>) outs(%e5 : tensor<1x2x2x8x16xf32>) dimensions = [2]
  %v3 = tensor.collapse_shape %vb [[0, 1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<4x8x16xf32>
  %et = tensor.empty() : tensor<4x16x8xf32>
  %kt = linalg.transpose ins(%k3 : tensor<4x8x16xf32>) outs(%et : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<4x8x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%zs : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x8x8xf32>) outs(%es : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %four : f32
    linalg.yield %d : f32
  } -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x8x8xf32>) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %eo = tensor.empty() : tensor<4x8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  // expected-remark @below {{raised to posenc.attention with GQA repeat 2}}
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%zo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// -----

// Decomposed softmax as torch-mlir writes it: reduction linalg.generics
// (maxnumf from -inf, addf from 0), the reduced values read through
// dropped-dim maps, e / sum by divf.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @generic_reductions_divf(
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 {scale = 1.000000e+00 : f64}
// CHECK-NOT: linalg.batch_matmul
func.func @generic_reductions_divf(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>,
                                   %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%zs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x4x4xf32>) outs(%mi : tensor<2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %x = arith.maxnumf %in, %acc : f32
    linalg.yield %x : f32
  } -> tensor<2x4xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %m : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x4xf32>) outs(%zi : tensor<2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %y = arith.addf %in, %acc : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %y = arith.divf %in, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: the max-reduction starts from 0, not -inf, so it computes
// max(row, 0): for a row of scores far below 0, every exp underflows and
// the graph divides 0 by 0 where posenc.attention does not. Left alone.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @max_init_zero(
// CHECK-NOT: posenc.attention
func.func @max_init_zero(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>,
                         %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%zs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %mi = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.reduce ins(%s : tensor<2x4x4xf32>) outs(%mi : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %x = arith.maximumf %in, %acc : f32
      linalg.yield %x : f32
    }
  %e = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %m : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %sum = linalg.reduce ins(%x : tensor<2x4x4xf32>) outs(%mi : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %y = arith.addf %in, %acc : f32
      linalg.yield %y : f32
    }
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %y = arith.divf %in, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not raised to posenc.attention: P is not a softmax: the max-reduction does not combine with maximumf/maxnumf from a -inf or lowest-finite init}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// torch-mlir's softmax decomposition: aten.max.dim as one reduction
// generic computing the max and the argmax (two results), then subtract,
// exp, a sum-reduction and a divide.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @torch_max_dim_softmax(
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 {scale = 1.000000e+00 : f64}
// CHECK-NOT: linalg.batch_matmul
func.func @torch_max_dim_softmax(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>,
                  %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0i = arith.constant 0 : i64
  %es = tensor.empty() : tensor<2x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%zs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // aten.max.dim: values and indices in one reduction generic.
  %er = tensor.empty() : tensor<2x4xf32>
  %ei = tensor.empty() : tensor<2x4xi64>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ii = linalg.fill ins(%c0i : i64) outs(%ei : tensor<2x4xi64>) -> tensor<2x4xi64>
  %max:2 = linalg.generic {indexing_maps = [#id3, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x4x4xf32>) outs(%mi, %ii : tensor<2x4xf32>, tensor<2x4xi64>) {
  ^bb0(%in: f32, %acc: f32, %idx: i64):
    %j = linalg.index 2 : index
    %ji = arith.index_cast %j : index to i64
    %m = arith.maximumf %in, %acc : f32
    %gt = arith.cmpf ogt, %in, %acc : f32
    %ni = arith.select %gt, %ji, %idx : i64
    linalg.yield %m, %ni : f32, i64
  } -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %x = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max#0 : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4xf32>
  %e = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x4x4xf32>) outs(%zr : tensor<2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: maximumf(%in, %in) ignores the accumulator, so the
// "reduction" yields the last score of the row, not its max.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @max_of_input_with_itself(
// CHECK-NOT: posenc.attention
func.func @max_of_input_with_itself(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>,
                  %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0i = arith.constant 0 : i64
  %es = tensor.empty() : tensor<2x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%zs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // aten.max.dim: values and indices in one reduction generic.
  %er = tensor.empty() : tensor<2x4xf32>
  %ei = tensor.empty() : tensor<2x4xi64>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ii = linalg.fill ins(%c0i : i64) outs(%ei : tensor<2x4xi64>) -> tensor<2x4xi64>
  %max:2 = linalg.generic {indexing_maps = [#id3, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x4x4xf32>) outs(%mi, %ii : tensor<2x4xf32>, tensor<2x4xi64>) {
  ^bb0(%in: f32, %acc: f32, %idx: i64):
    %j = linalg.index 2 : index
    %ji = arith.index_cast %j : index to i64
    %m = arith.maximumf %in, %in : f32
    %gt = arith.cmpf ogt, %in, %acc : f32
    %ni = arith.select %gt, %ji, %idx : i64
    linalg.yield %m, %ni : f32, i64
  } -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %x = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max#0 : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4xf32>
  %e = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x4x4xf32>) outs(%zr : tensor<2x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not raised to posenc.attention: P is not a softmax: exp's argument is not x - max(x)}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
