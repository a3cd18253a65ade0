//===- Passes.td - rewrites inside the posenc dialect ------*- tablegen -*-===//

#ifndef POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD
#define POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PosencFuseAttentionPass : Pass<"posenc-fuse-attention"> {
  let summary = "Fuse position encodings into posenc.fused_attention";
  let description = [{
    Rewrites every `posenc.attention` and `posenc.rel_pos_attention` into
    `posenc.fused_attention`, folding the position encodings that feed it:

    - a `posenc.rope` producing `query` and/or `key` becomes the op's
      `q_rope`/`k_rope` prologue (RoPE applied to tiles as they are loaded);
    - a `posenc.alibi_bias` producing `bias` becomes a `score_mod` region
      computing `slope[h] * (j - i')` (or `-slope * |j - i'|`) from the
      indices, with the slopes as a small constant (or the op's `slopes`);
    - any other `bias` tensor is read per element inside `score_mod`;
    - `posenc.rel_pos_attention` becomes a `score_mod` that gathers the
      `[..., Sq, 2K+1]` product `q . rel_key` per (i, j), plus the op's
      `rel_value` term.

    A producer is folded only when the attention is its only user; otherwise
    it stays (its result is still read by the fused op), so nothing is
    computed twice. RoPE with a sequence-length-dependent scaling (dynamic
    NTK, LongRoPE) is not folded. Run `posenc-decompose-attention` next.

    `posenc.disentangled_attention` (DeBERTa) becomes `posenc.fused_attention`
    with the `deberta_pos_key`/`deberta_pos_query` terms and the op's scale
    made explicit, unless `disentangled=false`, which leaves the op to
    `posenc-to-linalg`'s reference lowering.
  }];
  let options = [
    Option<"disentangled", "disentangled", "bool", /*default=*/"true",
           "Fuse posenc.disentangled_attention (DeBERTa) into "
           "posenc.fused_attention's deberta terms">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PosencRaisePass : Pass<"posenc-raise"> {
  let summary = "Raise linalg/tensor subgraphs into posenc ops (RoPE, attention, ALiBi, sinusoidal)";
  let description = [{
    Recognizes the attention and position-encoding subgraphs that ML front
    ends emit as linalg-on-tensors (TOSA after `posenc-import-tosa`,
    torch-mlir, StableHLO) and rewrites them into `posenc.rope` and
    `posenc.attention`, after which `posenc-fuse-attention` applies
    unchanged. Every rewrite is exact: structure and constant values must
    prove that the posenc op computes the same function, up to f32 rounding
    (see docs/raising.md for each accepted form and its tolerance).
    Note on masks: a constant bias is compared with the causal pattern value
    by value; a run-time bias is passed through unchanged (a row it hides
    entirely with -inf gives NaN in the graph and zeros in posenc.attention).

    - **Attention** rooted at `P . V` (`linalg.batch_matmul` with a zero
      init; a batched contraction `linalg.generic` over `[batch..., m, n,
      k]`, StableHLO's `dot_general` with several batch dims, is first
      rewritten to that form when it is the P.V of a softmax or a Q.K^T its
      scores come from): `P` is a softmax over the key dim (`linalg.softmax`, or the
      decomposed max-reduce / subtract / exp / sum-reduce / divide or
      multiply-by-reciprocal, with a `-inf` or lowest-finite max init and
      `maximumf` or `maxnumf`); the scores are `Q . K^T` (`linalg.batch_matmul`
      with K transposed by `linalg.transpose`), optionally multiplied or
      divided by constants (before the product on Q, or after it) and plus
      one additive bias. A constant bias equal to the bottom-right causal
      mask (0 where `j <= i + Sk - Sq`, `-inf` or the lowest finite f32
      elsewhere) becomes `causal` when `Sq <= Sk` (every row keeps key 0,
      so the masked keys' weights are exactly 0 in both forms); any other
      bias stays an operand. GQA: K/V repeated by `linalg.broadcast` of a
      new dim right after the kv-head dim, then collapsed (HuggingFace
      `repeat_kv`). Leading (batch, head) dims are flattened as the
      batched matmuls flatten them.
    - **RoPE, half layout** rooted at `x*cos + rotate_half(x)*sin`, with
      `rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])` (`tensor.concat`
      or two `tensor.insert_slice`s into an empty tensor), and cos/sin computed
      in the graph as `math.cos`/`math.sin` of `concat(f, f)` with
      `f = float(positions) * inv_freq`. The constant `inv_freq` is compared
      numerically (within 8 f32 ulps) with posenc's own formulas to recover
      `base` and the scaling (none, linear, llama3, yarn with the default
      betas; NTK is `none` with the adjusted base). A
      constant on both cos and sin (yarn's attention scaling) becomes the
      op's attention factor, explicit unless the scaling implies it.
      Tables that match no formula, and tables that are function arguments
      (HuggingFace passes cos/sin to every layer), give the **table form**
      `posenc.rope %x tables(%cos, %sin : ...)`, which is exactly
      `x*cos + rotate_half(x)*sin` for any tables: the tables as the
      products read them (broadcast over the leading dims; dims the maps
      drop restored by a `tensor.expand_shape`); the remark says why no
      formula applied.
    - **RoPE, interleaved layout** rooted at the reshape back of
      `concat(a cos - b sin, a sin + b cos)` where `a`, `b` are the two
      elements of each pair of `x` reshaped to `[..., D/2, 2]` (Meta's LLaMA
      rotation in real arithmetic), cos/sin of `float(positions) * inv_freq`
      read along (S, pair); frequencies recovered as for the half layout.
    - **RoPE in Meta's complex form** (`complex.create` of each pair, times
      `freqs_cis = polar(1, pos * inv_freq)` read as `[1, S, 1, D/2]` or
      `[S, D/2]`, `complex.re`/`complex.im` back): in `[B, H, S, D]` order
      as a rope, in Meta's own `[B, S, H, D]` order as
      `transpose(rope(transpose(x)))` (a permutation is exact); a transpose
      of a GQA repeat or of an elementwise `extf`/`truncf` moves above it,
      and upstream's transpose folds (included in the pattern set) cancel
      the transpose pairs so the rope reaches the attention.
    - **RoPE as one gathering generic** (ONNX `RotaryEmbedding` as
      torch-mlir lowers it: cos/sin caches read with `tensor.extract` at the
      position), and **the table form** for the interleaved and expanded
      half forms when the tables match no formula.
    - **Angles as HuggingFace computes them**: `inv_freq[None, :, None] @
      float(position_ids)[:, None, :]` then transposed, a `batch_matmul`
      whose contraction size is statically 1: with positive finite constant
      frequencies and integer positions, each element is the product bit
      for bit, so it is rewritten to the elementwise product.
    - **Contractions** as `linalg.matmul` (transposed-B `indexing_maps` or
      K through `linalg.transpose`) or generics with the reduction loop
      anywhere, and **dynamic sequence lengths** (sizes traced to their
      source or to a dominating `cf.assert`; causal only when `Sq == Sk`
      is proven).
    See docs/raising.md for each form's IR, its tests and its near misses.

    - **Score terms** on the attention's scores, values known at compile
      time (dense constants, or computed from constants: iotas, compares,
      selects, products; evaluated with each result rounded to its element
      type): a `masked_fill` (`select` of `-inf` or the lowest finite value
      on the scores) counts as the additive mask it equals; an additive
      term that is `c(n, i) + slope[n] * j` in every row (ALiBi in the
      paper's distance form or BLOOM's `slope * j`) becomes
      `posenc.alibi_bias`. **This uses softmax's invariance under adding a
      constant to a score row**: BLOOM's term differs from
      `slope * (j - i')` by `slope * i'`. Slopes: SPEC.md's rule when it
      reproduces them within 2 f32 ulps, else the graph's as the `slopes`
      operand. At most one causal mask plus one other term.
    - **Sinusoidal** rooted at `x + table`, the `[S, D]` table known at
      compile time and equal (by value, either layout, base recovered) to
      posenc.sinusoidal of positions 0..S-1; the table operand becomes
      `posenc.sinusoidal`.

    With `remarks=true` the pass emits a remark on every op it raised and,
    for each candidate it left alone (a `P . V` matmul, a RoPE-shaped add,
    an add of a constant table in [-1, 1]), the reason.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each raised subgraph and each candidate left "
           "alone, with the reason">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::posenc::PosencDialect"
  ];
}

#endif // POSENC_DIALECT_POSENC_TRANSFORMS_PASSES_TD
