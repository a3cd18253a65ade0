"""RoPE and xPos attention whose keys the fused CPU path rotates once per
task (a chunk of 8 query tiles of one head; RotatedKeyChunks.cpp): with the
default 64-row query tiles a task covers 512 query rows, so these shapes
(Sq > 512, Sq != Sk, a partial last chunk and a partial last tile in it)
run several chunks per head, each reading its K~ buffer from its own key
range. Against `posenc.reference` (float64, written from the spec).

Tolerances as test_xpos.py / test_fused_execution.py: f32 atol 2e-5 + rtol
2e-4 (online vs. materialized softmax in f32 against float64, f32 angles
at positions < 2^11); f16 / bf16 inputs rounded to the type and given to
the reference rounded, the rotated Q/K and the result rounded to the type:
atol = rtol = 4e-3 (f16), 3e-2 (bf16). xPos without the causal mask in
f32: atol 1e-4 + rtol 1e-3 (as test_xpos.py's long positions): keys up to
700 positions after a query multiply its scores' rounding errors by up to
zeta^(-700 / 512) ~ 5.5 (measured 5.9e-5, the same as with each key tile
rotated in the key loop).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED, assert_close,  # noqa: E402
                             from_elem, to_elem)

TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}
# scale_base 512 (the xPos paper's): without the causal mask, keys up to ~700
# positions after a query scale its scores by up to zeta^(-700 / scale_base);
# with 128 that is ~e^7 and f32 itself (the reference lowering too) is
# off by ~1e-3 there, an ill-conditioned case rather than a test of chunks.
XPOS = {"scale_base": 512.0, "gamma": 0.4}


def chunked_case(elem, sq, sk, layout, causal, xpos, dynamic=False, pos0=0, seed=0):
    """(program, args, want): GQA 4/2 heads, D = 32, keys at positions
    pos0 + [0, Sk), the queries at the last Sq of them."""
    heads, kv_heads, d = 4, 2, 32
    program = posenc.llama_attention(
        1, heads, kv_heads, None if dynamic else sq, d, rope_base=10000.0,
        layout=layout, causal=causal, dtype=elem, kv_seq=None if dynamic else sk,
        xpos=XPOS if xpos else None)
    rng = np.random.default_rng(seed)
    q, q64 = to_elem(rng.standard_normal((1, heads, sq, d)), elem)
    k, k64 = to_elem(rng.standard_normal((1, kv_heads, sk, d)), elem)
    v, v64 = to_elem(rng.standard_normal((1, kv_heads, sk, d)), elem)
    k_pos = (pos0 + np.arange(sk)).astype(np.int32)
    q_pos = k_pos[sk - sq:].copy()
    qx = dict(XPOS, role="query") if xpos else None
    kx = dict(XPOS, role="key") if xpos else None
    qr = ref.rope(q64, q_pos, layout, base=10000.0, xpos=qx)
    kr = ref.rope(k64, k_pos, layout, base=10000.0, xpos=kx)
    group = heads // kv_heads
    want = ref.attention(qr, np.repeat(kr, group, axis=1), np.repeat(v64, group, axis=1),
                         causal=causal)
    return program, [q, k, v, q_pos, k_pos], want


def check(program, args, want, elem, tolerance=None):
    assert "posenc.rope" not in posenc.run_pipeline(
        program, "builtin.module(posenc-fuse-attention)"), "the ropes were not fused"
    out = from_elem(posenc.compile(program, pipeline=FUSED)(*args), elem)
    atol, rtol = tolerance or TOLERANCE[elem]
    assert_close(out, want, atol, rtol, "fused vs numpy")


@pytest.mark.parametrize("xpos", [False, True], ids=["rope", "xpos"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_chunks_f32(xpos, layout, causal):
    program, args, want = chunked_case("f32", 600, 700, layout, causal, xpos,
                                       pos0=30, seed=1)
    check(program, args, want, "f32", (1e-4, 1e-3) if xpos and not causal else None)


@pytest.mark.parametrize("xpos", [False, True], ids=["rope", "xpos"])
@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_chunks_16bit(xpos, elem, causal):
    program, args, want = chunked_case(elem, 530, 545, "half", causal, xpos, seed=2)
    check(program, args, want, elem)


@pytest.mark.parametrize("xpos", [False, True], ids=["rope", "xpos"])
def test_chunks_dynamic_lengths(xpos):
    program, args, want = chunked_case("f32", 1100, 1100, "half", True, xpos,
                                       dynamic=True, seed=3)
    check(program, args, want, "f32")
