// RUN: posenc-opt %s --posenc-to-linalg --split-input-file | FileCheck %s

// RoPE, half layout, partial rotary_dim: a constant inv_freq table of
// rotary_dim/2 entries, one elementwise generic that reads the pair partner
// with tensor.extract, f32 cos/sin, and dims >= rotary_dim passed through.
// CHECK-LABEL: func.func @rope_half_partial
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x8xf32>, %[[POS:.*]]: tensor<5xi32>)
// CHECK:         %[[INV:.*]] = arith.constant dense<[1.000000e+00, 0.0464158878, 0.0021544348]> : tensor<3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[POS]] : tensor<2x5x8xf32>, tensor<5xi32>)
// CHECK:           arith.cmpi ult, %{{.*}}, %c6
// CHECK:           tensor.extract %[[X]]
// CHECK:           tensor.extract %[[INV]]
// CHECK:           arith.sitofp %{{.*}} : i32 to f32
// CHECK:           math.cos %{{.*}} : f32
// CHECK:           math.sin %{{.*}} : f32
// CHECK:           arith.subf
// CHECK:           arith.addf
// CHECK-NOT:     posenc.
func.func @rope_half_partial(%x: tensor<2x5x8xf32>, %pos: tensor<5xi32>) -> tensor<2x5x8xf32> {
  %r = posenc.rope %x, %pos layout half {rotary_dim = 6 : i64} : tensor<2x5x8xf32>, tensor<5xi32>
  return %r : tensor<2x5x8xf32>
}

// -----

// Exact precision: the table and the angle are f64; cos/sin in f64 are then
// rounded to f32. bf16 input is computed in f32 and truncated back. A dynamic
// sequence dim gets a run-time check against the positions.
// CHECK-LABEL: func.func @rope_exact_bf16
// CHECK:         cf.assert %{{.*}}, "posenc.rope: length of 'positions' differs from the sequence dim of 'input'"
// CHECK:         arith.constant dense<{{.*}}> : tensor<4xf64>
// CHECK:         linalg.generic
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.sitofp %{{.*}} : i64 to f64
// CHECK:           math.cos %{{.*}} : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @rope_exact_bf16(%x: tensor<?x8xbf16>, %pos: tensor<?xi64>) -> tensor<?x8xbf16> {
  %r = posenc.rope %x, %pos layout interleaved precision exact : tensor<?x8xbf16>, tensor<?xi64>
  return %r : tensor<?x8xbf16>
}

// -----

// Dynamic NTK depends on L = max(positions) + 1: a max reduction over the
// positions, then the table computed at run time in f64.
// CHECK-LABEL: func.func @rope_dynamic_ntk
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.maxsi
// CHECK:         math.powf %{{.*}} : f64
// CHECK:         math.log %{{.*}} : f64
// CHECK:         linalg.generic
// CHECK:           math.exp %{{.*}} : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
func.func @rope_dynamic_ntk(%x: tensor<4x16xf32>, %pos: tensor<4xi32>) -> tensor<4x16xf32> {
  %r = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 2>} : tensor<4x16xf32>, tensor<4xi32>
  return %r : tensor<4x16xf32>
}

// -----

// LongRoPE: both tables are constants and L picks one.
// CHECK-LABEL: func.func @rope_longrope
// CHECK-DAG:     %[[SHORT:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-02]> : tensor<2xf32>
// CHECK-DAG:     %[[LONG:.*]] = arith.constant dense<[2.500000e-01, 2.500000e-02]> : tensor<2xf32>
// CHECK:         %[[ISLONG:.*]] = arith.cmpf ogt
// CHECK:         arith.select %[[ISLONG]], %[[LONG]], %[[SHORT]] : tensor<2xf32>
func.func @rope_longrope(%x: tensor<3x4xf32>, %pos: tensor<3xi32>) -> tensor<3x4xf32> {
  %r = posenc.rope %x, %pos layout half {base = 100.0 : f64, scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 2.0], long_factor = [4.0, 4.0], original_max_position = 8>} : tensor<3x4xf32>, tensor<3xi32>
  return %r : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @sinusoidal_half_f16
// CHECK:         %[[INV:.*]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// CHECK:         tensor.empty() : tensor<6x8xf16>
// CHECK:         linalg.generic
// CHECK:           arith.cmpi uge
// CHECK:           tensor.extract %[[INV]]
// CHECK:           math.sin
// CHECK:           math.cos
// CHECK:           arith.select
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @sinusoidal_half_f16(%pos: tensor<6xi32>) -> tensor<6x8xf16> {
  %t = posenc.sinusoidal %pos layout half : tensor<6xi32> -> tensor<6x8xf16>
  return %t : tensor<6x8xf16>
}

// -----

// ALiBi: slopes of heads 4..7 of a 12-head model (2^-5 .. 2^-8: the first 8
// slopes are those of 8 heads) as a constant; the bias is
// slope * (j - (i + Sk - Sq)) from the generic's indices.
// CHECK-LABEL: func.func @alibi_sharded
// CHECK-SAME:    (%[[SQ:.*]]: index, %[[SK:.*]]: index)
// CHECK:         %[[SLOPES:.*]] = arith.constant dense<[3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03]> : tensor<4xf32>
// CHECK:         tensor.empty(%[[SQ]], %[[SK]]) : tensor<4x?x?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SLOPES]] : tensor<4xf32>)
// CHECK:           linalg.index 1
// CHECK:           linalg.index 2
// CHECK:           arith.subi
// CHECK:           arith.mulf
func.func @alibi_sharded(%sq: index, %sk: index) -> tensor<4x?x?xf32> {
  %b = posenc.alibi_bias (%sq, %sk) {num_heads = 12 : i64, head_offset = 4 : i64} : tensor<4x?x?xf32>
  return %b : tensor<4x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @alibi_symmetric
// CHECK:         math.absf
// CHECK:         arith.negf
func.func @alibi_symmetric() -> tensor<2x3x3xf32> {
  %b = posenc.alibi_bias {symmetric} : tensor<2x3x3xf32>
  return %b : tensor<2x3x3xf32>
}

// -----

// Attention with GQA (8 query heads over 2 kv heads): key/value are indexed
// with `h floordiv 4`, no copy of K/V; the causal mask selects -inf; the
// softmax is max, exp (zero for fully masked rows), sum, guarded divide.
// CHECK-DAG:   #[[KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d3, d4)>
// CHECK-DAG:   #[[VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d4, d3)>
// CHECK-LABEL: func.func @attention_gqa_causal
// CHECK:         cf.assert %{{.*}}, "posenc.attention: sequence dim of 'value' differs from 'key'"
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[KMAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK:         linalg.generic
// CHECK:           arith.constant 2.500000e-01 : f32
// CHECK:           arith.cmpi sgt
// CHECK:           arith.select %{{.*}}, %cst{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic {{.*}}"reduction"
// CHECK:           arith.maximumf
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}"reduction"
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[VMAP]], #{{.*}}]
func.func @attention_gqa_causal(%q: tensor<1x8x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x8x?x16xf32> {
  %o = posenc.attention %q, %k, %v {causal} : tensor<1x8x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x8x?x16xf32>
  return %o : tensor<1x8x?x16xf32>
}

// -----

// A bias of shape [Sq, 1] broadcasts over heads and keys: its map uses the
// constant 0 for the size-1 dim.
// CHECK-DAG:   #[[BMAP:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @attention_broadcast_bias_f16
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[BMAP]], #{{.*}}]
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @attention_broadcast_bias_f16(%q: tensor<2x4x8xf16>, %b: tensor<4x1xf16>) -> tensor<2x4x8xf16> {
  %o = posenc.attention %q, %q, %q bias(%b : tensor<4x1xf16>) : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>
  return %o : tensor<2x4x8xf16>
}

// -----

// Shaw: the [Sq, 2K+1] q.rel_key table (here K = 2), gathered per (i, j)
// with the clamped bucket; the value term gathers rel_value[r(i, j)].
// CHECK-LABEL: func.func @rel_pos
// CHECK:         tensor.empty(%{{.*}}) : tensor<2x?x5xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x?x8xf32>, tensor<5x8xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           tensor.extract
// CHECK:         math.exp
// CHECK:         linalg.generic
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           tensor.extract %{{.*}} : tensor<5x8xf32>
func.func @rel_pos(%q: tensor<2x?x8xf32>, %rk: tensor<5x8xf32>, %rv: tensor<5x8xf32>) -> tensor<2x?x8xf32> {
  %o = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<5x8xf32>) rel_value(%rv : tensor<5x8xf32>) {causal} : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32> -> tensor<2x?x8xf32>
  return %o : tensor<2x?x8xf32>
}

// -----

// A result type that is only compatible with the operands (more or less
// static) is reached with a tensor.cast.
// CHECK-LABEL: func.func @compatible_result_types
// CHECK:         %[[T:.*]] = linalg.generic
// CHECK:         tensor.cast %[[T]] : tensor<8x32xf32> to tensor<?x32xf32>
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:         tensor.cast %{{.*}} : tensor<2x?x4xf32> to tensor<2x5x4xf32>
func.func @compatible_result_types(%pos: tensor<8xi32>, %q: tensor<2x?x4xf32>) -> (tensor<?x32xf32>, tensor<2x5x4xf32>) {
  %t = posenc.sinusoidal %pos : tensor<8xi32> -> tensor<?x32xf32>
  %o = posenc.attention %q, %q, %q {scale = 0.5 : f64} : tensor<2x?x4xf32>, tensor<2x?x4xf32>, tensor<2x?x4xf32> -> tensor<2x5x4xf32>
  return %t, %o : tensor<?x32xf32>, tensor<2x5x4xf32>
}
