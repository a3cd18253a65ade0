// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the DeBERTa terms of posenc.fused_attention
// (verifyFusedDebertaTerm, PosencDisentangledOps.cpp). The table and bucket
// checks are those of posenc.disentangled_attention (disentangled-invalid.mlir),
// here naming the fused op's operands and attributes.

// -----

func.func @rank(%q: tensor<8x16xf32>, %t: tensor<8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op DeBERTa's terms need a head dim: 'query' must have rank >= 3, got rank 2}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<8x16xf32>) : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32> score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @kv_lengths(%q: tensor<1x4x8x16xf32>, %t: tensor<8x16xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{'posenc.fused_attention' op DeBERTa's terms with 'kv_lengths' are not supported}}
  %o = posenc.fused_attention %q, %q, %q kv_lengths(%len : tensor<1xi32>) deberta_pos_key(%t : tensor<8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @attrs_without_term(%q: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op deberta_position_buckets and deberta_max_relative_positions need a DeBERTa term ('deberta_pos_key' or 'deberta_pos_query')}}
  %o = posenc.fused_attention %q, %q, %q  {deberta_position_buckets = 4 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @odd_rows(%q: tensor<1x4x8x16xf32>, %t: tensor<7x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'deberta_pos_key' must have a static even number of rows 2k > 0 (dim 0), got 7}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<7x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @head_dim(%q: tensor<1x4x8x16xf32>, %t: tensor<8x8xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'deberta_pos_query' dim 1 (8) must equal the head dim D of 'query' (16)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_query(%t : tensor<8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @heads(%q: tensor<1x4x8x16xf32>, %t: tensor<3x8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'deberta_pos_key' has 3 heads (dim 0), but 'query' has 4 (dim -3)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<3x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @rows_differ(%q: tensor<1x4x8x16xf32>, %t: tensor<8x16xf32>, %u: tensor<10x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op 'deberta_pos_query' has 10 rows, but 'deberta_pos_key' has 8 (both are 2k rows of one relative embedding)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<8x16xf32>) deberta_pos_query(%u : tensor<10x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @bucket_span(%q: tensor<1x4x8x16xf32>, %t: tensor<12x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op with deberta_position_buckets = 8 the position tables must have 2 * 8 rows (k = deberta_position_buckets), got 2k = 12}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<12x16xf32>) {deberta_position_buckets = 8 : i64, deberta_max_relative_positions = 20 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @bucket_max(%q: tensor<1x4x8x16xf32>, %t: tensor<16x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op deberta_position_buckets needs deberta_max_relative_positions (the max_position of the log buckets)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<16x16xf32>) {deberta_position_buckets = 8 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}

// -----

func.func @span_max(%q: tensor<1x4x8x16xf32>, %t: tensor<8x16xf32>) {
  // expected-error @+1 {{'posenc.fused_attention' op without deberta_position_buckets, deberta_max_relative_positions (5) is the span k and must equal half the rows of the position tables (4)}}
  %o = posenc.fused_attention %q, %q, %q deberta_pos_key(%t : tensor<8x16xf32>) {deberta_max_relative_positions = 5 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return
}
