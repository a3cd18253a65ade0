"""The decode schedule of --posenc-to-nvvm (docs/gpu.md, "Decode schedule"),
run on the CPU through the GPU mapping's emulation, against the numpy
reference (`posenc.reference`, float64, written from the spec).

The pipeline is --posenc-to-nvvm's fused path up to its block/thread mapping
(the GPU tests' fused-mapped-cpu pipeline with posenc-decompose-attention's
generic-decode, bufferization, posenc-gpu-map-attention), with the mapping
emulated on the CPU
(`emulate-on-cpu`: every mapped tile op a sequential loop over the thread
ids, the grid a parallel loop) and the merge's parallel loops mapped by
posenc-gpu-map-parallel-loops, then lowered for the CPU: the same IR the GPU
kernels are outlined from, so the split ranges, the packed rows' heads and
query indices, the strided tile ops and the log-sum-exp merge are checked;
the private/shared placement and the barriers are not (as for the other
emulated FMA cases, docs/gpu.md "Tests").

Cases: Sq = 1 and 4; GQA 32/8 (packed 4 heads per block), 8/2 and MHA;
causal and not; key counts that do not divide the key tile or the splits;
kv_lengths over a ragged batch (lengths 0 and Smax included; the cache rows
past a length hold large garbage, so reading them would fail the
comparison); f16/bf16 K/V under an f32 query; RoPE at per-batch positions;
ALiBi (a per-head score term, so a packed row must see its own head); the
split count from the shapes with the pipeline's own tiles (64 threads, 32
keys, at least 264 blocks) and forced (more splits than a short sequence
has keys: empty splits merge as nothing).

Tolerance: f32 arithmetic against float64 on the same (rounded) inputs,
atol 2e-5 + rtol 2e-4 as test_fused_execution.py and test_decode_schedule.py:
the merge rescales each split's partials once by exp(m_s - m*) <= 1, the
online softmax's own step, adding a few ulps per split.
"""
import os
import sys

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc_testutil import assert_close as _assert_close  # noqa: E402
from posenc_testutil import run_posenc_opt  # noqa: E402
from test_fused_execution import attention_case  # noqa: E402
from test_kv_cache_execution import kv_case  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Integration", "GPU", "Inputs"))
from check_against_reference import FUSED_MAPPED_CPU_PIPELINE  # noqa: E402

FIXED_TILES = "posenc-decompose-attention{query-tile=6 key-tile=5}"
EIGHT_THREADS = "posenc-gpu-map-attention{block-size=8 emulate-on-cpu}"
assert FIXED_TILES in FUSED_MAPPED_CPU_PIPELINE and EIGHT_THREADS in FUSED_MAPPED_CPU_PIPELINE


def decompose_pass(options):
    return f"posenc-decompose-attention{{generic-decode split-k-max-keys=0 {options}}}"


def decompose(options):
    return "builtin.module(posenc-fuse-attention, " + decompose_pass(options)


def emulated(options, threads):
    """The fused-mapped-cpu pipeline of the GPU tests (--posenc-to-nvvm's
    fused path up to its mapping, emulated) with the decompose `options`,
    mapped on `threads` threads per block."""
    return (FUSED_MAPPED_CPU_PIPELINE
            .replace(FIXED_TILES, decompose_pass(options))
            .replace(EIGHT_THREADS,
                     f"posenc-gpu-map-attention{{block-size={threads} emulate-on-cpu}}"))


# --posenc-to-nvvm's own tiles and split goal (query-tile 64 = threads,
# key-tile 32, decode-blocks 264), and small ones: 8 threads on tiles of up
# to 8 rows and 5 keys, so that every strided tile op wraps around the
# threads and the key loops end on partial tiles.
AS_BUILT = ("query-tile=64 key-tile=32 split-k-tasks=264", 64)
SMALL = ("query-tile=8 key-tile=5 split-k-tasks=40", 8)
SCHEDULES = {"as-built": AS_BUILT, "small": SMALL}


def check(ir, args, want, schedule, what):
    options, threads = SCHEDULES[schedule] if isinstance(schedule, str) else schedule
    # The decode schedule is what runs (not the prefill one): its tile ops
    # carry the mark the GPU mapping strides them by.
    assert "posenc.spread_over_threads" in run_posenc_opt(ir, decompose(options) + ")")
    got = posenc.compile(ir, pipeline=emulated(options, threads))(*args)
    _assert_close(got, want, ATOL, RTOL, f"{what} ({options}, {threads} threads)")


@pytest.mark.parametrize("schedule", ["as-built", "small"])
@pytest.mark.parametrize("hq,hkv", [(32, 8), (8, 2), (4, 4)])
@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_decode(sq, hq, hkv, causal, schedule):
    ir, args, want = attention_case([1], hq, hkv, sq, 333, 32, 32,
                                    causal=causal, seed=sq + hq)
    check(ir, args, want, schedule, f"Sq={sq} GQA {hq}/{hkv} causal={causal}")


@pytest.mark.parametrize("sq", [1, 4])
def test_decode_alibi_packed_heads(sq):
    """ALiBi's slope is per query head: the rows of a packed tile belong to
    different heads."""
    ir, args, want = attention_case([2], 8, 2, sq, 97, 16, 16, causal=True,
                                    alibi={"symmetric": False}, seed=sq)
    check(ir, args, want, "small", f"ALiBi Sq={sq}")


@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_ragged_kv_lengths(sq, causal):
    lengths = [0, 300, 17, 257] if sq == 1 else [300, sq, 100, 257]
    ir, args, want = kv_case(4, 8, 2, sq, 300, 32, lengths, causal, seed=sq)
    for schedule in ("as-built", "small"):
        check(ir, args, want, schedule, f"kv_lengths {lengths}")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_half_cache_f32_query(elem, sq, causal):
    ir, args, want = kv_case(2, 32, 8, sq, 200, 64, [200, 77], causal, elem=elem,
                             seed=sq + 7)
    check(ir, args, want, "as-built", f"{elem} K/V")


@pytest.mark.parametrize("sq", [1, 4])
def test_rope_per_batch_positions(sq):
    ir, args, want = kv_case(3, 8, 2, sq, 120, 32, [120, 40, sq], True,
                             rope=True, seed=sq + 11)
    check(ir, args, want, "small", "RoPE at per-batch positions")


def test_forced_split_count():
    """split-k-count (--posenc-to-nvvm's decode-splits): 9 splits of a
    300-row cache, most of them empty for the short sequences."""
    ir, args, want = kv_case(3, 8, 2, 1, 300, 32, [300, 3, 0], True, seed=5)
    check(ir, args, want, ("query-tile=64 key-tile=32 split-k-count=9", 64),
          "9 splits")
