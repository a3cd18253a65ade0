// RUN: posenc-opt %s | posenc-opt | FileCheck %s
// RUN: posenc-opt %s --mlir-print-op-generic | posenc-opt | FileCheck %s

// Round trip of posenc.fused_attention, #posenc.rotary and posenc.yield.

// CHECK-LABEL: func.func @identity
// CHECK: posenc.fused_attention %{{.*}}, %{{.*}}, %{{.*}} {causal}
// CHECK-SAME: -> tensor<1x8x?x64xf32> score_mod {
// CHECK: posenc.yield %{{.*}} : f32
func.func @identity(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                    %v: tensor<1x2x?x64xf32>) -> tensor<1x8x?x64xf32> {
  %o = posenc.fused_attention %q, %k, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    posenc.yield %s : f32
  }
  return %o : tensor<1x8x?x64xf32>
}

// CHECK-LABEL: func.func @everything
// CHECK: posenc.fused_attention
// CHECK-SAME: q_rope(<layout = half, base = 5.000000e+05 : f64, rotary_dim = 32, scaling = <llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>, precision = exact>, %{{.*}} : tensor<?xi32>)
// CHECK-SAME: k_rope(<layout = interleaved, base = 1.000000e+04 : f64, rotary_dim = 64, attention_factor = 1.500000e+00 : f64, precision = fast>, %{{.*}} : tensor<?xi64>)
// CHECK-SAME: mods(%{{.*}}, %{{.*}} : tensor<8xf32>, index)
// CHECK-SAME: rel_key(%{{[a-z0-9_]+}} : tensor<9x64xf32>) rel_value(%{{[a-z0-9_]+}} : tensor<9x64xf32>)
// CHECK-SAME: scale = 1.250000e-01 : f64
// CHECK: tensor.extract
// CHECK: posenc.yield
func.func @everything(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                      %v: tensor<1x2x?x64xf32>, %qp: tensor<?xi32>,
                      %kp: tensor<?xi64>, %slopes: tensor<8xf32>,
                      %shift: index, %rk: tensor<9x64xf32>,
                      %rv: tensor<9x64xf32>) -> tensor<1x8x?x64xf32> {
  %o = posenc.fused_attention %q, %k, %v
      q_rope(#posenc.rotary<layout = half, base = 5.0e+05 : f64, rotary_dim = 32,
             scaling = #posenc.rope_scaling<llama3, factor = 8.0>,
             precision = exact>, %qp : tensor<?xi32>)
      k_rope(#posenc.rotary<layout = interleaved, base = 1.0e+04 : f64,
             rotary_dim = 64, attention_factor = 1.5 : f64, precision = fast>,
             %kp : tensor<?xi64>)
      mods(%slopes, %shift : tensor<8xf32>, index)
      rel_key(%rk : tensor<9x64xf32>)
      rel_value(%rv : tensor<9x64xf32>) {scale = 0.125 : f64}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
       %sl: tensor<8xf32>, %sh: index):
    %m = tensor.extract %sl[%h] : tensor<8xf32>
    %r = arith.addf %s, %m : f32
    posenc.yield %r : f32
  }
  return %o : tensor<1x8x?x64xf32>
}

// CHECK-LABEL: func.func @rank2_f64
// CHECK: posenc.fused_attention {{.*}} : tensor<7x16xf64>, tensor<9x16xf64>, tensor<9x8xf64> -> tensor<7x8xf64>
func.func @rank2_f64(%q: tensor<7x16xf64>, %k: tensor<9x16xf64>,
                     %v: tensor<9x8xf64>) -> tensor<7x8xf64> {
  %o = posenc.fused_attention %q, %k, %v
      : tensor<7x16xf64>, tensor<9x16xf64>, tensor<9x8xf64> -> tensor<7x8xf64>
      score_mod {
  ^bb0(%s: f64, %i: index, %j: index):
    posenc.yield %s : f64
  }
  return %o : tensor<7x8xf64>
}
