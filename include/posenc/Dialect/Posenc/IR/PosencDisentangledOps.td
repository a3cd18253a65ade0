//===- PosencDisentangledOps.td - DeBERTa attention ---------*- tablegen -*-===//
//
// DeBERTa's disentangled attention (SPEC.md "Additions"): its op and the
// bit set that names its relative terms. Included from PosencOps.td so that
// it lands in the same generated op list and reference manual.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCDISENTANGLEDOPS_TD
#define POSENC_DIALECT_POSENC_IR_POSENCDISENTANGLEDOPS_TD

include "posenc/Dialect/Posenc/IR/PosencDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Posenc_DisentangledTerms : I32BitEnumAttr<"DisentangledTerms",
    "the relative terms of DeBERTa's disentangled attention", [
      I32BitEnumAttrCaseBit<"c2p", 0>,
      I32BitEnumAttrCaseBit<"p2c", 1>
    ]> {
  let cppNamespace = "::posenc";
  let genSpecializedAttr = 0;
  let separator = "|";
}
def Posenc_DisentangledTermsAttr
    : EnumAttr<Posenc_Dialect, Posenc_DisentangledTerms, "terms"> {
  let summary = [{DeBERTa's relative terms: `c2p` (content to position,
    q_i . pos_key[c]), `p2c` (position to content, k_j . pos_query[c']), or
    `c2p|p2c` (both, DeBERTa's default)}];
}

//===----------------------------------------------------------------------===//
// posenc.disentangled_attention
//===----------------------------------------------------------------------===//

def Posenc_DisentangledAttentionOp : Posenc_Op<"disentangled_attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "DeBERTa's disentangled attention (He et al.)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.disentangled_attention`.

    `query [..., H, Sq, D]`, `key [..., H, Sk, D]`, `value [..., H, Sk, Dv]`
    (equal ranks >= 3, equal leading dims and heads: no grouped-query
    attention; key and value share an element type that may differ from
    query's), and the projected relative embeddings `pos_key` (present iff
    `terms` has `c2p`) and `pos_query` (present iff `terms` has `p2c`), each a
    `tensor<[H x] 2k x D>` (a leading `H` gives every head its own table;
    without it the table is shared), with one static even `2k` for both;
    `k` is the attention span.

    - `r = i - j`, or, when `position_buckets` (`bucket_size`) > 0, DeBERTa-v2's
      log bucket of it (HuggingFace `make_log_bucket_position` in float32,
      with `max_position = max_relative_positions`): `mid = bucket_size / 2`;
      `r` if `|r| <= mid`, else `sign(r) * (mid + ceil(log(|r| / mid) /
      log((max_position - 1) / mid) * (mid - 1)))` with every step rounded
      to f32 (the constant `(max_position - 1) / mid` rounded to f32 before
      its logarithm; each f32 logarithm the correctly rounded one). Then
      `k` must equal `position_buckets`;
    - c2p index `c = clamp(r + k, 0, 2k - 1)`; p2c index `c'` =
      `clamp(k - bucket(j - i), 0, 2k - 1)` (HuggingFace's gather with
      `clamp(-r_pos + k)` over the key-major product, then its transpose),
      which equals `c` since the bucket is odd;
    - `e[i, j] = scale * (q_i . k_j + [c2p] q_i . pos_key[c] + [p2c] k_j .
      pos_query[c'])`, `scale` defaulting to `1/sqrt(D * (1 + number of
      terms))` (which needs a static `D`);
    - `causal` masks `j > i + (Sk - Sq)` as `posenc.attention` does (the
      relative position stays `i - j`, as in DeBERTa); `p = softmax_j(e)` in
      f32; `out_i = sum_j p[i, j] v_j`, zeros for a fully masked row.

    ```mlir
    %o = posenc.disentangled_attention %q, %k, %v
        pos_key(%pk : tensor<512x64xf32>) pos_query(%pq : tensor<512x64xf32>)
        {position_buckets = 256 : i64, max_relative_positions = 512 : i64}
        : tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32>, tensor<2x12x?x64xf32>
        -> tensor<2x12x?x64xf32>
    %c = posenc.disentangled_attention %q, %k, %v
        pos_key(%pkh : tensor<12x256x64xf16>) terms c2p {causal}
        : tensor<1x12x16x64xf16>, tensor<1x12x16x64xf16>,
          tensor<1x12x16x64xf16> -> tensor<1x12x16x64xf16>
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$query,
    Posenc_FloatTensor:$key,
    Posenc_FloatTensor:$value,
    Optional<Posenc_FloatTensor>:$pos_key,
    Optional<Posenc_FloatTensor>:$pos_query,
    DefaultValuedAttr<Posenc_DisentangledTermsAttr,
        "::posenc::DisentangledTerms::c2p | ::posenc::DisentangledTerms::p2c">
        :$terms,
    DefaultValuedAttr<I64Attr, "0">:$position_buckets,
    OptionalAttr<I64Attr>:$max_relative_positions,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs Posenc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`pos_key` `(` $pos_key^ `:` type($pos_key) `)`)?
    (`pos_query` `(` $pos_query^ `:` type($pos_query) `)`)?
    (`terms` $terms^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `terms` has c2p / p2c.
    bool hasC2P();
    bool hasP2C();
    /// 1 + the number of terms: the factor under the default scale's root.
    int64_t getScaleFactor();
    /// scale, or 1/sqrt(D * getScaleFactor()) when not set.
    double getScaleOrDefault();
    /// k, the attention span: half the rows of the position tables.
    int64_t getAttentionSpan();
  }];
}

#endif // POSENC_DIALECT_POSENC_IR_POSENCDISENTANGLEDOPS_TD
