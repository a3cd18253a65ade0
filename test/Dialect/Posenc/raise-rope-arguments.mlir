// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// RoPE whose cos/sin arrive as function arguments (HuggingFace computes them
// once per forward and passes them to every layer; `apply_rotary_pos_emb`
// unsqueezes them to [B, 1, S, D] and computes x*cos + rotate_half(x)*sin)
// raises to the table form of posenc.rope, in the form torch-mlir's
// TorchToLinalg writes it: unsqueeze as tensor.expand_shape, rotate_half as
// two extract_slices, an arith.negf generic and tensor.concat, the products
// as elementwise generics that broadcast the tables through constant-0 (unit
// dim) or dropped (missing dim) results of their indexing maps.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-LABEL: func.func @hf_argument_tables(
// CHECK: %[[C:.*]] = tensor.expand_shape %arg1 {{\[\[}}0], [1, 2], [3]]
// CHECK: %[[S:.*]] = tensor.expand_shape %arg2 {{\[\[}}0], [1, 2], [3]]
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%[[C]], %[[S]] : tensor<2x1x8x16xf32>, tensor<2x1x8x16xf32>) layout half : tensor<2x4x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @hf_argument_tables(%x: tensor<2x4x8x16xf32>, %cos: tensor<2x8x16xf32>,
                              %sin: tensor<2x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %c = tensor.expand_shape %cos [[0], [1, 2], [3]] output_shape [2, 1, 8, 16] : tensor<2x8x16xf32> into tensor<2x1x8x16xf32>
  %s = tensor.expand_shape %sin [[0], [1, 2], [3]] output_shape [2, 1, 8, 16] : tensor<2x8x16xf32> into tensor<2x1x8x16xf32>
  %e = tensor.empty() : tensor<2x4x8x16xf32>
  %xc = linalg.generic {indexing_maps = [#id4, #bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %c : tensor<2x4x8x16xf32>, tensor<2x1x8x16xf32>) outs(%e : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4x8x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 8, 8] [1, 1, 1, 1] : tensor<2x4x8x16xf32> to tensor<2x4x8x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [2, 4, 8, 8] [1, 1, 1, 1] : tensor<2x4x8x16xf32> to tensor<2x4x8x8xf32>
  %eh = tensor.empty() : tensor<2x4x8x8xf32>
  %n2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x2 : tensor<2x4x8x8xf32>) outs(%eh : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x4x8x8xf32>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x16xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rot, %s : tensor<2x4x8x16xf32>, tensor<2x1x8x16xf32>) outs(%e : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4x8x16xf32>
  // expected-remark @below {{raised to posenc.rope table form (half layout): the cos/sin tables are function arguments}}
  %out = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %rs : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) outs(%e : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x16xf32>
  return %out : tensor<2x4x8x16xf32>
}

// -----

// [S, D] tables (one batch, squeezed) broadcast over batch and heads by
// dropped results: the op takes them as they are.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sd = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @seq_tables(
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%arg1, %arg2 : tensor<8x16xf32>, tensor<8x16xf32>) layout half : tensor<1x4x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @seq_tables(%x: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>,
                              %s: tensor<8x16xf32>) -> tensor<1x4x8x16xf32> {
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %xc = linalg.generic {indexing_maps = [#id4, #sd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %c : tensor<1x4x8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %b, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
  %eh = tensor.empty() : tensor<1x4x8x8xf32>
  %n2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x2 : tensor<1x4x8x8xf32>) outs(%eh : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ng = arith.negf %a : f32
    linalg.yield %ng : f32
  } -> tensor<1x4x8x8xf32>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #sd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rot, %s : tensor<1x4x8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x16xf32>
  // expected-remark @below {{raised to posenc.rope table form (half layout): the cos/sin tables are function arguments}}
  %out = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rs, %xc : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8x16xf32>
  return %out : tensor<1x4x8x16xf32>
}

// -----

// Near miss: the sign on the wrong half (concat(x2, -x1) is not
// rotate_half): left alone, whatever the tables.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sd = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @sign_on_wrong_half(
// CHECK-NOT: posenc.rope
func.func @sign_on_wrong_half(%x: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>,
                              %s: tensor<8x16xf32>) -> tensor<1x4x8x16xf32> {
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %xc = linalg.generic {indexing_maps = [#id4, #sd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %c : tensor<1x4x8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x4x8x8xf32>
  %eh = tensor.empty() : tensor<1x4x8x8xf32>
  %n1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x1 : tensor<1x4x8x8xf32>) outs(%eh : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ng = arith.negf %a : f32
    linalg.yield %ng : f32
  } -> tensor<1x4x8x8xf32>
  %rot = tensor.concat dim(3) %x2, %n1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #sd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rot, %s : tensor<1x4x8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x16xf32>
  // expected-remark @below {{not raised to posenc.rope: no product is rotate_half(x)}}
  %out = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %rs : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8x16xf32>
  return %out : tensor<1x4x8x16xf32>
}

// -----

// Near miss: a table read transposed ((S, D) swapped: [D, S] tables) is not
// the table form's [..., S, D]: left alone.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ds = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @transposed_table(
// CHECK-NOT: posenc.rope
func.func @transposed_table(%x: tensor<1x4x16x16xf32>, %c: tensor<16x16xf32>,
                            %s: tensor<16x16xf32>) -> tensor<1x4x16x16xf32> {
  %e = tensor.empty() : tensor<1x4x16x16xf32>
  %xc = linalg.generic {indexing_maps = [#id4, #ds, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %c : tensor<1x4x16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<1x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x16x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 4, 16, 8] [1, 1, 1, 1] : tensor<1x4x16x16xf32> to tensor<1x4x16x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 4, 16, 8] [1, 1, 1, 1] : tensor<1x4x16x16xf32> to tensor<1x4x16x8xf32>
  %eh = tensor.empty() : tensor<1x4x16x8xf32>
  %n2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x2 : tensor<1x4x16x8xf32>) outs(%eh : tensor<1x4x16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ng = arith.negf %a : f32
    linalg.yield %ng : f32
  } -> tensor<1x4x16x8xf32>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x16xf32>
  %rs = linalg.generic {indexing_maps = [#id4, #ds, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rot, %s : tensor<1x4x16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<1x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x16x16xf32>
  // expected-remark @below {{nor are cos and sin [..., S, D] tables broadcast over the leading dims (the table form)}}
  %out = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %rs : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%e : tensor<1x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16x16xf32>
  return %out : tensor<1x4x16x16xf32>
}
