// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// Malformed assembly of the posenc ops and of #posenc.rope_scaling: each is a
// parse error at the offending token, never a crash.

func.func @rope_missing_layout(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected 'layout'}}
  %0 = posenc.rope %x, %pos : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_unknown_layout(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+2 {{expected ::posenc::Layout to be one of: interleaved, half}}
  // expected-error @+1 {{failed to parse Posenc_LayoutAttr parameter 'value' which is to be a `::posenc::Layout`}}
  %0 = posenc.rope %x, %pos layout neox : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_unknown_precision(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+2 {{expected ::posenc::AnglePrecision to be one of: fast, exact}}
  // expected-error @+1 {{failed to parse Posenc_AnglePrecisionAttr parameter 'value' which is to be a `::posenc::AnglePrecision`}}
  %0 = posenc.rope %x, %pos layout half precision double : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @rope_missing_positions(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'posenc.rope' op needs 'positions' (attribute form) or 'cos'/'sin' tables (table form)}}
  %0 = posenc.rope %x layout half : tensor<16x64xf32>
  return
}

// -----

func.func @rope_missing_positions_type(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{number of operands and types do not match: got 1 operands and 0 types}}
  %0 = posenc.rope %x, %pos layout half : tensor<16x64xf32>
  return
}

// -----

func.func @generic_unknown_layout(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+2 {{expected ::posenc::Layout to be one of: interleaved, half}}
  // expected-error @+1 {{failed to parse Posenc_LayoutAttr parameter 'value' which is to be a `::posenc::Layout`}}
  %0 = "posenc.rope"(%x, %pos) <{layout = #posenc<layout diagonal>}> : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @generic_wrong_enum(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{Invalid attribute `layout` in property conversion: #posenc<precision exact>}}
  %0 = "posenc.rope"(%x, %pos) <{layout = #posenc<precision exact>}> : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @unknown_attribute(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{unknown attribute `rope_scale` in dialect `posenc`}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scale<linear, factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_less(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected '<'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_empty(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected valid keyword}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_kind_not_keyword(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected valid keyword}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_equal(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected '='}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_missing_comma(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected '>'}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear factor = 2.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_trailing_comma(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected valid keyword}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = 2.0,>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_integer_factor(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = 2>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_float_original_max_position(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected integer value}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096.0>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_original_max_position_too_large(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{integer value too large}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 99999999999999999999999>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_factor_not_number(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected floating point literal}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<linear, factor = big>} : tensor<16x64xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_array_without_brackets(%x: tensor<16x4xf32>, %pos: tensor<16xi32>) {
  // expected-error @+1 {{expected '['}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = 1.0, long_factor = [1.0], original_max_position = 4096>} : tensor<16x4xf32>, tensor<16xi32>
  return
}

// -----

func.func @scaling_array_integer_element(%x: tensor<16x4xf32>, %pos: tensor<16xi32>) {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = posenc.rope %x, %pos layout half {scaling = #posenc.rope_scaling<longrope, short_factor = [1.0, 2], long_factor = [1.0, 1.0], original_max_position = 4096>} : tensor<16x4xf32>, tensor<16xi32>
  return
}

// -----

func.func @alibi_slopes_missing_type(%s: tensor<8xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = posenc.alibi_bias slopes(%s) : tensor<8x16x16xf32>
  return
}

// -----

func.func @alibi_dynamic_size_not_index(%f: f32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%f' expects different type than prior uses: 'index' vs 'f32'}}
  %0 = posenc.alibi_bias (%f) : tensor<?x16x16xf32>
  return
}

// -----

func.func @alibi_unranked_result() {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = posenc.alibi_bias : tensor<*xf32>
  return
}

// -----

func.func @attention_missing_result_type(%q: tensor<8x16x64xf32>) {
  // expected-error @+1 {{expected '->'}}
  %0 = posenc.attention %q, %q, %q : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_missing_value(%q: tensor<8x16x64xf32>) {
  // expected-error @+1 {{expected ','}}
  %0 = posenc.attention %q, %q : tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_bias_missing_type(%q: tensor<8x16x64xf32>, %b: tensor<16x16xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = posenc.attention %q, %q, %q bias(%b) : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @rel_pos_missing_rel_key(%q: tensor<16x64xf32>) {
  // expected-error @+1 {{expected 'rel_key'}}
  %0 = posenc.rel_pos_attention %q, %q, %q : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @sinusoidal_missing_result_type(%pos: tensor<16xi32>) {
  // expected-error @+1 {{expected '->'}}
  %0 = posenc.sinusoidal %pos : tensor<16xi32>
  return
}
