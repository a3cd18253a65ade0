//===- PosencFusedOps.td - fused attention ------------------*- tablegen -*-===//
//
// The fused representation that the position encodings are folded into by
// `posenc-fuse-attention` and that `posenc-decompose-attention` lowers to a
// flash-style loop nest. Included at the end of PosencOps.td so that it lands
// in the same generated op and attribute lists.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCFUSEDOPS_TD
#define POSENC_DIALECT_POSENC_IR_POSENCFUSEDOPS_TD

include "posenc/Dialect/Posenc/IR/PosencDialect.td"
include "posenc/Dialect/Posenc/IR/PosencAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// #posenc.rotary
//===----------------------------------------------------------------------===//

def Posenc_RotaryAttr : Posenc_Attr<"Rotary", "rotary"> {
  let summary = "the parameters of a posenc.rope, applied inside attention";
  let description = [{
    Everything `posenc.rope` needs besides its input and positions, so that
    `posenc.fused_attention` can rotate Q and K tiles as they are loaded.
    The math is that of `posenc.rope` (see there); `rotary_dim` is explicit
    (the rope's `rotary_dim` or D); `xpos` is the rope's xPos decay, if any
    (q_rope and k_rope then carry a query/key pair, see
    `posenc.fused_attention`).

    The table form of `posenc.rope` (cos/sin operands) folds into a rotary
    without `base` (nor scaling, attention factor or xPos): the fused op then
    reads the tables (`q_rope(#posenc.rotary<...>, tables %cos, %sin : ...)`).

    ```mlir
    #posenc.rotary<layout = half, base = 5.000000e+05 : f64, rotary_dim = 64,
                   precision = fast>
    #posenc.rotary<layout = half, rotary_dim = 64, precision = fast>
    ```
  }];
  let parameters = (ins
    EnumParameter<Posenc_Layout>:$layout,
    OptionalParameter<"::mlir::FloatAttr">:$base,
    "int64_t":$rotary_dim,
    OptionalParameter<"::posenc::RopeScalingAttr">:$scaling,
    OptionalParameter<"::mlir::FloatAttr">:$attention_factor,
    EnumParameter<Posenc_AnglePrecision>:$precision,
    OptionalParameter<"::posenc::XPosAttr">:$xpos
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The base (the attribute form's; table-form rotaries have none).
    double getBaseValue() const { return getBase().getValueAsDouble(); }
    /// Whether this rotary reads cos/sin tables (no base).
    bool isTableForm() const { return !getBase(); }
    /// The factor that multiplies cos and sin (the op's attention_factor,
    /// else the scaling's, else 1), as for posenc.rope.
    double getEffectiveAttentionFactor() const;
  }];
}

//===----------------------------------------------------------------------===//
// posenc.yield
//===----------------------------------------------------------------------===//

def Posenc_YieldOp : Posenc_Op<"yield", [Pure, ReturnLike, Terminator,
                                         HasParent<"FusedAttentionOp">]> {
  let summary = "yields the modified score of a score_mod region";
  let arguments = (ins AnyFloat:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// posenc.fused_attention
//===----------------------------------------------------------------------===//

def Posenc_FusedAttentionOp : Posenc_Op<"fused_attention", [
    AttrSizedOperandSegments,
    SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "attention with fused position encodings (RoPE prologue, "
                "score modification, Shaw's relative key and value terms, "
                "T5's bucketed bias, Transformer-XL's and DeBERTa's relative "
                "terms)";
  let description = [{
    Semantics: `docs/spec.md`, section `posenc.fused_attention`.

    The form position encodings are fused into. `query [..., Hq, Sq, D]`,
    `key [..., Hkv, Sk, D]`, `value [..., Hkv, Sk, Dv]` have equal ranks
    `>= 2`. Dims before `(S, D)` are the lead dims `L` (batch..., heads); when
    the rank is `>= 3`, dim `-3` is the head dim and query head `h` reads
    key/value head `h / (Hq/Hkv)` (grouped-query attention); all other lead
    dims are equal. The result is `[..., Hq, Sq, Dv]` with the element type
    of `query`. All arithmetic runs in the compute type `C` (f32; f64 for f64
    inputs). With `i' = i + (Sk - Sq)` (queries are the last Sq keys):

    1. Prologue: with `q_rope` (a `#posenc.rotary`) and `q_positions
       : tensor<Sq x iN>`, `q~ = rope(query, q_positions)` exactly as
       `posenc.rope` computes it (likewise `k~` with `k_rope`/`k_positions`);
       otherwise `q~ = query`, `k~ = key`. With tables instead of
       positions (`q_rope(#posenc.rotary<...>, tables %cos, %sin : ...)`,
       a rotary without `base`), `q~` is the table form of `posenc.rope`
       with those tables, `tensor<Sq x R x G>` (or per batch
       `tensor<B x Sq x R x G>`, B = dim 0 of query, rank >= 3); likewise
       `k~` with `Sk` rows. With xPos (`xpos` on both
       prologues, a query/key pair: roles query and key, equal
       `scale_base`, `gamma`, `layout` and `rotary_dim`), `q~_i . k~_j`
       is that of the two standalone ropes, but the lowering evaluates it
       re-centered per query tile (exact up to rounding): pair `p` of the
       tile's queries decays by `zeta_p^((pos_i - c)/scale_base)` and of its
       keys by `zeta_p^(-(pos_j - c - center_k + center_q)/scale_base)`,
       `c` = the position of the tile's first query row, so positions up to
       2^24 neither overflow nor underflow in f32.
    2. `s[L, i, j] = scale * (q~_i . k~_j + q~_i . rel_key[r(i, j)])`
       (`scale` defaults to `1/sqrt(D)`), where the `rel_key` term (Shaw et
       al., `tensor<(2K+1) x D>`) is present only when the operand is, and
       `r(i, j) = clamp(j - i', -K, K) + K`. With `t5_table` (T5's
       `tensor<NB x Hq x F>`, query rank >= 3, no `kv_lengths`), the bias
       of `posenc.t5_bias` is added after the scale:
       `s += t5_table[bucket(j - i'), h]` with `t5_max_distance` (default
       128) and `t5_bidirectional` as `posenc.t5_bias`'s `max_distance` and
       `bidirectional`.
       With `xl` (Transformer-XL's `rel : tensor<[Hq x] (Sq + Sk - 1) x D>`,
       content bias `u` and position bias `v`, both `tensor<Hq x D>`; query
       rank >= 3, no `kv_lengths`), the terms of `posenc.xl_attention` are
       added inside the scale: `s += scale * (u_h . k~_j + (q~_i + v_h) .
       rel[i' - j + Sq - 1])`.
       With `deberta_pos_key` (c2p) and/or `deberta_pos_query` (p2c)
       (DeBERTa's `tensor<[Hq x] 2k x D>`, `deberta_position_buckets` and
       `deberta_max_relative_positions` as `posenc.disentangled_attention`'s
       `position_buckets` and `max_relative_positions`; query rank >= 3, no
       `kv_lengths`), that op's terms are added inside the scale:
       `s += scale * ([c2p] q~_i . pos_key[c] + [p2c] k~_j . pos_query[c])`,
       `c = clamp(bucket(i - j) + k, 0, 2k - 1)` with the row index `i`
       (not `i'`), as in DeBERTa. `scale` is explicit (the fusion sets
       `posenc.disentangled_attention`'s default, `1/sqrt(D (1 + terms))`).
    3. Score modification: `s'[L, i, j] = score_mod(s, L..., i, j, mods...)`,
       the single-block `score_mod` region, whose arguments are the score
       (type `C`), one `index` per lead dim, then `i` and `j` (absolute
       positions, not tile-relative), then one argument per `mod_operands`
       value (extra tensors or scalars: ALiBi slopes, ...). It yields the new score with `posenc.yield`. An empty
       region (no ops but the yield of the score) is the identity. A score of
       `-inf` masks the entry.
    4. `causal` masks `j > i'` (bottom-right aligned).
    5. `p = softmax_j(s')` with max subtraction; a row whose entries are all
       masked yields zeros.
    6. `out_i = sum_j p[i, j] * (v_j + rel_value[r(i, j)])`, where the
       `rel_value` term (Shaw et al., `tensor<(2K+1) x Dv>`) is present only
       when the operand is. With both `rel_key` and `rel_value`, they have
       the same number of buckets `2K+1`.

    With the optional `kv_lengths : tensor<B x iN>` (query rank >= 4), the
    keys and causal alignment are those of `posenc.attention` over a KV
    cache: for batch `b` only keys `j < kv_lengths[b]` exist and `i' = i +
    (kv_lengths[b] - Sq)` (in the causal mask and in the `rel_value` bucket;
    `score_mod`'s `i` and `j` stay the row and key indices). Positions may be
    per batch (`tensor<B x S x iN>`, as for `posenc.rope`). `key` and `value`
    share an element type that may differ from `query`'s.

    The lowering (`posenc-decompose-attention`) never materializes an
    `Sq x Sk` tensor or a rotated copy of Q or K: it loops over query tiles
    and key/value tiles with an online softmax. Shaw's key term is the
    per-query-tile product `q~_tile . rel_key^T` (`[Bq, 2K+1]`) gathered by
    bucket, never an `[Sq, 2K+1]` table. T5's term is a bucket per
    distance `j - i'` (`Sq + Sk - 1` of them, computed once), and per key
    tile a row of `Bq + Bk - 1` table entries read along the diagonals;
    never an `H x Sq x Sk` bias. Transformer-XL's content bias is added to
    the query tile once; its position term is, per key tile, the band
    product `(q~_tile + v_h) . rel[band]^T` over the `Bq + Bk - 1` rows of
    `rel` the tile touches, read along the diagonals: never an `Sq x Sk` or
    `Sq x L` tensor. DeBERTa's terms are, per key tile, the band products
    `pos_key[c(band)] . q~_tile^T` and `k~_tile . pos_query[c(band)]^T`
    over the `Bq + Bk - 1` distances `i - j` the tile touches (their table
    rows gathered by the bucket index), read along the diagonals: never an
    `Sq x Sk` or `Sq x 2k` tensor.

    ```mlir
    %o = posenc.fused_attention %q, %k, %v
        q_rope(#posenc.rotary<layout = half, base = 1.000000e+04 : f64,
               rotary_dim = 64, precision = fast>, %pos : tensor<?xi32>)
        k_rope(#posenc.rotary<layout = half, base = 1.000000e+04 : f64,
               rotary_dim = 64, precision = fast>, %pos : tensor<?xi32>)
        mods(%slopes, %shift : tensor<8xf32>, index) {causal}
        : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
        -> tensor<1x8x?x64xf32>
        score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
           %sl: tensor<8xf32>, %sh: index):
        %m = tensor.extract %sl[%h] : tensor<8xf32>
        %ip = arith.addi %i, %sh : index
        %d = arith.subi %j, %ip : index
        %di = arith.index_cast %d : index to i64
        %df = arith.sitofp %di : i64 to f32
        %b2 = arith.mulf %m, %df : f32
        %r = arith.addf %s, %b2 : f32
        posenc.yield %r : f32
    }
    ```
  }];
  let arguments = (ins
    Posenc_FloatTensor:$query,
    Posenc_FloatTensor:$key,
    Posenc_FloatTensor:$value,
    Optional<Posenc_PositionTensor>:$kv_lengths,
    Optional<Posenc_PositionTensor>:$q_positions,
    Optional<Posenc_PositionTensor>:$k_positions,
    Optional<Posenc_FloatTensor>:$q_cos,
    Optional<Posenc_FloatTensor>:$q_sin,
    Optional<Posenc_FloatTensor>:$k_cos,
    Optional<Posenc_FloatTensor>:$k_sin,
    Variadic<AnyType>:$mod_operands,
    Optional<Posenc_FloatTensor>:$rel_key,
    Optional<Posenc_FloatTensor>:$rel_value,
    Optional<Posenc_FloatTensor>:$t5_table,
    // Transformer-XL's term (posenc.xl_attention): rel, u, v.
    Optional<Posenc_FloatTensor>:$xl_rel,
    Optional<Posenc_FloatTensor>:$xl_content_bias,
    Optional<Posenc_FloatTensor>:$xl_position_bias,
    // DeBERTa's terms (posenc.disentangled_attention): pos_key (c2p),
    // pos_query (p2c).
    Optional<Posenc_FloatTensor>:$deberta_pos_key,
    Optional<Posenc_FloatTensor>:$deberta_pos_query,
    OptionalAttr<Posenc_RotaryAttr>:$q_rope,
    OptionalAttr<Posenc_RotaryAttr>:$k_rope,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$t5_max_distance,
    UnitAttr:$t5_bidirectional,
    OptionalAttr<I64Attr>:$deberta_position_buckets,
    OptionalAttr<I64Attr>:$deberta_max_relative_positions
  );
  let results = (outs Posenc_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$score_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`kv_lengths` `(` $kv_lengths^ `:` type($kv_lengths) `)`)?
    (`q_rope` `(` $q_rope^ `,` custom<RotaryOperands>($q_positions,
       type($q_positions), $q_cos, $q_sin, type($q_cos), type($q_sin)) `)`)?
    (`k_rope` `(` $k_rope^ `,` custom<RotaryOperands>($k_positions,
       type($k_positions), $k_cos, $k_sin, type($k_cos), type($k_sin)) `)`)?
    (`mods` `(` $mod_operands^ `:` type($mod_operands) `)`)?
    (`rel_key` `(` $rel_key^ `:` type($rel_key) `)`)?
    (`rel_value` `(` $rel_value^ `:` type($rel_value) `)`)?
    (`t5_table` `(` $t5_table^ `:` type($t5_table) `)`)?
    (`xl` `(` $xl_rel^ `,` $xl_content_bias `,` $xl_position_bias `:`
     type($xl_rel) `,` type($xl_content_bias) `,` type($xl_position_bias)
     `)`)?
    (`deberta_pos_key` `(` $deberta_pos_key^ `:` type($deberta_pos_key) `)`)?
    (`deberta_pos_query` `(` $deberta_pos_query^ `:`
     type($deberta_pos_query) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->` type($result)
    `score_mod` $score_mod
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    /// Builds the op with an identity score_mod region (the block's
    /// arguments are added, its body is a yield of the score).
    OpBuilder<(ins "::mlir::Type":$resultType, "::mlir::Value":$query,
                   "::mlir::Value":$key, "::mlir::Value":$value,
                   "::mlir::ValueRange":$modOperands,
                   "::mlir::FloatAttr":$scale, "bool":$causal)>
  ];
  let extraClassDeclaration = [{
    /// scale, or 1/sqrt(D) when not set.
    double getScaleOrDefault();
    /// t5_max_distance, or posenc.t5_bias's default (128) when not set.
    int64_t getT5MaxDistanceOrDefault();
    /// The type scores and softmax are computed in: f32, f64 for f64 inputs.
    ::mlir::FloatType getComputeType();
    /// Number of lead dims (rank - 2).
    int64_t getNumLeadDims();
    /// K of the Shaw terms ((dim 0 of rel_key or rel_value - 1) / 2); 0
    /// without them.
    int64_t getMaxRelativeDistance();
    /// Whether the op has DeBERTa's c2p or p2c term.
    bool hasDebertaTerms() { return getDebertaPosKey() || getDebertaPosQuery(); }
    /// k, the attention span of DeBERTa's terms (half the rows of their
    /// tables); 0 without them.
    int64_t getDebertaSpan();
    /// The score_mod block.
    ::mlir::Block &getScoreModBlock() { return getScoreMod().front(); }
    /// Whether score_mod is the identity (its body only yields the score).
    bool hasIdentityScoreMod();
  }];
}

#endif // POSENC_DIALECT_POSENC_IR_POSENCFUSEDOPS_TD
