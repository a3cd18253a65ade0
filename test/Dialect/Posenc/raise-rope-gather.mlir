// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// ONNX RotaryEmbedding in torch-mlir's linalg: one generic over x [B, H, S, D]
// reading its position from position_ids [B, S], gathering
// cos_cache[pos, c] / sin_cache[pos, c] with tensor.extract, reading the
// partner x[..., j] and yielding x[d] * cos + sign * x[j] * sin. The body is
// evaluated per column (RaiseRopeGather.cpp), so only the exact rotation
// raises; wrong index arithmetic, a swapped sign or a shifted position stay.

// Argument caches, half layout: the table form, tables gathered by the [B, S]
// positions, the halves duplicated, [B, 1, S, D].
// CHECK-LABEL: func.func @arguments_half(
// CHECK: %[[CG:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK: arith.index_cast
// CHECK: tensor.extract %arg2
// CHECK: %[[SG:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x3xi64>)
// CHECK: tensor.extract %arg3
// CHECK: %[[C2:.*]] = tensor.concat dim(2) %[[CG]], %[[CG]] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// CHECK: %[[C:.*]] = tensor.expand_shape %[[C2]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, 3, 8]
// CHECK: %[[S2:.*]] = tensor.concat dim(2) %[[SG]], %[[SG]]
// CHECK: %[[S:.*]] = tensor.expand_shape %[[S2]]
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%[[C]], %[[S]] : tensor<2x1x3x8xf32>, tensor<2x1x3x8xf32>) layout half : tensor<2x2x3x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @arguments_half(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>, %cos_cache: tensor<6x4xf32>, %sin_cache: tensor<6x4xf32>) -> tensor<2x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{raised to posenc.rope table form (half layout): cos/sin gathered by position: the caches are function arguments}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.remsi %i3, %half : index
    %hs = arith.addi %i3, %half : index
    %j = arith.remsi %hs, %dim : index
    %first = arith.cmpi slt, %i3, %half : index
    %cv = tensor.extract %cos_cache[%pi, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Argument caches, interleaved: each gathered entry in both lanes of its pair.
// CHECK-LABEL: func.func @arguments_interleaved(
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3x4x2xf32>) dimensions = [3]
// CHECK: posenc.rope %arg0 tables({{.*}} : tensor<2x1x3x8xf32>, tensor<2x1x3x8xf32>) layout interleaved
func.func @arguments_interleaved(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>, %cos_cache: tensor<6x4xf32>, %sin_cache: tensor<6x4xf32>) -> tensor<2x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): cos/sin gathered by position: the caches are function arguments}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.divsi %i3, %c2 : index
    %odd = arith.remsi %i3, %c2 : index
    %first = arith.cmpi eq, %odd, %c0 : index
    %jp = arith.addi %i3, %c1 : index
    %jm = arith.subi %i3, %c1 : index
    %j = arith.select %first, %jp, %jm : index
    %cv = tensor.extract %cos_cache[%pi, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Constant caches holding cos/sin(i * inv_freq), base 10000: the attribute form
// with per-batch positions.
// CHECK-LABEL: func.func @constant_caches(
// CHECK-NEXT: %[[R:.*]] = posenc.rope %arg0, %arg1 layout half : tensor<2x2x3x8xf32>, tensor<2x3xi64>
// CHECK-NEXT: return %[[R]]
func.func @constant_caches(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>) -> tensor<2x2x3x8xf32> {
  %cos_cache = arith.constant dense<[[1.000000000e+00, 1.000000000e+00, 1.000000000e+00, 1.000000000e+00], [5.403022766e-01, 9.950041771e-01, 9.999499917e-01, 9.999995232e-01], [-4.161468446e-01, 9.800665975e-01, 9.998000264e-01, 9.999979734e-01], [-9.899924994e-01, 9.553365111e-01, 9.995500445e-01, 9.999955297e-01], [-6.536436081e-01, 9.210609794e-01, 9.992001057e-01, 9.999920130e-01], [2.836622000e-01, 8.775825500e-01, 9.987502694e-01, 9.999874830e-01]]> : tensor<6x4xf32>
  %sin_cache = arith.constant dense<[[0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00], [8.414709568e-01, 9.983342141e-02, 9.999833070e-03, 9.999999311e-04], [9.092974067e-01, 1.986693293e-01, 1.999866590e-02, 1.999998698e-03], [1.411200017e-01, 2.955202162e-01, 2.999549918e-02, 2.999995602e-03], [-7.568024993e-01, 3.894183338e-01, 3.998933360e-02, 3.999989480e-03], [-9.589242935e-01, 4.794255495e-01, 4.997916520e-02, 4.999979399e-03]]> : tensor<6x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{raised to posenc.rope (half layout)}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.remsi %i3, %half : index
    %hs = arith.addi %i3, %half : index
    %j = arith.remsi %hs, %dim : index
    %first = arith.cmpi slt, %i3, %half : index
    %cv = tensor.extract %cos_cache[%pi, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Constant caches with one entry off by 1e-3: no formula, the table form.
// CHECK-LABEL: func.func @constant_caches_no_formula(
// CHECK: posenc.rope %arg0 tables({{.*}}) layout interleaved
func.func @constant_caches_no_formula(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>) -> tensor<2x2x3x8xf32> {
  %cos_cache = arith.constant dense<[[1.000000000e+00, 1.000000000e+00, 1.000000000e+00, 1.000000000e+00], [5.403022766e-01, 9.950041771e-01, 9.999499917e-01, 9.999995232e-01], [-4.161468446e-01, 9.800665975e-01, 9.998000264e-01, 9.999979734e-01], [-9.899924994e-01, 9.563364983e-01, 9.995500445e-01, 9.999955297e-01], [-6.536436081e-01, 9.210609794e-01, 9.992001057e-01, 9.999920130e-01], [2.836622000e-01, 8.775825500e-01, 9.987502694e-01, 9.999874830e-01]]> : tensor<6x4xf32>
  %sin_cache = arith.constant dense<[[0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00], [8.414709568e-01, 9.983342141e-02, 9.999833070e-03, 9.999999311e-04], [9.092974067e-01, 1.986693293e-01, 1.999866590e-02, 1.999998698e-03], [1.411200017e-01, 2.955202162e-01, 2.999549918e-02, 2.999995602e-03], [-7.568024993e-01, 3.894183338e-01, 3.998933360e-02, 3.999989480e-03], [-9.589242935e-01, 4.794255495e-01, 4.997916520e-02, 4.999979399e-03]]> : tensor<6x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): cos/sin gathered by position: the constant caches are not cos/sin(i * inv_freq) of a posenc scaling}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.divsi %i3, %c2 : index
    %odd = arith.remsi %i3, %c2 : index
    %first = arith.cmpi eq, %odd, %c0 : index
    %jp = arith.addi %i3, %c1 : index
    %jm = arith.subi %i3, %c1 : index
    %j = arith.select %first, %jp, %jm : index
    %cv = tensor.extract %cos_cache[%pi, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Near miss: the cache index off by one pair.
// CHECK-LABEL: func.func @wrong_cache_index(
// CHECK-NOT: posenc.rope
func.func @wrong_cache_index(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>, %cos_cache: tensor<6x4xf32>, %sin_cache: tensor<6x4xf32>) -> tensor<2x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{not raised to posenc.rope (gathered cos/sin): the body does not compute x[d] * cos[pos, c] + sign * x[j] * sin[pos, c] of one pair layout (half or interleaved) in every column}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.remsi %i3, %half : index
    %hs = arith.addi %i3, %half : index
    %j = arith.remsi %hs, %dim : index
    %first = arith.cmpi slt, %i3, %half : index
    %cc = arith.addi %c, %c1 : index
    %cm = arith.remsi %cc, %half : index
    %cv = tensor.extract %cos_cache[%pi, %cm] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %cm] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Near miss: the signs swapped (the rotation the other way).
// CHECK-LABEL: func.func @swapped_sign(
// CHECK-NOT: posenc.rope
func.func @swapped_sign(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>, %cos_cache: tensor<6x4xf32>, %sin_cache: tensor<6x4xf32>) -> tensor<2x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{not raised to posenc.rope (gathered cos/sin): the body does not compute x[d] * cos[pos, c] + sign * x[j] * sin[pos, c] of one pair layout (half or interleaved) in every column}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.divsi %i3, %c2 : index
    %odd = arith.remsi %i3, %c2 : index
    %first = arith.cmpi eq, %odd, %c0 : index
    %jp = arith.addi %i3, %c1 : index
    %jm = arith.subi %i3, %c1 : index
    %j = arith.select %first, %jp, %jm : index
    %cv = tensor.extract %cos_cache[%pi, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %plus, %minus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}

// -----

// Near miss: the cache row is position + 1.
// CHECK-LABEL: func.func @shifted_position(
// CHECK-NOT: posenc.rope
func.func @shifted_position(%x: tensor<2x2x3x8xf32>, %pos: tensor<2x3xi64>, %cos_cache: tensor<6x4xf32>, %sin_cache: tensor<6x4xf32>) -> tensor<2x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 4 : index
  %dim = arith.constant 8 : index
  %minus = arith.constant -1.0 : f32
  %plus = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2x3x8xf32>
  // expected-remark @below {{not raised to posenc.rope (gathered cos/sin): the body does not compute x[d] * cos[pos, c] + sign * x[j] * sin[pos, c] of one pair layout (half or interleaved) in every column}}
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %pos : tensor<2x2x3x8xf32>, tensor<2x3xi64>) outs(%e : tensor<2x2x3x8xf32>) {
  ^bb0(%in: f32, %p: i64, %o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index
    %c = arith.remsi %i3, %half : index
    %hs = arith.addi %i3, %half : index
    %j = arith.remsi %hs, %dim : index
    %first = arith.cmpi slt, %i3, %half : index
    %pi1 = arith.addi %pi, %c1 : index
    %cv = tensor.extract %cos_cache[%pi1, %c] : tensor<6x4xf32>
    %sv = tensor.extract %sin_cache[%pi1, %c] : tensor<6x4xf32>
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : tensor<2x2x3x8xf32>
    %sign = arith.select %first, %minus, %plus : f32
    %a = arith.mulf %in, %cv : f32
    %bj = arith.mulf %xj, %sv : f32
    %sb = arith.mulf %sign, %bj : f32
    %r = arith.addf %a, %sb : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x8xf32>
  return %out : tensor<2x2x3x8xf32>
}
