// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=64 key-tile=64 vector-layout=1" --posenc-vectorize-attention-tiles="vector-bits=512" | FileCheck %s --check-prefix=VEC
// RUN: posenc-opt %s --posenc-fuse-attention --posenc-decompose-attention="query-tile=64 key-tile=64 vector-layout=1" --posenc-vectorize-attention-tiles="vector-bits=256" | FileCheck %s --check-prefix=VEC256
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=512" | FileCheck %s --check-prefix=LLVM

// The register tiles are sized for the target's vector registers: the
// checks below pin 512 bits (AVX-512, 32 registers), whatever the host is.
// With 256-bit vectors (AVX2, 16 registers) the accumulators halve in rows
// and lanes, taking the same share of the register file.
// VEC256-LABEL: func.func @rope_attention
// VEC256: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// VEC256: vector.contract {{.*}} : vector<1x4xf32>, vector<1x16xf32> into vector<4x16xf32>
// VEC256-NOT: into vector<8x32xf32>

// The CPU vector layout: every tile op is register-tiled and vectorized (no
// linalg op is left for a static head dim), both contractions are
// vector.contract on an 8 x 32 register tile with one reduction step, the
// softmax statistics are reductions across rows of S^T, and the tiles run in
// a parallel forall. RoPE's cos/sin come from position-only [S x R/2] tables
// built once before the forall: no sin/cos inside it.
// VEC-LABEL: func.func @rope_attention
// VEC-NOT: linalg.
// VEC: math.cos {{.*}} : vector<1x32xf32>
// VEC: math.sin {{.*}} : vector<1x32xf32>
// VEC: scf.forall
// VEC-NOT: math.sin
// VEC-NOT: math.cos
// VEC-NOT: linalg.
// VEC: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// VEC: vector.multi_reduction <maxnumf>, {{.*}} [0] : vector<8x64xf32> to vector<64xf32>
// VEC: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// VEC-NOT: linalg.
// VEC-NOT: math.sin
// VEC-NOT: math.cos
// VEC: return

// The whole pipeline: the cos/sin tables are polynomials (FMAs) before the
// parallel region, the tile loop is an OpenMP worksharing loop, the
// contractions are FMAs on 512-bit-wide (16 x f32) vectors or wider, exp,
// sin and cos are polynomials (no libm call, no llvm.intr.exp).
// LLVM-LABEL: llvm.func @rope_attention
// LLVM: llvm.intr.fma{{.*}}vector<32xf32>
// LLVM: omp.parallel
// LLVM: omp.wsloop
// LLVM: llvm.intr.fmuladd{{.*}}vector<32xf32>
// LLVM-NOT: llvm.intr.exp
// LLVM-NOT: llvm.intr.sin
// LLVM-NOT: llvm.intr.cos
// LLVM-NOT: @expf
func.func @rope_attention(%q: tensor<1x4x100x64xf32>, %k: tensor<1x2x100x64xf32>,
                          %v: tensor<1x2x100x64xf32>, %pos: tensor<100xi32>) -> tensor<1x4x100x64xf32> {
  %qr = posenc.rope %q, %pos layout half : tensor<1x4x100x64xf32>, tensor<100xi32>
  %kr = posenc.rope %k, %pos layout half : tensor<1x2x100x64xf32>, tensor<100xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x100x64xf32>, tensor<1x2x100x64xf32>, tensor<1x2x100x64xf32> -> tensor<1x4x100x64xf32>
  return %o : tensor<1x4x100x64xf32>
}
