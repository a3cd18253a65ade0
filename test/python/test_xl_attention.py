"""Transformer-XL / XLNet attention (posenc.xl_attention) on every CPU path:
the reference lowering (the [Sq, Sk] scores and the [Sq, L] position table
materialized), the fused flash path (posenc-fuse-attention turns the op into
fused_attention's xl term: u added to the query tile, the position term a
band product per key tile read along the diagonals), the fused path with
small tiles (many partial, diagonal and clamped band tiles), and the scalar
tile layout (a dot product per score), each against `posenc.reference`
(float64, written from docs/spec.md) and the fused ones against the
reference lowering.

Tolerances: f32 atol 5e-5 + rtol 5e-4 (online vs. materialized softmax in
f32 against float64, as test_fused_execution.py, with room for scores that
are the sum of two D-long products, content and position, each with a bias).
f16 / bf16: inputs, rel and biases are rounded to the type first and given to
the reference rounded, the arithmetic is f32, and the result is rounded once:
2^-10 / 2^-7 relative to values of magnitude <= ~3 (softmax averages of
standard normal values), so atol = rtol = 4e-3 (f16) and 3e-2 (bf16).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import PosencError
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED,  # noqa: E402
                             CPU_FUSED_SMALL_TILES as FUSED_SMALL_TILES,
                             CPU_REFERENCE as REFERENCE,
                             CPU_SCALAR_TILES as SCALAR_TILES, assert_close,
                             check_cpu_paths, to_elem)

ALL_FUSED = (FUSED, FUSED_SMALL_TILES, SCALAR_TILES)
TOLERANCE = {"f32": (5e-5, 5e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}


def xl_case(elem, batch, heads, sq, sk, d, causal, rel_heads, dynamic, scale=None,
            seed=0):
    """(program, args, want) for the builder's xl_attention."""
    program = posenc.xl_attention(
        batch, heads, None if dynamic else sq, d, kv_seq=None if dynamic else sk,
        rel_heads=rel_heads, causal=causal, scale=scale, dtype=elem)
    rng = np.random.default_rng(seed)
    rel_shape = ((heads,) if rel_heads else ()) + (sq + sk - 1, d)
    q, q64 = to_elem(rng.standard_normal((batch, heads, sq, d)), elem)
    k, k64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    v, v64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    rel, rel64 = to_elem(rng.standard_normal(rel_shape), elem)
    u, u64 = to_elem(0.5 * rng.standard_normal((heads, d)), elem)
    pb, pb64 = to_elem(0.5 * rng.standard_normal((heads, d)), elem)
    want = ref.xl_attention(q64, k64, v64, rel64, u64, pb64, scale=scale, causal=causal)
    return program, [q, k, v, rel, u, pb], want


def run_paths(program, args, want, elem, pipelines):
    check_cpu_paths(program, args, want, elem, *TOLERANCE[elem], pipelines)


# (sq, sk): equal, Sq < Sk (a segment attending to its memory), Sq > Sk,
# a single query row, and sizes that do not divide the tiles.
SHAPES = [(17, 17), (9, 70), (100, 37), (1, 300), (64, 64)]


@pytest.mark.parametrize("rel_heads", [True, False], ids=["rel_per_head", "rel_shared"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("sq,sk", SHAPES)
def test_xl_attention_f32(sq, sk, causal, rel_heads):
    program, args, want = xl_case("f32", 2, 3, sq, sk, 16, causal, rel_heads,
                                  dynamic=False, seed=sq + sk)
    run_paths(program, args, want, "f32", ALL_FUSED)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xl_attention_16bit(elem, causal):
    program, args, want = xl_case(elem, 1, 4, 33, 65, 32, causal, True,
                                  dynamic=False, seed=5)
    run_paths(program, args, want, elem, ALL_FUSED)


@pytest.mark.parametrize("rel_heads", [True, False], ids=["rel_per_head", "rel_shared"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xl_attention_dynamic_sequence(causal, rel_heads):
    program, args, want = xl_case("f32", 1, 2, 45, 130, 16, causal, rel_heads,
                                  dynamic=True, scale=0.3, seed=3)
    run_paths(program, args, want, "f32", ALL_FUSED)


def test_xl_attention_dynamic_sequence_equal_lengths_d64():
    # One compiled function, called at two lengths (the band's rows follow Sq
    # and Sk at run time); D = 64 as the bench.
    program, _, _ = xl_case("f32", 1, 2, 8, 8, 64, True, True, dynamic=True)
    fused = posenc.compile(program, pipeline=FUSED)
    for sq, sk in [(70, 70), (5, 133)]:
        _, args, want = xl_case("f32", 1, 2, sq, sk, 64, True, True, dynamic=True,
                                seed=sq)
        assert_close(fused(*args), want, *TOLERANCE["f32"], f"fused, Sq={sq} Sk={sk}")


@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "fused"])
def test_xl_attention_rel_rows_checked_at_run_time(pipeline):
    # Dynamic Sq, Sk: L = Sq + Sk - 1 is a run-time check; the next call works.
    program, args, want = xl_case("f32", 1, 2, 6, 9, 16, False, True, dynamic=True)
    function = posenc.compile(program, pipeline=pipeline)
    short_rel = args[3][:, :-1]
    with pytest.raises(PosencError, match="does not have Sq \\+ Sk - 1 rows"):
        function(*args[:3], np.ascontiguousarray(short_rel), *args[4:])
    assert_close(function(*args), want, *TOLERANCE["f32"], "after the failed check")


def test_fused_program_has_the_xl_term():
    program, _, _ = xl_case("f32", 1, 2, 8, 8, 16, False, True, False)
    fused = posenc.run_pipeline(program, "builtin.module(posenc-fuse-attention)")
    assert "posenc.fused_attention" in fused and " xl(" in fused
    assert "posenc.xl_attention" not in fused


def test_reference_matches_the_paper_relative_shift():
    # The spec's row t = i' - j + Sq - 1 against Transformer-XL's own
    # _rel_shift of the [Sq, Sk] product with the paper's r (distances
    # Sk - 1 down to 0; Dai et al., reference code): pad a zero column,
    # reshape to [Sk + 1, Sq], drop the first row, reshape back. The shift
    # is exact only where j <= i' (the paper masks the rest), so the two are
    # compared under the causal mask, with Sq <= Sk as the paper's memory.
    rng = np.random.default_rng(11)
    heads, sq, sk, d = 2, 5, 9, 8
    q, k, v = (rng.standard_normal((1, heads, s, d)) for s in (sq, sk, sk))
    rel = rng.standard_normal((heads, sq + sk - 1, d))
    u, pb = rng.standard_normal((heads, d)), rng.standard_normal((heads, d))
    r_paper = rel[:, sq - 1:][:, ::-1]  # rows for distances sk-1 ... 0
    bd = np.einsum("bhid,hld->bhil", q + pb[:, None], r_paper)  # [.., Sq, Sk]
    padded = np.concatenate([np.zeros(bd.shape[:-1] + (1,)), bd], axis=-1)
    shifted = padded.reshape(bd.shape[:-2] + (sk + 1, sq))[..., 1:, :]
    shifted = shifted.reshape(bd.shape)
    ac = np.einsum("bhid,bhjd->bhij", q + u[:, None], k)
    e = ac + shifted
    i_prime = np.arange(sq)[:, None] + (sk - sq)
    mask = np.arange(sk)[None, :] > i_prime  # rel_shift is only valid for j <= i'
    p = np.exp(np.where(mask, -np.inf, e) - np.max(np.where(mask, -np.inf, e), -1,
                                                    keepdims=True))
    p /= p.sum(-1, keepdims=True)
    got_causal = ref.xl_attention(q, k, v, rel, u, pb, scale=1.0, causal=True)
    assert_close(got_causal, p @ v, 1e-12, 1e-12, "spec rows vs the paper's rel_shift")
