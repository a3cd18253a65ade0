"""Execution tests of every length- or band-dependent RoPE scaling at, below
and above its threshold, on both CPU paths, against posenc.reference.

SPEC.md's thresholds:
* ``dynamic``: base' changes when the sequence length L is greater than
  ``original_max_position`` (at L == orig the formula gives base' = base).
* ``longrope``: ``long_factor`` when the sequence is *longer than*
  ``original_max_position``, else ``short_factor``: L == orig is short,
  L == orig + 1 is long. A kernel comparing ``>=`` instead of ``>`` gives
  the long factors at L == orig and fails here.
* ``yarn``: a linear ramp over the pair index between the correction dims
  ``low`` (floor) and ``high`` (ceil), clamped to [0, R-1]; pairs at, just
  below and just above both ends are checked, and a configuration where the
  clamp applies at both ends.
* ``llama3``: three wavelength bands split at orig/high_freq_factor and
  orig/low_freq_factor; the configurations put pairs in all three bands and
  pairs within 1% of each edge, on either side.

L is ``max(positions) + 1`` (SPEC leaves L to the op; posenc.reference and
the lowerings use the largest position). Every case runs the standalone
``posenc.rope`` (reference lowering; fused path: ``--posenc-lower-rope``) and
a LLaMA attention block (fused path: the RoPE tables of the decomposed
attention), so each lowering of the scaling is checked at the boundary.

Tolerances: f32 RoPE with the default ``fast`` angles: atol 2e-6 + 3e-7 *
max position, rtol 2e-6 (as test_differential.py); attention blocks atol
5e-5, rtol 5e-4. The cases are chosen so that the neighbouring choice (the
other factor list, a ramp shifted by one pair, the other band) moves the
result by far more than that; ``test_boundary_cases_discriminate`` checks it
in float64 for each pair of neighbouring cases.
"""
import math

import numpy as np
import pytest

import posenc
from posenc import reference as ref
from posenc_testutil import assert_close

PIPELINES = {
    "reference": "builtin.module(posenc-cpu-pipeline{reference=true})",
    "fused": "builtin.module(posenc-cpu-pipeline{reference=false})",
}
ROTARY = 32
ORIG = 16


def longrope(orig=ORIG):
    half = ROTARY // 2
    return {"kind": "longrope", "original_max_position": orig,
            "short_factor": [1.0 + 0.05 * i for i in range(half)],
            "long_factor": [3.0 + 0.5 * i for i in range(half)]}


def dynamic(orig=ORIG):
    return {"kind": "dynamic", "factor": 4.0, "original_max_position": orig}


# YaRN with base 10000, R 32, orig 4096: low = floor(5.23) = 5, high =
# ceil(11.26) = 12, both inside [0, R-1]; with orig 64, beta_fast 32 and
# beta_slow 1e-7 both ends clamp (low = floor(-0.6) -> 0, high = ceil(32.03)
# -> R-1).
YARN_INTERIOR = {"kind": "yarn", "factor": 8.0, "original_max_position": 4096}
YARN_CLAMPED = {"kind": "yarn", "factor": 8.0, "original_max_position": 64,
                "beta_fast": 32.0, "beta_slow": 1e-7}
# llama3 with base 10000, R 32: wavelen[p] = 2 pi 10000^(p/16) = 6.28, 11.2,
# ..., 353 (p 7), 628 (p 8), 1117 (p 9), 1987 (p 10), 3533 (p 11), ...
# orig 2048 / high 4 / low 1: bands split at 512 and 2048 (pairs 0-7 kept,
# 8-10 smoothed, 11-15 divided). orig 1988 puts pair 10 (1987) just below
# the low-frequency edge, 1986 just above it; orig 2520 / high 4 puts pair 8
# (628) just above the high-frequency edge (630 = 2520/4), 2508 just below.
LLAMA3 = {name: {"kind": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                 "high_freq_factor": 4.0, "original_max_position": orig}
          for name, orig in [("bands", 2048), ("p10-below-low-edge", 1988),
                             ("p10-above-low-edge", 1986),
                             ("p8-below-high-edge", 2520),
                             ("p8-above-high-edge", 2508)]}

# (id, scaling, sequence length L = max position + 1, rows)
CASES = [
    *[(f"dynamic-L{L}", dynamic(), L, 7) for L in (ORIG - 1, ORIG, ORIG + 1, 3 * ORIG)],
    *[(f"longrope-L{L}", longrope(), L, 7) for L in (ORIG - 1, ORIG, ORIG + 1)],
    ("yarn-interior-ramp", YARN_INTERIOR, 300, 9),
    ("yarn-clamped-ramp", YARN_CLAMPED, 300, 9),
    *[(f"llama3-{name}", scaling, 300, 9) for name, scaling in LLAMA3.items()],
]


def positions_ending_at(L, rows):
    """`rows` positions, the last L - 1 (so L = max + 1), not starting at 0."""
    return np.arange(L - rows, L, dtype=np.int32)


def rope_tolerance(positions):
    return 2e-6 + 3e-7 * float(np.max(positions)), 2e-6


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("name,scaling,L,rows", CASES, ids=[c[0] for c in CASES])
def test_rope_at_threshold(name, scaling, L, rows, layout, pipeline):
    pos = positions_ending_at(L, rows)
    program = posenc.rope((2, rows, ROTARY + 4), layout, rotary_dim=ROTARY,
                          scaling=scaling)
    x = np.random.default_rng(rows).uniform(-1, 1, (2, rows, ROTARY + 4)).astype(np.float32)
    got = posenc.compile(program, pipeline=PIPELINES[pipeline])(x, pos)
    want = ref.rope(x.astype(np.float64), pos, layout, rotary_dim=ROTARY, scaling=scaling)
    assert_close(got, want, *rope_tolerance(pos), f"{name} {layout} {pipeline}")


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("name,scaling,L,rows", CASES, ids=[c[0] for c in CASES])
def test_attention_at_threshold(name, scaling, L, rows, pipeline):
    pos = positions_ending_at(L, rows)
    program = posenc.llama_attention(1, 2, 1, rows, ROTARY, rope_base=10000.0,
                                     rope_scaling=scaling, causal=True)
    rng = np.random.default_rng(L)
    q = rng.standard_normal((1, 2, rows, ROTARY)).astype(np.float32)
    k = rng.standard_normal((1, 1, rows, ROTARY)).astype(np.float32)
    v = rng.standard_normal((1, 1, rows, ROTARY)).astype(np.float32)
    got = posenc.compile(program, pipeline=PIPELINES[pipeline])(q, k, v, pos)
    kw = dict(base=10000.0, scaling=scaling)
    want = ref.attention(ref.rope(q.astype(np.float64), pos, "half", **kw),
                         ref.rope(k.astype(np.float64), pos, "half", **kw),
                         v.astype(np.float64), causal=True)
    assert_close(got, want, 5e-5, 5e-4, f"{name} attention {pipeline}")


def test_reference_thresholds_follow_spec():
    """posenc.reference itself, against SPEC.md's words: longrope is long only
    when L > orig, dynamic leaves base unchanged up to L == orig."""
    half = ROTARY // 2
    expo = 2.0 * np.arange(half) / ROTARY
    plain = 10000.0 ** -expo
    short = 1.0 / (np.array(longrope()["short_factor"]) * 10000.0 ** expo)
    long_ = 1.0 / (np.array(longrope()["long_factor"]) * 10000.0 ** expo)
    inv = ref.rope_inv_freq
    assert np.allclose(inv(ROTARY, 10000.0, longrope(), seq_len=ORIG), short, rtol=1e-14)
    assert np.allclose(inv(ROTARY, 10000.0, longrope(), seq_len=ORIG + 1), long_, rtol=1e-14)
    assert np.allclose(inv(ROTARY, 10000.0, dynamic(), seq_len=ORIG), plain, rtol=1e-14)
    assert np.allclose(inv(ROTARY, 10000.0, dynamic(), seq_len=ORIG - 5), plain, rtol=1e-14)
    base2 = 10000.0 * (4.0 * (ORIG + 1) / ORIG - 3.0) ** (ROTARY / (ROTARY - 2))
    assert np.allclose(inv(ROTARY, 10000.0, dynamic(), seq_len=ORIG + 1), base2 ** -expo,
                       rtol=1e-14)
    # The sequence length the reference's rope uses is max(positions) + 1.
    x = np.ones((ORIG, ROTARY))
    at = ref.rope(x, np.arange(ORIG), "half", scaling=longrope())
    above = ref.rope(x[:2], np.array([0, ORIG]), "half", scaling=longrope())
    assert np.allclose(at[0], above[0])  # position 0: the angle is 0 either way
    theta_long = ORIG * long_
    assert np.allclose(above[1, :half], np.cos(theta_long) - np.sin(theta_long))


def _yarn_ends(scaling):
    """(low, high) of the ramp before the clamp to [0, R-1], from SPEC's
    formulas."""
    orig, base = scaling["original_max_position"], 10000.0

    def dim(rotations):
        return ROTARY * math.log(orig / (rotations * 2 * math.pi)) / (2 * math.log(base))
    return (math.floor(dim(scaling.get("beta_fast", 32.0))),
            math.ceil(dim(scaling.get("beta_slow", 1.0))))


def test_boundary_cases_discriminate():
    """Each case sits where the neighbouring choice moves the result well past
    the tolerance, so a kernel that picks it fails: checked in float64 on
    the positions the tests use."""
    def rotated(scaling, L, rows, inv_freq=None):
        pos = positions_ending_at(L, rows).astype(np.float64)
        if inv_freq is None:
            inv_freq = ref.rope_inv_freq(ROTARY, 10000.0, scaling, seq_len=L)
        return np.cos(pos[:, None] * inv_freq)

    def far_apart(a, b, pos_max):
        atol, rtol = rope_tolerance(np.array([pos_max]))
        return float(np.max(np.abs(a - b))) > 100 * (atol + rtol)

    # longrope at L == orig with the long factors (a `>=` comparison).
    long_at_orig = 1.0 / (np.array(longrope()["long_factor"])
                          * 10000.0 ** (2.0 * np.arange(ROTARY // 2) / ROTARY))
    assert far_apart(rotated(longrope(), ORIG, 7),
                     rotated(longrope(), ORIG, 7, long_at_orig), ORIG)
    # dynamic just above orig differs from the unscaled table.
    assert far_apart(rotated(dynamic(), ORIG + 1, 7), rotated(None, ORIG + 1, 7), ORIG)
    # yarn: the interior ramp really is interior, the clamped one clamps.
    assert _yarn_ends(YARN_INTERIOR) == (5, 12)
    low, high = _yarn_ends(YARN_CLAMPED)
    assert low < 0 and high > ROTARY - 1
    # Moving either end of the interior ramp by two pairs is visible.
    for shifted in (dict(YARN_INTERIOR, beta_fast=96.0), dict(YARN_INTERIOR, beta_slow=0.25)):
        assert _yarn_ends(shifted) != _yarn_ends(YARN_INTERIOR)
        assert far_apart(rotated(YARN_INTERIOR, 300, 9), rotated(shifted, 300, 9), 300)
    # llama3: each configuration puts the edge pair in the intended band.
    wavelen = 2 * math.pi * 10000.0 ** (np.arange(ROTARY // 2) / (ROTARY // 2))
    assert wavelen[10] < 1988 and wavelen[10] > 1986
    assert 2508 / 4 < wavelen[8] < 2520 / 4
    bands = LLAMA3["bands"]
    inv = ref.rope_inv_freq(ROTARY, 10000.0, bands)
    plain = ref.rope_inv_freq(ROTARY, 10000.0, None)
    assert np.allclose(inv[:8], plain[:8]) and np.allclose(inv[11:], plain[11:] / 8.0)
    assert np.all((inv[8:11] > plain[8:11] / 8.0) & (inv[8:11] < plain[8:11]))
