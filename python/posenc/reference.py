"""Independent numpy reference for the posenc ops.

This module is the executable form of ``docs/spec.md`` (the semantics
contract; read it for the math, the layouts and the tolerances). It is written
from the math in docs/spec.md (and, where the spec defers to them, the
HuggingFace rope utilities) and MUST NEVER be derived from, or edited to
agree with, the C++ lowerings in this repository: its whole value is that it
is an independent second implementation. If the compiler and this file
disagree, settle the question against docs/spec.md, not against the C++.

Conventions
-----------
* Everything is computed in float64; every function returns float64 arrays
  (callers cast to the element type under test).
* Tensors are row-major; ``D`` is the last dim, ``S`` the second to last;
  leading dims broadcast numpy-style.
* Errors (bad shapes / attributes) raise ``ValueError``.

Choices made where the contract leaves room (all stated in docs/spec.md):
* ``rope`` takes ``layout`` as a required argument (no default).
* ``rope`` positions are ``[S]`` (broadcast over leading dims); any other
  shape is broadcast numpy-style against ``x.shape[:-1]``.
* ``dynamic`` / ``longrope`` use ``L = max(positions) + 1`` as the sequence length.
* YaRN clamps exactly as HF ``find_correction_range``: ``low = max(low, 0)``,
  ``high = min(high, R - 1)``; the ramp uses HF's ``if low == high: high += 0.001``.
* ``attention_factor`` multiplies cos and sin of the rotated dims only; dims
  ``>= rotary_dim`` pass through unscaled. Precedence: the op's
  ``attention_factor`` > ``scaling["attention_factor"]`` > the kind's default
  (yarn: ``0.1*ln(factor)+1`` if factor > 1 else 1; everything else 1).
* In ``attention`` / ``rel_pos_attention`` / ``xl_attention`` a score of
  ``-inf`` (from the causal mask or from the bias) is a masked key; a row with
  every key masked gives 0.
"""

import math

import numpy as np

__all__ = [
    "sinusoidal",
    "rope_inv_freq",
    "rope_attention_factor",
    "rope",
    "xpos_decay",
    "alibi_slopes",
    "alibi_bias",
    "t5_bucket",
    "t5_bias",
    "attention",
    "rel_pos_attention",
    "xl_attention",
    "deberta_bucket",
    "disentangled_attention",
]

_LAYOUTS = ("interleaved", "half")
_SCALING_KINDS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
_REQUIRED = object()


def _check_layout(layout):
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")


def _f64(a):
    return np.asarray(a, dtype=np.float64)


# ---------------------------------------------------------------------------
# posenc.sinusoidal
# ---------------------------------------------------------------------------

def sinusoidal(positions, dim, base=10000.0, layout="interleaved"):
    """Absolute sinusoidal table, ``[S, D]``.

    theta[s, p] = pos[s] * base^(-2p/D), p in [0, D/2).
    interleaved: out[s, 2p] = sin, out[s, 2p+1] = cos.
    half:        out[s, p]  = sin, out[s, p+D/2] = cos.
    """
    _check_layout(layout)
    dim = int(dim)
    if dim <= 0 or dim % 2:
        raise ValueError(f"dim ({dim}) must be positive and even")
    pos = _f64(positions)
    if pos.ndim != 1:
        raise ValueError(f"positions must be rank 1 [S], got shape {pos.shape}")
    half = dim // 2
    p = np.arange(half, dtype=np.float64)
    inv_freq = float(base) ** (-2.0 * p / dim)
    theta = pos[:, None] * inv_freq[None, :]
    out = np.empty((pos.shape[0], dim), dtype=np.float64)
    if layout == "interleaved":
        out[:, 0::2] = np.sin(theta)
        out[:, 1::2] = np.cos(theta)
    else:
        out[:, :half] = np.sin(theta)
        out[:, half:] = np.cos(theta)
    return out


# ---------------------------------------------------------------------------
# posenc.rope
# ---------------------------------------------------------------------------

def _scaling_kind(scaling):
    if scaling is None:
        return "none"
    kind = scaling.get("kind", "none")
    if kind not in _SCALING_KINDS:
        raise ValueError(f"unknown scaling kind {kind!r}; expected one of {_SCALING_KINDS}")
    return kind


def _get(scaling, key, default=_REQUIRED):
    if key in scaling and scaling[key] is not None:
        return scaling[key]
    if default is _REQUIRED:
        raise ValueError(f"scaling kind {scaling.get('kind')!r} requires {key!r}")
    return default


def _yarn_default_attention_factor(factor):
    # HuggingFace get_mscale(scale, mscale=1).
    if factor <= 1.0:
        return 1.0
    return 0.1 * math.log(factor) + 1.0


def rope_inv_freq(rotary_dim, base=10000.0, scaling=None, seq_len=None):
    """Per-pair inverse frequencies ``[R/2]`` after ``scaling``.

    ``seq_len`` (L) is needed by ``dynamic`` and ``longrope``; ``rope`` passes
    ``max(positions) + 1``.
    """
    R = int(rotary_dim)
    if R < 0 or R % 2:
        raise ValueError(f"rotary_dim ({R}) must be even and >= 0")
    base = float(base)
    kind = _scaling_kind(scaling)
    p = np.arange(R // 2, dtype=np.float64)
    expo = 2.0 * p / R if R else p  # 2p/R

    def plain(b):
        return b ** (-expo)

    if kind == "none":
        return plain(base)

    if kind == "linear":
        factor = float(_get(scaling, "factor"))
        return plain(base) / factor

    if kind == "ntk":
        factor = float(_get(scaling, "factor"))
        if R <= 2:
            raise ValueError(f"ntk scaling needs rotary_dim > 2, got {R}")
        return plain(base * factor ** (R / (R - 2)))

    if kind == "dynamic":
        factor = float(_get(scaling, "factor"))
        orig = float(_get(scaling, "original_max_position"))
        if seq_len is None:
            raise ValueError("dynamic scaling needs seq_len")
        if R <= 2:
            raise ValueError(f"dynamic scaling needs rotary_dim > 2, got {R}")
        L = max(float(seq_len), orig)
        new_base = base * (factor * L / orig - (factor - 1.0)) ** (R / (R - 2))
        return plain(new_base)

    if kind == "yarn":
        factor = float(_get(scaling, "factor"))
        orig = float(_get(scaling, "original_max_position"))
        beta_fast = float(_get(scaling, "beta_fast", 32.0))
        beta_slow = float(_get(scaling, "beta_slow", 1.0))
        inv_extrap = plain(base)
        inv_interp = inv_extrap / factor

        def correction_dim(num_rot):
            return R * math.log(orig / (num_rot * 2.0 * math.pi)) / (2.0 * math.log(base))

        low = max(math.floor(correction_dim(beta_fast)), 0)
        high = min(math.ceil(correction_dim(beta_slow)), R - 1)
        low, high = float(low), float(high)
        if low == high:
            high += 0.001
        ramp = np.clip((p - low) / (high - low), 0.0, 1.0)
        return inv_interp * ramp + inv_extrap * (1.0 - ramp)

    if kind == "llama3":
        factor = float(_get(scaling, "factor", 8.0))
        low_ff = float(_get(scaling, "low_freq_factor", 1.0))
        high_ff = float(_get(scaling, "high_freq_factor", 4.0))
        orig = float(_get(scaling, "original_max_position", 8192))
        inv = plain(base)
        wavelen = 2.0 * math.pi / inv
        low_freq_wavelen = orig / low_ff
        high_freq_wavelen = orig / high_ff
        out = inv.copy()
        low_band = wavelen > low_freq_wavelen
        out[low_band] = inv[low_band] / factor
        mid = ~(wavelen < high_freq_wavelen) & ~low_band
        smooth = (orig / wavelen[mid] - low_ff) / (high_ff - low_ff)
        out[mid] = (1.0 - smooth) * inv[mid] / factor + smooth * inv[mid]
        return out

    if kind == "longrope":
        orig = float(_get(scaling, "original_max_position"))
        if seq_len is None:
            raise ValueError("longrope scaling needs seq_len")
        key = "long_factor" if float(seq_len) > orig else "short_factor"
        ext = _f64(_get(scaling, key))
        if ext.shape != (R // 2,):
            raise ValueError(f"longrope {key} must have R/2 = {R // 2} entries, got shape {ext.shape}")
        return 1.0 / (ext * base ** expo)

    raise AssertionError(kind)  # unreachable


def rope_attention_factor(scaling, attention_factor=None):
    """Factor multiplying cos and sin: the op's attribute, else the scaling's
    ``attention_factor``, else the kind's default (yarn: get_mscale(factor)), else 1."""
    if attention_factor is not None:
        return float(attention_factor)
    kind = _scaling_kind(scaling)
    if kind == "none":
        return 1.0
    if scaling.get("attention_factor") is not None:
        return float(scaling["attention_factor"])
    if kind == "yarn":
        return _yarn_default_attention_factor(float(_get(scaling, "factor")))
    return 1.0


def xpos_decay(positions, rotary_dim, xpos):
    """xPos decay (SPEC.md "xPos"), ``[..., S, R/2]`` for positions ``[..., S]``:
    zeta_p ** (s * (pos - center) / scale_base) with zeta_p = (2p/R + gamma) /
    (1 + gamma), s = +1 for role "query", -1 for "key". ``xpos`` is a dict
    ``{"role", "scale_base" (512), "gamma" (0.4), "center" (0)}``."""
    role = xpos.get("role")
    if role not in ("query", "key"):
        raise ValueError(f"xpos role must be 'query' or 'key', got {role!r}")
    scale_base = float(xpos.get("scale_base", 512.0))
    gamma = float(xpos.get("gamma", 0.4))
    center = float(xpos.get("center", 0))
    if not (math.isfinite(scale_base) and scale_base > 0):
        raise ValueError(f"xpos scale_base must be finite and > 0, got {scale_base}")
    R = int(rotary_dim)
    p = np.arange(R // 2, dtype=np.float64)
    zeta = (2.0 * p / R + gamma) / (1.0 + gamma)
    if not (math.isfinite(gamma) and np.all(zeta > 0)):
        raise ValueError(f"xpos gamma ({gamma}) must make every zeta_p > 0")
    sign = 1.0 if role == "query" else -1.0
    exponent = sign * (_f64(positions) - center) / scale_base
    return zeta ** exponent[..., None]


def rope(x, positions, layout, base=10000.0, rotary_dim=None, scaling=None,
         attention_factor=None, xpos=None):
    """Rotary position embedding; ``x`` is ``[..., S, D]``, returns the same shape.

    Pair p in [0, R/2): interleaved (x[2p], x[2p+1]); half (x[p], x[p+R/2]).
    (a, b) -> af * (a cos - b sin, a sin + b cos), theta = pos * inv_freq[p].
    ``positions`` is ``[S]`` (broadcast over the leading dims), per batch
    ``[B, S]`` when ``x`` is ``[B, ..., S, D]`` (row b for batch b, broadcast
    over the dims between B and S: SPEC.md "per-batch positions"), or any
    shape that broadcasts (numpy rules) to ``x.shape[:-1]``.
    ``xpos`` (dict, see ``xpos_decay``): after the rotation both elements of
    pair p are multiplied by the xPos decay of their position.
    """
    _check_layout(layout)
    x = _f64(x)
    if x.ndim < 2:
        raise ValueError(f"input must have rank >= 2 [..., S, D], got shape {x.shape}")
    S, D = x.shape[-2], x.shape[-1]
    R = D if rotary_dim is None else int(rotary_dim)
    if R < 0 or R % 2 or R > D:
        raise ValueError(f"rotary_dim ({R}) must be even and <= head dim ({D})")
    pos = _f64(positions)
    if pos.ndim == 2 and x.ndim >= 3:
        if pos.shape[0] not in (1, x.shape[0]) or pos.shape[1] != S:
            raise ValueError(f"per-batch positions {pos.shape} must be [B, S] = "
                             f"[{x.shape[0]}, {S}]")
        pos = pos.reshape((pos.shape[0],) + (1,) * (x.ndim - 3) + (S,))
    if pos.ndim == 1:
        if pos.shape[0] != S:
            raise ValueError(f"positions has {pos.shape[0]} entries, input has S = {S}")
    else:
        try:
            np.broadcast_shapes(pos.shape, x.shape[:-1])
        except ValueError:
            raise ValueError(
                f"positions shape {pos.shape} does not broadcast to {x.shape[:-1]}") from None
    seq_len = (float(pos.max()) + 1.0) if pos.size else 0.0
    inv_freq = rope_inv_freq(R, base, scaling, seq_len)
    af = rope_attention_factor(scaling, attention_factor)
    theta = pos[..., None] * inv_freq  # [..., S, R/2]
    c = np.cos(theta) * af
    s = np.sin(theta) * af
    if xpos is not None:
        # Both outputs of a pair are linear in (c, s): scaling both scales the pair.
        decay = xpos_decay(pos, R, xpos)
        c = c * decay
        s = s * decay
    out = x.copy()
    h = R // 2
    if layout == "interleaved":
        a, b = x[..., 0:R:2], x[..., 1:R:2]
        out[..., 0:R:2] = a * c - b * s
        out[..., 1:R:2] = a * s + b * c
    else:
        a, b = x[..., 0:h], x[..., h:R]
        out[..., 0:h] = a * c - b * s
        out[..., h:R] = a * s + b * c
    return out


def rope_table(x, cos, sin, layout):
    """The table form of RoPE (SPEC.md, "posenc.rope — table form"): ``x`` is
    ``[..., S, D]``; ``cos`` and ``sin`` are ``[..., S, R]`` and broadcast
    against ``x`` (numpy rules on the leading dims); R is their last dim.
    Every element of the rotated part reads its own column of the tables
    (no assumption that their halves are equal):

    - half: out[p] = x[p] cos[p] - x[p+R/2] sin[p],
      out[p+R/2] = x[p+R/2] cos[p+R/2] + x[p] sin[p+R/2]  (p < R/2);
    - interleaved: out[2p] = x[2p] cos[2p] - x[2p+1] sin[2p],
      out[2p+1] = x[2p+1] cos[2p+1] + x[2p] sin[2p+1];
    - dims >= R pass through.

    In float64; returns an array of x's shape.
    """
    _check_layout(layout)
    x, c, s = _f64(x), _f64(cos), _f64(sin)
    if x.ndim < 2 or c.ndim < 2 or c.shape != s.shape:
        raise ValueError(f"x {x.shape}, cos {c.shape}, sin {s.shape}: need rank >= 2 "
                         f"and cos, sin of one shape")
    D, R = x.shape[-1], c.shape[-1]
    if R % 2 or R > D or c.shape[-2] != x.shape[-2]:
        raise ValueError(f"tables [..., {c.shape[-2]}, {R}] do not fit x [..., "
                         f"{x.shape[-2]}, {D}] (R even, <= D; same S)")
    xr = x[..., :R]
    if layout == "half":
        h = R // 2
        # rotate_half: (-x2, x1)
        rotated = np.concatenate([-xr[..., h:], xr[..., :h]], axis=-1)
    else:
        # pairs (x[2p], x[2p+1]) -> (-x[2p+1], x[2p])
        rotated = np.empty_like(xr)
        rotated[..., 0::2] = -xr[..., 1::2]
        rotated[..., 1::2] = xr[..., 0::2]
    out = np.array(np.broadcast_to(x, np.broadcast_shapes(x.shape, c.shape[:-1] + (D,))))
    out[..., :R] = xr * c + rotated * s
    return out


# ---------------------------------------------------------------------------
# posenc.alibi_bias
# ---------------------------------------------------------------------------

def alibi_slopes(num_heads, max_bias=8.0):
    """ALiBi slopes for a model with ``num_heads`` heads, ``[num_heads]``."""
    n = int(num_heads)
    if n <= 0:
        raise ValueError(f"num_heads ({n}) must be positive")
    max_bias = float(max_bias)

    def pow2_slopes(m):
        h = np.arange(m, dtype=np.float64)
        return 2.0 ** (-max_bias * (h + 1.0) / m)

    if n & (n - 1) == 0:
        return pow2_slopes(n)
    c = 1 << (n.bit_length() - 1)  # largest power of two below n
    return np.concatenate([pow2_slopes(c), pow2_slopes(2 * c)[0::2][: n - c]])


def alibi_bias(num_local_heads, sq, sk, max_bias=8.0, num_heads=None, head_offset=0,
               symmetric=False, slopes=None, batch_shape=()):
    """ALiBi bias ``[*batch_shape, H, Sq, Sk]``.

    Query i sits at i + (Sk - Sq). Default: slope * (j - i'); symmetric:
    -slope * |j - i'|. Head h uses slope[head_offset + h] unless ``slopes`` is given.
    """
    H, sq, sk = int(num_local_heads), int(sq), int(sk)
    if H <= 0 or sq < 0 or sk < 0:
        raise ValueError(f"bad sizes H={H}, Sq={sq}, Sk={sk}")
    if slopes is not None:
        sl = _f64(slopes)
        if sl.shape != (H,):
            raise ValueError(f"slopes must have shape ({H},), got {sl.shape}")
    else:
        n = H if num_heads is None else int(num_heads)
        off = int(head_offset)
        if off < 0 or off + H > n:
            raise ValueError(
                f"head_offset ({off}) + heads ({H}) must be <= num_heads ({n})")
        sl = alibi_slopes(n, max_bias)[off:off + H]
    i = np.arange(sq, dtype=np.float64)[:, None] + (sk - sq)
    j = np.arange(sk, dtype=np.float64)[None, :]
    rel = j - i
    if symmetric:
        bias = -sl[:, None, None] * np.abs(rel)[None]
    else:
        bias = sl[:, None, None] * rel[None]
    return np.broadcast_to(bias, tuple(batch_shape) + bias.shape).copy()


# ---------------------------------------------------------------------------
# posenc.t5_bias
# ---------------------------------------------------------------------------

def t5_bucket(n, num_buckets, max_distance=128, bidirectional=False):
    """T5's bucket of the relative distances ``n = j - i'`` (int array), as
    docs/spec.md states it: with ``nb = NB`` (``NB / 2`` and an offset of
    ``nb`` for ``n > 0`` when bidirectional, ``n = |n|``; else
    ``n = max(-n, 0)``) and ``e = nb / 2``: ``n`` if ``n < e``, else
    ``min(nb - 1, e + trunc(log(n / e) / log(max_distance / e) * (nb - e)))``
    in float32 arithmetic (the f32 logarithm correctly rounded: float64 log
    rounded to float32)."""
    n = np.asarray(n, dtype=np.int64)
    nb = int(num_buckets)
    if bidirectional:
        nb //= 2
    e = nb // 2
    if e < 1 or int(max_distance) <= e:
        raise ValueError(f"need NB/2 >= 1 exact buckets and max_distance > {e}, got "
                         f"num_buckets={num_buckets}, max_distance={max_distance}")
    if bidirectional:
        start = np.where(n > 0, nb, 0)
        n = np.abs(n)
    else:
        start = np.zeros_like(n)
        n = np.maximum(-n, 0)
    f32 = np.float32
    ratio = np.maximum(n, e).astype(f32) / f32(e)
    log_ratio = np.log(ratio.astype(np.float64)).astype(f32)
    steps = (log_ratio / f32(math.log(int(max_distance) / e))) * f32(nb - e)
    large = np.minimum(nb - 1, e + np.trunc(steps).astype(np.int64))
    return start + np.where(n < e, n, large)


def t5_bias(table, sq, sk, max_distance=128, bidirectional=False, batch_shape=()):
    """T5 relative attention bias ``[*batch_shape, H, Sq, Sk]`` from
    ``table [NB, H]``: ``bias[h, i, j] = table[bucket(j - i'), h]`` with
    i' = i + (Sk - Sq)."""
    t = _f64(table)
    if t.ndim != 2:
        raise ValueError(f"table must be [NB, H], got shape {t.shape}")
    sq, sk = int(sq), int(sk)
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    buckets = t5_bucket(j - i, t.shape[0], max_distance, bidirectional)
    bias = np.moveaxis(t[buckets], -1, 0)  # [H, Sq, Sk]
    return np.broadcast_to(bias, tuple(batch_shape) + bias.shape).copy()


# ---------------------------------------------------------------------------
# posenc.attention / posenc.rel_pos_attention
# ---------------------------------------------------------------------------

def _causal_mask(sq, sk):
    """True where key j is masked for query i: j > i + (Sk - Sq)."""
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    return j > i


def _softmax_rows(s):
    """Softmax over the last axis with max subtraction; rows that are all -inf give 0."""
    m = np.max(s, axis=-1, keepdims=True) if s.shape[-1] else np.full(s.shape[:-1] + (1,), -np.inf)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(s - m)
    denom = np.sum(e, axis=-1, keepdims=True)
    safe = np.where(denom > 0, denom, 1.0)
    return np.where(denom > 0, e / safe, 0.0)


def _kv_length_mask(kv_lengths, q_shape, sk, causal):
    """True where key j is masked for batch b, query i, over a KV cache:
    j >= len[b] (the key does not exist), or (causal) j > i + (len[b] - Sq).
    Shape [B, 1, ..., 1, Sq, Sk], broadcasting against the scores."""
    lengths = np.asarray(kv_lengths)
    if lengths.dtype.kind not in "iu":
        raise ValueError(f"kv_lengths must be integers, got {lengths.dtype}")
    if len(q_shape) < 4 or lengths.shape != (q_shape[0],):
        raise ValueError(f"kv_lengths must have shape [B] = [{q_shape[0]}] for a query "
                         f"[B, ..., Hq, Sq, D] (rank >= 4), got {lengths.shape} for {q_shape}")
    if np.any(lengths < 0) or np.any(lengths > sk):
        raise ValueError(f"kv_lengths {lengths.tolist()} must lie in [0, Sk = {sk}]")
    sq = q_shape[-2]
    length = lengths.astype(np.int64).reshape((-1,) + (1,) * (len(q_shape) - 2))
    j = np.arange(sk)
    i = np.arange(sq)[:, None]
    mask = j >= length[..., None]
    if causal:
        mask = mask | (j > i + (length[..., None] - sq))
    return mask


def attention(q, k, v, bias=None, scale=None, causal=False, kv_lengths=None):
    """Scaled dot-product attention with GQA, ``[..., Hq, Sq, Dv]``.

    With ``kv_lengths`` ``[B]`` (attention over a KV cache, SPEC.md): for
    batch b only keys j < kv_lengths[b] exist and the causal alignment is at
    that length (query i sits at i + kv_lengths[b] - Sq); a row with no key
    gives zeros.
    """
    q, k, v = _f64(q), _f64(k), _f64(v)
    if q.ndim < 3 or k.ndim < 3 or v.ndim < 3:
        raise ValueError("query/key/value must have rank >= 3 [..., H, S, D]")
    Hq, Sq, D = q.shape[-3:]
    Hkv, Sk, Dk = k.shape[-3:]
    if Dk != D:
        raise ValueError(f"key head dim ({Dk}) must equal query head dim ({D})")
    if v.shape[-3] != Hkv or v.shape[-2] != Sk:
        raise ValueError(f"value shape {v.shape} does not match key shape {k.shape}")
    if Hkv <= 0 or Hq % Hkv:
        raise ValueError(f"query heads ({Hq}) must be a multiple of kv heads ({Hkv})")
    g = Hq // Hkv
    k = np.repeat(k, g, axis=-3)  # query head h reads kv head h // g
    v = np.repeat(v, g, axis=-3)
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    s = float(scale) * np.matmul(q, np.swapaxes(k, -1, -2))
    if bias is not None:
        s = s + _f64(bias)
    if kv_lengths is not None:
        s = np.where(_kv_length_mask(kv_lengths, q.shape, Sk, causal), -np.inf, s)
        # Keys past the length do not exist: their rows of V (whatever the
        # cache holds there, NaN or inf included) take no part, not even as
        # 0 x v. The non-causal mask is [B, 1, ..., 1, Sk]; as V's rows,
        # [B, 1, ..., Sk, 1].
        missing = _kv_length_mask(kv_lengths, q.shape, Sk, causal=False)
        v = np.where(np.swapaxes(missing, -1, -2), 0.0, v)
    elif causal:
        s = np.where(_causal_mask(Sq, Sk), -np.inf, s)
    p = _softmax_rows(s)
    return np.matmul(p, v)


def rel_pos_attention(q, k, v, rel_key, rel_value=None, scale=None, causal=False):
    """Shaw et al. relative-position attention, ``[..., Sq, Dv]`` (naive form).

    r(i, j) = clamp(j - i', -K, K) + K, i' = i + (Sk - Sq);
    e = scale * q_i . (k_j + rel_key[r]); out_i = sum_j p (v_j + rel_value[r]).
    """
    q, k, v, rk = _f64(q), _f64(k), _f64(v), _f64(rel_key)
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("query/key/value must have rank >= 2 [..., S, D]")
    Sq, D = q.shape[-2:]
    Sk = k.shape[-2]
    if k.shape[-1] != D:
        raise ValueError(f"key head dim ({k.shape[-1]}) must equal query head dim ({D})")
    if v.shape[-2] != Sk:
        raise ValueError(f"value has {v.shape[-2]} keys, key has {Sk}")
    Dv = v.shape[-1]
    if rk.ndim != 2 or rk.shape[0] % 2 != 1 or rk.shape[1] != D:
        raise ValueError(f"rel_key must be [(2K+1), {D}], got {rk.shape}")
    K = (rk.shape[0] - 1) // 2
    i = np.arange(Sq)[:, None] + (Sk - Sq)
    j = np.arange(Sk)[None, :]
    r = np.clip(j - i, -K, K) + K  # [Sq, Sk]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    e = np.matmul(q, np.swapaxes(k, -1, -2)) + np.einsum("...id,ijd->...ij", q, rk[r])
    e = float(scale) * e
    if causal:
        e = np.where(_causal_mask(Sq, Sk), -np.inf, e)
    p = _softmax_rows(e)
    out = np.matmul(p, v)
    if rel_value is not None:
        rv = _f64(rel_value)
        if rv.shape != (2 * K + 1, Dv):
            raise ValueError(f"rel_value must be [{2 * K + 1}, {Dv}], got {rv.shape}")
        out = out + np.einsum("...ij,ijd->...id", p, rv[r])
    return out


# ---------------------------------------------------------------------------
# posenc.xl_attention (Transformer-XL / XLNet, Dai et al.)
# ---------------------------------------------------------------------------

def xl_attention(q, k, v, rel, content_bias, position_bias, scale=None, causal=False):
    """Transformer-XL / XLNet relative attention, ``[..., H, Sq, Dv]`` (naive form).

    Query i sits at i' = i + (Sk - Sq); the distance d = i' - j lies in
    [1 - Sq, Sk - 1] and reads row t = d + Sq - 1 of ``rel`` ``[[H,] L, D]``,
    L = Sq + Sk - 1. With u = content_bias[h], v = position_bias[h] ``[H, D]``:
    e[i, j] = scale * ((q_i + u) . k_j + (q_i + v) . rel[(h,) t]);
    causal masks j > i'; p = softmax_j(e) (a row with every key masked gives
    0); out_i = sum_j p[i, j] v_j.
    """
    q, k, v, rel = _f64(q), _f64(k), _f64(v), _f64(rel)
    u, pb = _f64(content_bias), _f64(position_bias)
    if q.ndim < 3 or k.ndim != q.ndim or v.ndim != q.ndim:
        raise ValueError("query/key/value must have one rank >= 3 [..., H, S, D]")
    H, Sq, D = q.shape[-3:]
    Sk = k.shape[-2]
    if k.shape[-3] != H or v.shape[-3] != H:
        raise ValueError(f"key/value heads ({k.shape[-3]}, {v.shape[-3]}) must equal "
                         f"the query's ({H})")
    if k.shape[-1] != D:
        raise ValueError(f"key head dim ({k.shape[-1]}) must equal query head dim ({D})")
    if v.shape[-2] != Sk:
        raise ValueError(f"value has {v.shape[-2]} keys, key has {Sk}")
    L = Sq + Sk - 1
    if rel.shape not in ((L, D), (H, L, D)):
        raise ValueError(f"rel must be [L, D] or [H, L, D] with L = Sq + Sk - 1 = {L}, "
                         f"D = {D}, got {rel.shape}")
    for name, bias in (("content_bias", u), ("position_bias", pb)):
        if bias.shape != (H, D):
            raise ValueError(f"{name} must be [H, D] = [{H}, {D}], got {bias.shape}")
    i_prime = np.arange(Sq)[:, None] + (Sk - Sq)
    j = np.arange(Sk)[None, :]
    t = (i_prime - j) + Sq - 1  # [Sq, Sk], in [0, L)
    content = np.matmul(q + u[:, None, :], np.swapaxes(k, -1, -2))
    qv = q + pb[:, None, :]
    if rel.ndim == 2:
        position = np.einsum("...hid,ijd->...hij", qv, rel[t])
    else:
        position = np.einsum("...hid,hijd->...hij", qv, rel[:, t])
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    e = float(scale) * (content + position)
    if causal:
        e = np.where(_causal_mask(Sq, Sk), -np.inf, e)
    p = _softmax_rows(e)
    return np.matmul(p, v)

# ---------------------------------------------------------------------------
# posenc.disentangled_attention (DeBERTa)
# ---------------------------------------------------------------------------

def deberta_bucket(r, bucket_size, max_position):
    """DeBERTa-v2's log bucket of relative positions ``r = i - j`` (int
    array), as docs/spec.md states it: with ``mid = bucket_size // 2``,
    ``r`` where ``|r| <= mid``, else ``sign(r) * (mid + ceil(log(|r| / mid) /
    log((max_position - 1) / mid) * (mid - 1)))`` in float32 arithmetic (the
    quotient ``(max_position - 1) / mid`` rounded to float32 before its
    logarithm; every float32 logarithm the correctly rounded one: float64 log
    rounded to float32)."""
    r = np.asarray(r, dtype=np.int64)
    mid = int(bucket_size) // 2
    if mid < 1 or int(max_position) - 1 <= mid:
        raise ValueError(f"need bucket_size >= 2 and max_position - 1 > bucket_size // 2, "
                         f"got bucket_size={bucket_size}, max_position={max_position}")
    f32 = np.float32
    mag = np.maximum(np.abs(r), mid)  # |r| <= mid lanes are discarded below
    log_mag = np.log((mag.astype(f32) / f32(mid)).astype(np.float64)).astype(f32)
    span = f32((int(max_position) - 1) / mid)
    log_span = np.log(np.float64(span)).astype(f32)
    steps = np.ceil((log_mag / log_span) * f32(mid - 1))
    large = np.sign(r) * (mid + steps.astype(np.int64))
    return np.where(np.abs(r) <= mid, r, large)


def _relative_positions(sq, sk, position_buckets, max_relative_positions):
    """r[i, j] = i - j for query row i and key j, bucketed when
    position_buckets > 0."""
    r = np.arange(sq)[:, None] - np.arange(sk)[None, :]
    if position_buckets > 0:
        r = deberta_bucket(r, position_buckets, max_relative_positions)
    return r


def _gather_dot(x, table, index, side):
    """x_s . table[index[i, j]] for every (i, j), ``[..., H, Sq, Sk]``: x
    ``[..., H, S, D]`` is the query (``side="i"``) or the key (``side="j"``),
    ``table`` ``[2k, D]`` (shared by the heads) or ``[H, 2k, D]``, ``index``
    ``[Sq, Sk]``."""
    if table.ndim == 2:
        return np.einsum(f"...{side}d,ijd->...ij", x, table[index])
    return np.einsum(f"...h{side}d,hijd->...hij", x, table[:, index])


def disentangled_attention(q, k, v, pos_key=None, pos_query=None, terms=("c2p", "p2c"),
                           position_buckets=0, max_relative_positions=None, scale=None,
                           causal=False):
    """DeBERTa's disentangled attention, ``[..., H, Sq, Dv]`` (docs/spec.md).

    ``pos_key`` / ``pos_query`` are ``[2k, D]`` or ``[H, 2k, D]``; r = i - j
    (bucketed when position_buckets > 0, k = position_buckets then);
    c = clamp(r + k, 0, 2k - 1), c' = clamp(k - bucket(j - i), 0, 2k - 1);
    e = scale * (q_i . k_j + [c2p] q_i . pos_key[c] + [p2c] k_j . pos_query[c']),
    scale = 1/sqrt(D * (1 + len(terms))) by default; causal as attention.
    """
    terms = tuple(terms)
    if not terms or any(t not in ("c2p", "p2c") for t in terms) or len(set(terms)) != len(terms):
        raise ValueError(f"terms must be a non-empty subset of ('c2p', 'p2c'), got {terms}")
    q, k, v = _f64(q), _f64(k), _f64(v)
    if q.ndim < 3 or k.shape[:-2] != q.shape[:-2] or v.shape[:-2] != q.shape[:-2]:
        raise ValueError(f"query/key/value must be [..., H, S, D] with equal leading dims, "
                         f"got {q.shape}, {k.shape}, {v.shape}")
    Sq, D = q.shape[-2:]
    Sk = k.shape[-2]
    tables = {"c2p": pos_key, "p2c": pos_query}
    for term, table in tables.items():
        if (table is not None) != (term in terms):
            raise ValueError(f"the {term} table must be given exactly when {term} is a term")
    rows = {_f64(t).shape[-2] for t in tables.values() if t is not None}
    if len(rows) != 1 or rows.pop() % 2:
        raise ValueError("pos_key / pos_query must have one even number of rows 2k")
    span = next(_f64(t).shape[-2] for t in tables.values() if t is not None) // 2
    if position_buckets > 0 and span != position_buckets:
        raise ValueError(f"with position_buckets = {position_buckets} the tables need "
                         f"2 * {position_buckets} rows, got {2 * span}")
    e = np.matmul(q, np.swapaxes(k, -1, -2))
    if "c2p" in terms:
        r = _relative_positions(Sq, Sk, position_buckets, max_relative_positions)
        c = np.clip(r + span, 0, 2 * span - 1)
        e = e + _gather_dot(q, _f64(pos_key), c, "i")
    if "p2c" in terms:
        # bucket(j - i): the key-major relative position of key j to query i.
        r_kq = _relative_positions(Sk, Sq, position_buckets, max_relative_positions)
        c_prime = np.clip(span - r_kq.T, 0, 2 * span - 1)  # [Sq, Sk]
        e = e + _gather_dot(k, _f64(pos_query), c_prime, "j")
    if scale is None:
        scale = 1.0 / math.sqrt(D * (1 + len(terms)))
    e = float(scale) * e
    if causal:
        e = np.where(_causal_mask(Sq, Sk), -np.inf, e)
    return np.matmul(_softmax_rows(e), v)
