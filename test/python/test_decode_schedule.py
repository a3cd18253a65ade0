"""Execution tests of the decode schedule of the fused attention path
(docs/pipelines.md, "Attention schedules"): Sq <= 16 query rows against a
long key/value sequence, with the query heads of a GQA group packed into one
tile and the keys split across tasks (split-K) and merged by their
log-sum-exp.

Every case runs `posenc-cpu-pipeline` (by-shape schedule) on seeded inputs
and compares with the numpy reference (`posenc.reference`, float64, written
from docs/spec.md). Key counts are a tile multiple (1024) and not (4097);
GQA 32/8 and 8/2 and MHA; causal (bottom-right aligned, Sq <= Sk) and not;
RoPE prologue on q and k; dynamic Sq on both sides of the run-time branch;
split-K forced with few heads and a small key limit; 256-bit vectors (AVX2
code: target-features=-avx512f) as well as the host's. Tiles of fewer than
16 rows (Sq x Hq/Hkv < 16) hold the scores with the keys on the vector
lanes (docs/pipelines.md): those are checked at D = 128 for 1, 2, 4 and 8
rows, f32/f16/bf16 K/V, both widths; half-precision V converted once per
key tile (16 and 64 rows) or in P V (4 rows), with Dv != D, both widths;
the split count follows the OpenMP
thread count at run time (checked with OMP_NUM_THREADS=3 in a child);
the software prefetch of later K/V tiles, off and at distances 1 and 3,
changes nothing.

Tolerance: f32 arithmetic against float64, atol 2e-5 + rtol 2e-4 as in
test_fused_execution.py; the split merge rescales each partial once by
exp(m_s - m*) <= 1 (the online softmax's own step), so it adds at most a
few ulps per split to that bound. RoPE cases keep positions < 400, where
the f32 angle error is ~1e-5 absolute.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from test_fused_execution import attention_case  # noqa: E402
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close as _assert_close, to_elem  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4


def pipeline(options=""):
    return f"builtin.module(posenc-cpu-pipeline{{{options}}})"


def check(ir, args, want, options="", what="decode"):
    compiled = posenc.compile(ir, pipeline=pipeline(options))
    _assert_close(compiled(*args), want, ATOL, RTOL, f"{what} ({options})")
    return compiled


HEADS = [(32, 8), (8, 2), (4, 4)]


@pytest.mark.parametrize("hq,hkv", HEADS)
@pytest.mark.parametrize("sk", [1024, 4097])
@pytest.mark.parametrize("sq", [1, 4, 16])
def test_decode_causal(sq, sk, hq, hkv):
    ir, args, want = attention_case([1], hq, hkv, sq, sk, 64, 64, causal=True,
                                    seed=sq + sk)
    check(ir, args, want)


@pytest.mark.parametrize("hq,hkv", HEADS)
@pytest.mark.parametrize("sq", [1, 4, 16])
def test_decode_not_causal(sq, hq, hkv):
    ir, args, want = attention_case([1], hq, hkv, sq, 4097, 64, 64, seed=sq)
    check(ir, args, want)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("sq", [1, 4, 16])
def test_decode_rope_prologue(sq, layout):
    rope = {"layout": layout, "base": 10000.0}
    ir, args, want = attention_case([2], 8, 2, sq, 333, 64, 64, causal=True,
                                    q_rope=rope, k_rope=rope, seed=sq)
    check(ir, args, want)


@pytest.mark.parametrize("sq", [1, 5, 16, 17, 40])
def test_dynamic_sq(sq):
    """Both sides of the run-time branch on Sq <= 16, one compiled
    function per size (the shapes are dynamic in the IR)."""
    ir, args, want = attention_case([1], 8, 2, sq, 300, 32, 32, causal=True,
                                    dynamic=True, seed=sq)
    check(ir, args, want)


def test_dynamic_sq_one_function():
    """One compiled function with dynamic Sq called with Sq = 3 (decode
    branch) and Sq = 40 (prefill branch)."""
    ir, _, _ = attention_case([1], 8, 2, 3, 300, 32, 32, causal=True,
                              dynamic=True)
    compiled = posenc.compile(ir, pipeline=pipeline())
    for sq in (3, 40):
        _, args, want = attention_case([1], 8, 2, sq, 300, 32, 32,
                                       causal=True, dynamic=True, seed=sq)
        _assert_close(compiled(*args), want, ATOL, RTOL, f"dynamic Sq={sq}")


@pytest.mark.parametrize("sq,sk,causal", [(1, 4097, True), (4, 4097, False),
                                          (16, 1024, True), (16, 5, True)])
def test_split_k_few_heads(sq, sk, causal):
    """One K/V head, one batch: a single task unless the keys are split.
    split-k-max-keys=256 makes 16 or more splits of 4097 keys (every split
    at least 4 key tiles), the last one partial; (16, 5) has query rows
    with no key at all (zeros) under the causal rule."""
    ir, args, want = attention_case([1], 2, 1, sq, sk, 64, 64, causal=causal,
                                    seed=sk)
    compiled = check(ir, args, want,
                     "attention-split-k-tasks=16 attention-split-k-max-keys=256")
    if (sq, sk) == (16, 5):
        assert np.all(compiled(*args)[..., :11, :] == 0.0)


@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 8, 2), (16, 4, 4)])
def test_decode_avx2_vectors(sq, hq, hkv):
    """AVX2 code (256-bit register tiles, no AVX-512 instructions): what an
    AVX2-only host runs."""
    ir, args, want = attention_case([1], hq, hkv, sq, 4097, 64, 64,
                                    causal=True, seed=sq)
    check(ir, args, want, "vector-bits=256 target-features=-avx512f")


def test_explicit_query_tile_overrides():
    """attention-query-tile given: the fixed schedule (no packing, no
    split), still right."""
    ir, args, want = attention_case([1], 8, 2, 4, 1024, 64, 64, causal=True)
    check(ir, args, want, "attention-query-tile=64")


def half_kv_case(hq, hkv, sq, sk, d, elem, causal=True, seed=0, dv=None):
    """(ir, args, want): an f32 query over K/V stored as `elem`, rounded
    before the reference sees them (the storage adds no error of its own);
    V rows of `dv` (default `d`) elements."""
    dv = d if dv is None else dv
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((1, hq, sq, d)).astype(np.float32)
    k, kf = to_elem(rng.standard_normal((1, hkv, sk, d)), elem)
    v, vf = to_elem(rng.standard_normal((1, hkv, sk, dv)), elem)
    qt = f"tensor<1x{hq}x{sq}x{d}xf32>"
    kt = f"tensor<1x{hkv}x{sk}x{d}x{elem}>"
    vt = f"tensor<1x{hkv}x{sk}x{dv}x{elem}>"
    ot = f"tensor<1x{hq}x{sq}x{dv}xf32>"
    attrs = " {causal}" if causal else ""
    ir = (f"func.func @f(%q: {qt}, %k: {kt}, %v: {vt}) -> {ot} {{\n"
          f"  %o = posenc.attention %q, %k, %v{attrs} : {qt}, {kt}, {vt} -> {ot}\n"
          f"  return %o : {ot}\n}}\n")
    return ir, [q, k, v], ref.attention(q.astype(np.float64), kf, vf, causal=causal)


# (Sq, Hq, Hkv): tiles of 1 (MHA), 2, 4 and 8 rows; 16 rows (4 x GQA 4)
# is the first tile with the rows on the lanes.
NARROW = [(1, 8, 8), (2, 4, 4), (1, 32, 8), (2, 8, 2), (1, 16, 2), (4, 16, 4)]
WIDTHS = ["", "vector-bits=256 target-features=-avx512f"]


@pytest.mark.parametrize("options", WIDTHS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", NARROW)
def test_keys_on_lanes(sq, hq, hkv, elem, options):
    """D = 128 (8 key-by-dim blocks per key tile), 1000 keys (a partial
    last key tile), causal."""
    ir, args, want = half_kv_case(hq, hkv, sq, 1000, 128, elem, seed=sq + hq)
    check(ir, args, want, options, f"{elem} Sq={sq} {hq}/{hkv}")


# (Sq, Hq, Hkv, D, Dv): tiles whose P V register tiles pass over each V row
# more than twice at 512 bits (16 rows with the keys on the lanes, 64 with
# the rows on the lanes; every tile at 256 bits), which convert f16/bf16 V
# to f32 once per key tile; Dv != D both ways; 4 rows (two passes) as the
# case that converts in P V itself.
WIDENED = [(4, 16, 4, 128, 128), (16, 8, 2, 128, 128), (16, 8, 2, 64, 128),
           (4, 8, 2, 128, 64), (1, 32, 8, 64, 128)]


@pytest.mark.parametrize("options", WIDTHS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv,d,dv", WIDENED)
def test_value_tile_conversion(sq, hq, hkv, d, dv, elem, options):
    """700 keys (a partial last key tile), causal. The conversion is exact
    (every f16/bf16 value is an f32), so the tolerance is f32's."""
    ir, args, want = half_kv_case(hq, hkv, sq, 700, d, elem, seed=sq + d, dv=dv)
    check(ir, args, want, options, f"{elem} Sq={sq} {hq}/{hkv} D={d} Dv={dv}")


@pytest.mark.parametrize("tiles", [0, 1, 3])
@pytest.mark.parametrize("elem", ["f32", "f16"])
def test_prefetch_distance(tiles, elem):
    """Software prefetch of the K/V tile `tiles` ahead (0: none): a pure
    hint, the result is the same attention. Forced splits of 256 keys (4
    key tiles) put the prefetched tile past the split's end for the last
    full tiles of every split (the rows prefetched are clamped to the
    split), 1000 keys leave a partial tail tile (never prefetching)."""
    ir, args, want = half_kv_case(8, 2, 1, 1000, 128, elem, seed=tiles)
    options = (f"attention-prefetch-tiles={tiles} attention-split-k-tasks=16 "
               "attention-split-k-max-keys=256")
    compiled = check(ir, args, want, options, f"{elem} prefetch {tiles}")
    assert ("llvm.intr.prefetch" in compiled.lowered_ir) == (tiles > 0)


def test_split_count_follows_runtime_threads():
    """The default split count reads omp_get_max_threads() at run time:
    3 threads (an odd count) split one K/V head's 4097 keys into 6 tasks'
    worth; the result is the same attention."""
    code = (
        "import numpy as np, posenc, sys\n"
        "sys.path.insert(0, %r)\n"
        "from test_decode_schedule import half_kv_case\n"
        "from posenc_testutil import assert_close\n"
        "ir, args, want = half_kv_case(4, 1, 1, 4097, 64, 'f32')\n"
        "f = posenc.compile(ir, pipeline='builtin.module(posenc-cpu-pipeline)')\n"
        "assert 'omp_get_max_threads' in f.lowered_ir\n"
        "assert_close(f(*args), want, %r, %r, 'OMP_NUM_THREADS=3')\n"
    ) % (os.path.dirname(os.path.abspath(__file__)), ATOL, RTOL)
    env = dict(os.environ, OMP_NUM_THREADS="3")
    done = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("sq,elem", [(17, "f32"), (64, "f32"), (33, "f16")])
def test_prefill_ir_unchanged(sq, elem):
    """Sq > 16 takes the prefill schedule: its lowered IR is byte-identical
    to the one of the fixed 64-row schedule (attention-query-tile=64), so
    nothing of the decode layouts reaches it."""
    ir, _, _ = half_kv_case(8, 2, sq, 300, 128, elem)
    by_shape = posenc.run_pipeline(ir, pipeline())
    fixed = posenc.run_pipeline(ir, pipeline("attention-query-tile=64"))
    assert by_shape == fixed


# The score contraction of tiles of at most 4 rows with the head dim on the
# lanes (attention-score-dims-on-lanes, the default; docs/pipelines.md,
# "Where a decode step's time goes"): per-lane partial products reduced
# once per score by a transpose-and-add tree. (Sq, Hq, Hkv): 4 rows (Sq = 1
# GQA 32/8 and 4/1, Sq = 4 MHA), 1 row (Sq = 1 MHA); 16 rows (Sq = 4 GQA
# 32/8: the transposing contraction for f16/bf16 K at 512 bits, the rows
# on the lanes otherwise) is checked with the option both ways too. 1000 keys: a partial last key tile. Same tolerance as
# above: only the order of the f32 additions over D changes.
DIMS_ON_LANES = [(1, 32, 8), (1, 4, 1), (4, 4, 4), (1, 4, 4), (4, 32, 8)]
VECTOR_BITS = ["vector-bits=512", "vector-bits=256 target-features=-avx512f"]


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("sq,hq,hkv", DIMS_ON_LANES)
@pytest.mark.parametrize("on", ["true", "false"])
def test_score_dims_on_lanes(on, sq, hq, hkv, elem, bits):
    ir, args, want = half_kv_case(hq, hkv, sq, 1000, 128, elem,
                                  seed=sq + hq + hkv)
    check(ir, args, want, f"{bits} attention-score-dims-on-lanes={on}",
          f"{elem} Sq={sq} {hq}/{hkv} dims on lanes {on}")


@pytest.mark.parametrize("bits", VECTOR_BITS)
@pytest.mark.parametrize("sq,hq,hkv", [(1, 32, 8), (4, 4, 4)])
def test_score_dims_on_lanes_kv_lengths(sq, hq, hkv, bits):
    """Over a cache with per-batch lengths (kv_lengths; 70 ends inside the
    second key tile, 0 gives zeros), f16 keys, causal, split-K forced."""
    from test_kv_cache_execution import kv_case
    ir, args, want = kv_case(3, hq, hkv, sq, 300, 128, [200, 70, 0],
                             causal=True, elem="f16", seed=sq)
    check(ir, args, want, f"{bits} attention-split-k-max-keys=128",
          f"kv_lengths Sq={sq} {hq}/{hkv}")
