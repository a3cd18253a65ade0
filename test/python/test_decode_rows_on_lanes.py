"""Execution tests of the decode tiles of 16 rows (Sq = 4 with GQA 4, Sq = 16
MHA, Sq = 8 with GQA 2), which hold the scores with the rows on the vector
lanes (docs/pipelines.md, "Tiles of 16 rows") with every K type and
vector width: S^T = K~ Q~^T in [16 keys x 16 rows] register tiles (8 x 8
at 256 bits), f16/bf16 K converted to f32 once per key tile at 512 bits
(one register tile at a time at 256 bits, and at 512 bits with
attention-widen-keys=false), P V converting f16/bf16 V in each of its
passes at 512 bits and reading V converted once per key tile at 256.

Every case runs `posenc-cpu-pipeline` on seeded inputs at vector-bits=512
and at 256 (AVX2 code, target-features=-avx512f) and compares with the
numpy reference (`posenc.reference`, float64, written from docs/spec.md):
f32/f16/bf16 K/V (rounded to their storage type before the reference sees
them, so the storage adds no error of its own), GQA 32/8, 8/2, 4/2 and MHA,
key counts not a multiple of the key tile (a partial last tile) and one
that is, Dv != D, causal and not, a KV cache with ragged per-batch lengths
(kv_lengths: one inside the second key tile, one empty) with split-K
forced. Such tiles take 64 keys per key step by default
(attention-rows16-key-tile); 128 (the default before the twentieth
session) and 256 are checked too.

Tolerance: f32 arithmetic against float64, atol 2e-5 + rtol 2e-4 as in
test_decode_schedule.py; the f16/bf16 to f32 conversions are exact, only
the order of the f32 additions differs from the reference.
"""
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc_testutil import assert_close  # noqa: E402
from test_decode_schedule import half_kv_case, pipeline  # noqa: E402
from test_kv_cache_execution import kv_case  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4
VECTOR_BITS = ["vector-bits=512", "vector-bits=256 target-features=-avx512f"]
ELEMS = ["f32", "f16", "bf16"]

# (Sq, Hq, Hkv, Sk, D, Dv, causal): 16-row tiles.
CASES = [
    (4, 32, 8, 1000, 128, 128, True),   # the bench's Sq = 4 GQA, ragged tail
    (4, 8, 2, 4097, 128, 128, True),    # one key past a tile multiple
    (16, 4, 4, 512, 128, 128, True),    # MHA Sq = 16, tile multiple
    (8, 8, 4, 300, 64, 128, False),     # GQA 2, Dv != D, not causal
    (4, 8, 2, 700, 128, 64, True),      # Dv < D
]


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("elem", ELEMS)
@pytest.mark.parametrize("sq,hq,hkv,sk,d,dv,causal", CASES)
def test_sixteen_row_tiles(sq, hq, hkv, sk, d, dv, causal, elem, bits):
    ir, args, want = half_kv_case(hq, hkv, sq, sk, d, elem, causal=causal,
                                  seed=sq + hq + sk, dv=dv)
    compiled = posenc.compile(ir, pipeline=pipeline(bits))
    assert_close(compiled(*args), want, ATOL, RTOL,
                 f"{elem} Sq={sq} {hq}/{hkv} Sk={sk} D={d} Dv={dv} ({bits})")


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("elem", ELEMS)
def test_sixteen_row_tiles_kv_lengths(elem, bits):
    """Over a cache with per-batch lengths [200, 150, 0] of 300 rows (150
    ends inside the second 128-key tile, 0 gives zeros), GQA 32/8, Sq = 4,
    causal, splits of at most 128 keys."""
    ir, args, want = kv_case(3, 32, 8, 4, 300, 128, [200, 150, 0],
                             causal=True, elem=elem, seed=4)
    compiled = posenc.compile(
        ir, pipeline=pipeline(f"{bits} attention-split-k-max-keys=128"))
    assert_close(compiled(*args), want, ATOL, RTOL,
                 f"kv_lengths {elem} Sq=4 32/8 ({bits})")


KEY_TILES = ["attention-rows16-key-tile=128", "attention-rows16-key-tile=256"]


@pytest.mark.parametrize("tile", KEY_TILES)
@pytest.mark.parametrize("elem", ELEMS)
@pytest.mark.parametrize("sq,hq,hkv,sk,causal", [(4, 32, 8, 1000, True),
                                                 (16, 4, 4, 700, False)])
def test_sixteen_row_key_tiles(sq, hq, hkv, sk, causal, elem, tile):
    """The 16-row tiles with 64 keys per key step (the other decode tiles'
    key tile) and 256, at 512 bits: partial last tiles."""
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, elem, causal=causal,
                                  seed=sq + sk)
    compiled = posenc.compile(ir, pipeline=pipeline(f"vector-bits=512 {tile}"))
    assert_close(compiled(*args), want, ATOL, RTOL,
                 f"{elem} Sq={sq} {hq}/{hkv} Sk={sk} ({tile})")


@pytest.mark.parametrize("tile", KEY_TILES)
@pytest.mark.parametrize("elem", ELEMS)
def test_sixteen_row_key_tiles_kv_lengths(elem, tile):
    """kv_lengths [200, 150, 0] of 300 rows, GQA 32/8, Sq = 4, causal,
    split-k-max-keys=128 (splits of whole key tiles): 64 keys per key
    step, or 256 (each split one partial step)."""
    ir, args, want = kv_case(3, 32, 8, 4, 300, 128, [200, 150, 0],
                             causal=True, elem=elem, seed=5)
    compiled = posenc.compile(ir, pipeline=pipeline(
        f"vector-bits=512 attention-split-k-max-keys=128 {tile}"))
    assert_close(compiled(*args), want, ATOL, RTOL,
                 f"kv_lengths {elem} Sq=4 32/8 ({tile})")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv,sk,causal", [(4, 32, 8, 1000, True),
                                                 (16, 4, 4, 700, False)])
def test_sixteen_row_keys_per_register_tile(sq, hq, hkv, sk, causal, elem):
    """attention-widen-keys=false at 512 bits: f16/bf16 K converted per
    [16 keys x D] register tile of the score contraction instead of once
    per key tile; partial last tiles."""
    ir, args, want = half_kv_case(hq, hkv, sq, sk, 128, elem, causal=causal,
                                  seed=sq + sk + 1)
    compiled = posenc.compile(ir, pipeline=pipeline(
        "vector-bits=512 attention-widen-keys=false"))
    assert_close(compiled(*args), want, ATOL, RTOL,
                 f"{elem} Sq={sq} {hq}/{hkv} Sk={sk} (widen-keys off)")
