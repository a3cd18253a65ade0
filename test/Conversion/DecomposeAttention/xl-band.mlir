// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64 vector-layout=1" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64" | FileCheck %s --check-prefix=GENERIC
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFERENCE

// Transformer-XL's attention fused (SPEC.md: no Sq x Sk and no Sq x L
// tensor; docs/design.md, "Transformer-XL's band product"). Sq = 100,
// Sk = 180, L = Sq + Sk - 1 = 279.
//
// CPU vector layout: u and v are added to the transposed query tile
// [D x tq] once per task; per key tile, the tq + tk - 1 = 95 rel rows the
// tile reaches (padded to 96) are copied into a band, the band product
// [96 x tq] is one contraction, and the scale/mask generic reads it
// diagonally, band[iLocal - jLocal + tk - 1, iLocal].
// CHECK-LABEL: func.func @xl_attention
// CHECK-NOT: tensor<{{.*}}100x180xf32>
// CHECK-NOT: tensor<{{.*}}100x279xf32>
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: scf.for
// CHECK: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x279x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<96x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<96x32xf32>)
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<96x32xf32>
// CHECK-NOT: tensor<{{.*}}100x180xf32>
// CHECK-NOT: tensor<{{.*}}100x279xf32>
//
// Generic (scalar tile) layout: the position term is a dot product per
// score with rel read by index.
// GENERIC-LABEL: func.func @xl_attention
// GENERIC-NOT: tensor<{{.*}}100x279xf32>
// GENERIC: scf.forall
// GENERIC: scf.for
// GENERIC: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x279x16xf32>
// GENERIC-NOT: tensor<{{.*}}100x180xf32>
// GENERIC-NOT: tensor<{{.*}}100x279xf32>
//
// After the whole CPU pipeline's bufferization: no buffer of the scores'
// or the position table's shape ...
// BUFFERS-LABEL: func.func @xl_attention
// BUFFERS-NOT: 100x180xf32>
// BUFFERS-NOT: 100x279xf32>
// BUFFERS: return
//
// ... which the reference lowering does build (so the checks above can fail).
// REFERENCE-LABEL: func.func @xl_attention
// REFERENCE: memref.alloc() {{.*}} : memref<1x4x100x279xf32>
func.func @xl_attention(%q: tensor<1x4x100x16xf32>, %k: tensor<1x4x180x16xf32>,
                        %v: tensor<1x4x180x16xf32>, %r: tensor<4x279x16xf32>,
                        %u: tensor<4x16xf32>, %pb: tensor<4x16xf32>)
    -> tensor<1x4x100x16xf32> {
  %o = posenc.xl_attention %q, %k, %v rel(%r : tensor<4x279x16xf32>)
      content_bias(%u : tensor<4x16xf32>) position_bias(%pb : tensor<4x16xf32>)
      {causal} : tensor<1x4x100x16xf32>, tensor<1x4x180x16xf32>,
      tensor<1x4x180x16xf32> -> tensor<1x4x100x16xf32>
  return %o : tensor<1x4x100x16xf32>
}
