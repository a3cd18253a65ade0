//===- PosencAttrs.td - posenc attributes and enums --------*- tablegen -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCATTRS_TD
#define POSENC_DIALECT_POSENC_IR_POSENCATTRS_TD

include "posenc/Dialect/Posenc/IR/PosencDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Posenc_Layout : I32EnumAttr<"Layout",
    "which dims form a rotation / sin-cos pair", [
      I32EnumAttrCase<"interleaved", 0>,
      I32EnumAttrCase<"half", 1>
    ]> {
  let cppNamespace = "::posenc";
  let genSpecializedAttr = 0;
}
def Posenc_LayoutAttr : EnumAttr<Posenc_Dialect, Posenc_Layout, "layout"> {
  let summary = [{pairing layout: `interleaved` pairs (2p, 2p+1) (GPT-J,
    Meta LLaMA complex form); `half` pairs (p, p + R/2) (GPT-NeoX, HF
    `rotate_half`)}];
}

def Posenc_AnglePrecision : I32EnumAttr<"AnglePrecision",
    "how rotation angles are computed", [
      I32EnumAttrCase<"fast", 0>,
      I32EnumAttrCase<"exact", 1>
    ]> {
  let cppNamespace = "::posenc";
  let genSpecializedAttr = 0;
}
def Posenc_AnglePrecisionAttr
    : EnumAttr<Posenc_Dialect, Posenc_AnglePrecision, "precision"> {
  let summary = [{`fast`: theta = f32(pos) * f32(inv_freq) and f32 cos/sin, as
    most frameworks compute it; `exact`: the angle and its cos/sin in f64, so
    cos/sin are within 1e-6 of the float64 result for positions up to 2^24}];
}

def Posenc_RopeScalingKind : I32EnumAttr<"RopeScalingKind",
    "RoPE frequency scaling kind", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"linear", 1>,
      I32EnumAttrCase<"ntk", 2>,
      I32EnumAttrCase<"dynamic", 3>,
      I32EnumAttrCase<"yarn", 4>,
      I32EnumAttrCase<"llama3", 5>,
      I32EnumAttrCase<"longrope", 6>
    ]> {
  let cppNamespace = "::posenc";
  let genSpecializedAttr = 0;
}

def Posenc_XPosRole : I32EnumAttr<"XPosRole",
    "which side of attention an xPos rotation is applied to", [
      I32EnumAttrCase<"query", 0>,
      I32EnumAttrCase<"key", 1>
    ]> {
  let cppNamespace = "::posenc";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// #posenc.rope_scaling
//===----------------------------------------------------------------------===//

def Posenc_RopeScalingAttr : Posenc_Attr<"RopeScaling", "rope_scaling"> {
  let summary = "RoPE frequency scaling (PI, NTK, dynamic NTK, YaRN, Llama 3, LongRoPE)";
  let description = [{
    Semantics: `docs/spec.md`, section "Scaling kinds".

    Adjusts the RoPE inverse frequencies `inv_freq[p] = base^(-2p/R)`
    (R = rotary_dim, p in [0, R/2)) as in the HuggingFace rope utilities.
    The first parameter is the kind; the others are `key = value` pairs, and
    only the keys a kind uses are accepted. Keys without a default in the
    table are required (`factor` for linear/ntk/dynamic/yarn;
    `original_max_position` for dynamic/yarn/longrope; both factor lists for
    longrope); every value must be finite and > 0:

    | kind | keys (default) | effect |
    |------|----------------|--------|
    | `none` | - | unchanged |
    | `linear` | `factor` | `inv_freq /= factor` (position interpolation) |
    | `ntk` | `factor` | `base' = base * factor^(R/(R-2))` |
    | `dynamic` | `factor`, `original_max_position` | with L = max(positions)+1: `base' = base * (factor*max(L,orig)/orig - (factor-1))^(R/(R-2))` |
    | `yarn` | `factor`, `original_max_position`, `beta_fast` (32), `beta_slow` (1), `attention_factor` (0.1 ln(factor) + 1, or 1 when factor <= 1) | ramp between interpolated (`inv_freq/factor`) and extrapolated frequencies over the correction range `low = floor(R ln(orig/(beta_fast 2pi)) / (2 ln base))`, `high = ceil(same with beta_slow)`, clamped to [0, R-1] (`high += 0.001` when equal); `ramp(p) = clamp((p-low)/(high-low), 0, 1)`; `inv_freq = inv_freq/factor * ramp + inv_freq * (1-ramp)`; cos and sin scaled by `attention_factor` |
    | `llama3` | `factor` (8), `low_freq_factor` (1), `high_freq_factor` (4), `original_max_position` (8192) | `wavelen = 2pi/inv_freq`; `wavelen < orig/high_freq_factor`: keep; `wavelen > orig/low_freq_factor`: `inv_freq/factor`; else `smooth = (orig/wavelen - low)/(high - low)`, `inv_freq = (1-smooth) inv_freq/factor + smooth inv_freq` |
    | `longrope` | `short_factor` [R/2], `long_factor` [R/2], `original_max_position`, `attention_factor` (1) | `inv_freq[p] = 1/(ext[p] * base^(2p/R))`, `ext = long_factor` when L = max(positions)+1 > orig, else `short_factor` |

    ```mlir
    #posenc.rope_scaling<llama3, factor = 8.0, original_max_position = 8192>
    #posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>
    #posenc.rope_scaling<longrope, short_factor = [1.0, 1.0], long_factor = [2.0, 4.0], original_max_position = 4096>
    ```
  }];
  let parameters = (ins
    "RopeScalingKind":$kind,
    "::llvm::APFloat":$factor,
    "int64_t":$original_max_position,
    "::llvm::APFloat":$beta_fast,
    "::llvm::APFloat":$beta_slow,
    "::llvm::APFloat":$low_freq_factor,
    "::llvm::APFloat":$high_freq_factor,
    "std::optional<::llvm::APFloat>":$attention_factor,
    "::mlir::DenseF64ArrayAttr":$short_factor,
    "::mlir::DenseF64ArrayAttr":$long_factor
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    double getFactorValue() const { return getFactor().convertToDouble(); }
    double getBetaFastValue() const { return getBetaFast().convertToDouble(); }
    double getBetaSlowValue() const { return getBetaSlow().convertToDouble(); }
    double getLowFreqFactorValue() const {
      return getLowFreqFactor().convertToDouble();
    }
    double getHighFreqFactorValue() const {
      return getHighFreqFactor().convertToDouble();
    }
    /// The LongRoPE factors (empty for other kinds).
    ::llvm::ArrayRef<double> getShortFactorValues() const {
      return getShortFactor() ? getShortFactor().asArrayRef()
                              : ::llvm::ArrayRef<double>();
    }
    ::llvm::ArrayRef<double> getLongFactorValues() const {
      return getLongFactor() ? getLongFactor().asArrayRef()
                             : ::llvm::ArrayRef<double>();
    }
    /// The factor that multiplies cos and sin (yarn, longrope), 1 otherwise.
    double getEffectiveAttentionFactor() const;
    /// Whether the inverse frequencies depend on the run-time sequence length
    /// L = max(positions) + 1 (dynamic NTK, LongRoPE).
    bool dependsOnSequenceLength() const;
  }];
}

//===----------------------------------------------------------------------===//
// #posenc.xpos
//===----------------------------------------------------------------------===//

/// An f64 parameter written as a plain float literal (`512.0`), with a
/// default.
class Posenc_F64Parameter<string default, string desc>
    : APFloatParameter<desc> {
  let parser = "::posenc::parseF64Parameter($_parser)";
  let printer = "::posenc::printF64Parameter($_printer, $_self)";
  let defaultValue = "::llvm::APFloat(" # default # ")";
}

def Posenc_XPosAttr : Posenc_Attr<"XPos", "xpos"> {
  let summary = "xPos: RoPE with exponential decay (Sun et al., A "
                "Length-Extrapolatable Transformer)";
  let description = [{
    Semantics: `docs/spec.md`, section "xPos".

    The `xpos` attribute of `posenc.rope` (and of `#posenc.rotary` inside
    `posenc.fused_attention`). After the rotation, both elements of pair `p`
    (`p` in `[0, R/2)`, `R` = rotary_dim, in the rope's layout) are
    multiplied by

        zeta_p ^ (s * (pos - center) / scale_base),
        zeta_p = (2p/R + gamma) / (1 + gamma),

    with `s = +1` for `role = query` and `s = -1` for `role = key`. Dims
    `>= R` pass through untouched. The decay multiplies the attention factor
    and applies after any frequency `scaling`; the exponent is computed in
    the op's compute type (f32; f64 for f64 inputs).

    | parameter | default | constraint |
    |-----------|---------|------------|
    | `role` | required | `query` or `key` |
    | `scale_base` | 512.0 | finite, > 0 |
    | `gamma` | 0.4 | finite, > 0 or < -1 (so every `zeta_p` > 0) |
    | `center` | 0 | any i64 |

    A query rotated with role `query` and a key rotated with role `key`
    (same `scale_base` and `gamma`) give scores scaled per pair by
    `zeta_p^((pos_i - center_q - pos_j + center_k) / scale_base)`: the
    original xPos. Far from `center` the standalone factors overflow or
    underflow f32 (e.g. positions near 2^24 with center 0);
    `posenc-fuse-attention` folds such a pair into `posenc.fused_attention`,
    which re-centers per query tile so that only position differences
    enter the exponent.

    ```mlir
    #posenc.xpos<role = query>
    #posenc.xpos<role = key, scale_base = 1024.0, gamma = 0.5, center = 4096>
    ```
  }];
  let parameters = (ins
    EnumParameter<Posenc_XPosRole>:$role,
    Posenc_F64Parameter<"512.0", "scale_base">:$scale_base,
    Posenc_F64Parameter<"0.4", "gamma">:$gamma,
    DefaultValuedParameter<"int64_t", "0">:$center
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether `other` is the partner of this attribute in a query/key
    /// pair: opposite roles, same scale_base and gamma (centers may differ).
    bool isPartnerOf(XPosAttr other) const;
    double getScaleBaseValue() const {
      return getScaleBase().convertToDouble();
    }
    double getGammaValue() const { return getGamma().convertToDouble(); }
  }];
}

#endif // POSENC_DIALECT_POSENC_IR_POSENCATTRS_TD
