// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the posenc.fused_attention verifiers
// (PosencFusedOps.cpp).

func.func @rank(%q: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'query' must have rank >= 2, got rank 1}}
  %o = posenc.fused_attention %q, %q, %q : tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16xf32> score_mod {
  ^bb0(%s: f32, %i: index):
    posenc.yield %s : f32
  }
  return %o : tensor<16xf32>
}

// -----

func.func @gqa(%q: tensor<3x4x16xf32>, %k: tensor<2x4x16xf32>) -> tensor<3x4x16xf32> {
  // expected-error @+1 {{query heads (3) must be a multiple of key/value heads (2)}}
  %o = posenc.fused_attention %q, %k, %k : tensor<3x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<3x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<3x4x16xf32>
}

// -----

func.func @head_dim(%q: tensor<2x4x16xf32>, %k: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{head dim D of 'key' (8) must equal that of 'query' (16)}}
  %o = posenc.fused_attention %q, %k, %k : tensor<2x4x16xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @result(%q: tensor<2x4x16xf32>) -> tensor<2x5x16xf32> {
  // expected-error @+1 {{result type 'tensor<2x5x16xf32>' does not match the expected 'tensor<2x4x16xf32>'}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x5x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x5x16xf32>
}

// -----

func.func @rotary_dim(%q: tensor<2x4x16xf32>, %p: tensor<4xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'q_rope' rotary_dim (18) must be even, > 0 and <= head dim (16)}}
  %o = posenc.fused_attention %q, %q, %q q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 18, precision = fast>, %p : tensor<4xi32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @positions(%q: tensor<2x4x16xf32>, %p: tensor<5xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'k_positions' must be a tensor<S x iN> or (rank >= 3) tensor<B x S x iN> with S = 4 and B = 2, got 'tensor<5xi32>'}}
  %o = posenc.fused_attention %q, %q, %q k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 16, precision = fast>, %p : tensor<5xi32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @base(%q: tensor<2x4x16xf32>, %p: tensor<4xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'q_rope' base (1.000000e+00) must be a finite number > 1}}
  %o = posenc.fused_attention %q, %q, %q q_rope(#posenc.rotary<layout = half, base = 1.0 : f64, rotary_dim = 16, precision = fast>, %p : tensor<4xi32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @seq_scaling(%q: tensor<2x4x16xf32>, %p: tensor<4xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'q_rope' scaling 'dynamic' depends on the sequence length and is not supported in fused attention}}
  %o = posenc.fused_attention %q, %q, %q q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 16, scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 16>, precision = fast>, %p : tensor<4xi32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @rel_value(%q: tensor<2x4x16xf32>, %rv: tensor<4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'rel_value' must be a tensor<(2K+1) x Dv> with a static odd dim 0 and Dv = 16, got 'tensor<4x16xf32>'}}
  %o = posenc.fused_attention %q, %q, %q rel_value(%rv : tensor<4x16xf32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @rel_key_shape(%q: tensor<2x4x16xf32>, %rk: tensor<5x8xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'rel_key' must be a tensor<(2K+1) x D> with a static odd dim 0 and D = 16, got 'tensor<5x8xf32>'}}
  %o = posenc.fused_attention %q, %q, %q rel_key(%rk : tensor<5x8xf32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @rel_key_type(%q: tensor<2x4x16xf32>, %rk: tensor<5x16xf16>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'rel_key' must have the element type of 'query' ('f32'), got 'f16'}}
  %o = posenc.fused_attention %q, %q, %q rel_key(%rk : tensor<5x16xf16>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @rel_key_buckets(%q: tensor<2x4x16xf32>, %rk: tensor<5x16xf32>, %rv: tensor<7x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'rel_key' and 'rel_value' must have the same number of buckets 2K+1: 'rel_key' has 5, 'rel_value' 7}}
  %o = posenc.fused_attention %q, %q, %q rel_key(%rk : tensor<5x16xf32>) rel_value(%rv : tensor<7x16xf32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @default_scale(%q: tensor<2x4x?xf32>) -> tensor<2x4x?xf32> {
  // expected-error @+1 {{the default scale 1/sqrt(D) needs a static head dim D > 0 of 'query' (set 'scale' explicitly)}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x?xf32>, tensor<2x4x?xf32>, tensor<2x4x?xf32> -> tensor<2x4x?xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x?xf32>
}

// -----

func.func @num_args(%q: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{score_mod must have 4 arguments (score, 3 indices, 0 mod operands), got 3}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @score_type(%q: tensor<2x4x16xf16>) -> tensor<2x4x16xf16> {
  // expected-error @+1 {{score_mod argument 0 (the score) must be 'f32', got 'f16'}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x16xf16>, tensor<2x4x16xf16>, tensor<2x4x16xf16> -> tensor<2x4x16xf16> score_mod {
  ^bb0(%s: f16, %h: index, %i: index, %j: index):
    posenc.yield %s : f16
  }
  return %o : tensor<2x4x16xf16>
}

// -----

func.func @index_type(%q: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{score_mod argument 2 must be index, got 'i64'}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: i64, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @mod_type(%q: tensor<2x4x16xf32>, %m: tensor<2xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{score_mod argument 4 must have the type of mod operand 0 ('tensor<2xf32>'), got 'index'}}
  %o = posenc.fused_attention %q, %q, %q mods(%m : tensor<2xf32>) : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index, %x: index):
    posenc.yield %s : f32
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @yield_type(%q: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{score_mod must yield 'f32', got 'f64'}}
  %o = posenc.fused_attention %q, %q, %q : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32> score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    %d = arith.extf %s : f32 to f64
    posenc.yield %d : f64
  }
  return %o : tensor<2x4x16xf32>
}

// -----

func.func @yield_parent(%x: f32) -> f32 {
  // expected-error @+1 {{'posenc.yield' op expects parent op 'posenc.fused_attention'}}
  posenc.yield %x : f32
}
