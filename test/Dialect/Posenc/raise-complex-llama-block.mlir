// RUN: posenc-opt %s --posenc-raise | FileCheck %s --check-prefix=RAISE
// RUN: posenc-opt %s --posenc-cpu-pipeline="raise=false" --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=UNRAISED
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=FUSED

// A LLaMA-style block with Meta's complex-number RoPE as torch-mlir writes it
// (test/python/linalg_rope_forms.py, complex_llama_block(24, 4, 2, 64,
// llama3 inverse frequencies of base 500000)): view_as_complex generics,
// freqs_cis = polar(1, pos * inv_freq), complex.mul, view_as_real, the
// flatten folded with the (batch, head) flattening into one collapse_shape;
// GQA 4/2 by broadcast + collapse; q . k^T by linalg.batch_matmul, scale
// 1/8, linalg.softmax, P . V.
//
// Raised: two interleaved posenc.rope (base 500000, llama3) feeding one
// posenc.attention; after posenc-cpu-pipeline no 24 x 24 score tensor, no
// complex op and no elementwise op over the rotated Q/K shape remain (the
// raise=false program has the scores and the complex product).
// RAISE-LABEL: func.func @block(
// RAISE-COUNT-2: posenc.rope {{.*}} layout interleaved {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>}
// RAISE-NOT: posenc.rope
// RAISE: posenc.attention {{.*}} {scale = 1.250000e-01 : f64} : tensor<4x24x64xf32>, tensor<2x24x64xf32>, tensor<2x24x64xf32> -> tensor<4x24x64xf32>
// RAISE-NOT: complex.
// UNRAISED-LABEL: IR Dump After PosencDecomposeAttentionPass
// UNRAISED: complex.mul
// UNRAISED: linalg.batch_matmul {{.*}} -> tensor<4x24x24xf32>
// FUSED-LABEL: IR Dump After PosencDecomposeAttentionPass
// FUSED-NOT: 24x24
// FUSED-NOT: complex.
// FUSED-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<{{[0-9]+}}x24x64xf32>)
// FUSED-NOT: = posenc.
// FUSED: scf.forall
// FUSED-NOT: 24x24
// FUSED-NOT: complex.
// FUSED: llvm.func @block

func.func @block(%q: tensor<1x4x24x64xf32>, %k: tensor<1x2x24x64xf32>, %v: tensor<1x2x24x64xf32>, %pos: tensor<24xi32>) -> tensor<4x24x64xf32> {  %q_inv = arith.constant dense<[1.000000000e+00, 6.636012197e-01, 4.403666258e-01, 2.922278047e-01, 1.939227581e-01, 1.286873817e-01, 8.539710194e-02, 5.666961893e-02, 3.760603070e-02, 2.495540865e-02, 1.656044088e-02, 1.098952908e-02, 7.292665076e-03, 4.839421250e-03, 3.211446106e-03, 1.371893683e-03, 5.248460220e-04, 1.785077911e-04, 7.784655463e-05, 5.165907351e-05, 3.428102355e-05, 2.274892722e-05, 1.509621779e-05, 1.001786768e-05, 6.647870578e-06, 4.411534519e-06, 2.927499736e-06, 1.942692506e-06, 1.289173156e-06, 8.554969213e-07, 5.677088097e-07, 3.767322880e-07]> : tensor<32xf32>
  %q_e_s = tensor.empty() : tensor<24xf32>
  %q_pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<24xi32>) outs(%q_e_s : tensor<24xf32>) {
  ^bb0(%q_a: i32, %q_o: f32):
    %q_v = arith.sitofp %q_a : i32 to f32
    linalg.yield %q_v : f32
  } -> tensor<24xf32>
  %q_e_sp = tensor.empty() : tensor<24x32xf32>
  %q_f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_pf, %q_inv : tensor<24xf32>, tensor<32xf32>) outs(%q_e_sp : tensor<24x32xf32>) {
  ^bb0(%q_a: f32, %q_b: f32, %q_o: f32):
    %q_m = arith.mulf %q_a, %q_b : f32
    linalg.yield %q_m : f32
  } -> tensor<24x32xf32>
  %q_e_c = tensor.empty() : tensor<24x32xcomplex<f32>>
  %q_ones = arith.constant dense<1.0> : tensor<24x32xf32>
  %q_cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_ones, %q_f : tensor<24x32xf32>, tensor<24x32xf32>) outs(%q_e_c : tensor<24x32xcomplex<f32>>) {
  ^bb0(%q_r: f32, %q_a: f32, %q_o: complex<f32>):
    %q_c = math.cos %q_a : f32
    %q_sn = math.sin %q_a : f32
    %q_re = arith.mulf %q_r, %q_c : f32
    %q_im = arith.mulf %q_r, %q_sn : f32
    %q_z = complex.create %q_re, %q_im : complex<f32>
    linalg.yield %q_z : complex<f32>
  } -> tensor<24x32xcomplex<f32>>
  %q_c0 = arith.constant 0 : index
  %q_c1 = arith.constant 1 : index
  %q_xr = tensor.expand_shape %q [[0], [1], [2], [3, 4]] output_shape [1, 4, 24, 32, 2] : tensor<1x4x24x64xf32> into tensor<1x4x24x32x2xf32>
  %q_e_xc = tensor.empty() : tensor<1x4x24x32xcomplex<f32>>
  %q_xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%q_e_xc : tensor<1x4x24x32xcomplex<f32>>) {
  ^bb0(%q_o: complex<f32>):
    %q_i0 = linalg.index 0 : index
    %q_i1 = linalg.index 1 : index
    %q_i2 = linalg.index 2 : index
    %q_i3 = linalg.index 3 : index
    %q_a = tensor.extract %q_xr[%q_i0, %q_i1, %q_i2, %q_i3, %q_c0] : tensor<1x4x24x32x2xf32>
    %q_bb = tensor.extract %q_xr[%q_i0, %q_i1, %q_i2, %q_i3, %q_c1] : tensor<1x4x24x32x2xf32>
    %q_z = complex.create %q_a, %q_bb : complex<f32>
    linalg.yield %q_z : complex<f32>
  } -> tensor<1x4x24x32xcomplex<f32>>
  %q_prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_xc, %q_cis : tensor<1x4x24x32xcomplex<f32>>, tensor<24x32xcomplex<f32>>) outs(%q_e_xc : tensor<1x4x24x32xcomplex<f32>>) {
  ^bb0(%q_a: complex<f32>, %q_bb: complex<f32>, %q_o: complex<f32>):
    %q_m = complex.mul %q_a, %q_bb : complex<f32>
    linalg.yield %q_m : complex<f32>
  } -> tensor<1x4x24x32xcomplex<f32>>
  %q_e_r = tensor.empty() : tensor<1x4x24x32x2xf32>
  %q_real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%q_prod : tensor<1x4x24x32xcomplex<f32>>) outs(%q_e_r : tensor<1x4x24x32x2xf32>) {
  ^bb0(%q_z: complex<f32>, %q_o: f32):
    %q_re = complex.re %q_z : complex<f32>
    %q_im = complex.im %q_z : complex<f32>
    %q_i4 = linalg.index 4 : index
    %q_is0 = arith.cmpi eq, %q_i4, %q_c0 : index
    %q_v = arith.select %q_is0, %q_re, %q_im : f32
    linalg.yield %q_v : f32
  } -> tensor<1x4x24x32x2xf32>
  %q_out = tensor.collapse_shape %q_real [[0], [1], [2], [3, 4]] : tensor<1x4x24x32x2xf32> into tensor<1x4x24x64xf32>  %k_inv = arith.constant dense<[1.000000000e+00, 6.636012197e-01, 4.403666258e-01, 2.922278047e-01, 1.939227581e-01, 1.286873817e-01, 8.539710194e-02, 5.666961893e-02, 3.760603070e-02, 2.495540865e-02, 1.656044088e-02, 1.098952908e-02, 7.292665076e-03, 4.839421250e-03, 3.211446106e-03, 1.371893683e-03, 5.248460220e-04, 1.785077911e-04, 7.784655463e-05, 5.165907351e-05, 3.428102355e-05, 2.274892722e-05, 1.509621779e-05, 1.001786768e-05, 6.647870578e-06, 4.411534519e-06, 2.927499736e-06, 1.942692506e-06, 1.289173156e-06, 8.554969213e-07, 5.677088097e-07, 3.767322880e-07]> : tensor<32xf32>
  %k_e_s = tensor.empty() : tensor<24xf32>
  %k_pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<24xi32>) outs(%k_e_s : tensor<24xf32>) {
  ^bb0(%k_a: i32, %k_o: f32):
    %k_v = arith.sitofp %k_a : i32 to f32
    linalg.yield %k_v : f32
  } -> tensor<24xf32>
  %k_e_sp = tensor.empty() : tensor<24x32xf32>
  %k_f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%k_pf, %k_inv : tensor<24xf32>, tensor<32xf32>) outs(%k_e_sp : tensor<24x32xf32>) {
  ^bb0(%k_a: f32, %k_b: f32, %k_o: f32):
    %k_m = arith.mulf %k_a, %k_b : f32
    linalg.yield %k_m : f32
  } -> tensor<24x32xf32>
  %k_e_c = tensor.empty() : tensor<24x32xcomplex<f32>>
  %k_ones = arith.constant dense<1.0> : tensor<24x32xf32>
  %k_cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%k_ones, %k_f : tensor<24x32xf32>, tensor<24x32xf32>) outs(%k_e_c : tensor<24x32xcomplex<f32>>) {
  ^bb0(%k_r: f32, %k_a: f32, %k_o: complex<f32>):
    %k_c = math.cos %k_a : f32
    %k_sn = math.sin %k_a : f32
    %k_re = arith.mulf %k_r, %k_c : f32
    %k_im = arith.mulf %k_r, %k_sn : f32
    %k_z = complex.create %k_re, %k_im : complex<f32>
    linalg.yield %k_z : complex<f32>
  } -> tensor<24x32xcomplex<f32>>
  %k_c0 = arith.constant 0 : index
  %k_c1 = arith.constant 1 : index
  %k_xr = tensor.expand_shape %k [[0], [1], [2], [3, 4]] output_shape [1, 2, 24, 32, 2] : tensor<1x2x24x64xf32> into tensor<1x2x24x32x2xf32>
  %k_e_xc = tensor.empty() : tensor<1x2x24x32xcomplex<f32>>
  %k_xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%k_e_xc : tensor<1x2x24x32xcomplex<f32>>) {
  ^bb0(%k_o: complex<f32>):
    %k_i0 = linalg.index 0 : index
    %k_i1 = linalg.index 1 : index
    %k_i2 = linalg.index 2 : index
    %k_i3 = linalg.index 3 : index
    %k_a = tensor.extract %k_xr[%k_i0, %k_i1, %k_i2, %k_i3, %k_c0] : tensor<1x2x24x32x2xf32>
    %k_bb = tensor.extract %k_xr[%k_i0, %k_i1, %k_i2, %k_i3, %k_c1] : tensor<1x2x24x32x2xf32>
    %k_z = complex.create %k_a, %k_bb : complex<f32>
    linalg.yield %k_z : complex<f32>
  } -> tensor<1x2x24x32xcomplex<f32>>
  %k_prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_xc, %k_cis : tensor<1x2x24x32xcomplex<f32>>, tensor<24x32xcomplex<f32>>) outs(%k_e_xc : tensor<1x2x24x32xcomplex<f32>>) {
  ^bb0(%k_a: complex<f32>, %k_bb: complex<f32>, %k_o: complex<f32>):
    %k_m = complex.mul %k_a, %k_bb : complex<f32>
    linalg.yield %k_m : complex<f32>
  } -> tensor<1x2x24x32xcomplex<f32>>
  %k_e_r = tensor.empty() : tensor<1x2x24x32x2xf32>
  %k_real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k_prod : tensor<1x2x24x32xcomplex<f32>>) outs(%k_e_r : tensor<1x2x24x32x2xf32>) {
  ^bb0(%k_z: complex<f32>, %k_o: f32):
    %k_re = complex.re %k_z : complex<f32>
    %k_im = complex.im %k_z : complex<f32>
    %k_i4 = linalg.index 4 : index
    %k_is0 = arith.cmpi eq, %k_i4, %k_c0 : index
    %k_v = arith.select %k_is0, %k_re, %k_im : f32
    linalg.yield %k_v : f32
  } -> tensor<1x2x24x32x2xf32>
  %k_out = tensor.collapse_shape %k_real [[0], [1], [2], [3, 4]] : tensor<1x2x24x32x2xf32> into tensor<1x2x24x64xf32>
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 1.250000000e-01 : f32
  %q3 = tensor.collapse_shape %q_out [[0, 1], [2], [3]] : tensor<1x4x24x64xf32> into tensor<4x24x64xf32>
  %e5 = tensor.empty() : tensor<1x2x2x24x64xf32>
  %kb = linalg.broadcast ins(%k_out : tensor<1x2x24x64xf32>) outs(%e5 : tensor<1x2x2x24x64xf32>) dimensions = [2]
  %k3 = tensor.collapse_shape %kb [[0, 1, 2], [3], [4]] : tensor<1x2x2x24x64xf32> into tensor<4x24x64xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x24x64xf32>) outs(%e5 : tensor<1x2x2x24x64xf32>) dimensions = [2]
  %v3 = tensor.collapse_shape %vb [[0, 1, 2], [3], [4]] : tensor<1x2x2x24x64xf32> into tensor<4x24x64xf32>
  %et = tensor.empty() : tensor<4x64x24xf32>
  %kt = linalg.transpose ins(%k3 : tensor<4x24x64xf32>) outs(%et : tensor<4x64x24xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<4x24x24xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x24x24xf32>) -> tensor<4x24x24xf32>
  %sc = linalg.batch_matmul ins(%q3, %kt : tensor<4x24x64xf32>, tensor<4x64x24xf32>) outs(%zs : tensor<4x24x24xf32>) -> tensor<4x24x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc : tensor<4x24x24xf32>) outs(%es : tensor<4x24x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<4x24x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x24x24xf32>) outs(%es : tensor<4x24x24xf32>) -> tensor<4x24x24xf32>
  %eo = tensor.empty() : tensor<4x24x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x24x64xf32>) -> tensor<4x24x64xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<4x24x24xf32>, tensor<4x24x64xf32>) outs(%zo : tensor<4x24x64xf32>) -> tensor<4x24x64xf32>
  return %o : tensor<4x24x64xf32>
}

