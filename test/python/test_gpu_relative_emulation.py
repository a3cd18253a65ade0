"""Transformer-XL (posenc.xl_attention) and DeBERTa
(posenc.disentangled_attention) on --posenc-to-nvvm's FMA kernel, run on the
CPU through the GPU mapping's emulation, against the numpy reference
(`posenc.reference`, float64, written from the spec).

--posenc-to-nvvm fuses both ops into posenc.fused_attention (the xl term,
DeBERTa's deberta_pos_key / deberta_pos_query terms); the tensor-core
kernel declines those terms (checked below), so every element type goes to
the FMA kernel: the decomposition's generic tile layout, one query row per
thread, the position terms a D-long dot product per score (XL:
(q_i + v_h) . rel[i' - j + Sq - 1]; DeBERTa: q_i . pos_key[c(i - j)] and
k_j . pos_query[c(i - j)], c from DeBERTa-v2's log bucket, read from a
per-op index of the distances when the buckets are on). The pipelines are
the GPU tests' fused-mapped-cpu one (check_against_reference.py: 6 x 5
tiles on 8 threads: partial tiles, idle threads, many key tiles per query
tile) and the same with --posenc-to-nvvm's own tiles (64 x 32 on 64
threads), each mapped tile op emulated as a sequential loop over the
thread ids (`emulate-on-cpu`): the IR the kernels are outlined from, so the
row/key indices of the terms, the per-head tables and biases, the causal
bound and the partial tiles are checked; the private/shared placement and
the barriers are not (docs/gpu.md, "Tests"). fused=false's reference
kernels run through the mapped-cpu pipeline (one thread per element).

Tolerances (as test_xl_attention.py and test_deberta.py, whose CPU paths
compute the same way): f32 atol 5e-5 + rtol 5e-4 (XL: online softmax in f32
against float64, scores the sum of two biased D-long products) and 2e-5 +
2e-4 (DeBERTa); f16 / bf16: inputs, tables and biases rounded to the type
and given rounded to the reference, f32 arithmetic, the result rounded
once: atol = rtol = 4e-3 (f16), 3e-2 (bf16).
"""
import os
import sys

import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc_testutil import assert_close, from_elem, run_posenc_opt  # noqa: E402
from test_deberta import F32_SHAPES, TERMS, deberta_case, f32_case  # noqa: E402
from test_xl_attention import xl_case  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Integration", "GPU", "Inputs"))
from check_against_reference import (FUSED_MAPPED_CPU_PIPELINE,  # noqa: E402
                                     MAPPED_CPU_PIPELINE)

XL_TOLERANCE = {"f32": (5e-5, 5e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}
DEBERTA_TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}

SMALL_TILES = "posenc-decompose-attention{query-tile=6 key-tile=5}"
EIGHT_THREADS = "posenc-gpu-map-attention{block-size=8 emulate-on-cpu}"
assert SMALL_TILES in FUSED_MAPPED_CPU_PIPELINE and EIGHT_THREADS in FUSED_MAPPED_CPU_PIPELINE
# --posenc-to-nvvm's defaults: query-tile 64 (= threads per block), key-tile 32.
AS_BUILT_PIPELINE = (FUSED_MAPPED_CPU_PIPELINE
                     .replace(SMALL_TILES, "posenc-decompose-attention{query-tile=64 key-tile=32}")
                     .replace(EIGHT_THREADS, "posenc-gpu-map-attention{block-size=64 emulate-on-cpu}"))
PIPELINES = {"small": FUSED_MAPPED_CPU_PIPELINE, "as-built": AS_BUILT_PIPELINE,
             "reference": MAPPED_CPU_PIPELINE}

# --posenc-to-nvvm's front: fusion, then the tensor-core kernel (which must
# leave these terms to the FMA kernel).
NVVM_FRONT = "builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)"


def check(program, args, want, elem, tolerance, pipelines, what):
    for name in pipelines:
        got = from_elem(posenc.compile(program, pipeline=PIPELINES[name])(*args), elem)
        assert_close(got, want, *tolerance[elem], f"{what} ({name})")


# ---------------------------------------------------------------------------
# Transformer-XL
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rel_heads", [True, False], ids=["rel_per_head", "rel_shared"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("sq,sk", [(17, 17), (9, 70), (40, 13), (1, 37)])
def test_xl_f32(sq, sk, causal, rel_heads):
    program, args, want = xl_case("f32", 2, 3, sq, sk, 16, causal, rel_heads,
                                  dynamic=False, seed=sq + sk)
    check(program, args, want, "f32", XL_TOLERANCE, ("small", "as-built"),
          f"XL Sq={sq} Sk={sk} causal={causal}")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xl_16bit(elem, causal):
    program, args, want = xl_case(elem, 1, 4, 33, 65, 32, causal, True,
                                  dynamic=False, seed=5)
    # The tensor-core kernel declines the xl term: the FMA kernel runs it.
    front = run_posenc_opt(program, NVVM_FRONT)
    assert "posenc.fused_attention" in front and " xl(" in front
    assert "gpu.launch" not in front
    check(program, args, want, elem, XL_TOLERANCE, ("small", "as-built"),
          f"XL {elem} causal={causal}")


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xl_dynamic_sequence(causal):
    program, args, want = xl_case("f32", 1, 2, 70, 100, 16, causal, False,
                                  dynamic=True, seed=9)
    check(program, args, want, "f32", XL_TOLERANCE, ("small", "as-built"),
          f"XL dynamic causal={causal}")


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xl_reference_kernels(causal):
    program, args, want = xl_case("f32", 1, 2, 9, 14, 8, causal, True,
                                  dynamic=False, seed=3)
    check(program, args, want, "f32", XL_TOLERANCE, ("reference",),
          f"XL fused=false causal={causal}")


# ---------------------------------------------------------------------------
# DeBERTa
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("buckets", [None, (8, 20)], ids=["plain", "buckets"])
@pytest.mark.parametrize("terms", TERMS, ids="|".join)
@pytest.mark.parametrize("sq,sk,causal", F32_SHAPES)
def test_deberta_f32(sq, sk, causal, terms, buckets):
    program, args, want = f32_case(sq, sk, causal, terms, buckets)
    check(program, args, want, "f32", DEBERTA_TOLERANCE, ("small", "as-built"),
          f"DeBERTa {terms} buckets={buckets} Sq={sq} Sk={sk} causal={causal}")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["bidirectional", "causal"])
def test_deberta_16bit(elem, causal):
    program, args, want = deberta_case(elem, 1, 2, 20, 33, 32, 8, ("c2p", "p2c"), (8, 20),
                                       causal, per_head=True, seed=7)
    front = run_posenc_opt(program, NVVM_FRONT)
    assert "deberta_pos_key(" in front and "deberta_pos_query(" in front
    assert "gpu.launch" not in front
    check(program, args, want, elem, DEBERTA_TOLERANCE, ("small", "as-built"),
          f"DeBERTa {elem} causal={causal}")


def test_deberta_long_distances_and_many_tiles():
    # DeBERTa-v3's buckets (256, 512) over distances past max_position, an
    # explicit scale, several 64 x 32 tiles with partial last ones.
    program, args, want = deberta_case("f32", 1, 1, 80, 700, 8, 256, ("c2p", "p2c"),
                                       (256, 512), False, per_head=False, scale=0.2,
                                       seed=3)
    check(program, args, want, "f32", DEBERTA_TOLERANCE, ("as-built",),
          "DeBERTa long distances")


@pytest.mark.parametrize("terms", TERMS, ids="|".join)
def test_deberta_dynamic_sequence(terms):
    program, args, want = deberta_case("f32", 1, 2, 19, 41, 16, 16, terms, (16, 40),
                                       True, per_head=False, dynamic=True, seed=11)
    check(program, args, want, "f32", DEBERTA_TOLERANCE, ("small", "as-built"),
          f"DeBERTa dynamic {terms}")


@pytest.mark.parametrize("buckets", [None, (8, 20)], ids=["plain", "buckets"])
def test_deberta_reference_kernels(buckets):
    program, args, want = deberta_case("f32", 1, 2, 9, 14, 8, 8, ("c2p", "p2c"), buckets,
                                       True, per_head=True, seed=4)
    check(program, args, want, "f32", DEBERTA_TOLERANCE, ("reference",),
          f"DeBERTa fused=false buckets={buckets}")
