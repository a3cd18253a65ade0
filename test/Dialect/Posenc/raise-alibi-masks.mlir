// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// posenc-raise on score terms written in linalg the way torch-mlir writes
// them: iotas as linalg.index in a generic, masks as arith.cmpi + select,
// ALiBi as slopes times a distance built from the indices. The raising
// evaluates these constant subgraphs and matches them by value.

// -----

// torch-mlir's causal mask: j > i + (Sk - Sq) from two linalg.index, a
// masked_fill with -inf by select: bottom-right causal.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @iota_causal_masked_fill(
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 {causal, scale = 1.000000e+00 : f64}
// CHECK-NOT: arith.select
func.func @iota_causal_masked_fill(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e48 = tensor.empty() : tensor<4x8xi1>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e48 : tensor<4x8xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %off = arith.constant 4 : index
    %ii = arith.addi %i, %off : index
    %b = arith.cmpi sgt, %j, %ii : index
    linalg.yield %b : i1
  } -> tensor<4x8xi1>
  %m = linalg.generic {indexing_maps = [#ij, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %s : tensor<4x8xi1>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%c0: i1, %x: f32, %out: f32):
    %r = arith.select %c0, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention (causal)}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: j > i (top-left aligned with Sq < Sk) is not posenc's causal,
// and a masked_fill cannot be a bias operand: left alone.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @iota_top_left_masked_fill(
// CHECK-NOT: posenc.attention
func.func @iota_top_left_masked_fill(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e48 = tensor.empty() : tensor<4x8xi1>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e48 : tensor<4x8xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %off = arith.constant 0 : index
    %ii = arith.addi %i, %off : index
    %b = arith.cmpi sgt, %j, %ii : index
    linalg.yield %b : i1
  } -> tensor<4x8xi1>
  %m = linalg.generic {indexing_maps = [#ij, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %s : tensor<4x8xi1>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%c0: i1, %x: f32, %out: f32):
    %r = arith.select %c0, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not raised to posenc.attention: a masked_fill whose mask is not the bottom-right causal mask}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: a masked_fill by a run-time boolean mask.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @runtime_masked_fill(
// CHECK-NOT: posenc.attention
func.func @runtime_masked_fill(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>, %rt: tensor<4x8xi1>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %m = linalg.generic {indexing_maps = [#ij, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%rt, %s : tensor<4x8xi1>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%c0: i1, %x: f32, %out: f32):
    %r = arith.select %c0, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not raised to posenc.attention: the masked_fill's mask is not known at compile time}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: a select that writes 0, not a masking value.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @select_zero_is_not_masked_fill(
// CHECK-NOT: posenc.attention
func.func @select_zero_is_not_masked_fill(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e48 = tensor.empty() : tensor<4x8xi1>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e48 : tensor<4x8xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %off = arith.constant 4 : index
    %ii = arith.addi %i, %off : index
    %b = arith.cmpi sgt, %j, %ii : index
    linalg.yield %b : i1
  } -> tensor<4x8xi1>
  %m = linalg.generic {indexing_maps = [#ij, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %s : tensor<4x8xi1>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%c0: i1, %x: f32, %out: f32):
    %r = arith.select %c0, %zero, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{not raised to posenc.attention: the select on the scores is not a masked_fill with -inf or the lowest finite value}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The paper's ALiBi, slope[h] * (j - i') with i' = i + Sk - Sq, built from
// linalg.index, then the causal masked_fill. The slopes 2^-4, 2^-8 are
// SPEC.md's rule for 2 heads with max_bias 8: the attribute form.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @alibi_distance_and_causal(
// CHECK: %[[A:.*]] = posenc.alibi_bias : tensor<2x4x8xf32>
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 bias(%[[A]] : tensor<2x4x8xf32>) {causal, scale = 1.000000e+00 : f64}
func.func @alibi_distance_and_causal(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e48 = tensor.empty() : tensor<4x8xi1>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e48 : tensor<4x8xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %off = arith.constant 4 : index
    %ii = arith.addi %i, %off : index
    %b = arith.cmpi sgt, %j, %ii : index
    linalg.yield %b : i1
  } -> tensor<4x8xi1>
  %slopes = arith.constant dense<[0.0625, 0.00390625]> : tensor<2xf32>
  %eb = tensor.empty() : tensor<2x4x8xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%slopes : tensor<2xf32>) outs(%eb : tensor<2x4x8xf32>) {
  ^bb0(%sl: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %i0 = arith.constant 0 : index
    %d0 = arith.subi %j, %i : index
    %four = arith.constant 4 : index
    %d = arith.subi %d0, %four : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %b = arith.mulf %sl, %df : f32
    linalg.yield %b : f32
  } -> tensor<2x4x8xf32>
  %ab = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %m = linalg.generic {indexing_maps = [#ij, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %ab : tensor<4x8xi1>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%c0: i1, %x: f32, %out: f32):
    %r = arith.select %c0, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention (causal) with ALiBi}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// BLOOM's form slope[h] * j (a constant per row away from the paper's),
// with slopes no rule gives: they become the explicit slopes operand.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @alibi_bloom_form_own_slopes(
// CHECK: %[[S:.*]] = arith.constant dense<[3.000000e-01, 1.000000e-01]> : tensor<2xf32>
// CHECK: %[[A:.*]] = posenc.alibi_bias slopes(%[[S]] : tensor<2xf32>) : tensor<2x4x8xf32>
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 bias(%[[A]] : tensor<2x4x8xf32>) {scale = 1.000000e+00 : f64}
func.func @alibi_bloom_form_own_slopes(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %slopes = arith.constant dense<[0.3, 0.1]> : tensor<2xf32>
  %eb = tensor.empty() : tensor<2x4x8xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%slopes : tensor<2xf32>) outs(%eb : tensor<2x4x8xf32>) {
  ^bb0(%sl: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %i0 = arith.constant 0 : index
    %d = arith.addi %j, %i0 : index

    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %b = arith.mulf %sl, %df : f32
    linalg.yield %b : f32
  } -> tensor<2x4x8xf32>
  %m = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention with ALiBi}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Near miss: slope[h] * j * i has a different slope on every row, so it is
// not ALiBi; as a constant term it stays the (exact) bias operand.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#ij = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @alibi_rows_times_i_not_alibi(
// CHECK-NOT: posenc.alibi_bias
// CHECK: posenc.attention %arg0, %{{.*}}, %arg2 bias(%{{.*}} : tensor<2x4x8xf32>) {scale = 1.000000e+00 : f64}
func.func @alibi_rows_times_i_not_alibi(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x8xf32>,
    %v: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x4x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zs : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %slopes = arith.constant dense<[0.0625, 0.00390625]> : tensor<2xf32>
  %eb = tensor.empty() : tensor<2x4x8xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%slopes : tensor<2xf32>) outs(%eb : tensor<2x4x8xf32>) {
  ^bb0(%sl: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %i0 = arith.constant 0 : index
    %d = arith.muli %j, %i : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %b = arith.mulf %sl, %df : f32
    linalg.yield %b : f32
  } -> tensor<2x4x8xf32>
  %m = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x4x8xf32>) outs(%es : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @below {{raised to posenc.attention}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x8xf32>) outs(%zo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
