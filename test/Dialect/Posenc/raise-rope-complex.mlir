// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null

// Meta's LLaMA rotation in complex arithmetic, as torch-mlir's TorchToLinalg
// lowers `view_as_real(view_as_complex(x.reshape(..., -1, 2)) * freqs_cis)
// .flatten(3)`: view_as_complex as a generic without inputs extracting both
// lanes, complex.mul broadcasting freqs_cis [S, D/2], view_as_real selecting
// complex.re / complex.im on the index of the new last dim.

// freqs_cis = polar(ones, float(pos) * inv_freq), base 10000: the attribute form.
// CHECK-LABEL: func.func @polar(
// CHECK-NEXT: %[[R:.*]] = posenc.rope %arg0, %arg1 layout interleaved : tensor<1x2x4x8xf32>, tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @polar(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope (interleaved layout)}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// freqs_cis = complex(cos(f), sin(f)) of two trig generics, bf16 x cast to f32
// and back (`.float()` ... `.type_as(xq)`): the rope raised on the f32 view,
// then truncf(rope(extf(x))) is the rope on the bf16 x itself (it rotates
// in f32 and rounds once, as the casts do).
// CHECK-LABEL: func.func @complex_of_trig_bf16(
// CHECK-NOT: arith.extf
// CHECK: %[[R:.*]] = posenc.rope %arg0, %arg1 layout interleaved : tensor<1x2x4x8xbf16>, tensor<4xi32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: complex.
func.func @complex_of_trig_bf16(%x: tensor<1x2x4x8xbf16>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xbf16> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cos, %sin : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%a: f32, %b: f32, %o: complex<f32>):
    %z = complex.create %a, %b : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %e_x = tensor.empty() : tensor<1x2x4x8xf32>
  %x32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x2x4x8xbf16>) outs(%e_x : tensor<1x2x4x8xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %v = arith.extf %a : bf16 to f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x32 [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope (interleaved layout)}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  %e_y = tensor.empty() : tensor<1x2x4x8xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<1x2x4x8xf32>) outs(%e_y : tensor<1x2x4x8xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %v = arith.truncf %a : f32 to bf16
    linalg.yield %v : bf16
  } -> tensor<1x2x4x8xbf16>
  return %y : tensor<1x2x4x8xbf16>
}

// -----

// Angles passed as an argument: the table form, the graph's cos/sin of them with
// each pair's entry duplicated into both of its lanes.
// CHECK-LABEL: func.func @polar_of_argument(
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<4x4xf32>)
// CHECK: math.cos
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<4x4xf32>)
// CHECK: math.sin
// CHECK: %[[CB:.*]] = linalg.broadcast ins(%[[C]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4x2xf32>) dimensions = [2]
// CHECK: %[[CT:.*]] = tensor.collapse_shape %[[CB]] {{\[\[}}0], [1, 2]] : tensor<4x4x2xf32> into tensor<4x8xf32>
// CHECK: %[[SB:.*]] = linalg.broadcast ins(%[[S]] : tensor<4x4xf32>)
// CHECK: %[[ST:.*]] = tensor.collapse_shape %[[SB]]
// CHECK: %[[R:.*]] = posenc.rope %arg0 tables(%[[CT]], %[[ST]] : tensor<4x8xf32>, tensor<4x8xf32>) layout interleaved : tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @polar_of_argument(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %t: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %e_sp = tensor.empty() : tensor<4x4xf32>
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): Meta's complex form: the angles are a function argument}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// complex(cos, sin) of argument tables: the table form with those tables.
// CHECK-LABEL: func.func @complex_of_arguments(
// CHECK: linalg.broadcast ins(%arg2 : tensor<4x4xf32>)
// CHECK: linalg.broadcast ins(%arg3 : tensor<4x4xf32>)
// CHECK: posenc.rope %arg0 tables({{.*}}) layout interleaved
// CHECK-NOT: complex.
func.func @complex_of_arguments(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>, %tc: tensor<4x4xf32>, %ts: tensor<4x4xf32>) -> tensor<1x2x4x8xf32> {
  %e_sp = tensor.empty() : tensor<4x4xf32>
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%tc, %ts : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%a: f32, %b: f32, %o: complex<f32>):
    %z = complex.create %a, %b : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): Meta's complex form: the cos/sin tables are function arguments}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Inverse frequencies that match no formula (pair 1 off by 1e-3): the table form.
// CHECK-LABEL: func.func @no_formula(
// CHECK: posenc.rope %arg0 tables({{.*}}) layout interleaved
func.func @no_formula(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{raised to posenc.rope table form (interleaved layout): Meta's complex form: the inverse frequencies match no}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: view_as_real with re and im swapped.
// CHECK-LABEL: func.func @real_view_swapped(
// CHECK-NOT: posenc.rope
func.func @real_view_swapped(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %im, %re : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved, complex form): the real view does not yield re(z) at index 0 and im(z) at index 1 of the last dim}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: view_as_complex takes the pair's lanes the other way round.
// CHECK-LABEL: func.func @complex_view_swapped(
// CHECK-NOT: posenc.rope
func.func @complex_view_swapped(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %bb, %a : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved, complex form): the complex tensor viewed as real is not view_as_complex(x) times a freqs_cis table read along (S, pair)}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: polar with magnitude 2 (scales the rotation).
// CHECK-LABEL: func.func @magnitude_two(
// CHECK-NOT: posenc.rope
func.func @magnitude_two(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<2.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved, complex form): freqs_cis = polar(r, t) with a magnitude r that is not the constant 1}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: the conjugate, complex(cos(t), -sin(t)): the rotation the other way.
// CHECK-LABEL: func.func @conjugate(
// CHECK-NOT: posenc.rope
func.func @conjugate(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %ns = arith.negf %sn : f32
    %im = arith.mulf %r, %ns : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved, complex form): freqs_cis is neither complex.create(cos(t), sin(t))}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Near miss: freqs_cis read transposed, (d3, d2): not an [S, D/2] table.
// CHECK-LABEL: func.func @transposed_table(
// CHECK-NOT: posenc.rope
func.func @transposed_table(%x: tensor<1x2x4x8xf32>, %pos: tensor<4xi32>) -> tensor<1x2x4x8xf32> {
  %inv = arith.constant dense<[1.000000000e+00, 1.000000015e-01, 9.999999776e-03, 1.000000047e-03]> : tensor<4xf32>
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
  %e_c = tensor.empty() : tensor<4x4xcomplex<f32>>
  %ones = arith.constant dense<1.0> : tensor<4x4xf32>
  %cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ones, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e_c : tensor<4x4xcomplex<f32>>) {
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x4xcomplex<f32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 2, 4, 4, 2] : tensor<1x2x4x8xf32> into tensor<1x2x4x4x2xf32>
  %e_xc = tensor.empty() : tensor<1x2x4x4xcomplex<f32>>
  %xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : tensor<1x2x4x4x2xf32>
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : tensor<1x2x4x4x2xf32>
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xc, %cis : tensor<1x2x4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) outs(%e_xc : tensor<1x2x4x4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<1x2x4x4xcomplex<f32>>
  %e_r = tensor.empty() : tensor<1x2x4x4x2xf32>
  %real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%prod : tensor<1x2x4x4xcomplex<f32>>) outs(%e_r : tensor<1x2x4x4x2xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  } -> tensor<1x2x4x4x2xf32>
  // expected-remark @below {{not raised to posenc.rope (interleaved, complex form): the complex tensor viewed as real is not view_as_complex(x) times a freqs_cis table read along (S, pair)}}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
