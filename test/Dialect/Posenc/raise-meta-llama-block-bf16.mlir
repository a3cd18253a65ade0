// RUN: posenc-opt %s --posenc-raise | FileCheck %s --check-prefix=RAISE
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=FUSED

// raise-meta-llama-block.mlir in bf16 (meta_llama_block(1, 20, 8, 2, 32,
// llama3 of base 500000, elem="bf16")): Meta rotates in f32 between
// `.float()` and `.type_as(xq)`. The transposes move across those casts
// (RaiseTransposes.cpp) and truncf(rope(extf(x))) becomes the rope on the
// bf16 x (RaiseRopeComplex.cpp: it rotates in f32 and rounds once, as the
// casts do), so the ropes feed the bf16 attention directly and fuse into
// it like the f32 block's.
// RAISE-LABEL: func.func @block(
// RAISE-NOT: arith.extf
// RAISE-COUNT-2: posenc.rope {{.*}} layout interleaved {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, {{.*}}>} : tensor<{{[0-9]+}}x20x32xbf16>
// RAISE: posenc.attention {{.*}} {causal, scale = {{.*}} : f64} : tensor<8x20x32xbf16>, tensor<2x20x32xbf16>, tensor<2x20x32xbf16> -> tensor<8x20x32xbf16>
// RAISE-NOT: complex.
// FUSED-LABEL: IR Dump After PosencDecomposeAttentionPass
// FUSED-NOT: x20x20x
// FUSED-NOT: <20x20x
// FUSED-NOT: complex.
// FUSED-NOT: = posenc.
// FUSED: scf.forall (
// FUSED-NOT: scf.forall (
// FUSED-NOT: x20x20x
// FUSED-NOT: complex.
// FUSED: llvm.func @block

func.func @block(%q_proj: tensor<1x20x256xbf16>, %k_proj: tensor<1x20x64xbf16>, %v_proj: tensor<1x20x64xbf16>, %pos: tensor<20xi32>) -> tensor<1x20x256xbf16> {
  %v1 = tensor.expand_shape %q_proj [[0], [1], [2, 3]] output_shape [1, 20, 8, 32] : tensor<1x20x256xbf16> into tensor<1x20x8x32xbf16>
  %v2 = tensor.expand_shape %k_proj [[0], [1], [2, 3]] output_shape [1, 20, 2, 32] : tensor<1x20x64xbf16> into tensor<1x20x2x32xbf16>
  %v3 = tensor.expand_shape %v_proj [[0], [1], [2, 3]] output_shape [1, 20, 2, 32] : tensor<1x20x64xbf16> into tensor<1x20x2x32xbf16>
  %q_inv = arith.constant dense<[1.000000000e+00, 4.403666258e-01, 1.939227581e-01, 8.539710194e-02, 3.760603070e-02, 1.656044088e-02, 7.292665076e-03, 3.211446106e-03, 5.248460220e-04, 7.784655463e-05, 3.428102355e-05, 1.509621779e-05, 6.647870578e-06, 2.927499736e-06, 1.289173156e-06, 5.677088097e-07]> : tensor<16xf32>
  %q_e_s = tensor.empty() : tensor<20xf32>
  %q_pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<20xi32>) outs(%q_e_s : tensor<20xf32>) {
  ^bb0(%q_a: i32, %q_o: f32):
    %q_v = arith.sitofp %q_a : i32 to f32
    linalg.yield %q_v : f32
  } -> tensor<20xf32>
  %q_e_sp = tensor.empty() : tensor<20x16xf32>
  %q_f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_pf, %q_inv : tensor<20xf32>, tensor<16xf32>) outs(%q_e_sp : tensor<20x16xf32>) {
  ^bb0(%q_a: f32, %q_b: f32, %q_o: f32):
    %q_m = arith.mulf %q_a, %q_b : f32
    linalg.yield %q_m : f32
  } -> tensor<20x16xf32>
  %q_e_c = tensor.empty() : tensor<20x16xcomplex<f32>>
  %q_ones = arith.constant dense<1.0> : tensor<20x16xf32>
  %q_cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_ones, %q_f : tensor<20x16xf32>, tensor<20x16xf32>) outs(%q_e_c : tensor<20x16xcomplex<f32>>) {
  ^bb0(%q_r: f32, %q_a: f32, %q_o: complex<f32>):
    %q_c = math.cos %q_a : f32
    %q_sn = math.sin %q_a : f32
    %q_re = arith.mulf %q_r, %q_c : f32
    %q_im = arith.mulf %q_r, %q_sn : f32
    %q_z = complex.create %q_re, %q_im : complex<f32>
    linalg.yield %q_z : complex<f32>
  } -> tensor<20x16xcomplex<f32>>
  %q_cis4 = tensor.expand_shape %q_cis [[0, 1], [2, 3]] output_shape [1, 20, 1, 16] : tensor<20x16xcomplex<f32>> into tensor<1x20x1x16xcomplex<f32>>
  %q_e_x = tensor.empty() : tensor<1x20x8x32xf32>
  %q_x32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v1 : tensor<1x20x8x32xbf16>) outs(%q_e_x : tensor<1x20x8x32xf32>) {
  ^bb0(%q_a: bf16, %q_o: f32):
    %q_v = arith.extf %q_a : bf16 to f32
    linalg.yield %q_v : f32
  } -> tensor<1x20x8x32xf32>
  %q_c0 = arith.constant 0 : index
  %q_c1 = arith.constant 1 : index
  %q_xr = tensor.expand_shape %q_x32 [[0], [1], [2], [3, 4]] output_shape [1, 20, 8, 16, 2] : tensor<1x20x8x32xf32> into tensor<1x20x8x16x2xf32>
  %q_e_xc = tensor.empty() : tensor<1x20x8x16xcomplex<f32>>
  %q_xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%q_e_xc : tensor<1x20x8x16xcomplex<f32>>) {
  ^bb0(%q_o: complex<f32>):
    %q_i0 = linalg.index 0 : index
    %q_i1 = linalg.index 1 : index
    %q_i2 = linalg.index 2 : index
    %q_i3 = linalg.index 3 : index
    %q_a = tensor.extract %q_xr[%q_i0, %q_i1, %q_i2, %q_i3, %q_c0] : tensor<1x20x8x16x2xf32>
    %q_bb = tensor.extract %q_xr[%q_i0, %q_i1, %q_i2, %q_i3, %q_c1] : tensor<1x20x8x16x2xf32>
    %q_z = complex.create %q_a, %q_bb : complex<f32>
    linalg.yield %q_z : complex<f32>
  } -> tensor<1x20x8x16xcomplex<f32>>
  %q_prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_xc, %q_cis4 : tensor<1x20x8x16xcomplex<f32>>, tensor<1x20x1x16xcomplex<f32>>) outs(%q_e_xc : tensor<1x20x8x16xcomplex<f32>>) {
  ^bb0(%q_a: complex<f32>, %q_bb: complex<f32>, %q_o: complex<f32>):
    %q_m = complex.mul %q_a, %q_bb : complex<f32>
    linalg.yield %q_m : complex<f32>
  } -> tensor<1x20x8x16xcomplex<f32>>
  %q_e_r = tensor.empty() : tensor<1x20x8x16x2xf32>
  %q_real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%q_prod : tensor<1x20x8x16xcomplex<f32>>) outs(%q_e_r : tensor<1x20x8x16x2xf32>) {
  ^bb0(%q_z: complex<f32>, %q_o: f32):
    %q_re = complex.re %q_z : complex<f32>
    %q_im = complex.im %q_z : complex<f32>
    %q_i4 = linalg.index 4 : index
    %q_is0 = arith.cmpi eq, %q_i4, %q_c0 : index
    %q_v = arith.select %q_is0, %q_re, %q_im : f32
    linalg.yield %q_v : f32
  } -> tensor<1x20x8x16x2xf32>
  %q_out = tensor.collapse_shape %q_real [[0], [1], [2], [3, 4]] : tensor<1x20x8x16x2xf32> into tensor<1x20x8x32xf32>
  %q_e_y = tensor.empty() : tensor<1x20x8x32xbf16>
  %q_y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_out : tensor<1x20x8x32xf32>) outs(%q_e_y : tensor<1x20x8x32xbf16>) {
  ^bb0(%q_a: f32, %q_o: bf16):
    %q_v = arith.truncf %q_a : f32 to bf16
    linalg.yield %q_v : bf16
  } -> tensor<1x20x8x32xbf16>
  %k_inv = arith.constant dense<[1.000000000e+00, 4.403666258e-01, 1.939227581e-01, 8.539710194e-02, 3.760603070e-02, 1.656044088e-02, 7.292665076e-03, 3.211446106e-03, 5.248460220e-04, 7.784655463e-05, 3.428102355e-05, 1.509621779e-05, 6.647870578e-06, 2.927499736e-06, 1.289173156e-06, 5.677088097e-07]> : tensor<16xf32>
  %k_e_s = tensor.empty() : tensor<20xf32>
  %k_pf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%pos : tensor<20xi32>) outs(%k_e_s : tensor<20xf32>) {
  ^bb0(%k_a: i32, %k_o: f32):
    %k_v = arith.sitofp %k_a : i32 to f32
    linalg.yield %k_v : f32
  } -> tensor<20xf32>
  %k_e_sp = tensor.empty() : tensor<20x16xf32>
  %k_f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%k_pf, %k_inv : tensor<20xf32>, tensor<16xf32>) outs(%k_e_sp : tensor<20x16xf32>) {
  ^bb0(%k_a: f32, %k_b: f32, %k_o: f32):
    %k_m = arith.mulf %k_a, %k_b : f32
    linalg.yield %k_m : f32
  } -> tensor<20x16xf32>
  %k_e_c = tensor.empty() : tensor<20x16xcomplex<f32>>
  %k_ones = arith.constant dense<1.0> : tensor<20x16xf32>
  %k_cis = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%k_ones, %k_f : tensor<20x16xf32>, tensor<20x16xf32>) outs(%k_e_c : tensor<20x16xcomplex<f32>>) {
  ^bb0(%k_r: f32, %k_a: f32, %k_o: complex<f32>):
    %k_c = math.cos %k_a : f32
    %k_sn = math.sin %k_a : f32
    %k_re = arith.mulf %k_r, %k_c : f32
    %k_im = arith.mulf %k_r, %k_sn : f32
    %k_z = complex.create %k_re, %k_im : complex<f32>
    linalg.yield %k_z : complex<f32>
  } -> tensor<20x16xcomplex<f32>>
  %k_cis4 = tensor.expand_shape %k_cis [[0, 1], [2, 3]] output_shape [1, 20, 1, 16] : tensor<20x16xcomplex<f32>> into tensor<1x20x1x16xcomplex<f32>>
  %k_e_x = tensor.empty() : tensor<1x20x2x32xf32>
  %k_x32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v2 : tensor<1x20x2x32xbf16>) outs(%k_e_x : tensor<1x20x2x32xf32>) {
  ^bb0(%k_a: bf16, %k_o: f32):
    %k_v = arith.extf %k_a : bf16 to f32
    linalg.yield %k_v : f32
  } -> tensor<1x20x2x32xf32>
  %k_c0 = arith.constant 0 : index
  %k_c1 = arith.constant 1 : index
  %k_xr = tensor.expand_shape %k_x32 [[0], [1], [2], [3, 4]] output_shape [1, 20, 2, 16, 2] : tensor<1x20x2x32xf32> into tensor<1x20x2x16x2xf32>
  %k_e_xc = tensor.empty() : tensor<1x20x2x16xcomplex<f32>>
  %k_xc = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%k_e_xc : tensor<1x20x2x16xcomplex<f32>>) {
  ^bb0(%k_o: complex<f32>):
    %k_i0 = linalg.index 0 : index
    %k_i1 = linalg.index 1 : index
    %k_i2 = linalg.index 2 : index
    %k_i3 = linalg.index 3 : index
    %k_a = tensor.extract %k_xr[%k_i0, %k_i1, %k_i2, %k_i3, %k_c0] : tensor<1x20x2x16x2xf32>
    %k_bb = tensor.extract %k_xr[%k_i0, %k_i1, %k_i2, %k_i3, %k_c1] : tensor<1x20x2x16x2xf32>
    %k_z = complex.create %k_a, %k_bb : complex<f32>
    linalg.yield %k_z : complex<f32>
  } -> tensor<1x20x2x16xcomplex<f32>>
  %k_prod = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_xc, %k_cis4 : tensor<1x20x2x16xcomplex<f32>>, tensor<1x20x1x16xcomplex<f32>>) outs(%k_e_xc : tensor<1x20x2x16xcomplex<f32>>) {
  ^bb0(%k_a: complex<f32>, %k_bb: complex<f32>, %k_o: complex<f32>):
    %k_m = complex.mul %k_a, %k_bb : complex<f32>
    linalg.yield %k_m : complex<f32>
  } -> tensor<1x20x2x16xcomplex<f32>>
  %k_e_r = tensor.empty() : tensor<1x20x2x16x2xf32>
  %k_real = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k_prod : tensor<1x20x2x16xcomplex<f32>>) outs(%k_e_r : tensor<1x20x2x16x2xf32>) {
  ^bb0(%k_z: complex<f32>, %k_o: f32):
    %k_re = complex.re %k_z : complex<f32>
    %k_im = complex.im %k_z : complex<f32>
    %k_i4 = linalg.index 4 : index
    %k_is0 = arith.cmpi eq, %k_i4, %k_c0 : index
    %k_v = arith.select %k_is0, %k_re, %k_im : f32
    linalg.yield %k_v : f32
  } -> tensor<1x20x2x16x2xf32>
  %k_out = tensor.collapse_shape %k_real [[0], [1], [2], [3, 4]] : tensor<1x20x2x16x2xf32> into tensor<1x20x2x32xf32>
  %k_e_y = tensor.empty() : tensor<1x20x2x32xbf16>
  %k_y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_out : tensor<1x20x2x32xf32>) outs(%k_e_y : tensor<1x20x2x32xbf16>) {
  ^bb0(%k_a: f32, %k_o: bf16):
    %k_v = arith.truncf %k_a : f32 to bf16
    linalg.yield %k_v : bf16
  } -> tensor<1x20x2x32xbf16>
  %v4 = tensor.expand_shape %k_y [[0], [1], [2, 3], [4]] output_shape [1, 20, 2, 1, 32] : tensor<1x20x2x32xbf16> into tensor<1x20x2x1x32xbf16>
  %v5 = tensor.empty() : tensor<1x20x2x4x32xbf16>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v4 : tensor<1x20x2x1x32xbf16>) outs(%v5 : tensor<1x20x2x4x32xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<1x20x2x4x32xbf16>
  %v7 = tensor.collapse_shape %v6 [[0], [1], [2, 3], [4]] : tensor<1x20x2x4x32xbf16> into tensor<1x20x8x32xbf16>
  %v8 = tensor.expand_shape %v3 [[0], [1], [2, 3], [4]] output_shape [1, 20, 2, 1, 32] : tensor<1x20x2x32xbf16> into tensor<1x20x2x1x32xbf16>
  %v9 = tensor.empty() : tensor<1x20x2x4x32xbf16>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v8 : tensor<1x20x2x1x32xbf16>) outs(%v9 : tensor<1x20x2x4x32xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<1x20x2x4x32xbf16>
  %v11 = tensor.collapse_shape %v10 [[0], [1], [2, 3], [4]] : tensor<1x20x2x4x32xbf16> into tensor<1x20x8x32xbf16>
  %v12 = tensor.empty() : tensor<1x8x20x32xbf16>
  %v13 = linalg.transpose ins(%q_y : tensor<1x20x8x32xbf16>) outs(%v12 : tensor<1x8x20x32xbf16>) permutation = [0, 2, 1, 3]
  %v14 = tensor.empty() : tensor<1x8x20x32xbf16>
  %v15 = linalg.transpose ins(%v7 : tensor<1x20x8x32xbf16>) outs(%v14 : tensor<1x8x20x32xbf16>) permutation = [0, 2, 1, 3]
  %v16 = tensor.empty() : tensor<1x8x20x32xbf16>
  %v17 = linalg.transpose ins(%v11 : tensor<1x20x8x32xbf16>) outs(%v16 : tensor<1x8x20x32xbf16>) permutation = [0, 2, 1, 3]
  %v18 = tensor.empty() : tensor<1x8x32x20xbf16>
  %v19 = linalg.transpose ins(%v15 : tensor<1x8x20x32xbf16>) outs(%v18 : tensor<1x8x32x20xbf16>) permutation = [0, 1, 3, 2]
  %v20 = arith.constant 0.0 : bf16
  %v21 = tensor.collapse_shape %v13 [[0, 1], [2], [3]] : tensor<1x8x20x32xbf16> into tensor<8x20x32xbf16>
  %v22 = tensor.collapse_shape %v19 [[0, 1], [2], [3]] : tensor<1x8x32x20xbf16> into tensor<8x32x20xbf16>
  %v23 = tensor.empty() : tensor<8x20x20xbf16>
  %v24 = linalg.fill ins(%v20 : bf16) outs(%v23 : tensor<8x20x20xbf16>) -> tensor<8x20x20xbf16>
  %v25 = linalg.batch_matmul ins(%v21, %v22 : tensor<8x20x32xbf16>, tensor<8x32x20xbf16>) outs(%v24 : tensor<8x20x20xbf16>) -> tensor<8x20x20xbf16>
  %v26 = tensor.expand_shape %v25 [[0, 1], [2], [3]] output_shape [1, 8, 20, 20] : tensor<8x20x20xbf16> into tensor<1x8x20x20xbf16>
  %v27 = arith.constant 5.656854249492381 : bf16
  %v28 = tensor.empty() : tensor<1x8x20x20xbf16>
  %v29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v26 : tensor<1x8x20x20xbf16>) outs(%v28 : tensor<1x8x20x20xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %r = arith.divf %a0, %v27 : bf16
    linalg.yield %r : bf16
  } -> tensor<1x8x20x20xbf16>
  %v30 = arith.constant 0xFF80 : bf16
  %v31 = tensor.empty() : tensor<20x20xbf16>
  %v32 = linalg.fill ins(%v30 : bf16) outs(%v31 : tensor<20x20xbf16>) -> tensor<20x20xbf16>
  %v33 = tensor.empty() : tensor<20x20xbf16>
  %v34 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v32 : tensor<20x20xbf16>) outs(%v33 : tensor<20x20xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %dd = arith.subi %jj, %ii : i64
    %one = arith.constant 1 : i64
    %above = arith.cmpi sge, %dd, %one : i64
    %r = arith.select %above, %a0, %v20 : bf16
    linalg.yield %r : bf16
  } -> tensor<20x20xbf16>
  %v35 = tensor.empty() : tensor<1x8x20x20xbf16>
  %v36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v29, %v34 : tensor<1x8x20x20xbf16>, tensor<20x20xbf16>) outs(%v35 : tensor<1x8x20x20xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %r = arith.addf %a0, %a1 : bf16
    linalg.yield %r : bf16
  } -> tensor<1x8x20x20xbf16>
  %v37 = tensor.empty() : tensor<1x8x20x20xf32>
  %v38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v36 : tensor<1x8x20x20xbf16>) outs(%v37 : tensor<1x8x20x20xf32>) {
  ^bb0(%a0: bf16, %out: f32):
    %r = arith.extf %a0 : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<1x8x20x20xf32>
  %v39 = tensor.empty() : tensor<1x8x20xf32>
  %v40 = arith.constant 0xFF800000 : f32
  %v41 = linalg.fill ins(%v40 : f32) outs(%v39 : tensor<1x8x20xf32>) -> tensor<1x8x20xf32>
  %v42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v38 : tensor<1x8x20x20xf32>) outs(%v41 : tensor<1x8x20xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x20xf32>
  %v43 = tensor.empty() : tensor<1x8x20x20xf32>
  %v44 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v38, %v42 : tensor<1x8x20x20xf32>, tensor<1x8x20xf32>) outs(%v43 : tensor<1x8x20x20xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.subf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x20x20xf32>
  %v45 = tensor.empty() : tensor<1x8x20x20xf32>
  %v46 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v44 : tensor<1x8x20x20xf32>) outs(%v45 : tensor<1x8x20x20xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %r = math.exp %a0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x20x20xf32>
  %v47 = tensor.empty() : tensor<1x8x20xf32>
  %v48 = arith.constant 0.0 : f32
  %v49 = linalg.fill ins(%v48 : f32) outs(%v47 : tensor<1x8x20xf32>) -> tensor<1x8x20xf32>
  %v50 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v46 : tensor<1x8x20x20xf32>) outs(%v49 : tensor<1x8x20xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x8x20xf32>
  %v51 = tensor.empty() : tensor<1x8x20x20xf32>
  %v52 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v46, %v50 : tensor<1x8x20x20xf32>, tensor<1x8x20xf32>) outs(%v51 : tensor<1x8x20x20xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.divf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x20x20xf32>
  %v53 = tensor.empty() : tensor<1x8x20x20xbf16>
  %v54 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v52 : tensor<1x8x20x20xf32>) outs(%v53 : tensor<1x8x20x20xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x8x20x20xbf16>
  %v55 = tensor.collapse_shape %v54 [[0, 1], [2], [3]] : tensor<1x8x20x20xbf16> into tensor<8x20x20xbf16>
  %v56 = tensor.collapse_shape %v17 [[0, 1], [2], [3]] : tensor<1x8x20x32xbf16> into tensor<8x20x32xbf16>
  %v57 = tensor.empty() : tensor<8x20x32xbf16>
  %v58 = linalg.fill ins(%v20 : bf16) outs(%v57 : tensor<8x20x32xbf16>) -> tensor<8x20x32xbf16>
  %v59 = linalg.batch_matmul ins(%v55, %v56 : tensor<8x20x20xbf16>, tensor<8x20x32xbf16>) outs(%v58 : tensor<8x20x32xbf16>) -> tensor<8x20x32xbf16>
  %v60 = tensor.expand_shape %v59 [[0, 1], [2], [3]] output_shape [1, 8, 20, 32] : tensor<8x20x32xbf16> into tensor<1x8x20x32xbf16>
  %v61 = tensor.empty() : tensor<1x20x8x32xbf16>
  %v62 = linalg.transpose ins(%v60 : tensor<1x8x20x32xbf16>) outs(%v61 : tensor<1x20x8x32xbf16>) permutation = [0, 2, 1, 3]
  %v63 = tensor.collapse_shape %v62 [[0], [1], [2, 3]] : tensor<1x20x8x32xbf16> into tensor<1x20x256xbf16>
  return %v63 : tensor<1x20x256xbf16>
}
