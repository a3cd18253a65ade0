//===- PosencOps.td - posenc operations --------------------*- tablegen -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCOPS_TD
#define POSENC_DIALECT_POSENC_IR_POSENCOPS_TD

include "posenc/Dialect/Posenc/IR/PosencDialect.td"
include "posenc/Dialect/Posenc/IR/PosencAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Posenc_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Posenc_PositionTensor : RankedTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// posenc.sinusoidal
//===----------------------------------------------------------------------===//

def Posenc_SinusoidalOp : Posenc_Op<"sinusoidal", [Pure]> {
  let summary = "absolute sinusoidal position table (Attention Is All You Need)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.sinusoidal`.

    Builds the `S x D` sinusoidal position table for the integer `positions`
    (`tensor<S x iN>`); `D` (even, static) is the last dim of the result type.
    For pair `p` in `[0, D/2)`: `theta = pos * base^(-2p/D)`.

    - `interleaved` (default; the original paper, `pe[:, 0::2] = sin`):
      `out[s, 2p] = sin(theta)`, `out[s, 2p+1] = cos(theta)`.
    - `half` (tensor2tensor): `out[s, p] = sin(theta)`,
      `out[s, p + D/2] = cos(theta)`.

    Angles are computed in f32 (`f32(pos) * f32(base^(-2p/D))`) and the
    result is rounded to the result element type. The usual use is
    `x + table`; the fusion pass generates the table inside that add.

    ```mlir
    %pe = posenc.sinusoidal %pos : tensor<?xi32> -> tensor<?x512xf32>
    %pe2 = posenc.sinusoidal %pos layout half {base = 1.0e+04 : f64}
        : tensor<16xi64> -> tensor<16x64xf16>
    ```
  }];
  let arguments = (ins
    Posenc_PositionTensor:$positions,
    DefaultValuedAttr<F64Attr, "10000.0">:$base,
    DefaultValuedAttr<Posenc_LayoutAttr, "::posenc::Layout::interleaved">:$layout
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $positions (`layout` `` $layout^)? attr-dict `:` type($positions) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// posenc.rope
//===----------------------------------------------------------------------===//

def Posenc_RopeOp : Posenc_Op<"rope", [Pure, AttrSizedOperandSegments,
                                        AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding (RoFormer), with frequency scaling";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.rope`.

    Rotates pairs of the last (head) dim of `input : tensor<... x S x D x F>`
    (rank >= 2, `D` static) by the angle of the position of its row;
    `positions : tensor<S x iN>` broadcasts over the leading dims. Per-batch
    positions `tensor<B x S x iN>` (input `[B, ..., S, D]`, rank >= 3): batch
    `b` uses row `b`, broadcast over the dims between `B` and `S`, so that
    each sequence of a ragged batch (KV-cache decode) is rotated at its own
    offset. The result has the type of `input`.

    With `R = rotary_dim` (default `D`; even, `<= D`; dims `>= R` pass through
    unchanged), pair `p` in `[0, R/2)` has `inv_freq[p] = base^(-2p/R)`,
    adjusted by the optional `scaling` (`#posenc.rope_scaling`, see there),
    and `theta = pos * inv_freq[p]`. The pair is

    - `layout interleaved` (GPT-J, Meta's complex LLaMA code): `(x[2p], x[2p+1])`;
    - `layout half` (GPT-NeoX, HF LLaMA `rotate_half`): `(x[p], x[p + R/2])`;

    and `(a, b) -> (a cos theta - b sin theta, a sin theta + b cos theta)`,
    with cos and sin multiplied by the attention factor: the op's
    `attention_factor` when set, else the scaling's (yarn, longrope), else 1.

    `layout` is required: the two layouts are both in wide use and a default
    would silently pick the wrong one for half of all checkpoints.

    `xpos` (optional `#posenc.xpos`, see there): xPos decay. After the
    rotation both elements of pair `p` are multiplied by
    `zeta_p^(s * (pos - center) / scale_base)`, `zeta_p = (2p/R + gamma) /
    (1 + gamma)`, `s = +1` for role `query`, `-1` for role `key`; dims `>= R`
    pass through. It composes with every layout, `rotary_dim`, per-batch
    positions, `scaling`, `attention_factor` and `precision` (the decay
    multiplies the scaled cos and sin; its exponent is in the compute type).

    `precision` (default **`fast`**): `fast` computes `theta` as
    `f32(pos) * f32(inv_freq)` with f32 cos/sin, bit-compatible in spirit with
    PyTorch/HF (absolute error ~2e-3 at position 131072 with base 500000);
    `exact` computes `theta`, cos and sin in f64, within 1e-6 of the float64
    result for positions up to 2^24. f16/bf16 inputs are rotated in f32.

    ```mlir
    %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64,
        scaling = #posenc.rope_scaling<llama3, factor = 8.0>}
        : tensor<1x32x?x128xbf16>, tensor<?xi32>
    %kr = posenc.rope %k, %pos layout interleaved precision exact
        {rotary_dim = 32 : i64} : tensor<4x?x64xf32>, tensor<?xi64>
    %kn = posenc.rope %knew, %bpos layout half
        : tensor<2x8x1x128xf32>, tensor<2x1xi32>
    %qx = posenc.rope %q, %pos layout half
        {xpos = #posenc.xpos<role = query, scale_base = 1.024000e+03>}
        : tensor<1x8x?x64xf32>, tensor<?xi32>
    ```

    **Table form** (`docs/spec.md`, section "posenc.rope — table form"):
    `tables(%cos, %sin : type, type)` instead of `positions`, for frameworks
    that compute cos/sin once per forward and pass them to every layer
    (HuggingFace) and for tables that match no formula. `cos` and `sin`
    (`tensor<... x S x R x G>`, equal types, any float `G`) broadcast
    against `input` numpy-style (right-aligned: each leading dim of the
    tables is 1 or the aligned dim of `input`, e.g. `[S, R]`, `[B, 1, S, R]`
    for input `[B, H, S, D]`, `[B, S, R]` for input `[B, S, D]`);
    `R = rotary_dim` is the tables' last dim (even, `<= D`; the
    `rotary_dim` attribute may be omitted or must equal it). Per element of
    the rotated part, with full-width tables (the halves of a table need not
    be equal), computed in f32 (f64 for f64 input) and rounded to `F`:

    - `half`: `out[p] = x[p]*cos[p] - x[p+R/2]*sin[p]`,
      `out[p+R/2] = x[p+R/2]*cos[p+R/2] + x[p]*sin[p+R/2]` (`p < R/2`);
    - `interleaved`: `out[2p] = x[2p]*cos[2p] - x[2p+1]*sin[2p]`,
      `out[2p+1] = x[2p+1]*cos[2p+1] + x[2p]*sin[2p+1]`;
    - dims `>= R` pass through.

    That is `x*cos + rotate(x)*sin` exactly as frameworks write it. `base`,
    `scaling`, `attention_factor`, `precision` and `xpos` are not allowed in
    this form (the tables already hold them).

    ```mlir
    %qt = posenc.rope %q tables(%cos, %sin : tensor<1x1x?x128xf32>,
        tensor<1x1x?x128xf32>) layout half : tensor<1x32x?x128xf32>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$input,
    Optional<Posenc_PositionTensor>:$positions,
    Optional<Posenc_FloatTensor>:$cos,
    Optional<Posenc_FloatTensor>:$sin,
    Posenc_LayoutAttr:$layout,
    DefaultValuedAttr<F64Attr, "10000.0">:$base,
    OptionalAttr<I64Attr>:$rotary_dim,
    OptionalAttr<Posenc_RopeScalingAttr>:$scaling,
    OptionalAttr<F64Attr>:$attention_factor,
    DefaultValuedAttr<Posenc_AnglePrecisionAttr,
                      "::posenc::AnglePrecision::fast">:$precision,
    OptionalAttr<Posenc_XPosAttr>:$xpos
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`,` $positions^)?
    (`tables` `(` $cos^ `,` $sin `:` type($cos) `,` type($sin) `)`)?
    `layout` `` $layout (`precision` `` $precision^)? attr-dict
    `:` type($input) (`,` type($positions)^)?
  }];
  let hasVerifier = 1;
  let builders = [
    /// The attribute form (positions and frequency attributes).
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
                   "::mlir::Value":$positions, "::posenc::LayoutAttr":$layout,
                   "::mlir::FloatAttr":$base, "::mlir::IntegerAttr":$rotary_dim,
                   "::posenc::RopeScalingAttr":$scaling,
                   "::mlir::FloatAttr":$attention_factor,
                   "::posenc::AnglePrecisionAttr":$precision,
                   "::posenc::XPosAttr":$xpos), [{
      build($_builder, $_state, result, input, positions, ::mlir::Value(),
            ::mlir::Value(), layout, base, rotary_dim, scaling,
            attention_factor, precision, xpos);
    }]>,
    /// The table form (cos/sin operands; R is their last dim).
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$cos,
                   "::mlir::Value":$sin, "::posenc::Layout":$layout), [{
      build($_builder, $_state, input.getType(), input, ::mlir::Value(), cos,
            sin, ::posenc::LayoutAttr::get($_builder.getContext(), layout),
            ::mlir::FloatAttr(), ::mlir::IntegerAttr(),
            ::posenc::RopeScalingAttr(), ::mlir::FloatAttr(),
            ::posenc::AnglePrecisionAttr(), ::posenc::XPosAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether this is the table form (cos/sin operands, no positions).
    bool hasTables() { return static_cast<bool>(getCos()); }
    /// The head dim D (static; the verifier guarantees it).
    int64_t getHeadDim();
    /// R: the tables' last dim in the table form, else rotary_dim, or D
    /// when it is not set.
    int64_t getRotaryDimOrDefault();
    /// The factor that multiplies cos and sin (see the op description).
    double getEffectiveAttentionFactor();
  }];
}

//===----------------------------------------------------------------------===//
// posenc.alibi_bias
//===----------------------------------------------------------------------===//

def Posenc_AlibiBiasOp : Posenc_Op<"alibi_bias", [Pure, AttrSizedOperandSegments]> {
  let summary = "ALiBi attention bias (Press et al., Train Short, Test Long)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.alibi_bias`.

    Produces the additive attention bias `tensor<[B...] x H x Sq x Sk x F>`.
    Dynamic result dims take their sizes from the `index` operands in order
    (as `tensor.empty` does).

    Slopes for `n = num_heads` (default `H`): if `n` is a power of two,
    `slope[h] = 2^(-max_bias*(h+1)/n)`; otherwise, with `c` the largest power
    of two below `n`, the `c` slopes for `c` heads followed by the slopes for
    `2c` heads at even indices `0, 2, 4, ...`, the first `n - c` of them.
    Head `h` of this tensor uses `slope[head_offset + h]` (head-sharded
    tensors). An explicit `slopes : tensor<H x f32>` operand overrides the rule.

    Query `i` sits at absolute position `i + (Sk - Sq)`:
    - default: `bias[h, i, j] = slope * (j - (i + Sk - Sq))`;
    - `symmetric` (encoders): `bias[h, i, j] = -slope * |j - (i + Sk - Sq)|`.

    ```mlir
    %b = posenc.alibi_bias : tensor<8x16x16xf32>
    %c = posenc.alibi_bias (%sq, %sk) {num_heads = 12 : i64, head_offset = 4 : i64}
        : tensor<1x4x?x?xf32>
    %d = posenc.alibi_bias slopes(%s : tensor<4xf32>) {symmetric} : tensor<4x7x9xf16>
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$dynamic_sizes,
    Optional<RankedTensorOf<[F32]>>:$slopes,
    DefaultValuedAttr<F64Attr, "8.0">:$max_bias,
    OptionalAttr<I64Attr>:$num_heads,
    DefaultValuedAttr<I64Attr, "0">:$head_offset,
    UnitAttr:$symmetric
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    (`(` $dynamic_sizes^ `)`)? (`slopes` `(` $slopes^ `:` type($slopes) `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of heads H of this tensor (dim -3 of the result; may be dynamic
    /// only with an explicit `slopes` operand).
    int64_t getNumLocalHeads();
    /// num_heads, or H when not set.
    int64_t getNumHeadsOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// posenc.attention
//===----------------------------------------------------------------------===//

def Posenc_AttentionOp : Posenc_Op<"attention", [Pure,
                                                  AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention with GQA, causal mask and additive bias";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.attention`.

    `query [..., Hq, Sq, D]`, `key [..., Hkv, Sk, D]`, `value [..., Hkv, Sk, Dv]`
    (equal ranks >= 3, equal leading batch dims), optional additive `bias`
    broadcastable (numpy rules, right-aligned) to `[..., Hq, Sq, Sk]`. `Hq` must
    be a multiple of `Hkv` (grouped-query attention): query head `h` reads
    kv head `h / (Hq/Hkv)`. The result is `[..., Hq, Sq, Dv]` with the element
    type of `query`.

    - `s[i, j] = scale * q_i . k_j + bias[i, j]` (`scale` defaults to
      `1/sqrt(D)`, which needs a static `D`);
    - `causal` masks `j > i + (Sk - Sq)` (bottom-right aligned);
    - `p = softmax_j(s)`, computed in f32 with max subtraction;
    - `out_i = sum_j p[i, j] v_j`. A row whose keys are all masked yields zeros.

    Attention over a KV cache: with the optional `kv_lengths : tensor<B x
    i32|i64>` (`B` = dim 0 of `query`, which then needs rank >= 4: `[B, ...,
    Hq, Sq, D]`), only keys `j < kv_lengths[b]` exist for batch `b` (`key` and
    `value` may be longer: a preallocated cache), and causal alignment is at
    each sequence's own end: query `i` sits at `i' = i + (kv_lengths[b] -
    Sq)` and `j > i'` is masked. A row with no key gives zeros. A length
    outside `[0, Sk]` is a reported run-time error.

    Element types: `key` and `value` have one element type, which may differ
    from `query`'s (e.g. an f32 query against an f16/bf16 cache); the result
    has `query`'s. Arithmetic is f32 (f64 when `query` is f64) either way.

    ```mlir
    %o = posenc.attention %q, %k, %v {causal}
        : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
        -> tensor<1x8x?x64xf32>
    %p = posenc.attention %q, %k, %v bias(%b : tensor<8x16x16xf32>)
        : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>
        -> tensor<1x8x16x64xf32>
    %d = posenc.attention %q1, %kc, %vc kv_lengths(%len : tensor<2xi32>) {causal}
        : tensor<2x32x1x128xf32>, tensor<2x8x4096x128xf16>,
          tensor<2x8x4096x128xf16> -> tensor<2x32x1x128xf32>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$query,
    Posenc_FloatTensor:$key,
    Posenc_FloatTensor:$value,
    Optional<Posenc_FloatTensor>:$bias,
    Optional<Posenc_PositionTensor>:$kv_lengths,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`kv_lengths` `(` $kv_lengths^ `:` type($kv_lengths) `)`)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// scale, or 1/sqrt(D) when not set.
    double getScaleOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// posenc.rel_pos_attention
//===----------------------------------------------------------------------===//

def Posenc_RelPosAttentionOp : Posenc_Op<"rel_pos_attention", [Pure]> {
  let summary = "attention with Shaw et al. relative position representations";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.rel_pos_attention`.

    `query [..., Sq, D]`, `key [..., Sk, D]`, `value [..., Sk, Dv]` (equal ranks
    >= 2, equal leading dims), `rel_key : tensor<(2K+1) x D>` and optional
    `rel_value : tensor<(2K+1) x Dv>`; K is taken from rel_key's shape.

    - `r(i, j) = clamp(j - i', -K, K) + K` with `i' = i + (Sk - Sq)`;
    - `e[i, j] = scale * q_i . (k_j + rel_key[r(i, j)])` (`scale` defaults
      to `1/sqrt(D)`, which needs a static `D`);
    - `p = softmax_j(e)`, in f32, with the causal mask of `posenc.attention`;
    - `out_i = sum_j p[i, j] * (v_j + rel_value[r(i, j)])`.

    ```mlir
    %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : tensor<33x64xf32>)
        rel_value(%rv : tensor<33x64xf32>) {causal}
        : tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>, tensor<2x8x?x64xf32>
        -> tensor<2x8x?x64xf32>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$query,
    Posenc_FloatTensor:$key,
    Posenc_FloatTensor:$value,
    Posenc_FloatTensor:$rel_key,
    Optional<Posenc_FloatTensor>:$rel_value,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value `rel_key` `(` $rel_key `:` type($rel_key) `)`
    (`rel_value` `(` $rel_value^ `:` type($rel_value) `)`)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// scale, or 1/sqrt(D) when not set.
    double getScaleOrDefault();
    /// K, the clipping distance: (dim 0 of rel_key - 1) / 2.
    int64_t getMaxRelativeDistance();
  }];
}

include "posenc/Dialect/Posenc/IR/PosencFusedOps.td"
include "posenc/Dialect/Posenc/IR/PosencRelativeOps.td"
include "posenc/Dialect/Posenc/IR/PosencDisentangledOps.td"

#endif // POSENC_DIALECT_POSENC_IR_POSENCOPS_TD
