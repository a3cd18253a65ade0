// RUN: posenc-opt %s --posenc-fuse-attention --split-input-file | FileCheck %s

// A query/key pair of xPos ropes (roles query and key, same scale_base,
// gamma, layout and rotary_dim) folds into fused_attention's prologues with
// their xpos; any other xPos rope stays a standalone op (the fused lowering
// re-centers per tile, which only a pair allows).

// CHECK-LABEL: func.func @xpos_pair
// CHECK-NOT: posenc.rope
// CHECK: posenc.fused_attention %arg0, %arg1, %arg2
// CHECK-SAME: q_rope(<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast, xpos = <role = query, scale_base = 2.560000e+02, center = 3>>, %arg3 : tensor<?xi32>)
// CHECK-SAME: k_rope(<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast, xpos = <role = key, scale_base = 2.560000e+02>>, %arg4 : tensor<?xi32>)
func.func @xpos_pair(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>,
                     %qp: tensor<?xi32>, %kp: tensor<?xi32>) -> tensor<1x4x?x64xf32> {
  %qr = posenc.rope %q, %qp layout half
      {xpos = #posenc.xpos<role = query, scale_base = 256.0, center = 3>}
      : tensor<1x4x?x64xf32>, tensor<?xi32>
  %kr = posenc.rope %k, %kp layout half {xpos = #posenc.xpos<role = key, scale_base = 256.0>}
      : tensor<1x4x?x64xf32>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}

// -----

// Different gamma: neither rope folds.
// CHECK-LABEL: func.func @xpos_gamma_mismatch
// CHECK: posenc.rope %arg0, %arg3 layout half {xpos = #posenc.xpos<role = query>}
// CHECK: posenc.rope %arg1, %arg3 layout half {xpos = #posenc.xpos<role = key, gamma = 5.000000e-01>}
// CHECK: posenc.fused_attention %{{.*}}, %{{.*}}, %arg2 {causal}
// CHECK-NOT: q_rope
func.func @xpos_gamma_mismatch(%q: tensor<4x16x64xf32>, %k: tensor<4x16x64xf32>,
                               %v: tensor<4x16x64xf32>, %pos: tensor<16xi32>) -> tensor<4x16x64xf32> {
  %qr = posenc.rope %q, %pos layout half {xpos = #posenc.xpos<role = query>}
      : tensor<4x16x64xf32>, tensor<16xi32>
  %kr = posenc.rope %k, %pos layout half {xpos = #posenc.xpos<role = key, gamma = 0.5>}
      : tensor<4x16x64xf32>, tensor<16xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}

// -----

// Roles swapped (key role on Q): neither folds.
// CHECK-LABEL: func.func @xpos_roles_swapped
// CHECK: posenc.rope %arg0, %arg3 layout half {xpos = #posenc.xpos<role = key>}
// CHECK: posenc.rope %arg1, %arg3 layout half {xpos = #posenc.xpos<role = query>}
// CHECK: posenc.fused_attention
// CHECK-NOT: q_rope
func.func @xpos_roles_swapped(%q: tensor<4x16x64xf32>, %k: tensor<4x16x64xf32>,
                              %v: tensor<4x16x64xf32>, %pos: tensor<16xi32>) -> tensor<4x16x64xf32> {
  %qr = posenc.rope %q, %pos layout half {xpos = #posenc.xpos<role = key>}
      : tensor<4x16x64xf32>, tensor<16xi32>
  %kr = posenc.rope %k, %pos layout half {xpos = #posenc.xpos<role = query>}
      : tensor<4x16x64xf32>, tensor<16xi32>
  %o = posenc.attention %qr, %kr, %v
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}

// -----

// xPos on the query only: the xPos rope stays, the plain key rope folds.
// CHECK-LABEL: func.func @xpos_query_only
// CHECK: posenc.rope %arg0, %arg3 layout half {xpos = #posenc.xpos<role = query>}
// CHECK-NOT: posenc.rope
// CHECK: posenc.fused_attention %{{.*}}, %arg1, %arg2 k_rope(<layout = half, base = 1.000000e+04 : f64, rotary_dim = 64, precision = fast>, %arg3 : tensor<16xi32>)
// CHECK-NOT: q_rope
func.func @xpos_query_only(%q: tensor<4x16x64xf32>, %k: tensor<4x16x64xf32>,
                           %v: tensor<4x16x64xf32>, %pos: tensor<16xi32>) -> tensor<4x16x64xf32> {
  %qr = posenc.rope %q, %pos layout half {xpos = #posenc.xpos<role = query>}
      : tensor<4x16x64xf32>, tensor<16xi32>
  %kr = posenc.rope %k, %pos layout half : tensor<4x16x64xf32>, tensor<16xi32>
  %o = posenc.attention %qr, %kr, %v
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}
