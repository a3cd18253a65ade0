// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64 vector-layout=1" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64" | FileCheck %s --check-prefix=GENERIC
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// T5's bias fused into attention (SPEC.md: no H x Sq x Sk tensor).
//
// CPU vector layout: the bucket of every distance j - i' (Sq + Sk - 1 of
// them, an i32 vector) is computed once, before the grid; the f64
// logarithm runs there only. Each key tile gathers the table entries of its
// tq + tk - 1 = 95 diagonals into a row, and the scale/mask generic adds
// row[iLocal - jLocal + tk - 1] to each score.
// CHECK-LABEL: func.func @t5_attention
// CHECK-NOT: tensor<4x100x100xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?xi32>)
// CHECK: math.log %{{.*}} : f64
// CHECK: scf.forall
// CHECK-NOT: math.log
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<95xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<?xi32>
// CHECK: tensor.extract %arg3[%{{.*}}, %{{.*}}] : tensor<32x4xf32>
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<95xf32>
// CHECK-NOT: tensor<4x100x100xf32>
//
// Generic (GPU FMA) layout: the bucket and the table load per score.
// GENERIC-LABEL: func.func @t5_attention
// GENERIC-NOT: tensor<4x100x100xf32>
// GENERIC: scf.forall
// GENERIC: scf.for
// GENERIC: math.log %{{.*}} : f64
// GENERIC: tensor.extract %arg3[%{{.*}}, %{{.*}}] : tensor<32x4xf32>
// GENERIC-NOT: tensor<4x100x100xf32>
//
// After the whole CPU pipeline's bufferization: no buffer of the bias'
// shape, with or without the batch dim.
// BUFFERS-LABEL: func.func @t5_attention
// BUFFERS-NOT: x100x100xf32>
// BUFFERS: return
func.func @t5_attention(%q: tensor<1x4x100x16xf32>, %k: tensor<1x4x100x16xf32>,
                        %v: tensor<1x4x100x16xf32>, %t: tensor<32x4xf32>)
    -> tensor<1x4x100x16xf32> {
  %b = posenc.t5_bias %t {bidirectional} : tensor<32x4xf32> -> tensor<4x100x100xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x100x100xf32>) {scale = 1.0 : f64}
      : tensor<1x4x100x16xf32>, tensor<1x4x100x16xf32>, tensor<1x4x100x16xf32>
      -> tensor<1x4x100x16xf32>
  return %o : tensor<1x4x100x16xf32>
}
