// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=32 key-tile=64" --split-input-file | FileCheck %s
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=false" --split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention --split-input-file | FileCheck %s --check-prefix=NOCOPY
// RUN: posenc-opt %s --posenc-cpu-pipeline --split-input-file --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPUBUF

// The flash-style lowering: scf.forall over (lead dims, query tiles), scf.for
// over key tiles, no Sq x Sk tensor and no rotated copy of Q or K: every
// intermediate is a tile (rows x D, rows x cols of the score tile).

// CHECK-LABEL: func.func @rope_causal_gqa
// CHECK-NOT: = posenc.
// CHECK-NOT: tensor<257x257xf32>
// CHECK-NOT: tensor<1x8x257x257xf32>
// CHECK: %[[NQT:.*]] = arith.ceildivui %{{.*}}, %c32
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[T:.*]]) in (1, 8, %[[NQT]]) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x8x257x64xf32>)
// GQA: the kv head is h / (Hq/Hkv), read in place.
// CHECK: %[[KVH:.*]] = arith.divui %[[H]]
// CHECK: %[[QTILE:.*]] = tensor.extract_slice %arg0[%[[B]], %[[H]], %{{.*}}, 0] [1, 1, %{{.*}}, 64] [1, 1, 1, 1] : tensor<1x8x257x64xf32> to tensor<?x64xf32>
// RoPE on the Q tile, once per query tile.
// CHECK: linalg.generic {{.*}} ins(%[[QTILE]], %{{.*}} : tensor<?x64xf32>, tensor<?xi32>)
// CHECK: math.cos
// CHECK: math.sin
// Causal: the key loop stops at the diagonal of the tile's last row.
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[KS:.*]] = %c0 to %[[END]] step %c64 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>)
// CHECK: tensor.extract_slice %arg1[%[[B]], %[[KVH]], %[[KS]], 0] [1, 1, %{{.*}}, 64] [1, 1, 1, 1] : tensor<1x2x257x64xf32> to tensor<?x64xf32>
// CHECK: math.cos
// CHECK: tensor.extract_slice %arg2[%[[B]], %[[KVH]], %[[KS]], 0]
// The score tile and the online softmax.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x64xf32>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[B]], %[[H]], %{{.*}}, 0] [1, 1, %{{.*}}, 64] [1, 1, 1, 1] : tensor<?x64xf32> into tensor<1x8x257x64xf32>

// Anywhere in the lowered functions: no generic writes a whole rotated Q/K
// or a score matrix.
// NOCOPY-LABEL: func.func @rope_causal_gqa
// NOCOPY-NOT: outs(%{{.*}} : tensor<1x{{[28]}}x257x64xf32>)
// NOCOPY-NOT: tensor<{{.*}}257x257{{.*}}>
// NOCOPY-NOT: tensor<{{[0-9]+}}x?x?x
// NOCOPY-NOT: tensor<{{.*}}100x100{{.*}}>

// The same on the tile layout the CPU pipeline uses (vector-layout tiles
// through --posenc-vectorize-attention-tiles), read right after
// bufferization: the only buffer of a whole-tensor size is the result (one
// 1x8x257x64 alloc; the 257 x R/2 cos/sin tables are per position).
// CPUBUF-LABEL: func.func @rope_causal_gqa(
// CPUBUF-NOT: 257x257
// CPUBUF-NOT: memref.alloc() {{.*}}: memref<1x2x257x64xf32>
// CPUBUF: memref.alloc() {{.*}}: memref<1x8x257x64xf32>
// CPUBUF-NOT: 257x257
// CPUBUF-NOT: memref.alloc() {{.*}}: memref<1x{{[28]}}x257x64xf32>

// LLVM-LABEL: llvm.func @rope_causal_gqa
// LLVM-NOT: = posenc.
// LLVM-NOT: scf.
func.func @rope_causal_gqa(%q: tensor<1x8x257x64xf32>, %k: tensor<1x2x257x64xf32>,
                           %v: tensor<1x2x257x64xf32>, %pos: tensor<257xi32>) -> tensor<1x8x257x64xf32> {
  %qr = posenc.rope %q, %pos layout half : tensor<1x8x257x64xf32>, tensor<257xi32>
  %kr = posenc.rope %k, %pos layout half : tensor<1x2x257x64xf32>, tensor<257xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x8x257x64xf32>, tensor<1x2x257x64xf32>, tensor<1x2x257x64xf32> -> tensor<1x8x257x64xf32>
  return %o : tensor<1x8x257x64xf32>
}

// -----

// ALiBi with dynamic sequence dims: the bias is computed per score-tile
// element from (h, i, j); nothing of shape ? x ? outside the loops.
// CHECK-LABEL: func.func @alibi_dynamic
// CHECK-NOT: = posenc.
// CHECK-NOT: tensor<4x?x?xf32>
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield

// CPUBUF-LABEL: func.func @alibi_dynamic(
// CPUBUF-NOT: x?x?x
// CPUBUF-NOT: memref<?x?x

// LLVM-LABEL: llvm.func @alibi_dynamic
func.func @alibi_dynamic(%q: tensor<4x?x32xf32>, %k: tensor<4x?x32xf32>,
                         %v: tensor<4x?x32xf32>, %sq: index, %sk: index) -> tensor<4x?x32xf32> {
  %b = posenc.alibi_bias (%sq, %sk) : tensor<4x?x?xf32>
  %o = posenc.attention %q, %k, %v bias(%b : tensor<4x?x?xf32>)
      : tensor<4x?x32xf32>, tensor<4x?x32xf32>, tensor<4x?x32xf32> -> tensor<4x?x32xf32>
  return %o : tensor<4x?x32xf32>
}

// -----

// Shaw: the key term is the [rows x 2K+1] product of each query tile with
// rel_key (the fused op's operand), read per score; the value term reads
// rel_value[r(i, j)] inside the P V tile product. No [Sq, 2K+1] table.
// CPUBUF-LABEL: func.func @shaw(
// CPUBUF-NOT: 100x100
// CHECK-LABEL: func.func @shaw
// CHECK-NOT: = posenc.
// CHECK-NOT: tensor<100x100xf32>
// CHECK-NOT: tensor<100x100x16xf32>
// CHECK-NOT: tensor<100x9xf32>
// CHECK: scf.forall (%[[T:.*]]) in (%{{.*}})
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg3 : tensor<?x16xf32>, tensor<9x16xf32>) outs(%{{.*}} : tensor<?x9xf32>)
// CHECK: scf.for
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x9xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x16xf32>) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK: tensor.extract %arg4[%{{.*}}, %{{.*}}] : tensor<9x16xf32>
func.func @shaw(%q: tensor<100x16xf32>, %k: tensor<100x16xf32>, %v: tensor<100x16xf32>,
                %rk: tensor<9x16xf32>, %rv: tensor<9x16xf32>) -> tensor<100x16xf32> {
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<9x16xf32>)
      rel_value(%rv : tensor<9x16xf32>)
      : tensor<100x16xf32>, tensor<100x16xf32>, tensor<100x16xf32> -> tensor<100x16xf32>
  return %o : tensor<100x16xf32>
}
