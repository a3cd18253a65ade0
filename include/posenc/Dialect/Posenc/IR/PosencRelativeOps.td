//===- PosencRelativeOps.td - bucketed relative biases ------*- tablegen -*-===//
//
// The relative position encodings added in SPEC.md's "Additions": T5's
// bucketed bias. Included from PosencOps.td so that it lands in the same
// generated op list.
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

#endif // POSENC_DIALECT_POSENC_IR_POSENCRELATIVEOPS_TD
