// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// Verifier messages of the KV-cache forms of posenc.fused_attention.

func.func @kv_lengths_batch(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<4xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op 'kv_lengths' must be a tensor<B x iN> with B = 2 (dim 0 of 'query'), got 'tensor<4xi32>'}}
  %o = posenc.fused_attention %q, %k, %k kv_lengths(%len : tensor<4xi32>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x8x1x64xf32>
}

// -----

func.func @kv_lengths_rank(%q: tensor<8x1x64xf32>, %k: tensor<2x16x64xf32>, %len: tensor<8xi32>) -> tensor<8x1x64xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op 'kv_lengths' needs a batch dim: 'query' must have rank >= 4 ([B, ..., Hq, Sq, D]), got rank 3}}
  %o = posenc.fused_attention %q, %k, %k kv_lengths(%len : tensor<8xi32>) : tensor<8x1x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32> -> tensor<8x1x64xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<8x1x64xf32>
}

// -----

func.func @value_type(%q: tensor<2x4x16xf32>, %k: tensor<2x4x16xf16>, %v: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'posenc.fused_attention' op 'value' must have the element type of 'key' ('f16'), got 'f32'}}
  %o = posenc.fused_attention %q, %k, %v : tensor<2x4x16xf32>, tensor<2x4x16xf16>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @positions_batch(%q: tensor<2x4x16xf32>, %p: tensor<3x4xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'q_positions' must be a tensor<S x iN> or (rank >= 3) tensor<B x S x iN> with S = 4 and B = 2, got 'tensor<3x4xi32>'}}
  %o = posenc.fused_attention %q, %q, %q q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 16, precision = fast>, %p : tensor<3x4xi32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @positions_rank2_input(%q: tensor<4x16xf32>, %p: tensor<1x4xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'k_positions' must be a tensor<S x iN> or (rank >= 3) tensor<B x S x iN> with S = 4 and B = 4, got 'tensor<1x4xi32>'}}
  %o = posenc.fused_attention %q, %q, %q k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 16, precision = fast>, %p : tensor<1x4xi32>) : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32> score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<4x16xf32>
}
