"""Execution tests of the short key steps of narrow decode tiles
(attention-rows4-key-tile, default 16): decode tiles of at most 4 rows
(Sq = 1 with GQA up to 4 query heads per K/V head, Sq = 1 to 4 MHA) take
16 keys per online-softmax step instead of attention-key-tile (64).

A key step's length changes where the online softmax rescales and where
the full-tile loop hands over to the tail, split-K's split boundaries
relative to the steps, and how many prefetch rows the spread pass hands
out per loop iteration. Each case is checked against the numpy reference
(`posenc.reference`, float64) with the tolerance of test_decode_schedule.py
(atol 2e-5, rtol 2e-4), with the default (16), 32 and 0 (key-tile: 64
keys). A wrong rescale, a dropped or repeated tail key or a split that
skips keys changes results by far more.

Shapes: GQA 32/8 and 8/2 Sq = 1 (4-row tiles), MHA Sq = 1 and 4 (1-row
and 4-row tiles), f32/f16/bf16 K/V; key counts that are multiples of 16,
of 16 plus a tail (1000 = 62 x 16 + 8, 17) and below one step (5);
split-K whose splits are not multiples of the step; per-batch kv_lengths
ending inside a step and at 0; 256-bit vectors; the IR's step. The 16-row
tiles keep their own step (rows16-key-tile), checked in the IR.
"""
import re

import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from test_decode_schedule import check, half_kv_case  # noqa: E402

STEPS = ["", "attention-rows4-key-tile=32", "attention-rows4-key-tile=0"]


@pytest.mark.parametrize("options", STEPS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (1, 8, 8), (4, 8, 8)])
@pytest.mark.parametrize("sk", [1000, 1024])
def test_rows4_key_tile(sk, sq, hq, hkv, elem, options):
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, elem, seed=sq + sk)
    check(ir, args, want, options, f"{elem} Sq={sq} {hq}/{hkv} Sk={sk}")


@pytest.mark.parametrize("sk", [5, 16, 17])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 8, 2), (4, 2, 2)])
def test_rows4_few_keys(sq, hq, hkv, sk):
    """Fewer keys than one step, exactly one, one and a tail key (causal:
    with Sq = 4 and 5 keys the first query row sees 2 keys)."""
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 64, "f16", seed=sk)
    check(ir, args, want, "", f"Sq={sq} {hq}/{hkv} Sk={sk}")


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("sq", [1, 4])
def test_rows4_split_k(sq, causal):
    """Splits of at most 100 keys (not a multiple of 16: each split ends in
    a tail step), the last split partial."""
    ir, args, want = half_kv_case(4, 4 if sq == 4 else 1, sq, 4097, 64, "f32",
                                  causal=causal, seed=sq)
    check(ir, args, want,
          "attention-split-k-tasks=16 attention-split-k-max-keys=100",
          f"split Sq={sq} causal={causal}")


@pytest.mark.parametrize("elem", ["f32", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 4, 4)])
def test_rows4_kv_lengths(sq, hq, hkv, elem):
    """Per-batch lengths 1000, 70 (inside the fifth 16-key step) and 0
    (zeros)."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(3, hq, hkv, sq, 1024, 128, [1000, 70, 0],
                             causal=True, elem=elem, seed=sq)
    check(ir, args, want, "", f"kv_lengths {elem} Sq={sq} {hq}/{hkv}")


@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 8, 8)])
def test_rows4_avx2_vectors(sq, hq, hkv):
    ir, args, want = half_kv_case(hq, hkv, sq, 1000, 128, "f16", seed=sq)
    check(ir, args, want, "vector-bits=256 target-features=-avx512f",
          f"256-bit Sq={sq} {hq}/{hkv}")


@pytest.mark.parametrize("sq,hq,hkv,step", [(1, 32, 8, 16), (1, 8, 8, 16),
                                            (4, 8, 8, 16), (4, 32, 8, 64),
                                            (16, 32, 8, 64)])
def test_step_in_ir(sq, hq, hkv, step):
    """The key loops step by 16 for tiles of at most 4 rows, 64 for 16-row
    tiles (rows16-key-tile) and 64 (key-tile) for 64-row tiles; with
    rows4-key-tile=0 by 64."""
    ir, _, _ = half_kv_case(hq, hkv, sq, 1024, 128, "f32")
    decomposed = ("builtin.module(posenc-fuse-attention, posenc-decompose-attention"
                  "{{vector-layout=1 vector-bits=512 {}}})")
    for options, want in (("", step), ("rows4-key-tile=0", 64 if step == 16 else step)):
        lowered = posenc.run_pipeline(ir, decomposed.format(options))
        steps = {int(s) for s in re.findall(
            r"scf\.for %\S+ = %\S+ to %\S+ step %c(\d+) iter_args", lowered)}
        assert steps == {want}, (options, steps)


@pytest.mark.parametrize("step", [1, 7, 8])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (1, 4, 4)])
def test_rows4_steps_below_a_lane_block(sq, hq, hkv, step):
    """Steps that are no whole block of 16 keys (the score contraction with
    the head dim on the lanes needs one): the decomposition falls back to
    the contraction that transposes K, and computes the same attention."""
    ir, args, want = half_kv_case(hq, hkv, sq, 300, 128, "f16", seed=step)
    check(ir, args, want, f"attention-rows4-key-tile={step}",
          f"step {step} Sq={sq} {hq}/{hkv}")
