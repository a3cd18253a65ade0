"""TOSA programs of transformer attention blocks written the way a TOSA
exporter writes them (reshape/transpose of the projections, RoPE from an
inverse-frequency constant, GQA by tile, an additive mask constant, softmax
as reduce_max/sub/exp/reduce_sum/reciprocal/mul, tosa.matmul), for the
raising tests (test_raising.py) and the benchmark (bench/run_bench.py).

The inverse frequencies are computed as HuggingFace computes them, in
float32 (`_compute_default_rope_parameters`, `_compute_llama3_parameters`),
not from posenc's formulas: raising must recognize them by value.
"""
import math

import numpy as np


def hf_inv_freq(dim, base, scaling=None):
    """HuggingFace's RoPE inverse frequencies [dim/2] in float32."""
    exponent = (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32)
                / np.float32(dim))
    inv = (np.float32(1.0) / (np.float32(base) ** exponent)).astype(np.float32)
    kind = (scaling or {}).get("kind", "none")
    if kind == "none":
        return inv
    factor = np.float32(scaling["factor"])
    if kind == "linear":
        return (inv / factor).astype(np.float32)
    if kind == "yarn":
        return _hf_yarn_inv_freq(dim, base, scaling)
    assert kind == "llama3", kind
    low = np.float32(scaling.get("low_freq_factor", 1.0))
    high = np.float32(scaling.get("high_freq_factor", 4.0))
    orig = np.float32(scaling.get("original_max_position", 8192))
    wavelen = (np.float32(2 * math.pi) / inv).astype(np.float32)
    scaled = np.where(wavelen > orig / low, inv / factor, inv).astype(np.float32)
    smooth = ((orig / wavelen - low) / (high - low)).astype(np.float32)
    smoothed = ((1 - smooth) * scaled / factor + smooth * scaled).astype(np.float32)
    medium = ~(wavelen < orig / high) & ~(wavelen > orig / low)
    return np.where(medium, smoothed, scaled).astype(np.float32)


def _hf_yarn_inv_freq(dim, base, scaling):
    """HuggingFace's `_compute_yarn_parameters` (default betas 32 and 1,
    truncated correction range): float32 frequencies, the correction range
    in Python floats."""
    factor = scaling["factor"]
    orig = scaling["original_max_position"]
    beta_fast, beta_slow = scaling.get("beta_fast", 32.0), scaling.get("beta_slow", 1.0)

    def correction_dim(rotations):
        return (dim * math.log(orig / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    pos_freqs = (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32)
                                      / np.float32(dim))).astype(np.float32)
    extrapolation = (np.float32(1.0) / pos_freqs).astype(np.float32)
    interpolation = (np.float32(1.0) / (np.float32(factor) * pos_freqs)).astype(np.float32)
    ramp = np.clip((np.arange(dim // 2, dtype=np.float32) - np.float32(low))
                   / np.float32(high - low), 0, 1).astype(np.float32)
    extrapolation_factor = (np.float32(1) - ramp).astype(np.float32)
    return (interpolation * (1 - extrapolation_factor)
            + extrapolation * extrapolation_factor).astype(np.float32)


def hf_attention_scaling(scaling):
    """HuggingFace's attention_scaling: yarn's 0.1 ln(factor) + 1 (factor >
    1), else 1; multiplies cos and sin."""
    if (scaling or {}).get("kind") == "yarn" and scaling["factor"] > 1:
        return 0.1 * math.log(scaling["factor"]) + 1.0
    return 1.0


def causal_mask(sq, sk, masked=np.finfo(np.float32).min):
    """HuggingFace's additive causal mask [sq, sk] (bottom-right aligned)."""
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    return np.where(j > i, np.float32(masked), np.float32(0)).astype(np.float32)


def _dense(values, shape):
    """A dense float32 attribute: hex for large tensors, text otherwise."""
    array = np.ascontiguousarray(np.asarray(values, np.float32).reshape(shape))
    if array.size > 4096:
        return f'dense<"0x{array.tobytes().hex().upper()}">'
    return "dense<" + np.array2string(
        array, separator=", ", threshold=1 << 30, floatmode="unique",
        max_line_width=1 << 30).replace("-inf", "0xFF800000").replace(
        "inf", "0x7F800000") + ">"


class _Tosa:
    """Emits TOSA ops as text, naming results %t0, %t1, ..."""

    def __init__(self):
        self.lines, self.count = [], 0

    def _name(self):
        self.count += 1
        return f"%t{self.count}"

    @staticmethod
    def ty(shape, elem="f32"):
        return "tensor<" + "x".join(str(s) for s in shape) + f"x{elem}>"

    def op(self, text, result_type):
        name = self._name()
        self.lines.append(f"    {name} = {text} -> {result_type}")
        return name

    def const(self, values, shape):
        return self.op(f'"tosa.const"() {{values = {_dense(values, shape)} : '
                       f'{self.ty(shape)}}} : ()', self.ty(shape))

    def shape(self, dims):
        return self.op(f"tosa.const_shape {{values = dense<{list(dims)}> : "
                       f"tensor<{len(dims)}xindex>}} : ()", f"!tosa.shape<{len(dims)}>")

    def reshape(self, x, xshape, shape, elem="f32"):
        s = self.shape(shape)
        return self.op(f"tosa.reshape {x}, {s} : ({self.ty(xshape, elem)}, "
                       f"!tosa.shape<{len(shape)}>)", self.ty(shape, elem))

    def transpose(self, x, xshape, perms):
        shape = [xshape[p] for p in perms]
        return self.op(f"tosa.transpose {x} {{perms = array<i32: "
                       f"{', '.join(map(str, perms))}>}} : ({self.ty(xshape)})",
                       self.ty(shape)), shape

    def binary(self, name, a, ashape, b, bshape, shape):
        return self.op(f"tosa.{name} {a}, {b} : ({self.ty(ashape)}, "
                       f"{self.ty(bshape)})", self.ty(shape))

    def mul(self, a, ashape, b, bshape, shape):
        shift = self.op('"tosa.const"() {values = dense<0> : tensor<1xi8>} : ()',
                        "tensor<1xi8>")
        return self.op(f"tosa.mul {a}, {b}, {shift} : ({self.ty(ashape)}, "
                       f"{self.ty(bshape)}, tensor<1xi8>)", self.ty(shape))

    def unary(self, name, x, shape, out_shape=None, elem="f32", out_elem="f32"):
        return self.op(f"tosa.{name} {x} : ({self.ty(shape, elem)})",
                       self.ty(out_shape or shape, out_elem))

    def reduce(self, name, x, shape, axis):
        out = list(shape)
        out[axis] = 1
        return self.op(f"tosa.{name} {x} {{axis = {axis} : i32}} : "
                       f"({self.ty(shape)})", self.ty(out)), out

    def slice(self, x, shape, start, size):
        a, b = self.shape(start), self.shape(size)
        return self.op(f"tosa.slice {x}, {a}, {b} : ({self.ty(shape)}, "
                       f"!tosa.shape<{len(shape)}>, !tosa.shape<{len(shape)}>)",
                       self.ty(size))

    def concat(self, a, b, shape, axis):
        out = list(shape)
        out[axis] *= 2
        return self.op(f"tosa.concat {a}, {b} {{axis = {axis} : i32}} : "
                       f"({self.ty(shape)}, {self.ty(shape)})", self.ty(out)), out

    def negate(self, x, shape):
        zp = self.op('"tosa.const"() {values = dense<0.0> : tensor<1xf32>} : ()',
                     "tensor<1xf32>")
        return self.op(f"tosa.negate {x}, {zp}, {zp} : ({self.ty(shape)}, "
                       "tensor<1xf32>, tensor<1xf32>)", self.ty(shape))

    def matmul(self, a, ashape, b, bshape):
        zp = self.op('"tosa.const"() {values = dense<0.0> : tensor<1xf32>} : ()',
                     "tensor<1xf32>")
        shape = [ashape[0], ashape[1], bshape[2]]
        return self.op(f"tosa.matmul {a}, {b}, {zp}, {zp} : ({self.ty(ashape)}, "
                       f"{self.ty(bshape)}, tensor<1xf32>, tensor<1xf32>)",
                       self.ty(shape)), shape

    def tile(self, x, shape, multiples):
        m = self.shape(multiples)
        out = [s * t for s, t in zip(shape, multiples)]
        return self.op(f"tosa.tile {x}, {m} : ({self.ty(shape)}, "
                       f"!tosa.shape<{len(shape)}>)", self.ty(out)), out


def _rope_tables(t, pos, s, d, inv_freq, attention_scaling=None):
    """cos/sin [1, 1, S, D] of concat(f, f), f = float(pos) * inv_freq, each
    times `attention_scaling` when given (HuggingFace: `cos = emb.cos() *
    self.attention_scaling`)."""
    inv = t.const(inv_freq, [1, 1, d // 2])
    p3 = t.reshape(pos, [1, s], [1, s, 1], "i32")
    pf = t.unary("cast", p3, [1, s, 1], elem="i32")
    freqs = t.mul(pf, [1, s, 1], inv, [1, 1, d // 2], [1, s, d // 2])
    emb, _ = t.concat(freqs, freqs, [1, s, d // 2], 2)
    cos = t.unary("cos", emb, [1, s, d])
    sin = t.unary("sin", emb, [1, s, d])
    if attention_scaling is not None:
        factor = t.const([attention_scaling], [1, 1, 1])
        cos = t.mul(cos, [1, s, d], factor, [1, 1, 1], [1, s, d])
        sin = t.mul(sin, [1, s, d], factor, [1, 1, 1], [1, s, d])
    return (t.reshape(cos, [1, s, d], [1, 1, s, d]),
            t.reshape(sin, [1, s, d], [1, 1, s, d]))


def _apply_rope(t, x, shape, cos, sin):
    """x * cos + rotate_half(x) * sin, rotate_half = concat(-x2, x1)."""
    d = shape[-1]
    half = list(shape[:-1]) + [d // 2]
    x1 = t.slice(x, shape, [0] * len(shape), half)
    x2 = t.slice(x, shape, [0] * (len(shape) - 1) + [d // 2], half)
    rot, _ = t.concat(t.negate(x2, half), x1, half, len(shape) - 1)
    table = [1, 1, shape[2], d]
    return t.binary("add", t.mul(x, shape, cos, table, shape), shape,
                    t.mul(rot, shape, sin, table, shape), shape, shape)


def _pair_tables(t, pos, s, d, inv_freq):
    """cos/sin [1, 1, S, D/2, 1] of f = float(pos) * inv_freq (no concat)."""
    inv = t.const(inv_freq, [1, 1, d // 2])
    p3 = t.reshape(pos, [1, s], [1, s, 1], "i32")
    pf = t.unary("cast", p3, [1, s, 1], elem="i32")
    freqs = t.mul(pf, [1, s, 1], inv, [1, 1, d // 2], [1, s, d // 2])
    return tuple(t.reshape(t.unary(fn, freqs, [1, s, d // 2]), [1, s, d // 2],
                           [1, 1, s, d // 2, 1]) for fn in ("cos", "sin"))


def _apply_rope_interleaved(t, x, shape, cos, sin, sign_swapped=False):
    """Meta's LLaMA rotation in real arithmetic: pairs (x[2p], x[2p+1]) by a
    reshape to [..., D/2, 2]; (a cos - b sin, a sin + b cos); reshape back.
    `sign_swapped` writes (a cos + b sin, b cos - a sin): the other
    direction."""
    pairs = list(shape[:-1]) + [shape[-1] // 2, 2]
    one = list(shape[:-1]) + [shape[-1] // 2, 1]
    xr = t.reshape(x, shape, pairs)
    a = t.slice(xr, pairs, [0] * 5, one)
    b = t.slice(xr, pairs, [0] * 4 + [1], one)
    table = [1, 1, shape[2], shape[-1] // 2, 1]
    ac, bs = t.mul(a, one, cos, table, one), t.mul(b, one, sin, table, one)
    asn, bc = t.mul(a, one, sin, table, one), t.mul(b, one, cos, table, one)
    if sign_swapped:
        first = t.binary("add", ac, one, bs, one, one)
        second = t.binary("sub", bc, one, asn, one, one)
    else:
        first = t.binary("sub", ac, one, bs, one, one)
        second = t.binary("add", asn, one, bc, one, one)
    out, _ = t.concat(first, second, one, 4)
    return t.reshape(out, pairs, shape)


def rope_interleaved(h, s, d, inv_freq, sign_swapped=False):
    """posenc.rope interleaved as an exporter writes it: (x [1,H,S,D],
    position_ids [1,S]) -> [1,H,S,D]."""
    t = _Tosa()
    cos, sin = _pair_tables(t, "%pos", s, d, inv_freq)
    out = _apply_rope_interleaved(t, "%x", [1, h, s, d], cos, sin, sign_swapped)
    ty = _Tosa.ty
    return (f"(%x: {ty([1, h, s, d])}, %pos: {ty([1, s], 'i32')}) -> {ty([1, h, s, d])} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty([1, h, s, d])}\n}}\n")


def _heads(t, proj, s, h, d):
    """[1, S, H*D] -> [1, H, S, D]."""
    x = t.reshape(proj, [1, s, h * d], [1, s, h, d])
    return t.transpose(x, [1, s, h, d], [0, 2, 1, 3])[0]


def _repeat_kv(t, x, hkv, s, d, rep):
    """HuggingFace repeat_kv as a TOSA exporter writes it (tile)."""
    if rep == 1:
        return x
    x5 = t.reshape(x, [1, hkv, s, d], [1, hkv, 1, s, d])
    tiled, _ = t.tile(x5, [1, hkv, 1, s, d], [1, 1, rep, 1, 1])
    return t.reshape(tiled, [1, hkv, rep, s, d], [1, hkv * rep, s, d])


def _attention_core(t, q, k, v, s, hq, d, scale, mask):
    """softmax(q k^T * scale + mask) v on [1, Hq, S, D] tensors -> [1, S, Hq*D]."""
    kt, _ = t.transpose(k, [1, hq, s, d], [0, 1, 3, 2])
    q3 = t.reshape(q, [1, hq, s, d], [hq, s, d])
    k3 = t.reshape(kt, [1, hq, d, s], [hq, d, s])
    scores, _ = t.matmul(q3, [hq, s, d], k3, [hq, d, s])
    scores = t.mul(scores, [hq, s, s], t.const([scale], [1, 1, 1]), [1, 1, 1],
                   [hq, s, s])
    s4 = t.reshape(scores, [hq, s, s], [1, hq, s, s])
    shape = [1, hq, s, s]
    if isinstance(mask, str):  # a run-time padding mask argument [1, 1, 1, S]
        s4 = t.binary("add", s4, shape, mask, [1, 1, 1, s], shape)
    elif mask is not None:
        s4 = t.binary("add", s4, shape, t.const(mask, [1, 1, s, s]),
                      [1, 1, s, s], shape)
    mx, red = t.reduce("reduce_max", s4, shape, 3)
    e = t.unary("exp", t.binary("sub", s4, shape, mx, red, shape), shape)
    total, _ = t.reduce("reduce_sum", e, shape, 3)
    p = t.mul(e, shape, t.unary("reciprocal", total, red), red, shape)
    p3 = t.reshape(p, shape, [hq, s, s])
    v3 = t.reshape(v, [1, hq, s, d], [hq, s, d])
    out, _ = t.matmul(p3, [hq, s, s], v3, [hq, s, d])
    o4 = t.reshape(out, [hq, s, d], [1, hq, s, d])
    o4, _ = t.transpose(o4, [1, hq, s, d], [0, 2, 1, 3])
    return t.reshape(o4, [1, s, hq, d], [1, s, hq * d])


def llama_block(s, hq, hkv, d, base=500000.0, scaling=None, mask="lowest",
                scale=None, attention_scaling=None):
    """A LLaMA-style attention block in TOSA: RoPE (half layout, tables from
    HuggingFace's float32 inverse frequencies and the position_ids
    argument, times `attention_scaling` when given), GQA by tile, the
    additive causal mask (`mask`: "lowest" for
    HuggingFace's finfo.min, "-inf", or None), softmax and the two matmuls.

    Signature: (q_proj [1,S,Hq*D], k_proj [1,S,Hkv*D], v_proj [1,S,Hkv*D],
    position_ids [1,S] i32) -> [1,S,Hq*D]."""
    t = _Tosa()
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    q = _heads(t, "%q_proj", s, hq, d)
    k = _heads(t, "%k_proj", s, hkv, d)
    v = _heads(t, "%v_proj", s, hkv, d)
    cos, sin = _rope_tables(t, "%position_ids", s, d,
                            hf_inv_freq(d, base, scaling),
                            attention_scaling)
    q = _apply_rope(t, q, [1, hq, s, d], cos, sin)
    k = _apply_rope(t, k, [1, hkv, s, d], cos, sin)
    k = _repeat_kv(t, k, hkv, s, d, hq // hkv)
    v = _repeat_kv(t, v, hkv, s, d, hq // hkv)
    masked = {"lowest": np.finfo(np.float32).min, "-inf": -np.inf}
    bias = None if mask is None else causal_mask(s, s, masked[mask])
    out = _attention_core(t, q, k, v, s, hq, d, scale, bias)
    ty = _Tosa.ty
    return (f"func.func @llama_block(%q_proj: {ty([1, s, hq * d])}, "
            f"%k_proj: {ty([1, s, hkv * d])}, %v_proj: {ty([1, s, hkv * d])}, "
            f"%position_ids: {ty([1, s], 'i32')}) -> {ty([1, s, hq * d])} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty([1, s, hq * d])}\n}}\n")


def padded_attention_block(s, h, d, scale=None):
    """Attention without position encoding and with HuggingFace's padding
    mask as a run-time argument: (q_proj [1,S,H*D], k_proj, v_proj,
    mask [1,1,1,S]) -> [1,S,H*D]. The mask stays an additive bias."""
    t = _Tosa()
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    q, k, v = (_heads(t, f"%{n}_proj", s, h, d) for n in "qkv")
    out = _attention_core(t, q, k, v, s, h, d, scale, "%mask")
    ty = _Tosa.ty
    return (f"func.func @padded_attention(%q_proj: {ty([1, s, h * d])}, "
            f"%k_proj: {ty([1, s, h * d])}, %v_proj: {ty([1, s, h * d])}, "
            f"%mask: {ty([1, 1, 1, s])}) -> {ty([1, s, h * d])} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty([1, s, h * d])}\n}}\n")


def bloom_slopes(num_heads):
    """BLOOM's ALiBi slopes as build_alibi_tensor computes them, in float32:
    powers of a rounded base (not SPEC.md's formula evaluated exactly)."""
    closest = 2 ** math.floor(math.log2(num_heads))
    base = np.float32(2 ** (-(2 ** -(math.log2(closest) - 3))))
    slopes = base ** np.arange(1, 1 + closest, dtype=np.int32).astype(np.float32)
    if closest != num_heads:
        extra_base = np.float32(2 ** (-(2 ** -(math.log2(2 * closest) - 3))))
        extra = min(closest, num_heads - closest)
        powers = np.arange(1, 1 + 2 * extra, 2, dtype=np.int32).astype(np.float32)
        slopes = np.concatenate([slopes, extra_base ** powers])
    return slopes.astype(np.float32)


def _bool_const(t, values, shape):
    flat = ", ".join("true" if v else "false" for v in np.asarray(values).ravel())
    return t.op(f'"tosa.const"() {{values = dense<[{flat}]> : '
                f'{t.ty([int(np.prod(shape))], "i1")}}} : ()',
                t.ty([int(np.prod(shape))], "i1")), [int(np.prod(shape))]


def bloom_block(b, s, h, d, causal=True):
    """BLOOM's attention (HuggingFace modeling_bloom) as a TOSA exporter
    writes it, with an all-ones attention mask: alibi = slopes * j
    ([B*H, 1, S], slopes times the key positions, in the graph), scores =
    baddbmm(alibi, q, k^T, alpha=1/sqrt(D)) = alibi + alpha * q k^T,
    masked_fill of the boolean causal mask with finfo(float32).min as a
    select, softmax, bmm with v.

    Signature: (q [B,S,H,D], k [B,S,H,D], v [B,S,H,D]) -> [B,S,H*D]."""
    t = _Tosa()
    n = b * h
    heads = {}
    for name in "qkv":
        x, _ = t.transpose(f"%{name}", [b, s, h, d], [0, 2, 1, 3])
        heads[name] = t.reshape(x, [b, h, s, d], [n, s, d])
    kt, _ = t.transpose(heads["k"], [n, s, d], [0, 2, 1])
    slopes = np.tile(bloom_slopes(h), b).reshape(n, 1, 1)
    arange = np.arange(s, dtype=np.float32).reshape(1, 1, s)
    alibi = t.mul(t.const(slopes, [n, 1, 1]), [n, 1, 1],
                  t.const(arange, [1, 1, s]), [1, 1, s], [n, 1, s])
    scores, _ = t.matmul(heads["q"], [n, s, d], kt, [n, d, s])
    scores = t.mul(scores, [n, s, s], t.const([1.0 / math.sqrt(d)], [1, 1, 1]),
                   [1, 1, 1], [n, s, s])
    scores = t.binary("add", alibi, [n, 1, s], scores, [n, s, s], [n, s, s])
    shape = [b, h, s, s]
    s4 = t.reshape(scores, [n, s, s], shape)
    if causal:
        i = np.arange(s)[:, None]
        j = np.arange(s)[None, :]
        flat, fshape = _bool_const(t, j > i, [s, s])
        mask = t.reshape(flat, fshape, [1, 1, s, s], "i1")
        low = t.const([np.finfo(np.float32).min], [1, 1, 1, 1])
        s4 = t.op(f"tosa.select {mask}, {low}, {s4} : ({t.ty([1, 1, s, s], 'i1')}, "
                  f"{t.ty([1, 1, 1, 1])}, {t.ty(shape)})", t.ty(shape))
    mx, red = t.reduce("reduce_max", s4, shape, 3)
    e = t.unary("exp", t.binary("sub", s4, shape, mx, red, shape), shape)
    total, _ = t.reduce("reduce_sum", e, shape, 3)
    p = t.mul(e, shape, t.unary("reciprocal", total, red), red, shape)
    p3 = t.reshape(p, shape, [n, s, s])
    out, _ = t.matmul(p3, [n, s, s], heads["v"], [n, s, d])
    o4 = t.reshape(out, [n, s, d], [b, h, s, d])
    o4, _ = t.transpose(o4, [b, h, s, d], [0, 2, 1, 3])
    res = t.reshape(o4, [b, s, h, d], [b, s, h * d])
    ty = _Tosa.ty
    arg = ty([b, s, h, d])
    return (f"func.func @bloom_block(%q: {arg}, %k: {arg}, %v: {arg}) -> "
            f"{ty([b, s, h * d])} {{\n" + "\n".join(t.lines)
            + f"\n    return {res} : {ty([b, s, h * d])}\n}}\n")


def torch_tutorial_pe(max_len, d):
    """The PyTorch tutorial's `pe` buffer [max_len, D] (interleaved sin/cos),
    computed in float32 as torch computes it."""
    position = np.arange(max_len, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32)
                      * np.float32(-math.log(10000.0) / d)).astype(np.float32)
    angles = (position * div_term).astype(np.float32)
    pe = np.zeros((max_len, d), np.float32)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def sinusoidal_encoder_block(s, h, d, layout="interleaved", max_len=64):
    """An encoder block with absolute sinusoidal positions, as a TOSA
    exporter writes it: x + pe (interleaved: the PyTorch tutorial's buffer
    [max_len, H*D] as a constant, sliced to S rows; half: tensor2tensor's
    concat(sin, cos) of positions times inverse timescales computed in the
    graph), the q/k/v projections as tosa.matmul with weight arguments,
    non-causal attention.

    Signature: (x [1,S,H*D], wq, wk, wv [1,H*D,H*D]) -> [1,S,H*D]."""
    t = _Tosa()
    dm = h * d
    if layout == "interleaved":
        table = t.const(torch_tutorial_pe(max_len, dm), [max_len, dm])
        table = t.slice(table, [max_len, dm], [0, 0], [s, dm])
    else:
        pos = t.const(np.arange(s, dtype=np.float32), [s, 1])
        inv = (np.float32(10000.0) ** (-np.arange(0, dm, 2, dtype=np.float32) / dm))
        inv_c = t.const(inv.astype(np.float32), [1, dm // 2])
        ang = t.mul(pos, [s, 1], inv_c, [1, dm // 2], [s, dm // 2])
        table, _ = t.concat(t.unary("sin", ang, [s, dm // 2]),
                            t.unary("cos", ang, [s, dm // 2]), [s, dm // 2], 1)
    table = t.reshape(table, [s, dm], [1, s, dm])
    x = t.binary("add", "%x", [1, s, dm], table, [1, s, dm], [1, s, dm])
    proj = {}
    for name in "qkv":
        p, _ = t.matmul(x, [1, s, dm], f"%w{name}", [1, dm, dm])
        proj[name] = _heads(t, p, s, h, d)
    out = _attention_core(t, proj["q"], proj["k"], proj["v"], s, h, d,
                          1.0 / math.sqrt(d), None)
    ty = _Tosa.ty
    w = ty([1, dm, dm])
    return (f"func.func @encoder_block(%x: {ty([1, s, dm])}, %wq: {w}, %wk: {w}, "
            f"%wv: {w}) -> {ty([1, s, dm])} {{\n" + "\n".join(t.lines)
            + f"\n    return {out} : {ty([1, s, dm])}\n}}\n")


def half_attention_block(s, h, d, elem="f16", causal=True):
    """Attention on f16/bf16 tensors as HuggingFace runs it in half
    precision and a TOSA exporter writes it: the products and the scale in
    `elem`, the additive causal mask holding finfo(elem).min, then
    softmax(dtype=float32).to(elem) (tosa.cast to f32 and back), the second
    product in `elem`.

    Signature: (q, k, v [1,H,S,D] elem) -> [1,H,S,D] elem."""
    t = _Tosa()
    ty = _Tosa.ty
    lowest = {"f16": -65504.0, "bf16": -3.3895313892515355e38}[elem]

    def const(value, shape):
        return t.op(f'"tosa.const"() {{values = dense<{value!r}> : '
                    f'{ty(shape, elem)}}} : ()', ty(shape, elem))

    def zp():
        return t.op(f'"tosa.const"() {{values = dense<0.0> : {ty([1], elem)}}} : ()',
                    ty([1], elem))

    def reshape(x, xs, shape):
        sh = t.shape(shape)
        return t.op(f"tosa.reshape {x}, {sh} : ({ty(xs, elem)}, "
                    f"!tosa.shape<{len(shape)}>)", ty(shape, elem))

    q3 = reshape("%q", [1, h, s, d], [h, s, d])
    kt = t.op(f"tosa.transpose %k {{perms = array<i32: 0, 1, 3, 2>}} : "
              f"({ty([1, h, s, d], elem)})", ty([1, h, d, s], elem))
    k3 = reshape(kt, [1, h, d, s], [h, d, s])
    z = zp()
    sc = t.op(f"tosa.matmul {q3}, {k3}, {z}, {z} : ({ty([h, s, d], elem)}, "
              f"{ty([h, d, s], elem)}, {ty([1], elem)}, {ty([1], elem)})",
              ty([h, s, s], elem))
    shift = t.op('"tosa.const"() {values = dense<0> : tensor<1xi8>} : ()', "tensor<1xi8>")
    sc = t.op(f"tosa.mul {sc}, {const(1.0 / math.sqrt(d), [1, 1, 1])}, {shift} : "
              f"({ty([h, s, s], elem)}, {ty([1, 1, 1], elem)}, tensor<1xi8>)",
              ty([h, s, s], elem))
    if causal:
        mask = np.where(np.arange(s)[None, :] > np.arange(s)[:, None], lowest, 0.0)
        text = np.array2string(mask.reshape(1, s, s), separator=", ",
                               threshold=1 << 30, max_line_width=1 << 30)
        mc = t.op(f'"tosa.const"() {{values = dense<{text}> : {ty([1, s, s], elem)}}} : ()',
                  ty([1, s, s], elem))
        sc = t.op(f"tosa.add {sc}, {mc} : ({ty([h, s, s], elem)}, {ty([1, s, s], elem)})",
                  ty([h, s, s], elem))
    s32 = t.op(f"tosa.cast {sc} : ({ty([h, s, s], elem)})", ty([h, s, s]))
    shape = [h, s, s]
    mx, red = t.reduce("reduce_max", s32, shape, 2)
    e = t.unary("exp", t.binary("sub", s32, shape, mx, red, shape), shape)
    total, _ = t.reduce("reduce_sum", e, shape, 2)
    p = t.mul(e, shape, t.unary("reciprocal", total, red), red, shape)
    p16 = t.op(f"tosa.cast {p} : ({ty(shape)})", ty(shape, elem))
    v3 = reshape("%v", [1, h, s, d], [h, s, d])
    z2 = zp()
    out = t.op(f"tosa.matmul {p16}, {v3}, {z2}, {z2} : ({ty(shape, elem)}, "
               f"{ty([h, s, d], elem)}, {ty([1], elem)}, {ty([1], elem)})",
               ty([h, s, d], elem))
    res = reshape(out, [h, s, d], [1, h, s, d])
    arg = ty([1, h, s, d], elem)
    return (f"func.func @half_attention(%q: {arg}, %k: {arg}, %v: {arg}) -> {arg} {{\n"
            + "\n".join(t.lines) + f"\n    return {res} : {arg}\n}}\n")


def rope_partial(h, s, d, rotary_dim, inv_freq):
    """GPT-NeoX/Phi partial rotary as an exporter writes it: q_rot =
    x[..., :R] rotated by HuggingFace's apply_rotary_pos_emb (tables of
    width R), concatenated with q_pass = x[..., R:]. (x [1,H,S,D],
    position_ids [1,S]) -> [1,H,S,D]."""
    t = _Tosa()
    r = rotary_dim
    shape = [1, h, s, d]
    rot_shape = [1, h, s, r]
    x_rot = t.slice("%x", shape, [0, 0, 0, 0], rot_shape)
    x_pass = t.slice("%x", shape, [0, 0, 0, r], [1, h, s, d - r])
    cos, sin = _rope_tables(t, "%pos", s, r, inv_freq)
    rotated = _apply_rope(t, x_rot, rot_shape, cos, sin)
    out = t.op(f"tosa.concat {rotated}, {x_pass} {{axis = 3 : i32}} : "
               f"({t.ty(rot_shape)}, {t.ty([1, h, s, d - r])})", t.ty(shape))
    ty = _Tosa.ty
    return (f"(%x: {ty(shape)}, %pos: {ty([1, s], 'i32')}) -> {ty(shape)} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty(shape)}\n}}\n")


class _Typed:
    """The ops of `_Tosa` on another element type, writing into the same
    program (the table ops stay f32 on the base builder)."""

    def __init__(self, base, elem):
        self.base, self.elem = base, elem

    def __getattr__(self, name):
        return getattr(self.base, name)

    def ty(self, shape, elem=None):
        return _Tosa.ty(shape, elem or self.elem)

    mul, slice, concat, binary = _Tosa.mul, _Tosa.slice, _Tosa.concat, _Tosa.binary

    def negate(self, x, shape):
        zp = self.op(f'"tosa.const"() {{values = dense<0.0> : tensor<1x{self.elem}>}} : ()',
                     f"tensor<1x{self.elem}>")
        return self.op(f"tosa.negate {x}, {zp}, {zp} : ({self.ty(shape)}, "
                       f"tensor<1x{self.elem}>, tensor<1x{self.elem}>)", self.ty(shape))


def rope_half_precision(h, s, d, inv_freq, elem="f16"):
    """HuggingFace's apply_rotary_pos_emb in a half-precision model: cos/sin
    computed in f32 from the position_ids, cast to the model's type
    (`cos.to(x.dtype)`), then x * cos + rotate_half(x) * sin in that type.
    (x [1,H,S,D] elem, position_ids [1,S]) -> [1,H,S,D] elem."""
    t = _Tosa()
    shape = [1, h, s, d]
    cos, sin = _rope_tables(t, "%pos", s, d, inv_freq)
    table = [1, 1, s, d]
    cos = t.unary("cast", cos, table, out_elem=elem)
    sin = t.unary("cast", sin, table, out_elem=elem)
    out = _apply_rope(_Typed(t, elem), "%x", shape, cos, sin)
    ty = _Tosa.ty
    return (f"(%x: {ty(shape, elem)}, %pos: {ty([1, s], 'i32')}) -> {ty(shape, elem)} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty(shape, elem)}\n}}\n")


def rope_expanded(h, s, d, inv_freq, swapped=False):
    """The half layout written without rotate_half: concat(x1*cos - x2*sin,
    x2*cos + x1*sin), x1 = x[..., :D/2], x2 = x[..., D/2:], cos/sin of
    f = float(pos) * inv_freq ([S, D/2], not duplicated). `swapped` writes
    (x1*cos + x2*sin, x2*cos - x1*sin): the other direction.
    (x [1,H,S,D], position_ids [1,S]) -> [1,H,S,D]."""
    t = _Tosa()
    shape = [1, h, s, d]
    half = [1, h, s, d // 2]
    x1 = t.slice("%x", shape, [0, 0, 0, 0], half)
    x2 = t.slice("%x", shape, [0, 0, 0, d // 2], half)
    inv = t.const(inv_freq, [1, 1, d // 2])
    p3 = t.reshape("%pos", [1, s], [1, s, 1], "i32")
    pf = t.unary("cast", p3, [1, s, 1], elem="i32")
    f = t.mul(pf, [1, s, 1], inv, [1, 1, d // 2], [1, s, d // 2])
    cos = t.reshape(t.unary("cos", f, [1, s, d // 2]), [1, s, d // 2], [1, 1, s, d // 2])
    sin = t.reshape(t.unary("sin", f, [1, s, d // 2]), [1, s, d // 2], [1, 1, s, d // 2])
    table = [1, 1, s, d // 2]
    x1c, x2s = t.mul(x1, half, cos, table, half), t.mul(x2, half, sin, table, half)
    x2c, x1s = t.mul(x2, half, cos, table, half), t.mul(x1, half, sin, table, half)
    first = t.binary("add" if swapped else "sub", x1c, half, x2s, half, half)
    second = t.binary("sub" if swapped else "add", x2c, half, x1s, half, half)
    out, _ = t.concat(first, second, half, 3)
    ty = _Tosa.ty
    return (f"(%x: {ty(shape)}, %pos: {ty([1, s], 'i32')}) -> {ty(shape)} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty(shape)}\n}}\n")


def hf_cos_sin(inv_freq, positions):
    """HuggingFace's cos/sin [S, D] in float32 (emb = cat(freqs, freqs))."""
    freqs = (np.asarray(positions, np.float32)[:, None]
             * np.asarray(inv_freq, np.float32)[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def rope_constant_tables(h, s, d, inv_freq, start=0):
    """apply_rotary_pos_emb with cos/sin as dense constants [1, 1, S, D] (the
    exporter folded them: static positions start..start+S-1). (x [1,H,S,D])
    -> [1,H,S,D]."""
    t = _Tosa()
    cos, sin = hf_cos_sin(inv_freq, np.arange(start, start + s))
    out = _apply_rope(t, "%x", [1, h, s, d], t.const(cos, [1, 1, s, d]),
                      t.const(sin, [1, 1, s, d]))
    ty = _Tosa.ty
    return (f"(%x: {ty([1, h, s, d])}) -> {ty([1, h, s, d])} {{\n"
            + "\n".join(t.lines) + f"\n    return {out} : {ty([1, h, s, d])}\n}}\n")
