"""Execution tests of the 64-row decode tile's K conversion
(docs/pipelines.md, "The 64-row decode tile"): decode tiles of more than 16
rows with the rows on the lanes (Sq = 16 with GQA 4: 64 rows; Sq = 8 with
GQA 4: 32 rows) convert f16/bf16 K to f32 once per key tile
(`attention-widen-keys`, the default) instead of once per element the score
contraction broadcasts. Both ways are checked against the numpy reference
(`posenc.reference`, float64, from docs/spec.md): f32/f16/bf16 K/V, GQA
32/8 and 8/2 and MHA (16-row tiles, which keep their own path), causal and
not, Sk a tile multiple (1024) and not (1000, 333: a partial last key
tile), ragged kv_lengths over a cache, RoPE on q and k (then K~ is f32
already), dynamic Sq (padded to 16 rows per head), 512- and 256-bit vectors.

Tolerance: as test_decode_schedule.py, atol 2e-5 + rtol 2e-4 for f32
arithmetic against float64. The conversion is exact (every f16/bf16 value
is an f32) and no sum changes order, so the two settings also agree
bit for bit; that is checked too.
"""
import numpy as np
import pytest

import posenc  # noqa: F401,E402  (a missing package fails the run, never skips it)
from test_decode_schedule import half_kv_case, check  # noqa: E402

BITS = ["vector-bits=512", "vector-bits=256 target-features=-avx512f"]
# (Sq, Hq, Hkv): 64 rows (GQA 32/8 and 8/2), 32 rows, 16 rows (MHA Sq = 16).
TILES = [(16, 32, 8), (16, 8, 2), (8, 8, 2), (16, 4, 4)]


@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", TILES)
@pytest.mark.parametrize("sk", [1024, 1000])
def test_widen_keys(sk, sq, hq, hkv, elem, bits):
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, elem,
                                  seed=sq + hq + sk)
    outs = [check(ir, args, want, f"{bits} attention-widen-keys={on}",
                  f"{elem} Sq={sq} {hq}/{hkv} Sk={sk} widen {on}")(*args)
            for on in ("true", "false")]
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_widen_keys_not_causal_dv(elem, bits):
    """Not causal, Dv = 64 != D, a partial key tile, split-K forced."""
    ir, args, want = half_kv_case(8, 2, 16, 333, 128, elem, causal=False,
                                  dv=64, seed=5)
    check(ir, args, want, f"{bits} attention-split-k-max-keys=128",
          f"{elem} not causal Dv=64")


@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_widen_keys_kv_lengths(elem, bits):
    """Over a cache with per-batch lengths (70 ends inside the second key
    tile, 0 gives zeros), causal, split-K forced; with RoPE for f16 (the
    rotated bf16 keys are rounded to bf16 as the spec says, where an f32
    angle and the float64 reference's can round apart by a bf16 ulp, more
    than this f32 tolerance; test_kv_cache_execution.py checks f32/f16)."""
    from test_kv_cache_execution import kv_case
    for rope in (False, True) if elem == "f16" else (False,):
        ir, args, want = kv_case(3, 8, 2, 16, 300, 128, [200, 70, 0],
                                 causal=True, elem=elem, rope=rope, seed=7)
        check(ir, args, want, f"{bits} attention-split-k-max-keys=128",
              f"kv_lengths {elem} rope={rope}")


@pytest.mark.parametrize("bits", BITS)
def test_widen_keys_dynamic_sq(bits):
    """Dynamic Sq: the decode branch pads each head's rows to 16 (a 64-row
    tile with GQA 4), f16 K/V."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(2, 8, 2, 5, 200, 128, [150, 40], causal=True,
                             elem="f16", dynamic=True, seed=3)
    check(ir, args, want, bits, "dynamic Sq f16")

