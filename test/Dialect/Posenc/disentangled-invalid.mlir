// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of posenc.disentangled_attention's verifier
// (PosencDisentangledOps.cpp; the q/k/v checks it shares with
// posenc.attention are tested in invalid.mlir).

func.func @rank(%q: tensor<8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'query' must have rank >= 3, got rank 2}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms c2p : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @heads(%q: tensor<2x8x4xf32>, %k: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'query', 'key' and 'value' must have the same heads (dim -3), got 2, 1 and 1}}
  %0 = posenc.disentangled_attention %q, %k, %k pos_key(%pk : tensor<8x4xf32>) terms c2p : tensor<2x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<2x8x4xf32>
  return
}

// -----

func.func @missing_pos_query(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op terms has p2c, which needs the 'pos_query' operand}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @missing_pos_key(%q: tensor<1x8x4xf32>, %pq: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op terms has c2p, which needs the 'pos_key' operand}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_query(%pq : tensor<8x4xf32>) terms c2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @extra_table(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_query' is given but terms (c2p) has no p2c}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) pos_query(%pk : tensor<8x4xf32>) terms c2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @table_rank(%q: tensor<1x8x4xf32>, %pk: tensor<1x1x8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_key' must be a tensor<[H x] 2k x D> (rank 2 or 3), got 'tensor<1x1x8x4xf32>'}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<1x1x8x4xf32>) terms c2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @table_rows_odd(%q: tensor<1x8x4xf32>, %pk: tensor<7x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_key' must have a static even number of rows 2k > 0 (dim 0), got 7}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<7x4xf32>) terms c2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @table_rows_dynamic(%q: tensor<1x8x4xf32>, %pq: tensor<?x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_query' must have a static even number of rows 2k > 0 (dim 0), got ?}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_query(%pq : tensor<?x4xf32>) terms p2c : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @table_head_dim(%q: tensor<1x8x4xf32>, %pk: tensor<8x5xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_key' dim 1 (5) must equal the head dim D of 'query' (4)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x5xf32>) terms c2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @table_heads(%q: tensor<2x8x4xf32>, %pk: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_key' has 3 heads (dim 0), but 'query' has 2 (dim -3)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<3x8x4xf32>) terms c2p : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
  return
}

// -----

func.func @table_rows_differ(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>, %pq: tensor<6x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op 'pos_query' has 6 rows, but 'pos_key' has 8 (both are 2k rows of one relative embedding)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) pos_query(%pq : tensor<6x4xf32>) : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @negative_buckets(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op position_buckets (-1) must be >= 0 (0: no buckets)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms c2p {position_buckets = -1 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @span_without_buckets(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op without position_buckets, max_relative_positions (16) is the span k and must equal half the rows of the position tables (4)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms c2p {max_relative_positions = 16 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @one_bucket(%q: tensor<1x8x4xf32>, %pk: tensor<2x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op position_buckets (1) must be >= 2 (one exact bucket per direction)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<2x4xf32>) terms c2p {position_buckets = 1 : i64, max_relative_positions = 8 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @bucket_span(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op with position_buckets = 8 the position tables must have 2 * 8 rows (k = position_buckets), got 2k = 8}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms c2p {position_buckets = 8 : i64, max_relative_positions = 64 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @buckets_need_max(%q: tensor<1x8x4xf32>, %pk: tensor<16x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op position_buckets needs max_relative_positions (the max_position of the log buckets)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<16x4xf32>) terms c2p {position_buckets = 8 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @max_too_small(%q: tensor<1x8x4xf32>, %pk: tensor<16x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op max_relative_positions (5) must be > position_buckets / 2 + 1 (5), or log((max_relative_positions - 1) / 4) is not positive}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<16x4xf32>) terms c2p {position_buckets = 8 : i64, max_relative_positions = 5 : i64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @default_scale_dynamic_d(%q: tensor<1x8x?xf32>, %pk: tensor<8x?xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op the default scale 1/sqrt(D * (1 + number of terms)) needs a static head dim D > 0 of 'query', got ? (set 'scale' explicitly)}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x?xf32>) terms c2p : tensor<1x8x?xf32>, tensor<1x8x?xf32>, tensor<1x8x?xf32> -> tensor<1x8x?xf32>
  return
}

// -----

func.func @infinite_scale(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+1 {{'posenc.disentangled_attention' op scale must be finite}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms c2p {scale = 0x7FF0000000000000 : f64} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @bad_term(%q: tensor<1x8x4xf32>, %pk: tensor<8x4xf32>) {
  // expected-error @+2 {{expected ::posenc::DisentangledTerms to be one of: c2p, p2c}}
  // expected-error @+1 {{failed to parse Posenc_DisentangledTermsAttr parameter 'value'}}
  %0 = posenc.disentangled_attention %q, %q, %q pos_key(%pk : tensor<8x4xf32>) terms p2p : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
  return
}
