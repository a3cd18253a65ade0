//===- Passes.td - passes that lower posenc out of itself --*- tablegen -*-===//

#ifndef POSENC_CONVERSION_PASSES_TD
#define POSENC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def PosencToLinalgPass : Pass<"posenc-to-linalg"> {
  let summary = "Reference lowering of every posenc op to linalg on tensors";
  let description = [{
    Lowers `posenc.sinusoidal`, `posenc.rope`, `posenc.alibi_bias`,
    `posenc.attention` and `posenc.rel_pos_attention` to `linalg.generic` ops
    on tensors, one op per formula of docs/spec.md, materializing every
    intermediate (the full `Sq x Sk` score matrix, the rotated copy of the
    input, the Shaw `q . rel_key` table). It is the plain, obviously correct
    semantic baseline that fused lowerings are checked against, not a fast
    path.

    f16/bf16 operands are extended to f32 in the element computations and the
    results truncated back; softmax runs in f32 with max subtraction and a row
    whose keys are all masked yields zeros. RoPE inverse frequencies that are
    compile-time constants are folded into a constant table (f64 in exact
    mode); dynamic NTK and LongRoPE compute theirs at run time from
    L = max(positions) + 1.

    The KV-cache forms (docs/spec.md, "attention over a KV cache") are
    lowered too: `kv_lengths` masks the keys past each sequence's length and
    aligns the causal mask at it, per-batch RoPE positions `[B, S]` are read
    by the batch index, and f16/bf16 key/value under an f32 query are
    extended element by element like any half operand.

    Run-time shape checks: when a dynamic size of one operand must equal a
    size of another (e.g. the length of `positions` and the sequence dim of
    the RoPE input), a `cf.assert` reports a mismatch at run time; so does a
    `kv_lengths` value outside `[0, Smax]` (a loop of checks over the batch).

    `posenc.t5_bias` and `posenc.disentangled_attention` (DeBERTa) are lowered
    too. For the latter the table row `c(i, j)` (with DeBERTa-v2's log bucket)
    is computed once per (query, key) pair into an `[Sq, Sk]` index tensor,
    and the score reduction over `D` gathers the `pos_key` / `pos_query` rows
    by it, so no `[Sq, 2k]` product is built. This is the reference form
    (`reference=true` of `posenc-cpu-pipeline`, `fused=false` of
    `posenc-to-nvvm`); the fused pipelines fold the op into
    `posenc.fused_attention` first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PosencDecomposeAttentionPass : Pass<"posenc-decompose-attention"> {
  let summary = "Flash-style lowering of posenc.fused_attention to tiled loops";
  let description = [{
    Lowers every `posenc.fused_attention` to a loop nest on tensors:
    `scf.forall` over the lead dims (batch, heads) and query tiles, and
    `scf.for` over key/value tiles with an online softmax (running row max
    and sum, rescaled f32 accumulator). The RoPE prologue rotates each query
    tile once and each key tile as it is loaded; the `score_mod` region is
    inlined into the score-tile computation; with `causal`, the key loop of a
    query tile stops at the diagonal, so tiles above it are never computed.
    Grouped-query attention reads key/value head `h / (Hq/Hkv)` in place.
    Every intermediate is a `linalg` op on a tile: no `Sq x Sk` tensor and
    no rotated copy of Q or K exists. Sizes that do not divide the tiles and
    dynamic sequence dims are handled with partial last tiles.

    With the vector layout and no `query-tile`, the schedule follows the
    shapes (docs/pipelines.md, "Attention schedules"): a static `Sq` of at
    most 16 gets the decode schedule, whose tile rows are the `Sq` query
    rows of the `Hq/Hkv` query heads that share a K/V head (GQA packing:
    each K/V tile is loaded once per group) and whose key range is split
    across tasks when the grid has fewer than `split-k-tasks` tasks or more
    than `split-k-max-keys` keys per task (flash-decoding; the partial
    results are merged with their log-sum-exp). A larger `Sq` gets 64-row
    query tiles (the prefill schedule); a dynamic `Sq` gets both, selected
    at run time by one branch on `Sq <= 16`. Shaw's relative terms always
    take the prefill schedule.

    With `generic-decode` (what `--posenc-to-nvvm` sets, docs/gpu.md,
    "Decode schedule"), the generic layout gets a decode schedule too: a
    static `Sq` of at most 16 with the `Hq/Hkv` heads of a group packed into
    one tile of at most `query-tile` rows, the keys split until the grid has
    at least `split-k-tasks` tasks (or into exactly `split-k-count` splits),
    each task writing its unnormalized (max, sum, accumulator) and the
    splits merged by their log-sum-exp; the grid is marked
    `posenc.decode_grid` for `--posenc-gpu-map-attention`. Every other `Sq`
    keeps the prefill schedule of `query-tile` rows unchanged.
  }];
  let options = [
    Option<"queryTile", "query-tile", "int64_t", /*default=*/"0",
           "Rows of Q per tile (a parallel iteration) for every Sq; 0: by "
           "shape (vector layout: the decode schedule for Sq <= 16, else "
           "64; generic layout: 32)">,
    Option<"keyTile", "key-tile", "int64_t", /*default=*/"64",
           "Rows of K/V per tile (an iteration of the online softmax)">,
    Option<"vectorLayout", "vector-layout", "bool", /*default=*/"false",
           "CPU vector layout: static zero-padded tiles, transposed scores "
           "and register-tile marks for --posenc-vectorize-attention-tiles">,
    Option<"splitKTasks", "split-k-tasks", "int64_t", /*default=*/"0",
           "Decode schedule: split the keys until the grid has at least "
           "this many tasks (0: twice the OpenMP runtime's thread count at "
           "run time, omp_get_max_threads())">,
    Option<"splitKMaxKeys", "split-k-max-keys", "int64_t",
           /*default=*/"8192",
           "Decode schedule: split the keys so that no task reads more "
           "than this many (0: no limit)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Decode schedule: the target's vector width in bits (0: the "
           "host's); a tile whose rows fit one vector of f32 puts the keys "
           "on the vector lanes (except 16 rows with f32 K at 512 bits), a "
           "taller one the rows">,
    Option<"splitKCount", "split-k-count", "int64_t", /*default=*/"0",
           "Decode schedule: split the keys into exactly this many ranges "
           "(an empty range merges as nothing); 0: from the shapes "
           "(split-k-tasks, split-k-max-keys)">,
    Option<"prefetchTiles", "prefetch-tiles", "int64_t", /*default=*/"1",
           "Vector layout, decode schedule: software-prefetch (into the L1 "
           "cache) the K/V rows of the key tile this many tiles ahead of "
           "the one being computed (0: none)">,
    Option<"prefetchInterleaved", "prefetch-interleaved", "bool",
           /*default=*/"true",
           "Vector layout, decode tiles whose score contraction keeps the "
           "head dim on the lanes, half-precision K/V: issue each key "
           "step's prefetches (into L2) among the contraction's register "
           "tiles, the next tile's rows of each tile's keys, instead of in "
           "one burst (into L1) at its start">,
    Option<"keyRegions", "key-regions", "int64_t", /*default=*/"1",
           "Vector layout, decode schedule: visit a task's full key tiles "
           "interleaved over this many regions of its keys (1: in order), "
           "so that each thread streams that many distant ranges of K and "
           "of V at once">,
    Option<"scoreDimsOnLanes", "score-dims-on-lanes", "bool",
           /*default=*/"true",
           "Vector layout, decode tiles of at most 4 rows (keys on the "
           "lanes): the score contraction accumulates per-lane partial "
           "products with the head dim on the lanes and reduces each "
           "score's lanes once (false: K transposed in registers)">,
    Option<"widenKeys", "widen-keys", "bool", /*default=*/"true",
           "Vector layout, decode tiles of more than 16 rows with the rows "
           "on the lanes, and of 16 rows with 512-bit vectors: f16/bf16 K "
           "converted to f32 once per key tile (false: per element the "
           "score contraction broadcasts, per register tile of 16 keys for "
           "tiles of at most 16 rows)">,
    Option<"rows16KeyTile", "rows16-key-tile", "int64_t", /*default=*/"64",
           "Vector layout, decode tiles of 16 rows (Sq = 4 with 4 packed "
           "query heads, Sq = 16 MHA): key/value rows per tile instead of "
           "key-tile (0: key-tile)">,
    Option<"rows4KeyTile", "rows4-key-tile", "int64_t", /*default=*/"16",
           "Vector layout, decode tiles of at most 4 rows (Sq = 1, Sq = 4 "
           "MHA): key/value rows per tile instead of key-tile (0: key-tile)">,
    Option<"spreadPrefetches", "spread-prefetches", "bool",
           /*default=*/"true",
           "Vector layout, decode schedule: mark each full key step's "
           "prefetch burst for --posenc-spread-decode-prefetches, which "
           "spreads it over the step's contraction loops (prefetch-interleaved "
           "then stays off), with 512-bit vectors, for tiles "
           "whose prefetched K/V lines each feed at least two FMAs (not a "
           "1-row tile with f32 K/V); tiles of at most 4 rows with f32 K "
           "mark loops over single cache lines instead of rows">,
    Option<"prefetchBetweenContractions", "prefetch-between-contractions",
           "bool", /*default=*/"true",
           "Vector layout, decode tiles of at most 4 rows with "
           "spread-prefetches: mark the prefetch bursts so that the spread "
           "also issues some of them among the ops between the score "
           "contraction and P V (the score reduction and the softmax), "
           "during which the contraction loops issue none">,
    Option<"prefetchAlternateKV", "prefetch-alternate-kv", "bool",
           /*default=*/"true",
           "Vector layout, decode tiles of at most 4 rows with "
           "spread-prefetches: mark the prefetch loops so that the spread "
           "hands out the next tile's K and V rows alternately instead of "
           "K's first">,
    Option<"genericDecode", "generic-decode", "bool", /*default=*/"false",
           "Generic layout (the GPU mapping's): the decode schedule for a "
           "static Sq <= 16, its packed tile at most query-tile rows, the "
           "keys split until the grid has split-k-tasks tasks (0: not for "
           "the task count)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PosencVectorizeAttentionTilesPass
    : Pass<"posenc-vectorize-attention-tiles", "::mlir::func::FuncOp"> {
  let summary = "Register-tile and vectorize the marked attention tile ops";
  let description = [{
    Runs on tensors after `--posenc-decompose-attention="vector-layout=1"`.
    Every linalg op carrying `posenc.vector_tile = array<i64: ...>` is tiled
    with those sizes (`scf.for`, 0 = untiled; e.g. `[8, 32, 1]` for a
    contraction: an 8 x 32 accumulator in registers, one reduction step per
    iteration) and each static tile is vectorized with upstream
    `linalg::vectorize`; multiply-add reductions become `vector.contract`.
    Ops that cannot be vectorized (dynamic head dims) stay linalg and are
    lowered to loops later.

    An op also carrying `posenc.vector_tile_fuse_init` (the decode
    schedule's score and `P V` contractions) is tiled in two levels: its
    parallel dims first, with the producer of its destination (a zero
    fill, the online softmax's rescale; used by this op only) fused into
    each tile by upstream tile-and-fuse, then its reduction dims. Each
    accumulator tile is then initialized right before its reduction loop
    instead of in a pass over the whole destination.

    The marked sizes are register tiles for 512-bit vectors (AVX-512: 32
    registers). For narrower vectors (`vector-bits`, by default the host's:
    256 on AVX2-only hosts, which have 16 registers) every parallel dim of
    a register tile (an accumulator's rows and lanes) shrinks by the width
    ratio, to a divisor of the marked size, so that the accumulator takes the
    same share of the register file (`[8, 32, 1]` becomes `[4, 16, 1]` at
    256 bits). Ops also carrying `posenc.vector_tile_exact` have sizes
    chosen for the target's width already (the decode score contraction
    with the head dim on the lanes) and are tiled as marked.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width in bits of the target's f32 vector registers (0: the "
           "host's, from its CPU features: 512 with AVX-512, 256 with AVX2)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def PosencTargetFeaturesPass
    : Pass<"posenc-target-features", "::mlir::ModuleOp"> {
  let summary = "Record the CPU features the generated code may use";
  let description = [{
    Sets the module attribute `posenc.target_features` to `features`, an
    LLVM target-features list applied on top of the host CPU's (later entries
    override earlier ones; e.g. `-avx512f` for AVX2 code on an AVX-512 host).
    The C API's JIT compiles the module for the host CPU with these features;
    `--posenc-cpu-pipeline="target-features=..."` runs this pass and sizes
    the register tiles for the same vector width. Without the attribute the
    JIT uses the host's features.

    ```mlir
    module attributes {posenc.target_features = "-avx512f"} { ... }
    ```
  }];
  let options = [
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "LLVM target features, comma separated (e.g. -avx512f)">
  ];
}

def PosencLowerAttentionVectorsPass
    : Pass<"posenc-lower-attention-vectors", "::mlir::func::FuncOp"> {
  let summary = "Hoist and lower the attention tiles' vector ops for the CPU";
  let description = [{
    Runs after bufferization. Hoists accumulator transfers out of the
    register-tile reduction loops (the accumulator then stays in registers),
    forwards each tile's initial accumulator (the fused zero fill, the
    rescaled `P V` accumulator) to its loop in registers and drops the
    tile stores the loop's result overwrites (only on buffers the function
    allocates and does not let escape), lowers `vector.contract` to outer
    products (FMAs with a broadcast operand) or, when a parallel dim indexes both operands (the lanes of
    the decode score contraction with the head dim on the lanes), to
    elementwise FMAs (upstream's `parallelarith` lowering),
    `vector.multi_reduction` to elementwise ops across lanes (a reduction
    of the lanes of an N x N block, N = 4, 8 or 16, by a transpose-and-add
    tree: 2N - 2 shuffles for N results, in order; of an R x N block with R
    a multiple of 4 below N, such as the softmax statistics of a 4-row
    decode tile, by the tree's two in-chunk levels and then halves folded
    down to R lanes; a reduction over the rows of a block, such as the
    softmax statistics of tiles with the rows on the lanes, by a pairwise
    tree before the accumulator),
    transposed transfers to transposes, and `math.exp`/`sin`/`cos` on f32
    vectors to the upstream polynomial approximations (scalar math, e.g. of
    the reference lowering, keeps libm).
    Runs after `--convert-scf-to-openmp`, whose per-iteration
    `memref.alloca_scope` it inlines when nothing in it allocates on the
    stack (SCF-to-CF would otherwise split the scope's single block).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def PosencSpreadDecodePrefetchesPass
    : Pass<"posenc-spread-decode-prefetches", "::mlir::func::FuncOp"> {
  let summary = "Spread each decode key step's prefetch burst over its "
                "contraction loops";
  let description = [{
    Runs after bufferization, on the loops of
    `--posenc-decompose-attention="vector-layout=1 spread-prefetches=1"`
    after `--posenc-vectorize-attention-tiles`. A decode key step prefetches
    the K/V rows of the next key tile in loops over those rows marked
    `posenc.spread_prefetch_rows = N` (N: a static bound on their trip
    count). Issued as one burst, a few hundred to a couple of thousand
    prefetches wait for the core's few cache-miss buffers and stall the
    step's compute behind them, so the step takes about its compute plus
    its memory time. This pass deletes each marked loop and issues its
    iterations (each the prefetches of one row) evenly among the iterations
    of the innermost loops that hold a `vector.contract` in the same key
    step (the score and `P V` register-tile loops): iteration g of I
    issues the rows [ceil(g N / I), ceil((g + 1) N / I)) of the marked
    loops taken one after the other, each only below its loop's own
    (dynamic) upper bound, so no row is prefetched that the burst did not.
    When N is a multiple of I, iteration g issues the N / I iterations from
    g N / I with no division and no loop (4 cache lines per iteration for
    the 4-row f32 step, whose marked loops run over lines); when I is a
    multiple of N, every (I / N)-th iteration issues one, g / (I / N), under
    a single remainder test (the same rows on the same iterations).
    A step whose contraction loops or the loops around them have no static
    trip count keeps its burst. Prefetches are hints: the step's results
    do not change.

    Marked loops that also carry `posenc.spread_prefetch_between` (the
    decode tiles of at most 4 rows) ask for the ops between consecutive
    contraction nests (a decode step's score reduction and softmax, which
    issue no prefetch of their own) to take rows too: each nest keeps its
    share of the even spread (nest j: N I_j / I rows, in order), but the
    first I_j / r of nest j's rows (r: the prefetches in one marked
    iteration, so one cache line per iteration of nest j) are issued
    among the ops before it, in up to 8 groups of consecutive rows spaced
    over those ops, and nest j issues the rest. Only where every share
    still spreads evenly (a whole number of rows per iteration, or one row
    every whole number of iterations); otherwise the step is spread as
    without the mark.

    Marked loops that carry `posenc.spread_prefetch_alternate` (the
    decode tiles of at most 4 rows with f32 K, whose marked loops run over
    single cache lines of K and V) take turns instead of following one
    another: with M loops of one bound, the step's row u is row u / M of
    loop u mod M, so the next tile's K and V lines are requested together
    rather than K's first. Loops of different bounds keep their order.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PosencGpuMapAttentionPass
    : Pass<"posenc-gpu-map-attention", "::mlir::ModuleOp"> {
  let summary = "Map the flash-attention loop nest onto GPU blocks and threads";
  let description = [{
    Runs on the bufferized output of `--posenc-decompose-attention` (memrefs,
    after the deallocation pipeline). Each `scf.forall` over (lead dims, query
    tile) of a host function becomes one `gpu.launch`: one thread block per
    (batch, head, query tile), the last forall dimension on `blockIdx.x`, the
    one before on `blockIdx.y`, the others linearized on `blockIdx.z`.

    Inside the block, each tile op (linalg, after its conversion to parallel
    loops) is mapped to the `block-size` threads: when its first parallel
    dimension is bounded by the block size (the rows of a query or key tile),
    thread `t` runs row `t` with the other dimensions sequential; otherwise
    (the staging copies) the iteration space is linearized and strided over
    the threads, neighbouring threads on neighbouring elements. A
    `gpu.barrier` follows every mapped op that touches shared memory.

    Tile buffers get static sizes (the tile sizes bound the partial last
    tiles) and an address space: a buffer that every thread only ever indexes
    at its own row (the query tile, the score row, the running max and sum,
    the accumulator) becomes a `private` attribution of that row alone; the
    others (the key tile, the value tile, which is staged here by a copy
    before the P.V contraction reads it) become `workgroup` attributions.
    Nothing of size Sq x Sk exists.

    With `emulate-on-cpu`, the forall stays, the buffers keep their rows and
    host address space, and every mapped op becomes a sequential loop over
    the thread ids: the same mapping (row guards, strides, static tile
    bounds, staging) runs on the CPU for testing.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"64",
           "Threads per block (at least the query tile for one row per "
           "thread)">,
    Option<"emulateOnCPU", "emulate-on-cpu", "bool", /*default=*/"false",
           "Keep the mapped loops on the host (sequential thread loops) "
           "instead of making gpu.launch ops">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PosencGpuTensorCoreAttentionPass
    : Pass<"posenc-gpu-tensor-core-attention", "::mlir::ModuleOp"> {
  let summary = "f16/bf16 fused attention as one tensor-core (mma.sync) "
                "flash-attention kernel";
  let description = [{
    Runs on tensors, after `--posenc-fuse-attention` and before
    `--posenc-decompose-attention`. Each `posenc.fused_attention` whose
    operands are f16 or bf16 (D a multiple of 16, Dv of 8, both at most 128;
    no `rel_value` term; a `score_mod` region of scalar ops and
    `tensor.extract`s of its tensor operands) becomes a `gpu.launch` on
    buffers of its operands (`bufferization.to_buffer`) and a
    `bufferization.to_tensor` of a fresh result buffer. The kernel is
    FlashAttention-2's warp-level algorithm on `mma.sync.m16n8k16` with f32
    accumulation (sm_80 and later, sm_90 included):

    * one block of `32 * warps` threads per (lead dims, linearized on
      `blockIdx.x`; query tile of `16 * warps` rows, on `blockIdx.y`); each
      warp owns 16 query rows;
    * RoPE reads position-only [S x R/2] cos/sin tables built before the
      launch (a `linalg.generic`, an elementwise kernel of its own);
    * the Q tile is staged through shared memory with the RoPE prologue
      applied (rounded to the element type, as `posenc.rope` stores it) and
      kept in registers as `nvgpu.ldmatrix` A fragments;
    * per key tile of `key-tile` rows (causal: only up to the block's last
      query row), K (RoPE applied) and V are staged in shared memory; `S = Q
      K^T` by `nvgpu.mma.sync` (f16) or `nvvm.mma.sync` (bf16) from
      `ldmatrix` B fragments; scale, the `score_mod` region, the causal and
      sequence masks per accumulator element; the online softmax on the
      fragments (row max and sum over the four lanes of a row by
      `gpu.shuffle xor`); `O += P V` with P rounded to the element type,
      V's fragments by `ldmatrix` transposed;
    * `O / l` rounded to the element type and stored from the fragments.

    With `warpgroup-mma` (sm_90a only; `--posenc-to-nvvm` sets it for
    `chip=sm_90a`) the block is one warpgroup (warps must be 4) and both
    products are `nvvm.wgmma.mma_async` m64nNk16 on operands in shared
    memory: Q [64 x D], K [key-tile x D], V^T [Dv x key-tile] and P
    [64 x key-tile] (over K's bytes) in one workgroup window, each in the
    no-swizzle K-major core-matrix layout, read through matrix descriptors;
    stores to the window are followed by `nvvm.fence.proxy` (async.shared)
    and a barrier; each batch is `wgmma.fence`, the wgmmas, `commit_group`,
    `wait_group 0`. A window over 48 KiB falls back to mma.sync.

    Nothing of size Sq x Sk exists; rows whose scores are all masked give
    zeros. Other `posenc.fused_attention` ops are left unchanged for the
    FMA kernel (`--posenc-decompose-attention`,
    `--posenc-gpu-map-attention`).
  }];
  let options = [
    Option<"warps", "warps", "int64_t", /*default=*/"4",
           "Warps per block (16 query rows each)">,
    Option<"keyTile", "key-tile", "int64_t", /*default=*/"64",
           "Key/value rows per shared-memory tile (a multiple of 16)">,
    Option<"warpgroupMma", "warpgroup-mma", "bool", /*default=*/"false",
           "Warpgroup MMA (wgmma.mma_async, sm_90a only) instead of "
           "mma.sync: one warpgroup (warps must be 4) per block">,
    Option<"leaveDecodeRows", "leave-decode-rows", "int64_t",
           /*default=*/"0",
           "Leave ops whose Sq is static and at most this many rows to the "
           "decomposition's decode schedule (--posenc-to-nvvm sets 16 with "
           "decode=true); 0: take every Sq">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def PosencGpuUnrollPrivateLoopsPass
    : Pass<"posenc-gpu-unroll-private-loops", "::mlir::ModuleOp"> {
  let summary = "Unroll the loops that index private (per-thread) buffers "
                "in GPU kernels, so that those buffers live in registers";
  let description = [{
    Runs after `--posenc-gpu-map-attention`. In each `gpu.launch`, every
    `scf.for` whose induction variable indexes a buffer in private memory
    (the FMA kernel's query row, score row and accumulator) is fully
    unrolled, innermost first, when its trip count is at most
    `max-trip-count`. A loop with a dynamic upper bound that a tile size
    bounds (a partial last key tile, `min(tile, Sk - start)`) first runs to
    that bound with its body guarded by `iv < ub`. Every private access then
    has a constant index, which lets LLVM promote the private arrays to
    registers instead of local memory (`ptxas -v`: no stack frame).
    Kernels with more than `max-private-elements` private elements per
    thread are left alone: with D = 64 and 32-key tiles (64 + 64 + 32
    elements) the unrolled kernel needs more than 255 registers and spills
    5.5 KB, where the local-memory arrays take 928 B and spill nothing.
  }];
  let options = [
    Option<"maxTripCount", "max-trip-count", "int64_t", /*default=*/"128",
           "Longest loop that is unrolled">,
    Option<"maxPrivateElements", "max-private-elements", "int64_t",
           /*default=*/"128",
           "Kernels whose private buffers hold more elements (per thread) "
           "are left alone: in registers they would spill">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PosencLowerRopePass : Pass<"posenc-lower-rope"> {
  let summary = "Fast vectorized lowering of standalone posenc.rope";
  let description = [{
    Lowers every `posenc.rope` (what is left after `--posenc-fuse-attention`
    folded the ones feeding attention) to a parallel vector loop nest on
    tensors instead of the reference lowering's scalar `linalg.generic`:

    * `scf.forall` over blocks of `block-rows` sequence rows (OpenMP after the
      CPU pipeline's scf-to-openmp);
    * per block, cos and sin of `theta = pos * inv_freq` once per (row, pair)
      into a small table (a tile of the position-only `[S, R/2]` table,
      duplicated per lane for the interleaved layout), as vectors: the CPU
      pipeline lowers f32 vector sin/cos to polynomials;
    * per lead index (batch, head) and row: the pair halves
      `x[..., :R/2]`, `x[..., R/2:R]` (half layout) or the whole rotary row
      with its lanes swapped pairwise by a `vector.shuffle` (interleaved) are
      read as vectors (chunks of at most 64 lanes), rotated in f32 (f64 for
      f64 inputs) and written back; dims `>= rotary_dim` are copied.
    * the table form (`cos`/`sin` operands) has no per-block table: each row
      reads its own row of the op's tables (broadcast over the input's lead
      dims as the reference lowering reads them), each half with its own
      columns, and for the interleaved layout the op's sin negated on the
      first lane of each pair.

    The inverse frequencies come from the reference lowering's table builder,
    so every scaling kind (dynamic NTK and LongRoPE at run time) and both
    precisions are covered (`exact` computes angle, cos and sin in f64: libm,
    slower). Ops with a head dim above 1024 are left to `--posenc-to-linalg`.
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", /*default=*/"0",
           "Sequence rows per parallel block (0: as many as keep the block's "
           "cos/sin table within 16 KiB)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// GPU preparation: upstream IR made ready for the mapping onto the GPU
// (lib/Conversion/GPUPreparation; run by --posenc-to-nvvm)
//===----------------------------------------------------------------------===//

def PosencGpuFuseElementwisePass : Pass<"posenc-gpu-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops as linalg-fuse-elementwise-ops "
                "does, except inside the tiles of a decomposed attention";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (a producer fused into its
    consumer when the producer has a single use, constant folding of linalg
    ops), except into an op inside an `scf.forall`: the tile ops of an
    attention decomposed by `--posenc-decompose-attention`. Fusing the K
    prologue (RoPE, element conversion) into the `Q.K^T` contraction would
    recompute it for every query row from global memory, where
    `--posenc-gpu-map-attention` computes a K tile once into shared memory.
    The tensor-level lowering of `--posenc-to-nvvm` runs it in place of the
    upstream pass on the fused path.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect"
  ];
}

def PosencGpuCopyConstantsPass
    : Pass<"posenc-gpu-copy-constants", "::mlir::ModuleOp"> {
  let summary = "Copy the constant globals that host functions read into "
                "allocated buffers, which the GPU pipeline makes "
                "device-visible";
  let description = [{
    Runs on buffers, right after bufferization. Constants
    (`memref.get_global` of a constant `memref.global`) are read-only host
    data that kernels cannot read. In each host function (a `func.func` not
    inside a `gpu.module`), every such read outside a `gpu.launch` is
    followed by a `memref.alloc` and a `memref.copy` of the global into it,
    and the uses of the global read the copy instead; the deallocation
    pipeline frees the copy like any other buffer and
    `--posenc-gpu-managed-allocs` makes it managed memory. Reads inside a
    `gpu.launch` (the workgroup tiles of the tensor-core kernel) are the
    kernel's own and stay. A mutable global gets a warning (nothing posenc
    lowers creates one); a constant with a non-identity layout or a dynamic
    shape is an error.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def PosencGpuMapParallelLoopsPass
    : Pass<"posenc-gpu-map-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Map each outermost scf.parallel of the host functions onto "
                "GPU blocks and threads, one thread per iteration";
  let description = [{
    Upstream `gpu-map-parallel-loops` maps the first three dimensions of a
    loop nest to blocks and runs one thread per block, the other dimensions
    sequential in that thread. Here every outermost `scf.parallel` of a host
    function (not inside a `gpu.launch`, not yet mapped, without
    reductions) becomes a block loop and a thread loop over its linearized
    iteration space, the innermost dimension fastest so that neighbouring
    threads touch neighbouring elements:

    ```mlir
    // scf.parallel (%i0, ..., %in) = (lb...) to (ub...) step (st...) { body }
    // %total = prod_k ceildiv(max(ub_k - lb_k, 0), st_k)
    scf.parallel (%b) = (0) to (ceildiv(%total, B)) step (1) {    // block_x
      scf.parallel (%t) = (0) to (B) step (1) {                  // thread_x
        %l = %b * B + %t
        scf.if %l < %total { %i_k = lb_k + delinearize(%l)_k * st_k; body }
      }
    }
    ```

    with the mapping attributes `--convert-parallel-loops-to-gpu` reads.
    Parallel loops nested in `body` run sequentially inside the thread.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (in [1, 1024])">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PosencGpuManagedAllocsPass
    : Pass<"posenc-gpu-managed-allocs", "::mlir::ModuleOp"> {
  let summary = "Allocate the host functions' buffers as CUDA managed memory "
                "(gpu.alloc host_shared), readable by host and kernels";
  let description = [{
    In each host function, every `memref.alloc` outside a `gpu.launch` with
    an identity layout and the default memory space becomes
    `gpu.alloc host_shared` (CUDA managed memory), and every
    `memref.dealloc` a `gpu.dealloc` on a fresh stream that is waited for
    (gpu.dealloc only lowers in its async form). Host code (copies, scalar
    reads, printing, the caller) and kernels then share every buffer without
    explicit transfers; see docs/gpu.md for what that asks of buffers passed
    in by a caller.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // POSENC_CONVERSION_PASSES_TD
