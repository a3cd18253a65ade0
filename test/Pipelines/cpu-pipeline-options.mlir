// The CPU pipeline's options: the fused path is the default, its tile sizes
// reach --posenc-decompose-attention, and reference=true selects the
// materializing lowering alone.
// RUN: posenc-opt %s --posenc-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-query-tile=8 attention-key-tile=16" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-split-k-tasks=3 attention-split-k-max-keys=100" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLITK
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-prefetch-tiles=0" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPREFETCH
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-prefetch-alternate-kv=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOALTERNATE
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-prefetch-between-contractions=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOBETWEEN
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-widen-keys=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWIDEN
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows16-key-tile=128" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS16
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-rows4-key-tile=32" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS4
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=REF
// RUN: posenc-opt %s --posenc-cpu-pipeline="rope-block-rows=4" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROPE
// RUN: posenc-opt %s --posenc-cpu-pipeline="fast-rope=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOROPE
// RUN: posenc-opt %s --posenc-cpu-pipeline="target-features=-avx512f" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: posenc-opt %s --posenc-cpu-pipeline="vector-bits=256" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: posenc-opt %s --posenc-cpu-pipeline="target-features=-avx512f" | FileCheck %s --check-prefix=ATTR
// RUN: posenc-opt %s --posenc-cpu-pipeline="omp-schedule=static" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not posenc-opt %s --posenc-cpu-pipeline="omp-schedule=fastest" 2>&1 | FileCheck %s --check-prefix=BADSCHED
// RUN: not posenc-opt %s --posenc-cpu-pipeline="target-features=-sse2" 2>&1 | FileCheck %s --check-prefix=NOSSE
// RUN: not posenc-opt %s --posenc-cpu-pipeline="target-features=avx2" 2>&1 | FileCheck %s --check-prefix=SIGN

// The vector width: from the host's features and target-features (AVX2 on
// any of this project's hosts once AVX-512 is off), or vector-bits; the
// features are recorded on the module for the JIT.
// AVX2: posenc-vectorize-attention-tiles{vector-bits=256}
// AVX2: posenc-target-features{features=-avx512f}
// BITS: posenc-decompose-attention{{.*}} vector-bits=256
// BITS: posenc-vectorize-attention-tiles{vector-bits=256}
// BITS-NOT: posenc-target-features
// ATTR: module attributes {{{.*}}posenc.target_features = "-avx512f"
// NOSSE: error: posenc-target-features: '-sse2' cannot be honoured: x86-64 code passes floats in SSE registers
// SIGN: error: posenc-target-features: feature 'avx2' must start with '+' or '-'

// The OpenMP loops' schedule (--posenc-omp-schedule), checked for its
// name when the pipeline runs.
// STATIC: posenc-omp-schedule{chunk=0 schedule=static}
// BADSCHED: error: posenc-omp-schedule: option 'schedule' must be static, dynamic, guided or auto, got 'fastest'

// FUSED: posenc-fuse-attention
// FUSED: posenc-decompose-attention{generic-decode=false key-regions=1 key-tile=64 prefetch-alternate-kv=true prefetch-between-contractions=true prefetch-interleaved=true prefetch-tiles=1 query-tile=0 rows16-key-tile=64 rows4-key-tile=16 score-dims-on-lanes=true split-k-count=0 split-k-max-keys=8192 split-k-tasks=0 spread-prefetches=true vector-bits={{[0-9]+}} vector-layout=true widen-keys=true}
// FUSED: posenc-vectorize-attention-tiles
// FUSED: posenc-to-linalg
// FUSED: posenc-spread-decode-prefetches
// FUSED: convert-scf-to-openmp
// FUSED-NEXT: posenc-omp-schedule{chunk=0 schedule=dynamic}
// FUSED: posenc-lower-attention-vectors
// FUSED: convert-openmp-to-llvm

// TILES: posenc-decompose-attention{generic-decode=false key-regions=1 key-tile=16 prefetch-alternate-kv=true prefetch-between-contractions=true prefetch-interleaved=true prefetch-tiles=1 query-tile=8 rows16-key-tile=64 rows4-key-tile=16 score-dims-on-lanes=true split-k-count=0 split-k-max-keys=8192 split-k-tasks=0 spread-prefetches=true vector-bits={{[0-9]+}} vector-layout=true widen-keys=true}
// NOPREFETCH: posenc-decompose-attention{{.*}} prefetch-tiles=0
// NOALTERNATE: posenc-decompose-attention{{.*}} prefetch-alternate-kv=false
// NOBETWEEN: posenc-decompose-attention{{.*}} prefetch-between-contractions=false
// NOWIDEN: posenc-decompose-attention{{.*}} widen-keys=false}
// ROWS16: posenc-decompose-attention{{.*}} rows16-key-tile=128 
// ROWS4: posenc-decompose-attention{{.*}} rows4-key-tile=32 
// SPLITK: posenc-decompose-attention{generic-decode=false key-regions=1 key-tile=64 prefetch-alternate-kv=true prefetch-between-contractions=true prefetch-interleaved=true prefetch-tiles=1 query-tile=0 rows16-key-tile=64 rows4-key-tile=16 score-dims-on-lanes=true split-k-count=0 split-k-max-keys=100 split-k-tasks=3 spread-prefetches=true vector-bits={{[0-9]+}} vector-layout=true widen-keys=true}

// Standalone RoPE: --posenc-lower-rope runs before the reference lowering
// unless fast-rope=false; rope-block-rows reaches it.
// ROPE: posenc-lower-rope{block-rows=4}
// ROPE: posenc-to-linalg
// NOROPE: posenc-fuse-attention
// NOROPE-NOT: posenc-lower-rope
// NOROPE: posenc-to-linalg
// NOROPE-NOT: posenc-lower-rope

// REF-NOT: posenc-fuse-attention
// REF-NOT: posenc-decompose-attention
// REF: posenc-to-linalg
// REF-NOT: posenc-fuse-attention
// REF-NOT: posenc-decompose-attention
func.func @empty() {
  return
}
