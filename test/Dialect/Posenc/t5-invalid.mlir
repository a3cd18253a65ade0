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
