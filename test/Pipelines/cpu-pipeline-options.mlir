// The CPU pipeline's options: the fused path is the default, its tile sizes
// reach --posenc-decompose-attention, and reference=true selects the
// materializing lowering alone.
// RUN: posenc-opt %s --posenc-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: posenc-opt %s --posenc-cpu-pipeline="attention-query-tile=8 attention-key-tile=16" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=REF
// RUN: posenc-opt %s --posenc-cpu-pipeline="rope-block-rows=4" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROPE
// RUN: posenc-opt %s --posenc-cpu-pipeline="fast-rope=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOROPE

// FUSED: posenc-fuse-attention
// FUSED: posenc-decompose-attention{key-tile=64 query-tile=64 vector-layout=true}
// FUSED: posenc-vectorize-attention-tiles
// FUSED: posenc-to-linalg
// FUSED: convert-scf-to-openmp
// FUSED: posenc-lower-attention-vectors
// FUSED: convert-openmp-to-llvm

// TILES: posenc-decompose-attention{key-tile=16 query-tile=8 vector-layout=true}

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
