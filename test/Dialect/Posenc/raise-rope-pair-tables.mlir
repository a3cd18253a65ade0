// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// The pairwise rotations (the interleaved layout with the pairs split off by
// an expand_shape, and the expanded half layout concat(x1 cos - x2 sin,
// x2 cos + x1 sin)) whose cos/sin [S, D/2] are function arguments or match
// no formula: the table form of posenc.rope, each pair's entry copied into
// both of its columns (linalg.broadcast + collapse_shape for interleaved,
// tensor.concat for half), exactly.

// Interleaved pairs, argument tables.
// CHECK-LABEL: func.func @interleaved_arguments(
// CHECK: %[[CB:.*]] = linalg.broadcast ins(%arg2 : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4x2xf32>) dimensions = [2]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[CB]] {{\[\[}}0], [1, 2]] : tensor<4x4x2xf32> into tensor<4x8xf32>
// CHECK: %[[SB:.*]] = linalg.broadcast ins(%arg3 : tensor<4x4xf32>)
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[SB]]
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) layout interleaved : tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @interleaved_arguments(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %tc: tensor<4x4xf32>, %ts: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %c3 = tensor.expand_shape %tc [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %s3 = tensor.expand_shape %ts [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %xa = tensor.extract_slice %xr[0, 0, 0, 0, 0] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %xb = tensor.extract_slice %xr[0, 0, 0, 0, 1] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %e_5 = tensor.empty() : tensor<1x2x4x4x1xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %cat = tensor.concat dim(4) %first, %second : (tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): the cos/sin tables are function arguments}}
  %out = tensor.collapse_shape %cat [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Expanded half layout, argument tables: concat(t, t) of each.
// CHECK-LABEL: func.func @expanded_arguments(
// CHECK: %[[C:.*]] = tensor.concat dim(1) %arg2, %arg2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
// CHECK: %[[S:.*]] = tensor.concat dim(1) %arg3, %arg3
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) layout half : tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @expanded_arguments(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %tc: tensor<4x4xf32>, %ts: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %xa = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %xb = tensor.extract_slice %x[0, 0, 0, 4] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %e_4 = tensor.empty() : tensor<1x2x4x4xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %tc : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %ts : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %ts : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %tc : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  // expected-remark @below {{raised to posenc.rope table form (half layout): the cos/sin tables are function arguments}}
  %out = tensor.concat dim(3) %first, %second : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// bf16 model, argument tables in bf16, arithmetic in bf16: the table form on bf16.
// CHECK-LABEL: func.func @expanded_bf16(
// CHECK: posenc.rope %arg0 tables({{.*}} : tensor<4x8xbf16>, tensor<4x8xbf16>) layout half : tensor<1x2x4x8xbf16>
func.func @expanded_bf16(%x: tensor<1x2x4x8xbf16>, %pos: tensor<4xi32>, %tc: tensor<4x4xbf16>, %ts: tensor<4x4xbf16>) -> tensor<1x2x4x8xbf16> {
  %xa = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xbf16> to tensor<1x2x4x4xbf16>
  %xb = tensor.extract_slice %x[0, 0, 0, 4] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xbf16> to tensor<1x2x4x4xbf16>
  %e_4 = tensor.empty() : tensor<1x2x4x4xbf16>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %tc : tensor<1x2x4x4xbf16>, tensor<4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.mulf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %ts : tensor<1x2x4x4xbf16>, tensor<4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.mulf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %ts : tensor<1x2x4x4xbf16>, tensor<4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.mulf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %tc : tensor<1x2x4x4xbf16>, tensor<4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.mulf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.subf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>) outs(%e_4 : tensor<1x2x4x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %v = arith.addf %a, %b : bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x4xbf16>
  // expected-remark @below {{raised to posenc.rope table form (half layout): the cos/sin tables are function arguments}}
  %out = tensor.concat dim(3) %first, %second : (tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>) -> tensor<1x2x4x8xbf16>
  return %out : tensor<1x2x4x8xbf16>
}

// -----

// Interleaved, frequencies of no formula (pair 1 off by 1e-3): the table form of
// the graph's cos/sin.
// CHECK-LABEL: func.func @interleaved_no_formula(
// CHECK: math.cos
// CHECK: math.sin
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4x2xf32>) dimensions = [2]
// CHECK: posenc.rope %arg0 tables({{.*}}) layout interleaved
func.func @interleaved_no_formula(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.001000032e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
  %e_s = tensor.empty() : tensor<4xf32>
  %pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<4xi32>) outs(%e_s : tensor<4xf32>) {
  ^bb0(%a: i32, %o: f32):
    %v = arith.sitofp %a : i32 to f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e_sp = tensor.empty() : tensor<4x4xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%pf, %inv : tensor<4xf32>, tensor<4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<4x4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.cos %a : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<4x4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %c3 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %s3 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %xa = tensor.extract_slice %xr[0, 0, 0, 0, 0] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %xb = tensor.extract_slice %xr[0, 0, 0, 0, 1] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %e_5 = tensor.empty() : tensor<1x2x4x4x1xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %cat = tensor.concat dim(4) %first, %second : (tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): the inverse frequencies match no}}
  %out = tensor.collapse_shape %cat [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Expanded, frequencies of no formula.
// CHECK-LABEL: func.func @expanded_no_formula(
// CHECK: posenc.rope %arg0 tables({{.*}}) layout half
func.func @expanded_no_formula(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.001000032e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
  %e_s = tensor.empty() : tensor<4xf32>
  %pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<4xi32>) outs(%e_s : tensor<4xf32>) {
  ^bb0(%a: i32, %o: f32):
    %v = arith.sitofp %a : i32 to f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e_sp = tensor.empty() : tensor<4x4xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%pf, %inv : tensor<4xf32>, tensor<4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<4x4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.cos %a : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<4x4xf32>) outs(%e_sp : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %xa = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %xb = tensor.extract_slice %x[0, 0, 0, 4] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %e_4 = tensor.empty() : tensor<1x2x4x4xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %cos : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %sin : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %sin : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %cos : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  // expected-remark @below {{raised to posenc.rope table form (half layout): the inverse frequencies match no}}
  %out = tensor.concat dim(3) %first, %second : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: the rotation the other way, (a cos + b sin, b cos - a sin).
// CHECK-LABEL: func.func @interleaved_other_way(
// CHECK-NOT: posenc.rope
func.func @interleaved_other_way(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %tc: tensor<4x4xf32>, %ts: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %c3 = tensor.expand_shape %tc [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %s3 = tensor.expand_shape %ts [[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %xa = tensor.extract_slice %xr[0, 0, 0, 0, 0] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %xb = tensor.extract_slice %xr[0, 0, 0, 0, 1] [1, 2, 4, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x4x4x2xf32> to tensor<1x2x4x4x1xf32>
  %e_5 = tensor.empty() : tensor<1x2x4x4x1xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %s3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %c3 : tensor<1x2x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) outs(%e_5 : tensor<1x2x4x4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %b, %a : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x1xf32>
  %cat = tensor.concat dim(4) %first, %second : (tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>) -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved): the pairs are not (a cos - b sin, a sin + b cos)}}
  %out = tensor.collapse_shape %cat [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: the tables read transposed, (d3, d2) of [D/2, S] arguments.
// CHECK-LABEL: func.func @expanded_transposed_tables(
// CHECK-NOT: posenc.rope
func.func @expanded_transposed_tables(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %tc: tensor<4x4xf32>, %ts: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %xa = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %xb = tensor.extract_slice %x[0, 0, 0, 4] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x4x4xf32>
  %e_4 = tensor.empty() : tensor<1x2x4x4xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %tc : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %ts : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xa, %ts : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %bc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xb, %tc : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ac, %bs : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %second = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%as, %bc : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e_4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4xf32>
  %out = tensor.concat dim(3) %first, %second : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
