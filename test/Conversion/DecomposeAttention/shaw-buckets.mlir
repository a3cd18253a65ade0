// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=64 key-tile=64 vector-layout=1" | FileCheck %s

// The CPU vector layout computes Shaw's value term as bucket sums of P
// (SPEC.md): the key loops carry the two edge-bucket sums [tq] and the
// inner buckets [* x tq] next to m, l and acc; inner buckets are gathered
// from P only under an scf.if (tiles that reach the band); the bucket sums
// meet rel_value in one contraction per query tile after the loops.
// rel_value is read nowhere inside the key loops.
//
// The key term q . rel_key (the fused op's rel_key operand) is one small
// contraction per query tile (rel_key rows zero-padded to a multiple of 8,
// marked for vectorization), never an [Sq, 2K+1] table; each key tile adds
// it under an scf.if: a gather in band tiles, an edge row broadcast over the
// keys elsewhere.
//
// Causal: only buckets 0..K are ever unmasked, so rel_key/rel_value rows
// 0..K (5 of 9 here), K inner buckets (4) and no hi edge sum.
// CHECK-LABEL: func.func @shaw_attention
// CHECK-NOT: tensor<2x100x9xf32>
// CHECK: tensor.extract_slice %arg3[0, 0] [5, 64] [1, 1] : tensor<9x64xf32> to tensor<5x64xf32>
// CHECK: tensor.pad
// CHECK: } : tensor<5x64xf32> to tensor<8x64xf32>
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<8x64xf32>) attrs = {posenc.vector_tile = array<i64: 8, 32, 1>}
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.if {{.*}} -> (tensor<64x64xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<8x64xf32>
// CHECK: } else {
// CHECK: tensor.extract_slice {{.*}} : tensor<8x64xf32> to tensor<64xf32>
// CHECK-NOT: %arg4
// CHECK: scf.if {{.*}} -> (tensor<4x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64xf32>)
// CHECK-NOT: %arg4
// CHECK: tensor.insert_slice {{.*}} into tensor<5x64xf32>
// CHECK: %[[RV:.*]] = tensor.extract_slice %arg4[0, 0] [5, 64] [1, 1] : tensor<9x64xf32> to tensor<5x64xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[RV]] : tensor<5x64xf32>, tensor<5x64xf32>)
func.func @shaw_attention(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>,
                          %rk: tensor<9x64xf32>, %rv: tensor<9x64xf32>) -> tensor<2x100x64xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x64xf32>) rel_value(%rv : tensor<9x64xf32>) {causal}
      : tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32> -> tensor<2x100x64xf32>
  return %o : tensor<2x100x64xf32>
}

// Not causal: all 2K+1 buckets, 2K-1 inner ones, both edge sums.
// CHECK-LABEL: func.func @shaw_noncausal
// CHECK-NOT: tensor<2x100x9xf32>
// CHECK: tensor.pad %arg3
// CHECK: } : tensor<9x64xf32> to tensor<16x64xf32>
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<16x64xf32>) attrs = {posenc.vector_tile = array<i64: 8, 32, 1>}
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.if {{.*}} -> (tensor<64x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.if {{.*}} -> (tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: tensor.insert_slice {{.*}} into tensor<9x64xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg4 : tensor<9x64xf32>, tensor<9x64xf32>)
func.func @shaw_noncausal(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>,
                          %rk: tensor<9x64xf32>, %rv: tensor<9x64xf32>) -> tensor<2x100x64xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x64xf32>) rel_value(%rv : tensor<9x64xf32>)
      : tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32> -> tensor<2x100x64xf32>
  return %o : tensor<2x100x64xf32>
}

// A score_mod that reads a table of its own is cloned as written: the table
// and its gather stay (only the rel_key operand gets the per-tile product).
// CHECK-LABEL: func.func @shaw_form_not_recognized
// CHECK: scf.forall
// CHECK: tensor.extract %{{.*}} : tensor<2x100x9xf32>
func.func @shaw_form_not_recognized(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>,
                                    %rk: tensor<9x64xf32>) -> tensor<2x100x64xf32> {
  %cst = arith.constant 2.500000e-01 : f32
  %c4 = arith.constant 4 : index
  %c-4 = arith.constant -4 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x100x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x100x9xf32>) -> tensor<2x100x9xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %rk : tensor<2x100x64xf32>, tensor<9x64xf32>) outs(%f : tensor<2x100x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x100x9xf32>
  %r = posenc.fused_attention %q, %k, %v mods(%t, %c0 : tensor<2x100x9xf32>, index) {causal, scale = 1.250000e-01 : f64} : tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32> -> tensor<2x100x64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %i: index, %j: index, %tab: tensor<2x100x9xf32>, %sh: index):
    %0 = arith.addi %i, %sh : index
    %1 = arith.subi %j, %0 : index
    %2 = arith.maxsi %1, %c-4 : index
    %3 = arith.minsi %2, %c4 : index
    %4 = arith.addi %3, %c4 : index
    %x = tensor.extract %tab[%b, %i, %4] : tensor<2x100x9xf32>
    %5 = arith.mulf %x, %cst : f32
    %6 = arith.addf %s, %5 : f32
    posenc.yield %6 : f32
  }
  return %r : tensor<2x100x64xf32>
}
