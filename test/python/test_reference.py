"""Checks of the numpy reference (python/posenc/reference.py) against facts
that can be derived by hand from docs/spec.md. These test the reference itself, not
the compiler."""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from posenc import reference as ref  # noqa: E402

RNG = np.random.default_rng(1234)


def rand(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- sinusoidal

def test_sinusoidal_position_zero():
    for layout in ("interleaved", "half"):
        t = ref.sinusoidal(np.array([0]), 8, layout=layout)
        assert t.dtype == np.float64 and t.shape == (1, 8)
    t = ref.sinusoidal(np.array([0]), 8)
    np.testing.assert_array_equal(t[0, 0::2], 0.0)
    np.testing.assert_array_equal(t[0, 1::2], 1.0)
    t = ref.sinusoidal(np.array([0]), 8, layout="half")
    np.testing.assert_array_equal(t[0, :4], 0.0)
    np.testing.assert_array_equal(t[0, 4:], 1.0)


def test_sinusoidal_values_by_hand():
    # D = 4, base 10000: inv_freq = [1, 10000^-0.5 = 0.01]
    t = ref.sinusoidal(np.array([3], dtype=np.int32), 4)
    np.testing.assert_allclose(t[0], [math.sin(3), math.cos(3), math.sin(0.03), math.cos(0.03)],
                               rtol=0, atol=1e-15)
    t = ref.sinusoidal(np.array([3], dtype=np.int64), 4, base=100.0, layout="half")
    np.testing.assert_allclose(t[0], [math.sin(3), math.sin(0.3), math.cos(3), math.cos(0.3)],
                               rtol=0, atol=1e-15)


def test_sinusoidal_layouts_are_permutations():
    pos = np.arange(17)
    D = 16
    a = ref.sinusoidal(pos, D, layout="interleaved")
    b = ref.sinusoidal(pos, D, layout="half")
    perm = np.empty(D, dtype=int)
    perm[0::2] = np.arange(D // 2)           # sin of pair p
    perm[1::2] = np.arange(D // 2) + D // 2  # cos of pair p
    np.testing.assert_array_equal(a, b[:, perm])


def test_sinusoidal_errors():
    with pytest.raises(ValueError):
        ref.sinusoidal(np.arange(3), 7)
    with pytest.raises(ValueError):
        ref.sinusoidal(np.arange(3), 8, layout="complex")


# ---------------------------------------------------------------- rope basics

def _pair_norms(x, layout, R):
    if layout == "interleaved":
        a, b = x[..., 0:R:2], x[..., 1:R:2]
    else:
        a, b = x[..., : R // 2], x[..., R // 2: R]
    return a * a + b * b


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("af", [None, 1.7])
def test_rope_preserves_pair_norms(layout, af):
    x = rand(2, 3, 5, 12)
    pos = np.array([0, 1, 7, 100, 65536])
    y = ref.rope(x, pos, layout, rotary_dim=8, attention_factor=af)
    f = 1.0 if af is None else af
    np.testing.assert_allclose(_pair_norms(y, layout, 8), f * f * _pair_norms(x, layout, 8),
                               rtol=1e-12)
    # pass-through dims are untouched (not scaled by attention_factor)
    np.testing.assert_array_equal(y[..., 8:], x[..., 8:])


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_position_zero_is_identity(layout):
    x = rand(3, 4, 8)
    y = ref.rope(x, np.zeros(4, dtype=np.int32), layout)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("scaling", [None, {"kind": "linear", "factor": 2.0},
                                     {"kind": "yarn", "factor": 4.0, "original_max_position": 64},
                                     {"kind": "llama3", "original_max_position": 64}])
def test_rope_relative_property(layout, scaling):
    D = 16
    q, k = rand(1, D), rand(1, D)
    af = ref.rope_attention_factor(scaling)

    def dot(m, n):
        return float(ref.rope(q, [m], layout, scaling=scaling)[0]
                     @ ref.rope(k, [n], layout, scaling=scaling)[0])

    d0 = dot(5, 2)
    for off in (0, 10, 1000, 12345):
        assert dot(5 + off, 2 + off) == pytest.approx(d0, rel=1e-9, abs=1e-9)
    # a different distance gives a different score (generic q, k)
    assert abs(dot(5, 1) - d0) > 1e-6
    # zero distance is the plain dot product times af^2
    assert dot(7, 7) == pytest.approx(af * af * float(q[0] @ k[0]), rel=1e-9)


def test_rope_half_equals_rotate_half():
    S, D = 6, 10
    x = rand(2, S, D)
    pos = np.arange(S) * 3
    inv = 1.0 / (10000.0 ** (np.arange(0, D, 2) / D))
    freqs = np.outer(pos, inv)
    emb = np.concatenate([freqs, freqs], axis=-1)

    def rotate_half(t):
        t1, t2 = t[..., : D // 2], t[..., D // 2:]
        return np.concatenate([-t2, t1], axis=-1)

    expect = x * np.cos(emb) + rotate_half(x) * np.sin(emb)
    np.testing.assert_allclose(ref.rope(x, pos, "half"), expect, rtol=1e-12, atol=1e-12)


def test_rope_interleaved_equals_complex_form():
    S, D = 6, 10
    x = rand(3, S, D)
    pos = np.arange(S) + 11
    inv = 1.0 / (500000.0 ** (np.arange(0, D, 2) / D))
    xc = x[..., 0::2] + 1j * x[..., 1::2]
    yc = xc * np.exp(1j * np.outer(pos, inv))
    expect = np.empty_like(x)
    expect[..., 0::2], expect[..., 1::2] = yc.real, yc.imag
    np.testing.assert_allclose(ref.rope(x, pos, "interleaved", base=500000.0), expect,
                               rtol=1e-12, atol=1e-12)


def test_rope_single_pair_by_hand():
    x = np.array([[1.0, 0.0]])
    y = ref.rope(x, [2], "interleaved")
    np.testing.assert_allclose(y, [[math.cos(2), math.sin(2)]], atol=1e-15)
    y = ref.rope(np.array([[0.0, 1.0]]), [2], "half")
    np.testing.assert_allclose(y, [[-math.sin(2), math.cos(2)]], atol=1e-15)


def test_rope_errors():
    x = rand(4, 8)
    with pytest.raises(ValueError):
        ref.rope(x, np.arange(4), "interleaved", rotary_dim=10)
    with pytest.raises(ValueError):
        ref.rope(x, np.arange(4), "interleaved", rotary_dim=5)
    with pytest.raises(ValueError):
        ref.rope(x, np.arange(3), "interleaved")
    with pytest.raises(ValueError):
        ref.rope(x, np.arange(4), "neox")
    with pytest.raises(TypeError):
        ref.rope(x, np.arange(4))  # layout is required


def test_rope_exact_at_large_positions():
    # The reference is the float64 ground truth for the op's exact mode:
    # check it against angles computed independently with Python floats.
    D = 128
    pos = np.array([2 ** 24 - 1, 1048576, 131072])
    inv = ref.rope_inv_freq(D, 500000.0)
    x = np.zeros((3, D))
    x[:, 0::2] = 1.0
    y = ref.rope(x, pos, "interleaved", base=500000.0)
    for s, P in enumerate(pos):
        for p in (0, 1, 17, 63):
            th = float(P) * (500000.0 ** (-2.0 * p / D))
            assert y[s, 2 * p] == pytest.approx(math.cos(th), abs=1e-12)
            assert y[s, 2 * p + 1] == pytest.approx(math.sin(th), abs=1e-12)
            assert inv[p] == pytest.approx(500000.0 ** (-2.0 * p / D), rel=1e-15)


# ---------------------------------------------------------------- scaling

def test_rope_inv_freq_plain():
    np.testing.assert_allclose(ref.rope_inv_freq(4, 100.0), [1.0, 0.1], rtol=1e-15)
    assert ref.rope_inv_freq(8).dtype == np.float64


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_linear_scaling_is_position_interpolation(layout):
    f = 4
    x = rand(2, 5, 8)
    pos = np.array([0, 1, 3, 7, 1000])
    scaled = ref.rope(x, f * pos, layout, scaling={"kind": "linear", "factor": float(f)})
    plain = ref.rope(x, pos, layout)
    np.testing.assert_allclose(scaled, plain, rtol=1e-10, atol=1e-12)
    assert ref.rope_attention_factor({"kind": "linear", "factor": 4.0}) == 1.0


def test_ntk_scaling_changes_base():
    R, f = 16, 3.0
    got = ref.rope_inv_freq(R, 10000.0, {"kind": "ntk", "factor": f})
    new_base = 10000.0 * f ** (16 / 14)
    np.testing.assert_allclose(got, new_base ** (-np.arange(0, R, 2) / R), rtol=1e-13)
    # highest-frequency pair is unchanged, lower frequencies are slowed
    assert got[0] == 1.0
    assert np.all(got[1:] < ref.rope_inv_freq(R, 10000.0)[1:])


def test_dynamic_scaling():
    R = 16
    sc = {"kind": "dynamic", "factor": 2.0, "original_max_position": 32}
    plain = ref.rope_inv_freq(R)
    for L in (1, 31, 32):
        np.testing.assert_allclose(ref.rope_inv_freq(R, scaling=sc, seq_len=L), plain, rtol=1e-14)
    # L = 64: base' = base * (2*64/32 - 1)^(16/14) = base * 3^(8/7)
    nb = 10000.0 * 3.0 ** (8 / 7)
    np.testing.assert_allclose(ref.rope_inv_freq(R, scaling=sc, seq_len=64),
                               nb ** (-np.arange(0, R, 2) / R), rtol=1e-13)
    # rope() uses L = max(positions) + 1
    x = rand(3, R)
    np.testing.assert_allclose(ref.rope(x, [0, 5, 31], "half", scaling=sc),
                               ref.rope(x, [0, 5, 31], "half"), rtol=1e-14)
    np.testing.assert_allclose(ref.rope(x, [0, 5, 63], "half", scaling=sc),
                               ref.rope(x, [0, 5, 63], "half", base=nb), rtol=1e-12)


def test_llama3_bands():
    R, base = 128, 500000.0
    sc = {"kind": "llama3"}  # defaults: factor 8, low 1, high 4, orig 8192
    got = ref.rope_inv_freq(R, base, sc)
    inv = base ** (-np.arange(0, R, 2) / R)
    wavelen = 2 * math.pi / inv
    # thresholds: orig/high = 2048, orig/low = 8192
    high = wavelen < 2048
    low = wavelen > 8192
    mid = ~high & ~low
    assert high.sum() > 0 and low.sum() > 0 and mid.sum() > 0
    # By hand (wavelength 2*pi*500000^(2p/128)): p = 28 -> 1956 is the last high-band
    # pair, p = 29 -> 2402 the first medium one, p = 35 -> 8219 the first low-band one.
    np.testing.assert_array_equal(np.flatnonzero(high), np.arange(29))
    np.testing.assert_array_equal(np.flatnonzero(mid), np.arange(29, 35))
    np.testing.assert_array_equal(np.flatnonzero(low), np.arange(35, 64))
    np.testing.assert_array_equal(got[high], inv[high])
    np.testing.assert_allclose(got[low], inv[low] / 8, rtol=1e-15)
    ratio = got[mid] / inv[mid]
    assert np.all((ratio > 1 / 8) & (ratio < 1))
    assert np.all(np.diff(ratio) < 0)  # smoothly moves from keep towards /8
    smooth = (8192 / (2 * math.pi * 500000.0 ** (64 / 128)) - 1) / 3
    assert got[32] == pytest.approx(inv[32] * ((1 - smooth) / 8 + smooth), rel=1e-14)
    assert ref.rope_attention_factor(sc) == 1.0


def test_yarn_factor_one_is_unscaled():
    sc = {"kind": "yarn", "factor": 1.0, "original_max_position": 4096}
    np.testing.assert_allclose(ref.rope_inv_freq(64, 10000.0, sc), ref.rope_inv_freq(64, 10000.0),
                               rtol=1e-15)
    assert ref.rope_attention_factor(sc) == 1.0
    x = rand(2, 4, 64)
    np.testing.assert_allclose(ref.rope(x, np.arange(4), "half", scaling=sc),
                               ref.rope(x, np.arange(4), "half"), rtol=1e-14)


def test_yarn_ramp_and_attention_factor():
    R, base = 128, 10000.0
    sc = {"kind": "yarn", "factor": 4.0, "original_max_position": 4096}
    got = ref.rope_inv_freq(R, base, sc)
    inv = base ** (-np.arange(0, R, 2) / R)
    # low = floor(128*ln(4096/(64 pi))/(2 ln 1e4)) = floor(20.94) = 20
    # high = ceil(128*ln(4096/(2 pi))/(2 ln 1e4)) = ceil(45.03) = 46
    np.testing.assert_array_equal(got[:21], inv[:21])           # ramp 0: extrapolate
    np.testing.assert_allclose(got[46:], inv[46:] / 4, rtol=1e-15)  # ramp 1: interpolate
    for p in (21, 33, 45):
        ramp = (p - 20) / 26
        assert got[p] == pytest.approx(inv[p] / 4 * ramp + inv[p] * (1 - ramp), rel=1e-14)
    assert ref.rope_attention_factor(sc) == pytest.approx(0.1 * math.log(4) + 1)
    assert ref.rope_attention_factor(dict(sc, attention_factor=1.5)) == 1.5
    assert ref.rope_attention_factor(dict(sc, attention_factor=1.5), 2.0) == 2.0
    # the attention factor is applied by rope()
    x = rand(1, R)
    y = ref.rope(x, [0], "interleaved", scaling=sc)
    np.testing.assert_allclose(y, x * (0.1 * math.log(4) + 1), rtol=1e-14)


def test_yarn_low_equals_high():
    # R = 4, base 10000, orig = 2*pi*32 -> low = floor(0) = 0;
    # beta_slow = 32 too -> high = ceil(0) = 0 -> high becomes 0.001.
    sc = {"kind": "yarn", "factor": 2.0, "original_max_position": 2 * math.pi * 32,
          "beta_fast": 32.0, "beta_slow": 32.0}
    got = ref.rope_inv_freq(4, 10000.0, sc)
    inv = ref.rope_inv_freq(4, 10000.0)
    np.testing.assert_allclose(got, [inv[0], inv[1] / 2], rtol=1e-15)


def test_longrope():
    R = 8
    short = np.array([1.0, 1.0, 1.0, 1.0])
    long = np.array([1.0, 2.0, 4.0, 8.0])
    sc = {"kind": "longrope", "short_factor": short, "long_factor": long,
          "original_max_position": 16}
    inv = ref.rope_inv_freq(R)
    np.testing.assert_allclose(ref.rope_inv_freq(R, scaling=sc, seq_len=16), inv, rtol=1e-15)
    np.testing.assert_allclose(ref.rope_inv_freq(R, scaling=sc, seq_len=17), inv / long, rtol=1e-15)
    assert ref.rope_attention_factor(sc) == 1.0
    assert ref.rope_attention_factor(dict(sc, attention_factor=1.2)) == 1.2
    x = rand(2, R)
    np.testing.assert_allclose(ref.rope(x, [3, 15], "interleaved", scaling=sc),
                               ref.rope(x, [3, 15], "interleaved"), rtol=1e-14)
    y = ref.rope(x, [3, 16], "interleaved", scaling=sc)  # L = 17 > 16: long factors
    np.testing.assert_allclose(y, ref.rope(x, [3, 16], "interleaved",
                                           scaling={"kind": "longrope", "short_factor": long,
                                                    "long_factor": long,
                                                    "original_max_position": 16}), rtol=1e-14)
    with pytest.raises(ValueError):
        ref.rope_inv_freq(R, scaling=dict(sc, short_factor=[1.0]), seq_len=3)


def test_scaling_errors():
    with pytest.raises(ValueError):
        ref.rope_inv_freq(8, scaling={"kind": "bogus"})
    with pytest.raises(ValueError):
        ref.rope_inv_freq(8, scaling={"kind": "linear"})
    with pytest.raises(ValueError):
        ref.rope_inv_freq(8, scaling={"kind": "dynamic", "factor": 2.0,
                                      "original_max_position": 4})  # no seq_len


# ---------------------------------------------------------------- alibi

def test_alibi_slopes_power_of_two():
    np.testing.assert_allclose(ref.alibi_slopes(8), [2.0 ** -k for k in range(1, 9)], rtol=1e-15)
    np.testing.assert_allclose(ref.alibi_slopes(4), [2.0 ** -2, 2.0 ** -4, 2.0 ** -6, 2.0 ** -8],
                               rtol=1e-15)
    np.testing.assert_allclose(ref.alibi_slopes(1), [2.0 ** -8], rtol=1e-15)
    np.testing.assert_allclose(ref.alibi_slopes(2, max_bias=4.0), [2.0 ** -2, 2.0 ** -4],
                               rtol=1e-15)


def test_alibi_slopes_non_power_of_two():
    # 12 heads: c = 8 -> 2^-1..2^-8, then 16-head slopes 2^-(h+1)/2 at h = 0, 2, 4, 6
    expect12 = [2.0 ** -k for k in range(1, 9)] + [2.0 ** -0.5, 2.0 ** -1.5, 2.0 ** -2.5,
                                                   2.0 ** -3.5]
    np.testing.assert_allclose(ref.alibi_slopes(12), expect12, rtol=1e-15)
    # 5 heads: c = 4 -> 2^-2, 2^-4, 2^-6, 2^-8, then 8-head slope at h = 0: 2^-1
    np.testing.assert_allclose(ref.alibi_slopes(5), [2.0 ** -2, 2.0 ** -4, 2.0 ** -6, 2.0 ** -8,
                                                     2.0 ** -1], rtol=1e-15)
    # 3 heads: c = 2 -> 2^-4, 2^-8, then 4-head slope at h = 0: 2^-2
    np.testing.assert_allclose(ref.alibi_slopes(3), [2.0 ** -4, 2.0 ** -8, 2.0 ** -2], rtol=1e-15)


def test_alibi_slopes_match_ggml_m0_m1():
    for n in range(1, 40):
        c = 1 << (n.bit_length() - 1)
        m0 = 2.0 ** (-8.0 / c)
        m1 = 2.0 ** (-4.0 / c)
        ggml = [m0 ** (h + 1) if h < c else m1 ** (2 * (h - c) + 1) for h in range(n)]
        np.testing.assert_allclose(ref.alibi_slopes(n), ggml, rtol=1e-13)


def test_alibi_bias_seed_matrix():
    b = ref.alibi_bias(8, 4, 4)
    assert b.shape == (8, 4, 4) and b.dtype == np.float64
    np.testing.assert_array_equal(np.diagonal(b, axis1=1, axis2=2), 0.0)
    # head 0 slope 1/2: row i, col j -> (j - i)/2
    np.testing.assert_allclose(b[0], (np.arange(4)[None, :] - np.arange(4)[:, None]) / 2.0)
    # Sq < Sk: queries are the last Sq keys
    b = ref.alibi_bias(1, 2, 5, num_heads=8)
    np.testing.assert_allclose(b[0], 0.5 * np.array([[-3, -2, -1, 0, 1], [-4, -3, -2, -1, 0]]))


def test_alibi_head_offset_is_slice_of_full():
    full = ref.alibi_bias(12, 3, 7)
    for off in (0, 4, 8):
        part = ref.alibi_bias(4, 3, 7, num_heads=12, head_offset=off)
        np.testing.assert_array_equal(part, full[off:off + 4])
    with pytest.raises(ValueError):
        ref.alibi_bias(4, 3, 7, num_heads=12, head_offset=9)


def test_alibi_symmetric_and_explicit_slopes_and_batch():
    b = ref.alibi_bias(5, 3, 6, symmetric=True)
    a = ref.alibi_bias(5, 3, 6)
    np.testing.assert_allclose(b, -np.abs(a))
    assert np.all(b <= 0)
    sl = np.array([0.25, 1.0])
    e = ref.alibi_bias(2, 2, 2, slopes=sl, max_bias=123.0)
    np.testing.assert_allclose(e, [[[0, 0.25], [-0.25, 0]], [[0, 1], [-1, 0]]])
    bb = ref.alibi_bias(2, 2, 3, batch_shape=(3,))
    assert bb.shape == (3, 2, 2, 3)
    np.testing.assert_array_equal(bb[2], ref.alibi_bias(2, 2, 3))


# ---------------------------------------------------------------- attention

def loop_attention(q, k, v, bias=None, scale=None, causal=False):
    """Direct loops over [Hq, Sq, D] single-batch inputs."""
    Hq, Sq, D = q.shape
    Hkv, Sk, _ = k.shape
    Dv = v.shape[-1]
    g = Hq // Hkv
    scale = 1 / math.sqrt(D) if scale is None else scale
    out = np.zeros((Hq, Sq, Dv))
    for h in range(Hq):
        kh = h // g
        for i in range(Sq):
            s = []
            for j in range(Sk):
                if causal and j > i + Sk - Sq:
                    continue
                val = scale * sum(q[h, i, d] * k[kh, j, d] for d in range(D))
                if bias is not None:
                    val += bias[h, i, j]
                s.append((j, val))
            if not s:
                continue
            m = max(val for _, val in s)
            w = [(j, math.exp(val - m)) for j, val in s]
            z = sum(x for _, x in w)
            for j, x in w:
                out[h, i] += (x / z) * v[kh, j]
    return out


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 3), (2, 2, 5), (4, 5, 3), (1, 1, 4)])
def test_attention_matches_loops(causal, shape):
    H, Sq, Sk = shape
    q, k, v = rand(H, Sq, 4), rand(H, Sk, 4), rand(H, Sk, 3)
    bias = rand(H, Sq, Sk)
    np.testing.assert_allclose(ref.attention(q, k, v, causal=causal),
                               loop_attention(q, k, v, causal=causal), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ref.attention(q, k, v, bias=bias, scale=0.3, causal=causal),
                               loop_attention(q, k, v, bias=bias, scale=0.3, causal=causal),
                               rtol=1e-12, atol=1e-14)


def test_attention_gqa_equals_repeated_kv():
    Hq, Hkv = 6, 2
    q, k, v = rand(2, Hq, 3, 4), rand(2, Hkv, 5, 4), rand(2, Hkv, 5, 2)
    got = ref.attention(q, k, v, causal=True)
    want = ref.attention(q, np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1), causal=True)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    # head 4 reads kv head 4 // 3 = 1
    np.testing.assert_allclose(got[0], loop_attention(q[0], k[0], v[0], causal=True), rtol=1e-12)
    with pytest.raises(ValueError):
        ref.attention(rand(5, 3, 4), rand(2, 3, 4), rand(2, 3, 4))


def test_attention_bias_broadcast_and_alibi():
    q, k, v = rand(2, 4, 3, 8), rand(2, 4, 6, 8), rand(2, 4, 6, 8)
    bias2d = rand(3, 6)
    np.testing.assert_allclose(ref.attention(q, k, v, bias=bias2d),
                               ref.attention(q, k, v, bias=np.broadcast_to(bias2d, (2, 4, 3, 6))),
                               rtol=1e-14)
    ab = ref.alibi_bias(4, 3, 6)
    np.testing.assert_allclose(ref.attention(q, k, v, bias=ab)[1],
                               loop_attention(q[1], k[1], v[1], bias=ab), rtol=1e-12)


def test_attention_fully_masked_rows_are_zero():
    # Sq = 5 > Sk = 3 causal: query i sits at i - 2, rows 0 and 1 see no key.
    q, k, v = rand(2, 5, 4), rand(2, 3, 4), rand(2, 3, 4)
    out = ref.attention(q, k, v, causal=True)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out[:, :2], 0.0)
    # row 2 sees only key 0
    np.testing.assert_allclose(out[:, 2], v[:, 0], rtol=1e-14)
    assert np.all(np.abs(out[:, 3:]) > 0)
    # a bias of -inf masks too
    bias = np.zeros((2, 3))
    bias[0] = -np.inf
    out = ref.attention(rand(1, 2, 4), rand(1, 3, 4), rand(1, 3, 4), bias=bias)
    np.testing.assert_array_equal(out[0, 0], 0.0)
    assert np.all(np.isfinite(out))


def test_attention_decode_sees_all_keys_and_extreme_scores():
    q, k, v = rand(1, 1, 4), rand(1, 7, 4), rand(1, 7, 2)
    np.testing.assert_allclose(ref.attention(q, k, v, causal=True), ref.attention(q, k, v),
                               rtol=1e-14)
    out = ref.attention(q * 1e6, k, v)  # max subtraction keeps this finite
    assert np.all(np.isfinite(out))


# ---------------------------------------------------------------- rel_pos_attention

def loop_shaw(q, k, v, rk, rv, scale=None, causal=False):
    Sq, D = q.shape
    Sk = k.shape[0]
    K = (rk.shape[0] - 1) // 2
    scale = 1 / math.sqrt(D) if scale is None else scale
    out = np.zeros((Sq, v.shape[1]))
    for i in range(Sq):
        ip = i + Sk - Sq
        js = [j for j in range(Sk) if not (causal and j > ip)]
        if not js:
            continue
        r = {j: max(-K, min(K, j - ip)) + K for j in js}
        e = {j: scale * float(q[i] @ (k[j] + rk[r[j]])) for j in js}
        m = max(e.values())
        z = sum(math.exp(e[j] - m) for j in js)
        for j in js:
            p = math.exp(e[j] - m) / z
            out[i] += p * (v[j] + (rv[r[j]] if rv is not None else 0))
    return out


def test_rel_pos_zero_tables_equal_attention():
    q, k, v = rand(2, 3, 5, 4), rand(2, 3, 6, 4), rand(2, 3, 6, 3)
    for causal in (False, True):
        got = ref.rel_pos_attention(q, k, v, np.zeros((5, 4)), np.zeros((5, 3)), causal=causal)
        want = ref.attention(q, k, v, causal=causal)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
        got = ref.rel_pos_attention(q, k, v, np.zeros((3, 4)), causal=causal)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk,K", [(4, 4, 1), (3, 6, 2), (6, 4, 2), (5, 5, 7)])
def test_rel_pos_matches_loops(causal, sq, sk, K):
    q, k, v = rand(sq, 4), rand(sk, 4), rand(sk, 3)
    rk, rv = rand(2 * K + 1, 4), rand(2 * K + 1, 3)
    np.testing.assert_allclose(ref.rel_pos_attention(q, k, v, rk, rv, scale=0.7, causal=causal),
                               loop_shaw(q, k, v, rk, rv, scale=0.7, causal=causal),
                               rtol=1e-12, atol=1e-14)


def test_rel_pos_clipping_both_ways():
    # q = 0 -> uniform attention; v = 0; rel_value[b] = one-hot(b):
    # out[i] is the histogram of buckets r(i, j) over j, divided by Sk.
    S, K = 6, 2
    q, k, v = np.zeros((S, 3)), rand(S, 3), np.zeros((S, 2 * K + 1))
    rk = rand(2 * K + 1, 3)
    rv = np.eye(2 * K + 1)
    out = ref.rel_pos_attention(q, k, v, rk, rv)
    # row 0: j - i = 0..5 -> buckets 2, 3, 4, 4, 4, 4
    np.testing.assert_allclose(out[0] * S, [0, 0, 1, 1, 4], atol=1e-13)
    # row 5: j - i = -5..0 -> buckets 0, 0, 0, 0, 1, 2
    np.testing.assert_allclose(out[5] * S, [4, 1, 1, 0, 0], atol=1e-13)
    # row 2: j - i = -2..3 -> buckets 0, 1, 2, 3, 4, 4
    np.testing.assert_allclose(out[2] * S, [1, 1, 1, 1, 2], atol=1e-13)
    # Sq < Sk: query i sits at i + Sk - Sq; with Sq = 1 it is the last key
    out = ref.rel_pos_attention(q[:1], k, v, rk, rv)
    np.testing.assert_allclose(out[0] * S, [4, 1, 1, 0, 0], atol=1e-13)


def test_rel_pos_fully_masked_rows_are_zero():
    q, k, v = rand(4, 3), rand(2, 3), rand(2, 3)
    out = ref.rel_pos_attention(q, k, v, rand(3, 3), rand(3, 3), causal=True)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out[:2], 0.0)
    with pytest.raises(ValueError):
        ref.rel_pos_attention(q, k, v, rand(4, 3))  # even bucket count
