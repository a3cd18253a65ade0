// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of posenc.t5_bias's verifier (PosencRelativeOps.cpp).

func.func @t5_table_rank(%t: tensor<32x8x1xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op 'table' must be a tensor<NB x H x F> (rank 2), got 'tensor<32x8x1xf32>'}}
  %0 = posenc.t5_bias %t : tensor<32x8x1xf32> -> tensor<8x4x4xf32>
  return
}

// -----

func.func @t5_result_rank(%t: tensor<32x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op result must have rank >= 3 ([B...] x H x Sq x Sk), got rank 2}}
  %0 = posenc.t5_bias %t : tensor<32x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @t5_missing_dynamic_size(%t: tensor<32x8xf32>, %sq: index) {
  // expected-error @+1 {{'posenc.t5_bias' op expected 2 dynamic size operands (one per '?' of the result type), got 1}}
  %0 = posenc.t5_bias %t (%sq) : tensor<32x8xf32> -> tensor<8x?x?xf32>
  return
}

// -----

func.func @t5_element_type(%t: tensor<32x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op result element type ('f16') must equal the element type of 'table' ('f32')}}
  %0 = posenc.t5_bias %t : tensor<32x8xf32> -> tensor<8x4x4xf16>
  return
}

// -----

func.func @t5_heads(%t: tensor<32x4xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op 'table' has H = 4 heads (dim 1), but the result has 8 (dim -3)}}
  %0 = posenc.t5_bias %t : tensor<32x4xf32> -> tensor<8x4x4xf32>
  return
}

// -----

func.func @t5_dynamic_buckets(%t: tensor<?x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op the number of buckets NB (dim 0 of 'table') must be static}}
  %0 = posenc.t5_bias %t : tensor<?x8xf32> -> tensor<8x4x4xf32>
  return
}

// -----

func.func @t5_too_few_buckets(%t: tensor<3x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op 'table' must have at least 4 buckets when bidirectional (one exact and one logarithmic bucket per direction), got NB = 3}}
  %0 = posenc.t5_bias %t {bidirectional} : tensor<3x8xf32> -> tensor<8x4x4xf32>
  return
}

// -----

func.func @t5_too_few_causal_buckets(%t: tensor<1x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op 'table' must have at least 2 buckets (one exact and one logarithmic bucket), got NB = 1}}
  %0 = posenc.t5_bias %t : tensor<1x8xf32> -> tensor<8x4x4xf32>
  return
}

// -----

func.func @t5_max_distance(%t: tensor<32x8xf32>) {
  // expected-error @+1 {{'posenc.t5_bias' op max_distance (8) must be > the number of exact buckets (8), or log(max_distance / 8) is not positive}}
  %0 = posenc.t5_bias %t {bidirectional, max_distance = 8 : i64} : tensor<32x8xf32> -> tensor<8x4x4xf32>
  return
}

// -----

// posenc.fused_attention's T5 term (verifyFusedT5Term).

func.func @fused_t5_attrs_without_table(%q: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 't5_max_distance' and 't5_bidirectional' need a 't5_table' operand}}
  %o = posenc.fused_attention %q, %q, %q {t5_bidirectional}
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_table_rank(%q: tensor<2x4x8xf32>, %t: tensor<32xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 't5_table' must be a tensor<NB x Hq x F> (rank 2), got 'tensor<32xf32>'}}
  %o = posenc.fused_attention %q, %q, %q t5_table(%t : tensor<32xf32>)
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_no_heads(%q: tensor<4x8xf32>, %t: tensor<32x1xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 't5_table' needs a head dim: 'query' must have rank >= 3, got rank 2}}
  %o = posenc.fused_attention %q, %q, %q t5_table(%t : tensor<32x1xf32>)
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32> score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_heads(%q: tensor<2x4x8xf32>, %t: tensor<32x3xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 't5_table' has H = 3 heads (dim 1), but 'query' has 2 (dim -3)}}
  %o = posenc.fused_attention %q, %q, %q t5_table(%t : tensor<32x3xf32>)
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_kv_lengths(%q: tensor<1x2x4x8xf32>, %t: tensor<32x2xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 't5_table' with 'kv_lengths' is not supported (T5's query position is i + Sk - Sq)}}
  %o = posenc.fused_attention %q, %q, %q kv_lengths(%len : tensor<1xi32>) t5_table(%t : tensor<32x2xf32>)
      : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_max_distance(%q: tensor<2x4x8xf32>, %t: tensor<32x2xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op t5_max_distance (16) must be > the number of exact buckets (16), or log(t5_max_distance / 16) is not positive}}
  %o = posenc.fused_attention %q, %q, %q t5_table(%t : tensor<32x2xf32>) {t5_max_distance = 16 : i64}
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_t5_dynamic_buckets(%q: tensor<2x4x8xf32>, %t: tensor<?x2xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op the number of buckets NB (dim 0 of 't5_table') must be static}}
  %o = posenc.fused_attention %q, %q, %q t5_table(%t : tensor<?x2xf32>)
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}
