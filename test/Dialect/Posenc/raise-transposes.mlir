// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s

// The transposes of a GQA repeat (RaiseTransposes.cpp) on their own:
// torch-mlir's repeat_kv (unsqueeze, a copy generic reading the unit dim at
// 0, reshape) followed by Meta's `transpose(1, 2)` becomes HuggingFace's
// order, the repeat (a linalg.broadcast) of the transposed kv heads; the
// same data moved, so the result is the same tensor.

// CHECK-LABEL: func.func @repeat_then_transpose(
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<1x6x2x8xf32>) outs(%{{.*}} : tensor<1x2x6x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[B:.*]] = linalg.broadcast ins(%[[T]] : tensor<1x2x6x8xf32>) outs(%{{.*}} : tensor<1x2x3x6x8xf32>) dimensions = [2]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x6x8xf32> into tensor<1x6x6x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @repeat_then_transpose(%k: tensor<1x6x2x8xf32>) -> tensor<1x6x6x8xf32> {
  %k5 = tensor.expand_shape %k [[0], [1], [2, 3], [4]] output_shape [1, 6, 2, 1, 8] : tensor<1x6x2x8xf32> into tensor<1x6x2x1x8xf32>
  %e = tensor.empty() : tensor<1x6x2x3x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k5 : tensor<1x6x2x1x8xf32>) outs(%e : tensor<1x6x2x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x6x2x3x8xf32>
  %c = tensor.collapse_shape %r [[0], [1], [2, 3], [4]] : tensor<1x6x2x3x8xf32> into tensor<1x6x6x8xf32>
  %et = tensor.empty() : tensor<1x6x6x8xf32>
  %t = linalg.transpose ins(%c : tensor<1x6x6x8xf32>) outs(%et : tensor<1x6x6x8xf32>) permutation = [0, 2, 1, 3]
  return %t : tensor<1x6x6x8xf32>
}

// -----

// Meta's `keys.transpose(1, 2)` and `.transpose(2, 3)` folded into one
// permutation [0, 2, 3, 1]: the leading part moves above the repeat, the
// swap of the last two dims (K^T) stays after it, where the attention
// matcher reads it.
// CHECK-LABEL: func.func @repeat_then_key_transpose(
// CHECK: linalg.transpose ins(%arg0 : tensor<1x6x2x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// CHECK: linalg.broadcast {{.*}} dimensions = [2]
// CHECK: %[[C:.*]] = tensor.collapse_shape
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]] : tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x6x8x6xf32>) permutation = [0, 1, 3, 2]
// CHECK-NEXT: return %[[T]]
func.func @repeat_then_key_transpose(%k: tensor<1x6x2x8xf32>) -> tensor<1x6x8x6xf32> {
  %k5 = tensor.expand_shape %k [[0], [1], [2, 3], [4]] output_shape [1, 6, 2, 1, 8] : tensor<1x6x2x8xf32> into tensor<1x6x2x1x8xf32>
  %e = tensor.empty() : tensor<1x6x2x3x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k5 : tensor<1x6x2x1x8xf32>) outs(%e : tensor<1x6x2x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x6x2x3x8xf32>
  %c = tensor.collapse_shape %r [[0], [1], [2, 3], [4]] : tensor<1x6x2x3x8xf32> into tensor<1x6x6x8xf32>
  %et = tensor.empty() : tensor<1x6x8x6xf32>
  %t = linalg.transpose ins(%c : tensor<1x6x6x8xf32>) outs(%et : tensor<1x6x8x6xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x6x8x6xf32>
}

// -----

// Left alone: a swap of the last two dims only (HuggingFace's K^T after its
// repeat of the kv heads).
// CHECK-LABEL: func.func @key_transpose_only(
// CHECK: linalg.generic
// CHECK: tensor.collapse_shape
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 3, 2]
func.func @key_transpose_only(%k: tensor<1x2x6x8xf32>) -> tensor<1x6x8x6xf32> {
  %k5 = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 6, 8] : tensor<1x2x6x8xf32> into tensor<1x2x1x6x8xf32>
  %e = tensor.empty() : tensor<1x2x3x6x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k5 : tensor<1x2x1x6x8xf32>) outs(%e : tensor<1x2x3x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x3x6x8xf32>
  %c = tensor.collapse_shape %r [[0], [1, 2], [3], [4]] : tensor<1x2x3x6x8xf32> into tensor<1x6x6x8xf32>
  %et = tensor.empty() : tensor<1x6x8x6xf32>
  %t = linalg.transpose ins(%c : tensor<1x6x6x8xf32>) outs(%et : tensor<1x6x8x6xf32>) permutation = [0, 1, 3, 2]
  return %t : tensor<1x6x8x6xf32>
}
