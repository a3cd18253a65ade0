// RUN: posenc-capi-smoke %s | FileCheck %s

// End-to-end check of the C API: this file is both the program's input and
// its FileCheck patterns.

// CHECK: version 1
// CHECK: parse error: broken.mlir:2:18: error: expected SSA operand
// CHECK: signature: {"arguments":[{"element_type":"f32","kind":"tensor","shape":[4,null],"type":"tensor<4x?xf32>"},{"element_type":"f32","kind":"tensor","shape":[4,null],"type":"tensor<4x?xf32>"}],"name":"add","results":[{"element_type":"f32","kind":"tensor","shape":[4,null],"type":"tensor<4x?xf32>"}]}
// CHECK: describe error: no func.func named 'nope'
// CHECK: pipeline error: invalid pass pipeline 'builtin.module(no-such-pass)'
// CHECK: lookup error: cannot find the packed wrapper of '_mlir_ciface_nope'
// CHECK: result sizes 4 x 3, strides 3 1
// CHECK-NEXT: row 0: 0.5 1.5 2.5
// CHECK-NEXT: row 1: 10.5 11.5 12.5
// CHECK-NEXT: row 2: 20.5 21.5 22.5
// CHECK-NEXT: row 3: 30.5 31.5 32.5
// CHECK-NEXT: OK

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c1 : tensor<4x?xf32>
  %init = tensor.empty(%n) : tensor<4x?xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x?xf32>, tensor<4x?xf32>)
      outs(%init : tensor<4x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x?xf32>
  return %sum : tensor<4x?xf32>
}
