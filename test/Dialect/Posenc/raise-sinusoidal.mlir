// RUN: posenc-opt %s --posenc-raise -split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null
// RUN: posenc-opt %s --posenc-cpu-pipeline -split-input-file --mlir-print-ir-after=linalg-fuse-elementwise-ops 2>&1 | FileCheck %s --check-prefix=FUSED

// posenc-raise on a sinusoidal table added to embeddings [2, 6, 8] in
// linalg: the table a dense constant (the PyTorch tutorial's buffer, as an
// exporter folds it) read through a broadcasting map, matched by value
// against posenc.sinusoidal for positions 0..5 in either layout.

// -----

// The seed's interleaved table (pe[:, 0::2] = sin, pe[:, 1::2] = cos).
// CHECK-LABEL: func.func @interleaved(
// CHECK: %[[P:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
// CHECK: %[[T:.*]] = posenc.sinusoidal %[[P]] : tensor<6xi32> -> tensor<6x8xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[T]] : tensor<2x6x8xf32>, tensor<6x8xf32>)
// Through posenc-cpu-pipeline the table's generic fuses into the add: no
// 6x8 buffer, sin/cos computed per element of the sum.
// FUSED-LABEL: func.func @interleaved(
// FUSED-NOT: tensor<6x8xf32>
// FUSED: math.sin
// FUSED-NOT: tensor<6x8xf32>
// FUSED: return
func.func @interleaved(%x: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %pe = arith.constant dense<[[ 0.0000000e+00,  1.0000000e+00,  0.0000000e+00,  1.0000000e+00,  0.0000000e+00,  1.0000000e+00,  0.0000000e+00,  1.0000000e+00],
 [ 8.4147096e-01,  5.4030228e-01,  9.9833414e-02,  9.9500418e-01,  9.9998331e-03,  9.9994999e-01,  9.9999981e-04,  9.9999952e-01],
 [ 9.0929741e-01, -4.1614684e-01,  1.9866933e-01,  9.8006660e-01,  1.9998666e-02,  9.9980003e-01,  1.9999987e-03,  9.9999797e-01],
 [ 1.4112000e-01, -9.8999250e-01,  2.9552022e-01,  9.5533651e-01,  2.9995501e-02,  9.9955004e-01,  2.9999956e-03,  9.9999553e-01],
 [-7.5680250e-01, -6.5364361e-01,  3.8941833e-01,  9.2106098e-01,  3.9989334e-02,  9.9920011e-01,  3.9999895e-03,  9.9999201e-01],
 [-9.5892429e-01,  2.8366220e-01,  4.7942555e-01,  8.7758255e-01,  4.9979169e-02,  9.9875027e-01,  4.9999794e-03,  9.9998748e-01]]> : tensor<6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  // expected-remark @below {{raised to posenc.sinusoidal}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pe : tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}

// -----

// tensor2tensor's concat(sin, cos) with base 500: layout and base
// recovered by value.
// CHECK-LABEL: func.func @half_base_500(
// CHECK: posenc.sinusoidal %{{.*}} layout half {base = 5.000000e+02 : f64} : tensor<6xi32> -> tensor<6x8xf32>
func.func @half_base_500(%x: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %pe = arith.constant dense<[[ 0.         ,  0.         ,  0.         ,  0.         ,  1.         ,  1.         ,  1.         ,  1.         ],
 [ 0.84147096 ,  0.20990154 ,  0.044706453,  0.009457275,  0.5403023  ,  0.9777225  ,  0.9990002  ,  0.9999553  ],
 [ 0.9092974  ,  0.41045094 ,  0.08932351 ,  0.018913705, -0.41614684 ,  0.9118827  ,  0.9960027  ,  0.9998211  ],
 [ 0.14112    ,  0.5927127  ,  0.13376194 ,  0.028368441, -0.9899925  ,  0.80541396 ,  0.99101347 ,  0.99959755 ],
 [-0.7568025  ,  0.7485662  ,  0.1779329  ,  0.03782064 , -0.6536436  ,  0.66306007 ,  0.98404264 ,  0.99928457 ],
 [-0.9589243  ,  0.87106735 ,  0.22174805 ,  0.04726946 ,  0.2836622  ,  0.49116358 ,  0.975104   ,  0.9988822  ]]> : tensor<6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  // expected-remark @below {{raised to posenc.sinusoidal}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pe : tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}

// -----

// Near miss: concat(cos, sin), the halves the other way round.
// CHECK-LABEL: func.func @cos_first(
// CHECK-NOT: posenc.sinusoidal
func.func @cos_first(%x: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %pe = arith.constant dense<[[ 1.0000000e+00,  1.0000000e+00,  1.0000000e+00,  1.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00],
 [ 5.4030228e-01,  9.9500418e-01,  9.9994999e-01,  9.9999952e-01,  8.4147096e-01,  9.9833414e-02,  9.9998331e-03,  9.9999981e-04],
 [-4.1614684e-01,  9.8006660e-01,  9.9980003e-01,  9.9999797e-01,  9.0929741e-01,  1.9866933e-01,  1.9998666e-02,  1.9999987e-03],
 [-9.8999250e-01,  9.5533651e-01,  9.9955004e-01,  9.9999553e-01,  1.4112000e-01,  2.9552022e-01,  2.9995501e-02,  2.9999956e-03],
 [-6.5364361e-01,  9.2106098e-01,  9.9920011e-01,  9.9999201e-01, -7.5680250e-01,  3.8941833e-01,  3.9989334e-02,  3.9999895e-03],
 [ 2.8366220e-01,  8.7758255e-01,  9.9875027e-01,  9.9998748e-01, -9.5892429e-01,  4.7942555e-01,  4.9979169e-02,  4.9999794e-03]]> : tensor<6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  // expected-remark @below {{not raised to posenc.sinusoidal: the constant table in [-1, 1] matches posenc.sinusoidal of positions 0..S-1 in neither layout for any base}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pe : tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}

// -----

// Near miss: the rows are positions 1..6, not 0..5.
// CHECK-LABEL: func.func @positions_from_1(
// CHECK-NOT: posenc.sinusoidal
func.func @positions_from_1(%x: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %pe = arith.constant dense<[[ 0.84147096  ,  0.5403023   ,  0.099833414 ,  0.9950042   ,  0.009999833 ,  0.99995     ,  0.0009999998,  0.9999995   ],
 [ 0.9092974   , -0.41614684  ,  0.19866933  ,  0.9800666   ,  0.019998666 ,  0.9998      ,  0.0019999987,  0.999998    ],
 [ 0.14112     , -0.9899925   ,  0.29552022  ,  0.9553365   ,  0.029995501 ,  0.99955004  ,  0.0029999956,  0.9999955   ],
 [-0.7568025   , -0.6536436   ,  0.38941833  ,  0.921061    ,  0.039989334 ,  0.9992001   ,  0.0039999895,  0.999992    ],
 [-0.9589243   ,  0.2836622   ,  0.47942555  ,  0.87758255  ,  0.04997917  ,  0.99875027  ,  0.0049999794,  0.9999875   ],
 [-0.2794155   ,  0.96017027  ,  0.5646425   ,  0.8253356   ,  0.059964005 ,  0.99820054  ,  0.005999964 ,  0.999982    ]]> : tensor<6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  // expected-remark @below {{not raised to posenc.sinusoidal: the constant table in [-1, 1] matches posenc.sinusoidal of positions 0..S-1 in neither layout for any base}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pe : tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}

// -----

// Near miss: a learned absolute embedding (random values in [-1, 1]).
// CHECK-LABEL: func.func @learned(
// CHECK-NOT: posenc.sinusoidal
func.func @learned(%x: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %pe = arith.constant dense<[[ 0.27392337 , -0.46042657 , -0.918053   , -0.96694475 ,  0.6265405  ,  0.82551116 ,  0.21327156 ,  0.4589931  ],
 [ 0.08724998 ,  0.87014484 ,  0.63170713 , -0.994523   ,  0.7148085  , -0.93282884 ,  0.4593109  , -0.64868873 ],
 [ 0.7263578  ,  0.082922444, -0.4005762  , -0.15462556 , -0.9433607  , -0.75143343 ,  0.34124884 ,  0.29437903 ],
 [ 0.23077023 , -0.23264489 ,  0.9944199  ,  0.9616707  ,  0.37108397 ,  0.30091855 ,  0.37689346 , -0.22215715 ],
 [-0.729807   ,  0.44297668 ,  0.050708644, -0.37951624 , -0.028329283,  0.77897567 ,  0.86808705 , -0.2844096  ],
 [ 0.14305966 , -0.35626122 ,  0.18860006 , -0.32417756 , -0.216762   ,  0.7805487  , -0.5456848  ,  0.2463743  ]]> : tensor<6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  // expected-remark @below {{not raised to posenc.sinusoidal: the constant table in [-1, 1] matches posenc.sinusoidal of positions 0..S-1 in neither layout for any base}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pe : tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}
