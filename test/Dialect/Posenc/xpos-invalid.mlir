// RUN: posenc-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of #posenc.xpos's verifier (XPosAttr.cpp) and of
// the xPos pairing rule of posenc.fused_attention
// (describeXPosPairMismatch, PosencFusedOps.cpp).

func.func @xpos_scale_base_zero(%x: tensor<8x16xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{xpos: scale_base must be a finite number > 0, got 0}}
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = query, scale_base = 0.0>}
      : tensor<8x16xf32>, tensor<8xi32>
  return
}

// -----

func.func @xpos_scale_base_inf(%x: tensor<8x16xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{xpos: scale_base must be a finite number > 0, got inf}}
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = query, scale_base = 0x7FF0000000000000>}
      : tensor<8x16xf32>, tensor<8xi32>
  return
}

// -----

func.func @xpos_gamma_between(%x: tensor<8x16xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{xpos: gamma must be finite and > 0 or < -1 (so that every zeta_p = (2p/R + gamma)/(1 + gamma) is > 0), got -0.5}}
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = key, gamma = -0.5>}
      : tensor<8x16xf32>, tensor<8xi32>
  return
}

// -----

func.func @xpos_gamma_zero(%x: tensor<8x16xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{xpos: gamma must be finite and > 0 or < -1 (so that every zeta_p = (2p/R + gamma)/(1 + gamma) is > 0), got 0}}
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<role = key, gamma = 0.0>}
      : tensor<8x16xf32>, tensor<8xi32>
  return
}

// -----

func.func @xpos_role_missing(%x: tensor<8x16xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{struct is missing required parameter: role}}
  %r = posenc.rope %x, %pos layout half {xpos = #posenc.xpos<gamma = 0.5>}
      : tensor<8x16xf32>, tensor<8xi32>
  return
}

// -----

func.func @fused_xpos_query_only(%q: tensor<4x16x64xf32>, %v: tensor<4x16x64xf32>,
                                 %pos: tensor<16xi32>) {
  // expected-error @+1 {{xpos needs both 'q_rope' and 'k_rope' to carry it (the scores must depend only on position differences), got it on 'q_rope' only}}
  %o = posenc.fused_attention %q, %v, %v
      q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = query>>, %pos : tensor<16xi32>)
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast>, %pos : tensor<16xi32>)
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
      score_mod {
    ^bb0(%s: f32, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xpos_roles_swapped(%q: tensor<4x16x64xf32>, %v: tensor<4x16x64xf32>,
                                    %pos: tensor<16xi32>) {
  // expected-error @+1 {{xpos roles must be query on 'q_rope' and key on 'k_rope', got key and query}}
  %o = posenc.fused_attention %q, %v, %v
      q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = key>>, %pos : tensor<16xi32>)
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = query>>, %pos : tensor<16xi32>)
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
      score_mod {
    ^bb0(%s: f32, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xpos_gamma_differs(%q: tensor<4x16x64xf32>, %v: tensor<4x16x64xf32>,
                                    %pos: tensor<16xi32>) {
  // expected-error @+1 {{xpos scale_base and gamma must be equal on 'q_rope' and 'k_rope', got (512, 0.4) and (512, 0.5)}}
  %o = posenc.fused_attention %q, %v, %v
      q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = query>>, %pos : tensor<16xi32>)
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = key, gamma = 0.5>>, %pos : tensor<16xi32>)
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
      score_mod {
    ^bb0(%s: f32, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}

// -----

func.func @fused_xpos_rotary_dim_differs(%q: tensor<4x16x64xf32>, %v: tensor<4x16x64xf32>,
                                         %pos: tensor<16xi32>) {
  // expected-error @+1 {{xpos needs the same layout and rotary_dim on 'q_rope' and 'k_rope' (the decay of pair p must meet pair p), got half/64 and half/32}}
  %o = posenc.fused_attention %q, %v, %v
      q_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 64,
             precision = fast, xpos = #posenc.xpos<role = query>>, %pos : tensor<16xi32>)
      k_rope(#posenc.rotary<layout = half, base = 1.0e+04 : f64, rotary_dim = 32,
             precision = fast, xpos = #posenc.xpos<role = key>>, %pos : tensor<16xi32>)
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
      score_mod {
    ^bb0(%s: f32, %h: index, %i: index, %j: index):
      posenc.yield %s : f32
  }
  return
}
