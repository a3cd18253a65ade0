"""Execution tests of the decode schedule's key regions
(attention-key-regions, lib/Conversion/DecomposeAttention/KeyRegions.cpp):
a task's full key tiles visited round-robin over R regions of its keys
instead of in order, the software prefetch following that order.

The online softmax is a set reduction over the key tiles, so each case is
the same attention, checked against the numpy reference (`posenc.reference`,
float64) with the tolerance of test_decode_schedule.py (atol 2e-5, rtol
2e-4: f32 arithmetic, only the order of the tiles' rescalings changes).
A tile visited twice or never would change the result by far more.

Tile counts (key tile 64): 1000 keys = 15 full tiles (odd) + a tail; 4097
keys split into tasks of at most 256 keys (4 full tiles each, the last
split partial); 192 keys = 3 full tiles (fewer than R = 4 regions), 40 keys
= none; Sq = 1 and 4 (GQA 32/8: 4 and 16 rows), f32/f16/bf16 K/V, causal
and not, dynamic Sq/Sk, ragged kv_lengths (one length inside the second
key tile, one empty), prefetch distances 0, 1 and 3.
"""
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from test_decode_schedule import check, half_kv_case, pipeline  # noqa: E402
from test_fused_execution import attention_case  # noqa: E402

REGIONS = [2, 3, 4]


@pytest.mark.parametrize("regions", REGIONS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("sk", [1000, 192, 40])
def test_key_regions(sk, sq, elem, regions):
    ir, args, want = half_kv_case(32, 8, sq, sk, 128, elem, seed=sq + sk)
    compiled = check(ir, args, want, f"attention-key-regions={regions}",
                     f"{elem} Sq={sq} Sk={sk} regions {regions}")
    assert "llvm.intr.prefetch" in compiled.lowered_ir


@pytest.mark.parametrize("regions", REGIONS)
@pytest.mark.parametrize("sq,causal", [(1, True), (4, False), (4, True)])
def test_key_regions_split_k(sq, causal, regions):
    """Splits of at most 256 keys (4 full tiles), the last one partial:
    every split visits its own tiles' regions."""
    ir, args, want = half_kv_case(8, 2, sq, 4097, 64, "f16", causal=causal,
                                  seed=sq)
    check(ir, args, want,
          f"attention-key-regions={regions} attention-split-k-tasks=16 "
          "attention-split-k-max-keys=256", f"split Sq={sq} causal={causal}")


@pytest.mark.parametrize("tiles", [0, 1, 3])
@pytest.mark.parametrize("regions", [2, 4])
def test_key_regions_prefetch_distance(regions, tiles):
    ir, args, want = half_kv_case(32, 8, 1, 1000, 128, "f32", seed=tiles)
    compiled = check(ir, args, want,
                     f"attention-key-regions={regions} "
                     f"attention-prefetch-tiles={tiles}",
                     f"regions {regions} prefetch {tiles}")
    assert ("llvm.intr.prefetch" in compiled.lowered_ir) == (tiles > 0)


@pytest.mark.parametrize("regions", [2, 4])
@pytest.mark.parametrize("sq", [1, 4])
def test_key_regions_dynamic(sq, regions):
    """Dynamic Sq and Sk: the tile count is known at run time only."""
    ir, args, want = attention_case([1], 8, 2, sq, 1111, 64, 64, causal=True,
                                    dynamic=True, seed=sq)
    check(ir, args, want, f"attention-key-regions={regions}")


@pytest.mark.parametrize("regions", [2, 3])
@pytest.mark.parametrize("elem", ["f32", "f16"])
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 32, 8)])
def test_key_regions_kv_lengths(sq, hq, hkv, elem, regions):
    """Per-batch lengths (kv_lengths: 1000 = 15 full tiles, 70 ends inside
    the second key tile, 0 gives zeros), causal."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(3, hq, hkv, sq, 1024, 128, [1000, 70, 0],
                             causal=True, elem=elem, seed=sq)
    check(ir, args, want, f"attention-key-regions={regions}",
          f"kv_lengths {elem} Sq={sq} regions {regions}")


@pytest.mark.parametrize("sq", [17, 64])
def test_key_regions_leave_prefill_unchanged(sq):
    """Sq > 16 takes the prefill schedule, which keeps its in-order key
    loop: the lowered IR is byte-identical with the option on."""
    ir, _, _ = half_kv_case(8, 2, sq, 300, 128, "f32")
    assert (posenc.run_pipeline(ir, pipeline("attention-key-regions=2")) ==
            posenc.run_pipeline(ir, pipeline("attention-key-regions=1")))
