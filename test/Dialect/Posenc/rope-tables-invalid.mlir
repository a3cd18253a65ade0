// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the table form of posenc.rope and of
// posenc.fused_attention's table-form prologues.

func.func @both_forms(%x: tensor<16x64xf32>, %p: tensor<16xi32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op takes either 'positions' or 'cos'/'sin' tables, not both}}
  %0 = "posenc.rope"(%x, %p, %c, %c) <{layout = #posenc<layout half>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<16x64xf32>, tensor<16xi32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @cos_only(%x: tensor<16x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op table form needs both 'cos' and 'sin'}}
  %0 = "posenc.rope"(%x, %c) <{layout = #posenc<layout half>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @tables_with_base(%x: tensor<16x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op 'base' is not allowed in the table form (the 'cos'/'sin' tables already hold the frequencies)}}
  %0 = posenc.rope %x tables(%c, %c : tensor<16x64xf32>, tensor<16x64xf32>) layout half {base = 5.0e+05 : f64} : tensor<16x64xf32>
  return
}

// -----

func.func @tables_with_precision(%x: tensor<16x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op 'precision' is not allowed in the table form}}
  %0 = posenc.rope %x tables(%c, %c : tensor<16x64xf32>, tensor<16x64xf32>) layout half precision exact : tensor<16x64xf32>
  return
}

// -----

func.func @sin_type(%x: tensor<16x64xf32>, %c: tensor<16x64xf32>, %s: tensor<16x64xf16>) {
  // expected-error @+1 {{'posenc.rope' op 'sin' must have the type of 'cos' ('tensor<16x64xf32>'), got 'tensor<16x64xf16>'}}
  %0 = posenc.rope %x tables(%c, %s : tensor<16x64xf32>, tensor<16x64xf16>) layout half : tensor<16x64xf32>
  return
}

// -----

func.func @table_rank(%x: tensor<16x64xf32>, %c: tensor<1x16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op 'cos' must have rank >= 2 (... x S x R) and <= the rank of 'input' (2), got rank 3}}
  %0 = posenc.rope %x tables(%c, %c : tensor<1x16x64xf32>, tensor<1x16x64xf32>) layout half : tensor<16x64xf32>
  return
}

// -----

func.func @table_seq(%x: tensor<16x64xf32>, %c: tensor<8x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op 'cos' dim 0 (8) must be the sequence dim of 'input' (16, dim 0)}}
  %0 = posenc.rope %x tables(%c, %c : tensor<8x64xf32>, tensor<8x64xf32>) layout half : tensor<16x64xf32>
  return
}

// -----

func.func @table_lead(%x: tensor<2x4x16x64xf32>, %c: tensor<3x1x16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op 'cos' dim 0 (3) must be 1 or the aligned dim of 'input' (2, dim 0)}}
  %0 = posenc.rope %x tables(%c, %c : tensor<3x1x16x64xf32>, tensor<3x1x16x64xf32>) layout half : tensor<2x4x16x64xf32>
  return
}

// -----

func.func @table_width(%x: tensor<16x64xf32>, %c: tensor<16x66xf32>) {
  // expected-error @+1 {{'posenc.rope' op last dim of 'cos' (rotary_dim, 66) must be static, even, > 0 and <= head dim (64)}}
  %0 = posenc.rope %x tables(%c, %c : tensor<16x66xf32>, tensor<16x66xf32>) layout half : tensor<16x64xf32>
  return
}

// -----

func.func @table_rotary_dim(%x: tensor<16x64xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{'posenc.rope' op rotary_dim (16) must equal the last dim of 'cos' (32)}}
  %0 = posenc.rope %x tables(%c, %c : tensor<16x32xf32>, tensor<16x32xf32>) layout half {rotary_dim = 16 : i64} : tensor<16x64xf32>
  return
}

// -----

func.func @fused_tables_with_positions(%q: tensor<1x4x8x16xf32>, %p: tensor<8xi32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'q_rope' has no base (it reads tables) but 'q_positions' are given}}
  %o = posenc.fused_attention %q, %q, %q
      q_rope(#posenc.rotary<layout = half, rotary_dim = 16, precision = fast>, %p : tensor<8xi32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
      score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_base_with_tables(%q: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'k_rope' with a base needs 'k_positions' and no tables}}
  %o = posenc.fused_attention %q, %q, %q
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 16, precision = fast>, tables %c, %c : tensor<8x16xf32>, tensor<8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
      score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_table_shape(%q: tensor<1x4x8x16xf32>, %c: tensor<4x8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'q_cos' must be a tensor<S x R x F> or (rank >= 3) tensor<B x S x R x F> with S = 8, B = 1 and R = 16, got 'tensor<4x8x16xf32>'}}
  %o = posenc.fused_attention %q, %q, %q
      q_rope(#posenc.rotary<layout = half, rotary_dim = 16, precision = fast>, tables %c, %c : tensor<4x8x16xf32>, tensor<4x8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
      score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_table_scaling(%q: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'q_rope' reads tables: scaling, attention_factor and xpos are not allowed}}
  %o = posenc.fused_attention %q, %q, %q
      q_rope(#posenc.rotary<layout = half, rotary_dim = 16, attention_factor = 2.0 : f64, precision = fast>, tables %c, %c : tensor<8x16xf32>, tensor<8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
      score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}
