"""Execution tests of the decode key steps' spread prefetches
(attention-spread-prefetches, default on;
lib/Conversion/DecomposeAttention/SpreadPrefetches.cpp): each full key
step's prefetches of the next key tile issued among the iterations of its
score and `P V` loops instead of one burst at its start, and for tiles of
at most 4 rows some of them among the ops between those loops
(attention-prefetch-between-contractions, default on), with f32 K their K
and V lines in turn (attention-prefetch-alternate-kv, default on).

Prefetches are hints, so every case must compute the same attention as
without them: each is checked against the numpy reference
(`posenc.reference`, float64) with the tolerance of test_decode_schedule.py
(atol 2e-5, rtol 2e-4), with the option on and off. The pass moves ops into
the register-tile loops that hold the accumulators; an op moved wrongly (a
clone that clobbers a loop value, a loop cut short) changes results by far
more. The lowered IR shows whether the prefetches were spread (their ops
cloned into each contraction loop).

Shapes: GQA 32/8 Sq = 1 and 4 (tiles of 4 and 16 rows), MHA Sq = 1 (1-row
tiles: spread only with f16/bf16 K/V) and Sq = 16 (tiles spread with
512-bit vectors only), f32/f16/bf16 K/V,
key counts with and without a tail tile, split-K into tasks whose last
split is partial, ragged kv_lengths (one length inside the second key
tile, one empty), key regions, prefetch distances 1 and 3, 256-bit
vectors.
"""
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from test_decode_schedule import check, half_kv_case, pipeline  # noqa: E402

ON, OFF = "attention-spread-prefetches=1", "attention-spread-prefetches=0"
# Spread over the contraction loops only.
LOOPS_ONLY = f"{ON} attention-prefetch-between-contractions=0"


@pytest.mark.parametrize("options", [ON, OFF, LOOPS_ONLY])
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 32, 8), (1, 8, 8),
                                       (16, 4, 4)])
@pytest.mark.parametrize("sk", [1000, 1024])
def test_spread_prefetches(sk, sq, hq, hkv, elem, options):
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, elem, seed=sq + sk)
    check(ir, args, want, options, f"{elem} Sq={sq} {hq}/{hkv} Sk={sk}")


@pytest.mark.parametrize("sq,hq,hkv,elem,spread,between", [
    (4, 32, 8, "f32", "rows", None), (1, 32, 8, "f32", "lines", 46),
    (1, 32, 8, "f16", "rows", 48), (1, 8, 8, "f16", "rows", None),
    (1, 8, 8, "f32", None, None)])
def test_spread_where_chosen(sq, hq, hkv, elem, spread, between):
    """With 512-bit vectors a 1-row tile with f32 K/V keeps the burst, the
    others spread; with 256-bit vectors every tile keeps it. Spread by
    rows, the burst's loop bodies (a K row's and a V row's prefetches) are
    cloned into each of the step's two contraction loops: twice the
    prefetch ops of the burst form in the lowered IR (both with the
    interleaved form, which applies where the spread does not, off). The
    4-row f32 tile (GQA Sq = 1) spreads single lines: its 2 x 16 rows of 8
    lines over 64 contraction iterations, 4 lines an iteration, each a K
    line's and a V line's prefetch under their bounds, in each of the two
    loops: 16 prefetch ops, as many as the burst's 2 x 8.

    Those counts are with attention-prefetch-between-contractions=0. On
    (the default), the 4-row tiles hand the ops between their score loops
    and P V one line per P V iteration (32) as straight-line prefetches of
    V alone: the 4-row f32 tile issues 4 lines (8 ops) per score
    iteration, the 32 lines between, and 3 lines (6 ops) per P V
    iteration: 46 ops; the 4-row f16 tile its 8 rows of 4 lines between
    (32 ops) beside its two loops' 2 x 8: 48. The 16-row tile and the
    1-row f16 tile (whose shares do not split evenly) are unchanged. The
    IR for both widths whatever the host; the run at the host's width."""
    ir, args, want = half_kv_case(hq, hkv, sq, 1024, 128, elem, seed=sq)
    check(ir, args, want, ON, f"{elem} Sq={sq} {hq}/{hkv}")

    def prefetches(options):
        lowered = posenc.run_pipeline(ir, pipeline(options))
        return lowered.count("llvm.intr.prefetch")

    for bits in ("vector-bits=512", "vector-bits=256"):
        burst = "attention-prefetch-interleaved=0"
        on = prefetches(f"{bits} {LOOPS_ONLY} {burst}")
        off = prefetches(f"{bits} {OFF} {burst}")
        with_between = prefetches(f"{bits} {ON} {burst}")
        assert off > 0
        if bits == "vector-bits=256" or spread is None:
            want_on = off
        else:
            want_on = 2 * off if spread == "rows" else 2 * 4 * 2
        assert on == want_on, (bits, on, off)
        want_between = (between if bits == "vector-bits=512" and between
                         else want_on)
        assert with_between == want_between, (bits, with_between, on)


@pytest.mark.parametrize("alternate", ["1", "0"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 8, 8)])
@pytest.mark.parametrize("sk", [1000, 1024])
def test_spread_alternating_kv(sk, sq, hq, hkv, alternate):
    """4-row f32 tiles (GQA Sq = 1, MHA Sq = 4), K's and V's lines in turn
    or K's first: the same attention either way."""
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, "f32", seed=sq + sk)
    check(ir, args, want, f"{ON} attention-prefetch-alternate-kv={alternate}",
          f"f32 Sq={sq} {hq}/{hkv} Sk={sk} alternate={alternate}")


@pytest.mark.parametrize("sq,causal", [(1, True), (4, False), (4, True)])
def test_spread_split_k(sq, causal):
    """Splits of at most 256 keys, the last one partial."""
    ir, args, want = half_kv_case(8, 2, sq, 4097, 64, "f16", causal=causal,
                                  seed=sq)
    check(ir, args, want,
          f"{ON} attention-split-k-tasks=16 attention-split-k-max-keys=256",
          f"split Sq={sq} causal={causal}")


@pytest.mark.parametrize("elem", ["f32", "bf16"])
@pytest.mark.parametrize("sq", [1, 4])
def test_spread_kv_lengths(sq, elem):
    """Per-batch lengths: the next tile's rows stop at each sequence's own
    length (1000, 70, 0)."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(3, 32, 8, sq, 1024, 128, [1000, 70, 0],
                             causal=True, elem=elem, seed=sq)
    check(ir, args, want, ON, f"kv_lengths {elem} Sq={sq}")


@pytest.mark.parametrize("extra", ["attention-key-regions=2",
                                   "attention-prefetch-tiles=3",
                                   "vector-bits=256 target-features=-avx512f"])
@pytest.mark.parametrize("sq", [1, 4])
def test_spread_with_other_options(sq, extra):
    ir, args, want = half_kv_case(32, 8, sq, 1000, 128, "f16", seed=sq)
    check(ir, args, want, f"{ON} {extra}", f"Sq={sq} {extra}")


@pytest.mark.parametrize("sq", [17, 64])
def test_spread_leaves_prefill_unchanged(sq):
    """Sq > 16 takes the prefill schedule, which prefetches nothing: the
    lowered IR is byte-identical with the option on and off."""
    ir, _, _ = half_kv_case(8, 2, sq, 300, 128, "f32")
    assert (posenc.run_pipeline(ir, pipeline(ON)) ==
            posenc.run_pipeline(ir, pipeline(OFF)))
