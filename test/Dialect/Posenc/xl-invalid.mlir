// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of posenc.xl_attention's verifier and of the xl
// term of posenc.fused_attention (PosencRelativeOps.cpp).

func.func @rank(%q: tensor<8x16xf32>, %k: tensor<12x16xf32>, %val: tensor<12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'query' must have rank >= 3, got rank 2}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<8x16xf32>, tensor<12x16xf32>, tensor<12x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x12x16xf32>, %val: tensor<2x2x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'key' has 2 heads (dim -3), expected the query's 4 (xl_attention has no grouped-query form)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x2x12x16xf32>, tensor<2x2x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @dynamic_heads(%q: tensor<2x?x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op head dims (dim -3) of 'query', 'key' and 'value' must be static, got ?, 4 and 4}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x?x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x?x8x16xf32>
  return
}

// -----

func.func @element_type(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf16>, %val: tensor<2x4x12x16xf16>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'key' and 'value' must have the element type of 'query' ('f32'), got 'f16' and 'f16'}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf16>, tensor<2x4x12x16xf16> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @scale_dynamic_d(%q: tensor<2x4x8x?xf32>, %k: tensor<2x4x12x?xf32>, %val: tensor<2x4x12x?xf32>, %r: tensor<19x?xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op the default scale 1/sqrt(D) needs a static head dim D > 0 of 'query', got ? (set 'scale' explicitly)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x?xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x?xf32>, tensor<2x4x12x?xf32>, tensor<2x4x12x?xf32> -> tensor<2x4x8x?xf32>
  return
}

// -----

func.func @rel_rank(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<1x4x19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'rel' must be a tensor<[H x] L x D> (rank 2 or 3), got 'tensor<1x4x19x16xf32>'}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<1x4x19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @rel_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<2x19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'rel' has H = 2 heads (dim 0), expected the query's 4 (dim -3)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<2x19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @rel_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x8xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'rel' dim -1 (8) must equal head dim D (16)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x8xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @rel_rows(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<7x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'rel' has 7 rows, expected Sq + Sk - 1 = 19 (Sq = 8, Sk = 12)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<7x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @content_bias_rank(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'content_bias' must be a tensor<H x D> (rank 2), got 'tensor<16xf32>'}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @content_bias_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<8x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'content_bias' has H = 8 heads (dim 0), expected the query's 4 (dim -3)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<8x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @position_bias_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x32xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op 'position_bias' dim 1 (32) must equal head dim D (16)}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x32xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @result(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %val: tensor<2x4x12x16xf32>, %r: tensor<19x16xf32>, %u: tensor<4x16xf32>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.xl_attention' op result type 'tensor<2x4x8x8xf32>' does not match the expected 'tensor<2x4x8x16xf32>' ([..., Sq, Dv] of 'query' and 'value')}}
  %o = posenc.xl_attention %q, %k, %val rel(%r : tensor<19x16xf32>) content_bias(%u : tensor<4x16xf32>) position_bias(%v : tensor<4x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @fused_xl_rows(%q: tensor<1x4x16x16xf32>, %r: tensor<15x16xf32>, %u: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'xl_rel' has 15 rows, expected Sq + Sk - 1 = 31 (Sq = 16, Sk = 16)}}
  %o = posenc.fused_attention %q, %q, %q xl(%r, %u, %u : tensor<15x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xl_kv_lengths(%q: tensor<1x4x8x16xf32>, %r: tensor<15x16xf32>, %u: tensor<4x16xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{'posenc.fused_attention' op the xl term with 'kv_lengths' is not supported (Transformer-XL's query position is i + Sk - Sq)}}
  %o = posenc.fused_attention %q, %q, %q kv_lengths(%len : tensor<1xi32>) xl(%r, %u, %u : tensor<15x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xl_rank(%q: tensor<8x16xf32>, %r: tensor<15x16xf32>, %u: tensor<4x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op the xl term needs a head dim: 'query' must have rank >= 3, got rank 2}}
  %o = posenc.fused_attention %q, %q, %q xl(%r, %u, %u : tensor<15x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32> score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xl_partial(%q: tensor<1x4x8x16xf32>, %r: tensor<15x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op the xl term needs all of 'xl_rel', 'xl_content_bias' and 'xl_position_bias'}}
  %o = "posenc.fused_attention"(%q, %q, %q, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0>}> ({
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }) : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<15x16xf32>) -> tensor<1x4x8x16xf32>
  return
}
