// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64 vector-layout=1" | FileCheck %s
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64" | FileCheck %s --check-prefix=GENERIC
// RUN: posenc-opt %s --posenc-fuse-attention | posenc-opt | FileCheck %s --check-prefix=FUSED
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFERENCE
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=posenc-lower-attention-vectors -o /dev/null 2>&1 | FileCheck %s --check-prefix=VECTORS
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=posenc-vectorize-attention-tiles -o /dev/null 2>&1 | FileCheck %s --check-prefix=BROADCAST

// DeBERTa's attention fused (SPEC.md: both terms as per-tile band products
// gathered by index, no Sq x Sk tensor; docs/design.md, "DeBERTa's band
// products"). Sq = 100, Sk = 180, D = 16, span k = 12 (2k = 24 table rows),
// DeBERTa-v2 buckets.
//
// posenc-fuse-attention (printed, parsed again): the op's default scale 1/sqrt(D * 3) = 1/sqrt(48)
// becomes explicit, the tables and bucket attributes DeBERTa's operands.
// FUSED-LABEL: func.func @deberta
// FUSED: posenc.fused_attention
// FUSED-SAME: deberta_pos_key(%arg3 : tensor<4x24x16xf32>) deberta_pos_query(%arg4 : tensor<24x16xf32>)
// FUSED-SAME: causal, deberta_max_relative_positions = 40 : i64, deberta_position_buckets = 12 : i64, scale = 0.1443375672974064{{[0-9]}} : f64
//
// CPU vector layout: the table row of every distance i - j of the op is
// computed once before the grid ([Sq + Sk - 1] i32: the bucket's logarithm
// leaves the tiles). A key tile's tq + tk - 1 = 95 distances (padded to 96)
// select rows of pos_key and pos_query. The c2p band [96 x tq] =
// pos_key[band] Q~^T is built for the first key tile before the key loop
// and carried by it: each key tile computes the next one's first tk rows
// ([64 x tq]) and moves the other 32 down (copied to a buffer of their
// own). The p2c band [tk x 96] = K~ pos_query[band]^T is per key tile (the
// gathered rows transposed first, so that the band's lanes load
// contiguously). The scale/mask generic reads both diagonally
// (u = iLocal - jLocal + tk - 1). A far tile, whose band gathers one table
// row for every distance (checked entry by entry, an scf.for over the
// index), computes 16 columns of p2c and 8 rows of the next c2p rows and
// repeats the first (docs/design.md, "DeBERTa's band products").
// CHECK-LABEL: func.func @deberta
// CHECK-NOT: tensor<{{.*}}100x180x
// CHECK-NOT: tensor<{{.*}}100x24x
// CHECK: math.log
// CHECK: linalg.yield %{{.*}} : i32
// CHECK: scf.forall
// CHECK-NOT: math.log
// CHECK: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x24x16xf32>
// CHECK: %[[PRODUCT:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<96x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<96x32xf32>)
// CHECK: %[[FIRST:.*]] = linalg.copy {{.*}} ins(%[[PRODUCT]] : tensor<96x32xf32>)
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[BAND:.*]] = %[[FIRST]]) -> ({{.*}}, tensor<96x32xf32>)
// CHECK-NOT: math.log
// CHECK: %[[P2C:.*]] = tensor.empty() : tensor<64x96xf32>
// CHECK: %[[FAR:.*]] = scf.for %{{.*}} = %c1 to %c95 step %c1 iter_args(%{{.*}} = %true) -> (i1)
// CHECK: scf.if %[[FAR]] -> (tensor<64x96xf32>)
// CHECK: tensor.extract %arg4[%{{.*}}, %{{.*}}] : tensor<24x16xf32>
// CHECK: %[[FEW:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[P2C]] : tensor<64x96xf32>)
// CHECK:   tensor.extract %[[FEW]][%{{.*}}, %c0] : tensor<64x16xf32>
// CHECK: } else {
// CHECK: tensor.extract %arg4[%{{.*}}, %{{.*}}] : tensor<24x16xf32>
// CHECK: %[[ROWST:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<96x16xf32>) outs(%{{.*}} : tensor<16x96xf32>)
// Keys 0..31 read band rows 32..94, keys 32..63 rows 0..62: two
// [32 x 64] products, not one [64 x 96].
// CHECK: %[[HIGHROWS:.*]] = tensor.extract_slice %[[ROWST]][0, 32] [16, 64]
// CHECK: %[[HIGH:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[HIGHROWS]] : tensor<32x16xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<32x64xf32>)
// CHECK: %[[HIGHDEST:.*]] = tensor.extract_slice %[[P2C]][0, 32] [32, 64]
// CHECK: linalg.copy {{.*}} ins(%[[HIGH]] : tensor<32x64xf32>) outs(%[[HIGHDEST]] : tensor<32x64xf32>)
// CHECK: %[[LOWROWS:.*]] = tensor.extract_slice %[[ROWST]][0, 0] [16, 64]
// CHECK: %[[LOW:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[LOWROWS]] : tensor<32x16xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<32x64xf32>)
// CHECK: linalg.copy {{.*}} ins(%[[LOW]] : tensor<32x64xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[32, 0] [32, 64]
// CHECK: tensor.extract %[[BAND]][%{{.*}}, %{{.*}}] : tensor<96x32xf32>
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x96xf32>
// CHECK: %[[KEPT:.*]] = bufferization.alloc_tensor() : tensor<32x32xf32>
// CHECK: %[[MOVED:.*]] = tensor.insert_slice %{{.*}} into %[[BAND]][64, 0] [32, 32]
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[MOVED]][0, 0] [64, 32]
// CHECK: %[[NEXTFAR:.*]] = scf.for %{{.*}} = %c1 to %c64 step %c1 iter_args(%{{.*}} = %true) -> (i1)
// CHECK: %[[FRESH:.*]] = scf.if %[[NEXTFAR]] -> (tensor<64x32xf32>)
// CHECK: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x24x16xf32>
// CHECK: %[[EIGHT:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[EIGHT]] : tensor<8x32xf32>) outs(%[[DEST]] : tensor<64x32xf32>)
// CHECK: } else {
// CHECK: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x24x16xf32>
// CHECK: %[[OWN:.*]] = bufferization.alloc_tensor() : tensor<64x32xf32>
// CHECK: %[[ZEROROWS:.*]] = linalg.fill {{.*}} outs(%[[OWN]] : tensor<64x32xf32>)
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<16x32xf32>) outs(%[[ZEROROWS]] : tensor<64x32xf32>)
// CHECK: linalg.copy {{.*}} ins(%[[ROWS]] : tensor<64x32xf32>) outs(%[[DEST]] : tensor<64x32xf32>)
// CHECK: %[[NEXT:.*]] = tensor.insert_slice %[[FRESH]] into %[[MOVED]][0, 0] [64, 32]
// CHECK: scf.yield {{.*}}, %[[NEXT]] :
// CHECK-NOT: tensor<{{.*}}100x180x
// CHECK-NOT: tensor<{{.*}}100x24x
//
// Generic (scalar tile) layout: both terms are dot products per score with
// the tables read by the bucket index.
// GENERIC-LABEL: func.func @deberta
// GENERIC-NOT: tensor<{{.*}}100x24x
// GENERIC: scf.forall
// GENERIC: scf.for
// GENERIC: tensor.extract %arg3[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<4x24x16xf32>
// GENERIC: tensor.extract %arg4[%{{.*}}, %{{.*}}] : tensor<24x16xf32>
// GENERIC-NOT: tensor<{{.*}}100x180x
// GENERIC-NOT: tensor<{{.*}}100x24x
//
// After the whole CPU pipeline's bufferization: no buffer of the scores'
// (or the index's) or a [Sq, 2k] product's shape ...
// BUFFERS-LABEL: func.func @deberta
// BUFFERS-NOT: 100x180x
// BUFFERS-NOT: 100x24x
// BUFFERS-NOT: strided<[?, ?]
// BUFFERS: return
//
// ... while the reference lowering builds the scores (so the checks above
// can fail).
// REFERENCE-LABEL: func.func @deberta
// REFERENCE: memref.alloc() {{.*}} : memref<1x4x100x180xf32>
//
// Every band product keeps its register tiles' accumulators in registers
// across the reduction (hoisted): none is written per step into a view of
// the carried band (a strided memref), as the next rows' product was when
// it wrote into the band's slice.
// VECTORS-LABEL: func.func @deberta
// VECTORS-NOT: vector.transfer_write {{.*}} : vector<8x{{[0-9]+}}xf32>, memref<{{[^>]*}}strided
// VECTORS: return
// A far tile's p2c (one table row for the whole band): each key's first
// column spread over its band row is one scalar read and a broadcast, not a
// transfer_read broadcasting its minor dim, which lowers to a loop writing
// one lane at a time through the stack (2/3 of the kernel at S = 2048,
// D = 64 under perf, before).
// BROADCAST-LABEL: func.func @deberta
// BROADCAST-NOT: permutation_map = affine_map<(d0, d1) -> (d0, 0)>
// BROADCAST: scf.if
// BROADCAST: scf.for %[[J:.*]] = %c0 to %c64 step %c1 iter_args(%[[BAND:.*]] = %{{.*}}) -> (tensor<64x128xf32>)
// BROADCAST:   %[[X:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %c0], %{{.*}} : tensor<64x16xf32>, vector<f32>
// BROADCAST:   %[[ROW:.*]] = vector.broadcast %[[X]] : vector<f32> to vector<1x128xf32>
// BROADCAST:   vector.transfer_write %[[ROW]], %[[BAND]][%[[J]], %c0]
// BROADCAST-NOT: permutation_map = affine_map<(d0, d1) -> (d0, 0)>
// BROADCAST: return
func.func @deberta(%q: tensor<1x4x100x16xf32>, %k: tensor<1x4x180x16xf32>,
                   %v: tensor<1x4x180x16xf32>, %pk: tensor<4x24x16xf32>,
                   %pq: tensor<24x16xf32>) -> tensor<1x4x100x16xf32> {
  %o = posenc.disentangled_attention %q, %k, %v
      pos_key(%pk : tensor<4x24x16xf32>) pos_query(%pq : tensor<24x16xf32>)
      {position_buckets = 12 : i64, max_relative_positions = 40 : i64, causal}
      : tensor<1x4x100x16xf32>, tensor<1x4x180x16xf32>,
      tensor<1x4x180x16xf32> -> tensor<1x4x100x16xf32>
  return %o : tensor<1x4x100x16xf32>
}
