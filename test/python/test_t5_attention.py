"""T5 attention (posenc.attention with a posenc.t5_bias bias) on every CPU
path: the reference lowering (the H x Sq x Sk bias materialized), the fused
flash path (posenc-fuse-attention turns the bias into fused_attention's
t5_table term: buckets per distance, a table row per key tile), the fused
path with small tiles (many partial and diagonal tiles), and the scalar tile
layout the GPU's FMA kernel uses (bucket and table load per score), each
against `posenc.reference` (float64, written from docs/spec.md) and the
fused ones against the reference lowering.

Tolerances: f32 as test_fused_execution.py (atol 2e-5 + rtol 2e-4: online
vs. materialized softmax in f32 against float64). f16 / bf16: inputs and
table are rounded to the type first and given to the reference rounded, the
arithmetic is f32, and the result is rounded once: 2^-10 / 2^-7 relative to
values of magnitude <= ~3 (softmax averages of standard normal values), so
atol = rtol = 4e-3 (f16) and 3e-2 (bf16). The T5 table entries are exact in
every type (the bias is a copy of them), so the bias adds no error of its own.
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED,  # noqa: E402
                             CPU_FUSED_SMALL_TILES as FUSED_SMALL_TILES,
                             CPU_SCALAR_TILES as SCALAR_TILES, check_cpu_paths, to_elem)

TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}


def t5_case(elem, batch, heads, sq, sk, d, num_buckets, max_distance, bidirectional,
            causal, scale, dynamic, seed=0):
    """(program, args, want) for the builder's t5_attention."""
    program = posenc.t5_attention(
        batch, heads, None if dynamic else sq, d, num_buckets,
        kv_seq=None if dynamic else sk, max_distance=max_distance,
        bidirectional=bidirectional, causal=causal, scale=scale, dtype=elem)
    rng = np.random.default_rng(seed)
    q, q64 = to_elem(rng.standard_normal((batch, heads, sq, d)), elem)
    k, k64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    v, v64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    table, table64 = to_elem(rng.standard_normal((num_buckets, heads)), elem)
    bias = ref.t5_bias(table64, sq, sk, max_distance, bidirectional)
    want = ref.attention(q64, k64, v64, bias=bias, scale=scale, causal=causal)
    return program, [q, k, v, table], want


def run_paths(program, args, want, elem, pipelines):
    check_cpu_paths(program, args, want, elem, *TOLERANCE[elem], pipelines)


# (sq, sk): equal, Sq < Sk (decoding against a longer key sequence), Sq > Sk,
# and sizes that do not divide the tiles; distances past max_distance.
SHAPES = [(17, 17), (9, 70), (100, 37), (1, 300)]


@pytest.mark.parametrize("causal,bidirectional", [(False, True), (True, False)],
                         ids=["encoder", "decoder"])
@pytest.mark.parametrize("sq,sk", SHAPES)
def test_t5_attention_f32(sq, sk, causal, bidirectional):
    program, args, want = t5_case("f32", 2, 3, sq, sk, 16, 32, 40, bidirectional,
                                  causal, 1.0, dynamic=False, seed=sq + sk)
    run_paths(program, args, want, "f32", (FUSED, FUSED_SMALL_TILES, SCALAR_TILES))


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal,bidirectional", [(False, True), (True, False),
                                                  (False, False)],
                         ids=["encoder", "decoder", "cross"])
def test_t5_attention_16bit(elem, causal, bidirectional):
    program, args, want = t5_case(elem, 1, 4, 33, 65, 32, 32, 128, bidirectional,
                                  causal, None, dynamic=False, seed=5)
    run_paths(program, args, want, elem, (FUSED, FUSED_SMALL_TILES, SCALAR_TILES))


@pytest.mark.parametrize("causal,bidirectional", [(False, True), (True, False)],
                         ids=["encoder", "decoder"])
def test_t5_attention_dynamic_sequence(causal, bidirectional):
    program, args, want = t5_case("f32", 1, 2, 45, 130, 16, 16, 64, bidirectional,
                                  causal, 1.0, dynamic=True, seed=3)
    run_paths(program, args, want, "f32", (FUSED, FUSED_SMALL_TILES, SCALAR_TILES))


def test_t5_attention_long_distances_odd_buckets():
    # Distances up to 600 against max_distance 50: the last log bucket is hit
    # by most pairs; an odd NB (33) leaves one bucket unused.
    program, args, want = t5_case("f32", 1, 2, 300, 600, 8, 33, 50, True, False, 1.0,
                                  dynamic=False, seed=8)
    run_paths(program, args, want, "f32", (FUSED, FUSED_SMALL_TILES))


def test_fused_program_has_the_t5_table_term():
    program, _, _ = t5_case("f32", 1, 2, 8, 8, 16, 32, 128, True, False, 1.0, False)
    fused = posenc.run_pipeline(program, "builtin.module(posenc-fuse-attention)")
    assert "posenc.fused_attention" in fused and "t5_table(" in fused
    assert "posenc.t5_bias" not in fused
