// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=64 key-tile=64 vector-layout=1" | FileCheck %s

// The CPU vector layout computes Shaw's value term as bucket sums of P
// (SPEC.md): the key loops carry the two edge-bucket sums [tq] and the
// 2K-1 inner buckets [2K-1 x tq] next to m, l and acc; inner buckets are
// gathered from P only under an scf.if (tiles that reach the band); the
// [2K+1 x tq] sums meet rel_value in one contraction per query tile after
// the loops. rel_value is read nowhere inside the key loops.
// CHECK-LABEL: func.func @shaw_attention
// CHECK: scf.forall
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.if {{.*}} -> (tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<7x64xf32>)
// CHECK-NOT: %arg4
// CHECK: tensor.insert_slice {{.*}} into tensor<9x64xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg4 : tensor<9x64xf32>, tensor<9x64xf32>)
func.func @shaw_attention(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>,
                          %rk: tensor<9x64xf32>, %rv: tensor<9x64xf32>) -> tensor<2x100x64xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x64xf32>) rel_value(%rv : tensor<9x64xf32>) {causal}
      : tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32> -> tensor<2x100x64xf32>
  return %o : tensor<2x100x64xf32>
}
