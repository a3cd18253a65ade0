// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the posenc verifiers (PosencOps.cpp), of the
// #posenc.rope_scaling parser and verifier (PosencDialect.cpp), and of the ODS
// type constraints. Malformed syntax is in parse-errors.mlir.

//===----------------------------------------------------------------------===//
// posenc.sinusoidal
//===----------------------------------------------------------------------===//

func.func @sinusoidal_positions_rank(%pos: tensor<2x16xi32>) {
  // expected-error @+1 {{'posenc.sinusoidal' op 'positions' must have rank 1 (S), got rank 2}}
  %0 = posenc.sinusoidal %pos : tensor<2x16xi32> -> tensor<16x64xf32>
  return
}

// -----

func.func @sinusoidal_positions_rank0(%pos: tensor<i32>) {
  // expected-error @+1 {{'positions' must have rank 1 (S), got rank 0}}
  %0 = posenc.sinusoidal %pos : tensor<i32> -> tensor<1x64xf32>
  return
}

// -----

func.func @sinusoidal_result_rank(%pos: tensor<16xi32>) {
  // expected-error @+1 {{result must have rank 2 (S x D), got rank 3}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<1x16x64xf32>
  return
}

// -----

func.func @sinusoidal_seq_mismatch(%pos: tensor<16xi32>) {
  // expected-error @+1 {{result sequence dim (8) does not match the length of 'positions' (16)}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<8x64xf32>
  return
}

// -----

func.func @sinusoidal_dynamic_d(%pos: tensor<?xi32>) {
  // expected-error @+1 {{result dim D (last dim) must be static, got ?}}
  %0 = posenc.sinusoidal %pos : tensor<?xi32> -> tensor<?x?xf32>
  return
}

// -----

func.func @sinusoidal_odd_d(%pos: tensor<16xi32>) {
  // expected-error @+1 {{result dim D (63) must be even and > 0}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x63xf32>
  return
}

// -----

func.func @sinusoidal_zero_d(%pos: tensor<16xi32>) {
  // expected-error @+1 {{result dim D (0) must be even and > 0}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x0xf32>
  return
}

// -----

func.func @sinusoidal_huge_d(%pos: tensor<1xi32>) {
  // expected-error @+1 {{result dim D (1099511627776) exceeds the supported maximum (2097152): its D/2 frequencies are computed at compile time}}
  %0 = posenc.sinusoidal %pos : tensor<1xi32> -> tensor<1x1099511627776xf32>
  return
}

// -----

func.func @sinusoidal_base(%pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.sinusoidal' op base (1) must be a finite number > 1}}
  %0 = posenc.sinusoidal %pos {base = 1.0 : f64} : tensor<16xi32> -> tensor<16x64xf32>
  return
}

// -----

func.func @sinusoidal_float_positions(%pos: tensor<16xf32>) {
  // expected-error @+1 {{'posenc.sinusoidal' op operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<16xf32>'}}
  %0 = posenc.sinusoidal %pos : tensor<16xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @sinusoidal_integer_result(%pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.sinusoidal' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<16x64xi32>'}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x64xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// posenc.rope
//===----------------------------------------------------------------------===//

func.func @rope_input_rank(%x: tensor<64xf32>, %pos: tensor<64xi32>) {
  // expected-error @+1 {{'posenc.rope' op 'input' must have rank >= 2 (... x S x D), got rank 1}}
  %0 = posenc.rope %x, %pos layout half : tensor<64xf32>, tensor<64xi32>
  return
}

// -----

func.func @rope_input_rank0(%x: tensor<f32>, %pos: tensor<1xi32>) {
  // expected-error @+1 {{'input' must have rank >= 2 (... x S x D), got rank 0}}
  %0 = posenc.rope %x, %pos layout half : tensor<f32>, tensor<1xi32>
  return
}

// -----

func.func @rope_positions_rank(%x: tensor<2x16x64xf32>, %pos: tensor<1x2x16xi32>) {
  // expected-error @+1 {{'posenc.rope' op 'positions' must have rank 1 (S) or 2 (B x S), got rank 3}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x16x64xf32>, tensor<1x2x16xi32>
  return
}

// -----

func.func @rope_batch_positions_rank(%x: tensor<16x64xf32>, %pos: tensor<1x16xi32>) {
  // expected-error @+1 {{'posenc.rope' op per-batch 'positions' (B x S) need an 'input' of rank >= 3 (B x ... x S x D), got rank 2}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x64xf32>, tensor<1x16xi32>
  return
}

// -----

func.func @rope_batch_positions_batch(%x: tensor<2x8x16x64xf32>, %pos: tensor<3x16xi32>) {
  // expected-error @+1 {{'posenc.rope' op per-batch 'positions' dim 0 (3) does not match the batch dim (dim 0) of 'input' (2)}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x16x64xf32>, tensor<3x16xi32>
  return
}

// -----

func.func @rope_batch_positions_length(%x: tensor<2x8x16x64xf32>, %pos: tensor<2x15xi32>) {
  // expected-error @+1 {{'posenc.rope' op 'positions' length (15) does not match the sequence dim of 'input' (16)}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x8x16x64xf32>, tensor<2x15xi32>
  return
}

// -----

func.func @rope_positions_length(%x: tensor<2x16x64xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{'positions' length (8) does not match the sequence dim of 'input' (16)}}
  %0 = posenc.rope %x, %pos layout half : tensor<2x16x64xf32>, tensor<8xi32>
  return
}

// -----

func.func @rope_dynamic_head_dim(%x: tensor<16x?xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{head dim (last dim of 'input') must be static}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x?xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_odd_head_dim(%x: tensor<16x63xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{head dim of 'input' (63) must be even and > 0}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x63xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_zero_head_dim(%x: tensor<16x0xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{head dim of 'input' (0) must be even and > 0}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x0xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_rotary_dim_too_big(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rotary_dim (96) must be even, > 0 and <= head dim (64)}}
  %0 = posenc.rope %x, %pos layout half {rotary_dim = 96 : i64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_rotary_dim_odd(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rotary_dim (31) must be even, > 0 and <= head dim (64)}}
  %0 = posenc.rope %x, %pos layout interleaved {rotary_dim = 31 : i64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_rotary_dim_negative(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rotary_dim (-2) must be even, > 0 and <= head dim (64)}}
  %0 = posenc.rope %x, %pos layout interleaved {rotary_dim = -2 : i64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_rotary_dim_huge(%x: tensor<1x1099511627776xf32>, %pos: tensor<1xi32>) {
  // expected-error @+1 {{rotary_dim (1099511627776) exceeds the supported maximum (2097152): its R/2 frequencies are computed at compile time}}
  %0 = posenc.rope %x, %pos layout half : tensor<1x1099511627776xf32>, tensor<1xi32>
  return
}

// -----

func.func @rope_base(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op base (-1) must be a finite number > 1}}
  %0 = posenc.rope %x, %pos layout half {base = -1.0 : f64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_base_inf(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{base (inf) must be a finite number > 1}}
  %0 = posenc.rope %x, %pos layout half {base = 0x7FF0000000000000 : f64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_attention_factor(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op attention_factor (0) must be a finite number > 0}}
  %0 = posenc.rope %x, %pos layout half {attention_factor = 0.0 : f64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_ntk_rotary_dim_2(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'ntk' needs rotary_dim > 2 (its exponent is R/(R-2)), got 2}}
  %0 = posenc.rope %x, %pos layout half {rotary_dim = 2 : i64, scaling = #posenc.rope_scaling<ntk, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_dynamic_rotary_dim_2(%x: tensor<16x2xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'dynamic' needs rotary_dim > 2 (its exponent is R/(R-2)), got 2}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 16>} : tensor<16x2xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_longrope_length(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'longrope': short_factor and long_factor must have rotary_dim/2 (32) values, got 2}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0], long_factor = [2.0, 4.0], original_max_position = 4096>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_integer_input(%x: tensor<16x64xi32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<16x64xi32>'}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x64xi32>, tensor<16xi32>
  return
}

// -----

func.func @rope_float_positions(%x: tensor<16x64xf32>, %pos: tensor<16xf32>) {
  // expected-error @+1 {{'posenc.rope' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<16xf32>'}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @rope_i16_positions(%x: tensor<16x64xf32>, %pos: tensor<16xi16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<16xi16>'}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x64xf32>, tensor<16xi16>
  return
}

// -----

func.func @rope_unranked_input(%x: tensor<*xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "posenc.rope"(%x, %pos) <{layout = #posenc<layout half>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<*xf32>, tensor<16xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @rope_result_type(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op failed to verify that all of {input, result} have same type}}
  %0 = "posenc.rope"(%x, %pos) <{layout = #posenc<layout half>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<16x64xf16>
  return
}

// -----

func.func @rope_missing_layout(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op requires attribute 'layout'}}
  %0 = "posenc.rope"(%x, %pos) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_i32(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{'posenc.rope' op attribute 'rotary_dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = posenc.rope %x, %pos layout half {rotary_dim = 32 : i32} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_scaling_not_scaling(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{attribute 'scaling' failed to satisfy constraint: RoPE frequency scaling}}
  %0 = posenc.rope %x, %pos layout half {scaling = 2.0 : f64} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_missing_operand(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op needs 'positions' (attribute form) or 'cos'/'sin' tables (table form)}}
  %0 = "posenc.rope"(%x) <{layout = #posenc<layout half>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #posenc.rope_scaling
//===----------------------------------------------------------------------===//

func.func @scaling_unknown_kind(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{unknown rope scaling kind 'ntk_by_parts' (expected none, linear, ntk, dynamic, yarn, llama3 or longrope)}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<ntk_by_parts, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_parameter_not_accepted(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling kind 'linear' takes no parameter 'original_max_position'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = 2.0, original_max_position = 2048>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_parameter_of_none(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling kind 'none' takes no parameter 'factor'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<none, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_duplicate_parameter(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{duplicate rope scaling parameter 'factor'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 2.0, original_max_position = 2048, factor = 4.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_factor(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling kind 'linear' requires parameter 'factor'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_original_max_position(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling kind 'dynamic' requires parameter 'original_max_position'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<dynamic, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_long_factor(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling kind 'longrope' requires parameter 'long_factor'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0], original_max_position = 4096>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_factor_zero(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'linear': factor must be a finite number > 0, got 0}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = 0.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_factor_negative(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'llama3': factor must be a finite number > 0, got -8}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<llama3, factor = -8.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_factor_nan(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'ntk': factor must be a finite number > 0, got nan}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<ntk, factor = 0x7FF8000000000000>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_original_max_position(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'yarn': original_max_position must be > 0, got 0}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_original_max_position_negative(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'llama3': original_max_position must be > 0, got -1}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<llama3, original_max_position = -1>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_yarn_betas(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'yarn': beta_fast (32) and beta_slow (0) must be finite numbers > 0}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_slow = 0.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_yarn_beta_inf(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'yarn': beta_fast (inf) and beta_slow (1) must be finite numbers > 0}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_fast = 0x7FF0000000000000>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_llama3_freq_factors(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'llama3': expected 0 < low_freq_factor < high_freq_factor (finite), got 4 and 1}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<llama3, low_freq_factor = 4.0, high_freq_factor = 1.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_llama3_equal_freq_factors(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'llama3': expected 0 < low_freq_factor < high_freq_factor (finite), got 2 and 2}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<llama3, low_freq_factor = 2.0, high_freq_factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_attention_factor(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'yarn': attention_factor must be a finite number > 0, got -1}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, attention_factor = -1.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_longrope_lengths(%x: tensor<16x4xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'longrope': short_factor (2 values) and long_factor (3 values) must be non-empty and of equal length}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0], long_factor = [1.0, 2.0, 3.0], original_max_position = 4096>} : tensor<16x4xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_longrope_empty(%x: tensor<16x4xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'longrope': short_factor (0 values) and long_factor (0 values) must be non-empty and of equal length}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [], long_factor = [], original_max_position = 4096>} : tensor<16x4xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_longrope_values(%x: tensor<16x4xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{rope scaling 'longrope': every factor must be a finite number > 0, got -2}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0], long_factor = [1.0, -2.0], original_max_position = 4096>} : tensor<16x4xf32>, tensor<16xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// posenc.alibi_bias
//===----------------------------------------------------------------------===//

func.func @alibi_rank() {
  // expected-error @+1 {{'posenc.alibi_bias' op result must have rank >= 3 ([B...] x H x Sq x Sk), got rank 2}}
  %0 = posenc.alibi_bias : tensor<16x16xf32>
  return
}

// -----

func.func @alibi_rank0() {
  // expected-error @+1 {{result must have rank >= 3 ([B...] x H x Sq x Sk), got rank 0}}
  %0 = posenc.alibi_bias : tensor<f32>
  return
}

// -----

func.func @alibi_missing_dynamic_size(%sq: index) {
  // expected-error @+1 {{'posenc.alibi_bias' op expected 2 dynamic size operands (one per '?' of the result type), got 1}}
  %0 = posenc.alibi_bias (%sq) : tensor<8x?x?xf32>
  return
}

// -----

func.func @alibi_extra_dynamic_size(%sq: index) {
  // expected-error @+1 {{expected 0 dynamic size operands (one per '?' of the result type), got 1}}
  %0 = posenc.alibi_bias (%sq) : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_slopes_shape(%s: tensor<4xf32>) {
  // expected-error @+1 {{'posenc.alibi_bias' op 'slopes' must be a tensor<H x f32> with H = 8 heads, got 'tensor<4xf32>'}}
  %0 = posenc.alibi_bias slopes(%s : tensor<4xf32>) : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_slopes_rank(%s: tensor<1x8xf32>) {
  // expected-error @+1 {{'slopes' must be a tensor<H x f32> with H = 8 heads, got 'tensor<1x8xf32>'}}
  %0 = posenc.alibi_bias slopes(%s : tensor<1x8xf32>) : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_slopes_f16(%s: tensor<8xf16>) {
  // expected-error @+1 {{'posenc.alibi_bias' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<8xf16>'}}
  %0 = posenc.alibi_bias slopes(%s : tensor<8xf16>) : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_dynamic_heads(%h: index) {
  // expected-error @+1 {{'posenc.alibi_bias' op head dim H (dim -3 of the result) must be static unless explicit 'slopes' are given}}
  %0 = posenc.alibi_bias (%h) : tensor<?x16x16xf32>
  return
}

// -----

func.func @alibi_max_bias() {
  // expected-error @+1 {{'posenc.alibi_bias' op max_bias (-8) must be a finite number > 0}}
  %0 = posenc.alibi_bias {max_bias = -8.0 : f64} : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_num_heads() {
  // expected-error @+1 {{'posenc.alibi_bias' op num_heads (0) must be > 0}}
  %0 = posenc.alibi_bias {num_heads = 0 : i64} : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_num_heads_default_zero() {
  // expected-error @+1 {{num_heads (0, defaulted to H) must be > 0}}
  %0 = posenc.alibi_bias : tensor<0x16x16xf32>
  return
}

// -----

func.func @alibi_num_heads_huge() {
  // expected-error @+1 {{'posenc.alibi_bias' op num_heads (1099511627776) exceeds the supported maximum (1048576): the slopes are computed at compile time}}
  %0 = posenc.alibi_bias {num_heads = 1099511627776 : i64} : tensor<1x4x4xf32>
  return
}

// -----

func.func @alibi_head_offset() {
  // expected-error @+1 {{'posenc.alibi_bias' op head_offset (6) + local heads (4) must be within num_heads (8)}}
  %0 = posenc.alibi_bias {num_heads = 8 : i64, head_offset = 6 : i64} : tensor<4x16x16xf32>
  return
}

// -----

func.func @alibi_head_offset_negative() {
  // expected-error @+1 {{head_offset (-1) + local heads (4) must be within num_heads (4, defaulted to H)}}
  %0 = posenc.alibi_bias {head_offset = -1 : i64} : tensor<4x16x16xf32>
  return
}

// -----

func.func @alibi_head_offset_overflow() {
  // expected-error @+1 {{head_offset (9223372036854775807) + local heads (4) must be within num_heads (8)}}
  %0 = posenc.alibi_bias {num_heads = 8 : i64, head_offset = 9223372036854775807 : i64} : tensor<4x16x16xf32>
  return
}

// -----

func.func @alibi_local_heads_exceed_num_heads() {
  // expected-error @+1 {{head_offset (0) + local heads (8) must be within num_heads (4)}}
  %0 = posenc.alibi_bias {num_heads = 4 : i64} : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_integer_result() {
  // expected-error @+1 {{'posenc.alibi_bias' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8x16x16xi32>'}}
  %0 = posenc.alibi_bias : tensor<8x16x16xi32>
  return
}

// -----

func.func @alibi_segment_sizes(%sq: index) {
  // expected-error @+1 {{'posenc.alibi_bias' op operand count (1) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "posenc.alibi_bias"(%sq) <{operandSegmentSizes = array<i32: 0, 0>}> : (index) -> tensor<8x?x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// posenc.attention
//===----------------------------------------------------------------------===//

func.func @attention_query_rank(%q: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op 'query' must have rank >= 3, got rank 2}}
  %0 = posenc.attention %q, %q, %q : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op 'key' and 'value' must have the rank of 'query' (4), got 3 and 3}}
  %0 = posenc.attention %q, %k, %k : tensor<1x8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @attention_element_type(%q: tensor<8x16x64xf32>, %k: tensor<8x16x64xf16>, %v: tensor<8x16x64xbf16>) {
  // expected-error @+1 {{'posenc.attention' op 'value' must have the element type of 'key' ('f16'), got 'bf16'}}
  %0 = posenc.attention %q, %k, %v : tensor<8x16x64xf32>, tensor<8x16x64xf16>, tensor<8x16x64xbf16> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_mixed_result_type(%q: tensor<8x16x64xf32>, %k: tensor<8x16x64xf16>) {
  // expected-error @+1 {{'posenc.attention' op result type 'tensor<8x16x64xf16>' does not match the expected 'tensor<8x16x64xf32>'}}
  %0 = posenc.attention %q, %k, %k : tensor<8x16x64xf32>, tensor<8x16x64xf16>, tensor<8x16x64xf16> -> tensor<8x16x64xf16>
  return
}

// -----

func.func @attention_kv_lengths_rank(%q: tensor<8x1x64xf32>, %k: tensor<8x16x64xf32>, %len: tensor<8xi32>) {
  // expected-error @+1 {{'posenc.attention' op 'kv_lengths' needs a batch dim: 'query' must have rank >= 4 ([B, ..., Hq, Sq, D]), got rank 3}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<8xi32>) : tensor<8x1x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x1x64xf32>
  return
}

// -----

func.func @attention_kv_lengths_batch(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<3xi64>) {
  // expected-error @+1 {{'posenc.attention' op 'kv_lengths' must be a tensor<B x iN> with B = 2 (dim 0 of 'query'), got 'tensor<3xi64>'}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<3xi64>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @attention_kv_lengths_shape(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<2x1xi32>) {
  // expected-error @+1 {{'posenc.attention' op 'kv_lengths' must be a tensor<B x iN> with B = 2 (dim 0 of 'query'), got 'tensor<2x1xi32>'}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2x1xi32>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @attention_kv_lengths_type(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>, %len: tensor<2xf32>) {
  // expected-error @+1 {{'posenc.attention' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = posenc.attention %q, %k, %k kv_lengths(%len : tensor<2xf32>) : tensor<2x8x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @attention_batch_dim(%q: tensor<2x8x16x64xf32>, %k: tensor<3x8x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op batch dim 0 differs: 'query' has 2, 'key' 3, 'value' 3}}
  %0 = posenc.attention %q, %k, %k : tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<3x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<8x16x64xf32>, %k: tensor<8x16x32xf32>) {
  // expected-error @+1 {{'posenc.attention' op head dim D of 'key' (32) must equal that of 'query' (64)}}
  %0 = posenc.attention %q, %k, %k : tensor<8x16x64xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x16x32xf32>
  return
}

// -----

func.func @attention_value_seq(%q: tensor<8x16x64xf32>, %k: tensor<8x16x64xf32>, %v: tensor<8x12x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op sequence dim Sk of 'value' (12) must equal that of 'key' (16)}}
  %0 = posenc.attention %q, %k, %v : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x12x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_result_type(%q: tensor<8x16x64xf32>, %v: tensor<8x16x32xf32>) {
  // expected-error @+1 {{'posenc.attention' op result type 'tensor<8x16x64xf32>' does not match the expected 'tensor<8x16x32xf32>' ([..., Sq, Dv] of 'query' and 'value')}}
  %0 = posenc.attention %q, %q, %v : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x32xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_result_element_type(%q: tensor<8x16x64xbf16>) {
  // expected-error @+1 {{result type 'tensor<8x16x64xf32>' does not match the expected 'tensor<8x16x64xbf16>'}}
  %0 = posenc.attention %q, %q, %q : tensor<8x16x64xbf16>, tensor<8x16x64xbf16>, tensor<8x16x64xbf16> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_dynamic_heads(%q: tensor<?x16x64xf32>, %k: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op head dims (dim -3) of 'query', 'key' and 'value' must be static, got ?, 2 and 2}}
  %0 = posenc.attention %q, %k, %k : tensor<?x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32> -> tensor<?x16x64xf32>
  return
}

// -----

func.func @attention_value_heads(%q: tensor<8x16x64xf32>, %k: tensor<4x16x64xf32>, %v: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op 'value' heads (2) must equal 'key' heads (4)}}
  %0 = posenc.attention %q, %k, %v : tensor<8x16x64xf32>, tensor<4x16x64xf32>, tensor<2x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x4x4x8xf32>, %k: tensor<1x0x4x8xf32>) {
  // expected-error @+1 {{'posenc.attention' op key/value heads (0) must be > 0}}
  %0 = posenc.attention %q, %k, %k : tensor<1x4x4x8xf32>, tensor<1x0x4x8xf32>, tensor<1x0x4x8xf32> -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @attention_gqa_multiple(%q: tensor<6x16x64xf32>, %k: tensor<4x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op query heads (6) must be a multiple of key/value heads (4)}}
  %0 = posenc.attention %q, %k, %k : tensor<6x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<6x16x64xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'posenc.attention' op scale (nan) must be finite}}
  %0 = posenc.attention %q, %q, %q {scale = 0x7FF8000000000000 : f64} : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_default_scale_dynamic_d(%q: tensor<8x16x?xf32>) {
  // expected-error @+1 {{'posenc.attention' op the default scale 1/sqrt(D) needs a static head dim D > 0 of 'query', got ? (set 'scale' explicitly)}}
  %0 = posenc.attention %q, %q, %q : tensor<8x16x?xf32>, tensor<8x16x?xf32>, tensor<8x16x?xf32> -> tensor<8x16x?xf32>
  return
}

// -----

func.func @attention_default_scale_zero_d(%q: tensor<8x16x0xf32>) {
  // expected-error @+1 {{the default scale 1/sqrt(D) needs a static head dim D > 0 of 'query', got 0 (set 'scale' explicitly)}}
  %0 = posenc.attention %q, %q, %q : tensor<8x16x0xf32>, tensor<8x16x0xf32>, tensor<8x16x0xf32> -> tensor<8x16x0xf32>
  return
}

// -----

func.func @attention_bias_rank(%q: tensor<1x4x4x8xf32>, %b: tensor<2x1x4x4x4xf32>) {
  // expected-error @+1 {{'posenc.attention' op 'bias' rank (5) exceeds the rank of the scores (4)}}
  %0 = posenc.attention %q, %q, %q bias(%b : tensor<2x1x4x4x4xf32>) : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  return
}

// -----

func.func @attention_bias_broadcast(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %b: tensor<8x16x16xf32>) {
  // expected-error @+1 {{'posenc.attention' op 'bias' of type 'tensor<8x16x16xf32>' does not broadcast to the scores 'tensor<1x8x16x32xf32>': dim 2 is 16, expected 1 or 32}}
  %0 = posenc.attention %q, %k, %k bias(%b : tensor<8x16x16xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x64xf32> -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @attention_integer_query(%q: tensor<8x16x64xi8>) {
  // expected-error @+1 {{'posenc.attention' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8x16x64xi8>'}}
  %0 = posenc.attention %q, %q, %q : tensor<8x16x64xi8>, tensor<8x16x64xi8>, tensor<8x16x64xi8> -> tensor<8x16x64xi8>
  return
}

// -----

func.func @attention_integer_bias(%q: tensor<8x16x64xf32>, %b: tensor<16x16xi32>) {
  // expected-error @+1 {{'posenc.attention' op operand #3 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<16x16xi32>'}}
  %0 = posenc.attention %q, %q, %q bias(%b : tensor<16x16xi32>) : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// posenc.rel_pos_attention
//===----------------------------------------------------------------------===//

func.func @rel_pos_query_rank(%q: tensor<64xf32>, %rk: tensor<9x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op 'query' must have rank >= 2, got rank 1}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x64xf32>) : tensor<64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @rel_pos_value_rank(%q: tensor<2x16x64xf32>, %v: tensor<16x64xf32>, %rk: tensor<9x64xf32>) {
  // expected-error @+1 {{'key' and 'value' must have the rank of 'query' (3), got 3 and 2}}
  %0 = posenc.rel_pos_attention %q, %q, %v rel_key(%rk : tensor<9x64xf32>) : tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<16x64xf32> -> tensor<2x16x64xf32>
  return
}

// -----

func.func @rel_pos_leading_dim(%q: tensor<2x16x64xf32>, %k: tensor<4x16x64xf32>, %rk: tensor<9x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op batch dim 0 differs: 'query' has 2, 'key' 4, 'value' 4}}
  %0 = posenc.rel_pos_attention %q, %k, %k rel_key(%rk : tensor<9x64xf32>) : tensor<2x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<2x16x64xf32>
  return
}

// -----

func.func @rel_pos_rel_key_even(%q: tensor<16x64xf32>, %rk: tensor<8x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op 'rel_key' must be a tensor<(2K+1) x D> with a static odd first dim, got 'tensor<8x64xf32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<8x64xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_rel_key_dynamic(%q: tensor<16x64xf32>, %rk: tensor<?x64xf32>) {
  // expected-error @+1 {{'rel_key' must be a tensor<(2K+1) x D> with a static odd first dim, got 'tensor<?x64xf32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<?x64xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_rel_key_rank(%q: tensor<16x64xf32>, %rk: tensor<64xf32>) {
  // expected-error @+1 {{'rel_key' must be a tensor<(2K+1) x D> with a static odd first dim, got 'tensor<64xf32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<64xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_rel_key_head_dim(%q: tensor<16x64xf32>, %rk: tensor<9x32xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op 'rel_key' dim 1 (32) must equal head dim D (64)}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x32xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_rel_value_shape(%q: tensor<16x64xf32>, %v: tensor<16x32xf32>, %rk: tensor<9x64xf32>, %rv: tensor<9x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op 'rel_value' must be a tensor<9 x 32> (2K+1 of 'rel_key', Dv of 'value'), got 'tensor<9x64xf32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %v rel_key(%rk : tensor<9x64xf32>) rel_value(%rv : tensor<9x64xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @rel_pos_rel_value_buckets(%q: tensor<16x64xf32>, %rk: tensor<9x64xf32>, %rv: tensor<7x64xf32>) {
  // expected-error @+1 {{'rel_value' must be a tensor<9 x 64> (2K+1 of 'rel_key', Dv of 'value'), got 'tensor<7x64xf32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x64xf32>) rel_value(%rv : tensor<7x64xf32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_result_type(%q: tensor<16x64xf32>, %k: tensor<24x64xf32>, %rk: tensor<9x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op result type 'tensor<24x64xf32>' does not match the expected 'tensor<16x64xf32>' ([..., Sq, Dv] of 'query' and 'value')}}
  %0 = posenc.rel_pos_attention %q, %k, %k rel_key(%rk : tensor<9x64xf32>) : tensor<16x64xf32>, tensor<24x64xf32>, tensor<24x64xf32> -> tensor<24x64xf32>
  return
}

// -----

func.func @rel_pos_scale(%q: tensor<16x64xf32>, %rk: tensor<9x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op scale (inf) must be finite}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x64xf32>) {scale = 0x7FF0000000000000 : f64} : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_default_scale_dynamic_d(%q: tensor<16x?xf32>, %rk: tensor<9x?xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op the default scale 1/sqrt(D) needs a static head dim D > 0 of 'query', got ? (set 'scale' explicitly)}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x?xf32>) : tensor<16x?xf32>, tensor<16x?xf32>, tensor<16x?xf32> -> tensor<16x?xf32>
  return
}

// -----

func.func @rel_pos_integer_rel_key(%q: tensor<16x64xf32>, %rk: tensor<9x64xi32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op operand #3 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<9x64xi32>'}}
  %0 = posenc.rel_pos_attention %q, %q, %q rel_key(%rk : tensor<9x64xi32>) : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @rel_pos_missing_rel_key(%q: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rel_pos_attention' op expected 4 or more operands, but found 3}}
  %0 = "posenc.rel_pos_attention"(%q, %q, %q) : (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}
