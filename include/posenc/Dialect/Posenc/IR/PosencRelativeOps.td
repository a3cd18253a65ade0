//===- PosencRelativeOps.td - bucketed relative biases ------*- tablegen -*-===//
//
// The relative position encodings added in SPEC.md's "Additions": T5's
// bucketed bias, Transformer-XL's relative attention. Included from
// PosencOps.td so that it lands in the same generated op list.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCRELATIVEOPS_TD
#define POSENC_DIALECT_POSENC_IR_POSENCRELATIVEOPS_TD

include "posenc/Dialect/Posenc/IR/PosencDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// posenc.t5_bias
//===----------------------------------------------------------------------===//

def Posenc_T5BiasOp : Posenc_Op<"t5_bias", [Pure]> {
  let summary = "T5 bucketed relative attention bias (Raffel et al.)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.t5_bias`.

    Produces the additive attention bias `tensor<[B...] x H x Sq x Sk x F>`
    from the learned `table : tensor<NB x H x F>` (HuggingFace's
    `relative_attention_bias` weight: `NB` buckets, one column per head;
    `F` is the result's element type). Dynamic result dims take their sizes
    from the `index` operands in order (as `tensor.empty` does).

    Query `i` sits at `i' = i + (Sk - Sq)`; with `n = j - i'`:

    - `bidirectional` (encoders): `nb = NB / 2`, the bucket starts at `nb`
      when `n > 0` (else 0) and `n = |n|`; otherwise (decoders) `nb = NB`,
      the bucket starts at 0 and `n = max(-n, 0)`;
    - with `e = nb / 2` exact buckets: `n < e` adds `n`; else it adds
      `min(nb - 1, e + trunc(log(n / e) / log(max_distance / e) * (nb - e)))`
      evaluated in float32 as HuggingFace's `_relative_position_bucket` does
      (`n / e`, the quotient and the product rounded to f32, the constant
      `log(max_distance / e)` computed in f64 and rounded to f32; the f32
      logarithm is the correctly rounded one);
    - `bias[..., h, i, j] = table[bucket(n), h]`.

    ```mlir
    %b = posenc.t5_bias %table {bidirectional}
        : tensor<32x8xf32> -> tensor<8x16x16xf32>
    %c = posenc.t5_bias %table (%sq, %sk) {max_distance = 256 : i64}
        : tensor<32x8xf16> -> tensor<1x8x?x?xf16>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$table,
    Variadic<Index>:$dynamic_sizes,
    DefaultValuedAttr<I64Attr, "128">:$max_distance,
    UnitAttr:$bidirectional
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $table (`(` $dynamic_sizes^ `)`)? attr-dict `:` type($table) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// NB, the number of buckets (dim 0 of `table`; static once verified).
    int64_t getNumBuckets();
  }];
}

//===----------------------------------------------------------------------===//
// posenc.xl_attention
//===----------------------------------------------------------------------===//

def Posenc_XlAttentionOp : Posenc_Op<"xl_attention", [Pure]> {
  let summary = "Transformer-XL / XLNet relative attention (Dai et al.)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.xl_attention`.

    `query [..., H, Sq, D]`, `key [..., H, Sk, D]`, `value [..., H, Sk, Dv]`
    (equal ranks >= 3, equal leading dims, one element type, no grouped-query
    heads), the relative table `rel : tensor<[H x] L x D>` with
    `L = Sq + Sk - 1` rows (one per distance; shared by the heads when it has
    no head dim), the content bias `content_bias : tensor<H x D>` (`u`) and
    the position bias `position_bias : tensor<H x D>` (`v`). The result is
    `[..., H, Sq, Dv]` with the element type of `query`; arithmetic in f32
    (f64 for f64 inputs).

    With `i' = i + (Sk - Sq)` (queries are the last Sq keys), the distance
    `d = i' - j` lies in `[1 - Sq, Sk - 1]` and reads row `t = d + Sq - 1`:

    - `e[i, j] = scale * ((q_i + u_h) . k_j + (q_i + v_h) . rel[t])`
      (`scale` defaults to `1/sqrt(D)`, which needs a static `D`);
    - `causal` masks `j > i'`; `p = softmax_j(e)` and `out_i = sum_j p[i, j]
      v_j` as in `posenc.attention` (a row with no key yields zeros).

    When Sq, Sk or L is dynamic, `L = Sq + Sk - 1` is a run-time check (the
    C API and Python report it as an error).

    `posenc-fuse-attention` turns the op into `posenc.fused_attention` with
    the `xl` term; its CPU decomposition computes the position term per
    (query tile, key tile) as a band product over the `Bq + Bk - 1` rows of
    `rel` the tile touches, read along the diagonals (`docs/design.md`,
    "Transformer-XL's band product"): never an `Sq x Sk` or `Sq x L` tensor.

    ```mlir
    %o = posenc.xl_attention %q, %k, %v rel(%r : tensor<8x47x64xf32>)
        content_bias(%u : tensor<8x64xf32>) position_bias(%pb : tensor<8x64xf32>)
        {causal} : tensor<2x8x16x64xf32>, tensor<2x8x32x64xf32>,
        tensor<2x8x32x64xf32> -> tensor<2x8x16x64xf32>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$query,
    Posenc_FloatTensor:$key,
    Posenc_FloatTensor:$value,
    Posenc_FloatTensor:$rel,
    Posenc_FloatTensor:$content_bias,
    Posenc_FloatTensor:$position_bias,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value `rel` `(` $rel `:` type($rel) `)`
    `content_bias` `(` $content_bias `:` type($content_bias) `)`
    `position_bias` `(` $position_bias `:` type($position_bias) `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// scale, or 1/sqrt(D) when not set.
    double getScaleOrDefault();
  }];
}

#endif // POSENC_DIALECT_POSENC_IR_POSENCRELATIVEOPS_TD
