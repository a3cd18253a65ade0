"""Execution tests of the decode prefetches interleaved with the score
contraction (docs/pipelines.md, "Where a decode step's time goes";
lib/Conversion/DecomposeAttention/InterleavedPrefetch.cpp): tiles of at most
4 rows with the head dim on the lanes and f16/bf16 K/V cut their score
contraction into register tiles of keys, each after the prefetches of the
next key tile's rows of the same keys. The prefetches are hints and the
cut changes no sum, so the result is the attention of the numpy reference
(posenc.reference, from the spec) to the decode tests' tolerance, with the
option on (the default) and off, at both vector widths. f32 K/V and taller
tiles keep the burst and are checked alongside. The interleaved form applies
with the spread prefetches off (attention-spread-prefetches=0; on, the
default, they replace it: test_decode_spread_prefetches.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402

from test_decode_schedule import check, half_kv_case  # noqa: E402

VECTOR_BITS = ["vector-bits=512", "vector-bits=256 target-features=-avx512f"]
# (Sq, Hq, Hkv): 4 rows (GQA 32/8, Sq = 1; MHA Sq = 4), and with the
# burst: 1 row (MHA Sq = 1), 16 rows (GQA 32/8, Sq = 4).
TILES = [(1, 32, 8), (4, 4, 4), (1, 4, 4), (4, 32, 8)]
NO_SPREAD = "attention-spread-prefetches=0"


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", TILES)
@pytest.mark.parametrize("on", ["true", "false"])
def test_interleaved_prefetch(on, sq, hq, hkv, elem, bits):
    """1000 keys, split-K forced to 256 keys (4 key tiles) per split: the
    last full tile of every split prefetches rows past the split's end
    (clamped away), and the last split ends in a partial tail tile."""
    ir, args, want = half_kv_case(hq, hkv, sq, 1000, 128, elem,
                                  seed=sq + hq + hkv)
    options = (f"{bits} attention-prefetch-interleaved={on} {NO_SPREAD} "
               "attention-split-k-tasks=16 attention-split-k-max-keys=256")
    compiled = check(ir, args, want, options,
                     f"{elem} Sq={sq} {hq}/{hkv} interleaved {on}")
    interleaved = (on == "true" and elem != "f32" and hq // hkv * sq == 4)
    hint2 = "hint = 2" in compiled.lowered_ir
    assert hint2 == interleaved, (on, sq, hq, hkv, elem)


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 4, 4)])
def test_interleaved_prefetch_kv_lengths(sq, hq, hkv, elem, bits):
    """Over a cache with per-batch lengths (kv_lengths: 200 and 70 end
    inside a key tile, 0 gives zeros), causal, splits of 128 keys: the
    prefetched rows stop at each sequence's own length."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(3, hq, hkv, sq, 300, 128, [200, 70, 0],
                             causal=True, elem=elem, seed=sq + hq)
    compiled = check(ir, args, want,
                     f"{bits} attention-split-k-max-keys=128 {NO_SPREAD}",
                     f"kv_lengths {elem} Sq={sq} {hq}/{hkv}")
    assert "hint = 2" in compiled.lowered_ir


@pytest.mark.parametrize("sk", [64, 130, 4097])
def test_interleaved_prefetch_key_counts(sk):
    """One key tile (its prefetch rows clamp to none), a partial second
    tile, and a long range not a multiple of the tile, with the default
    split count."""
    ir, args, want = half_kv_case(8, 2, 1, sk, 128, "f16", seed=sk)
    compiled = check(ir, args, want, NO_SPREAD, f"f16 Sk={sk}")
    assert "hint = 2" in compiled.lowered_ir
