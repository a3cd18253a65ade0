"""Execution of the KV-cache forms of SPEC.md's additions ("attention over a
KV cache"): posenc.attention with `kv_lengths` over a preallocated cache,
posenc.rope with per-batch positions [B, S], and f16/bf16 key/value under an
f32 query, through the fused CPU path (posenc-cpu-pipeline: by default the decode
schedule for these Sq <= 16, with GQA packing; with forced split-K; with
small fixed tiles, the prefill schedule), the scalar tile layout lowered for
the CPU, and the
reference lowering (`reference=true`), each compared with the numpy
reference (`posenc.reference`, float64, written from the spec).

The cache rows past each sequence's length hold garbage (large finite
values; NaN and inf in test_non_finite_past_the_lengths): a lowering that
read them into the softmax, or multiplied them by a masked key's zero
probability, would fail the comparison. Lengths include 0 (a row with no key gives zeros) and Smax.

Tolerances: f32 arithmetic against float64 on the same (rounded) inputs:
atol 2e-5 + rtol 2e-4, as test_fused_execution.py. Half K/V are rounded to
f16/bf16 before the reference sees them, so the half storage adds no error
of its own; RoPE positions stay below 300, where the f32 angle error is
~1e-5 absolute (as in test_fused_execution.py).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close as _assert_close, to_elem  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4
FUSED = "builtin.module(posenc-cpu-pipeline{reference=false})"
# The decode schedule (Sq <= 16) with the keys split across tasks every 64
# keys: splits past a short sequence's length are empty and merge as zeros.
FUSED_SPLIT_K = ("builtin.module(posenc-cpu-pipeline{reference=false "
                 "attention-split-k-max-keys=64})")
FUSED_SMALL_TILES = ("builtin.module(posenc-cpu-pipeline{reference=false "
                     "attention-query-tile=8 attention-key-tile=16})")
SCALAR_TILES = ("builtin.module(posenc-fuse-attention, "
                "posenc-decompose-attention{query-tile=8 key-tile=16}, posenc-cpu-pipeline)")
REFERENCE = "builtin.module(posenc-cpu-pipeline{reference=true})"
PIPELINES = [FUSED, FUSED_SPLIT_K, FUSED_SMALL_TILES, SCALAR_TILES, REFERENCE]
GARBAGE = 40.0


def ttype(shape, elem="f32"):
    dims = "x".join("?" if s is None else str(s) for s in shape)
    return f"tensor<{dims}x{elem}>"


def assert_close(got, want, what, atol=ATOL, rtol=RTOL):
    _assert_close(got, want, atol, rtol, what)


def cache(rng, b, h, smax, d, lengths, elem, garbage=GARBAGE):
    """A [b, h, smax, d] cache whose rows past lengths[b] are `garbage`;
    returns (array to pass, float64 copy of what it holds)."""
    x = rng.standard_normal((b, h, smax, d)).astype(np.float32)
    for i, n in enumerate(lengths):
        x[i, :, n:] = garbage
    return to_elem(x, elem)


def kv_case(b, hq, hkv, sq, smax, d, lengths, causal, elem="f32", rope=False,
            dynamic=False, seed=0, garbage=GARBAGE):
    """(ir, args, want) of attention over a cache with kv_lengths; with
    `rope`, q and the cache's keys are rotated inside the program at
    per-batch positions (queries at the last sq rows of each sequence)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((b, hq, sq, d)).astype(np.float32)
    k, kf = cache(rng, b, hkv, smax, d, lengths, elem, garbage)
    v, vf = cache(rng, b, hkv, smax, d, lengths, elem, garbage)
    lens = np.asarray(lengths, np.int32)
    sqd, skd = (None, None) if dynamic else (sq, smax)
    qt, kt, ot = ttype([b, hq, sqd, d]), ttype([b, hkv, skd, d], elem), ttype([b, hq, sqd, d])
    params = [f"%q: {qt}", f"%k: {kt}", f"%v: {kt}", f"%len: {ttype([b], 'i32')}"]
    args = [q, k, v, lens]
    body, qn, kn, qf = [], "%q", "%k", q.astype(np.float64)
    if rope:
        qpos = np.stack([np.arange(n - sq, n) for n in lengths]).astype(np.int32)
        kpos = np.tile(np.arange(smax, dtype=np.int32), (b, 1))
        qpt, kpt = ttype([b, sqd], "i32"), ttype([b, skd], "i32")
        params += [f"%qpos: {qpt}", f"%kpos: {kpt}"]
        args += [qpos, kpos]
        body += [f"%qr = posenc.rope %q, %qpos layout half : {qt}, {qpt}",
                 f"%kr = posenc.rope %k, %kpos layout half : {kt}, {kpt}"]
        qn, kn = "%qr", "%kr"
        qf = ref.rope(q, qpos, "half")
        kf = ref.rope(kf, kpos, "half")
        if elem != "f32":  # posenc.rope stores its result in the element type
            kf = to_elem(kf, elem)[1]
    attrs = " {causal}" if causal else ""
    body.append(f"%o = posenc.attention {qn}, {kn}, %v kv_lengths(%len : {ttype([b], 'i32')})"
                f"{attrs} : {qt}, {kt}, {kt} -> {ot}")
    ir = (f"func.func @f({', '.join(params)}) -> {ot} {{\n  " + "\n  ".join(body)
          + f"\n  return %o : {ot}\n}}\n")
    want = ref.attention(qf, kf, vf, causal=causal, kv_lengths=lens)
    return ir, args, want


def run_all(ir, args, want, pipelines=PIPELINES):
    for pipeline in pipelines:
        out = posenc.compile(ir, pipeline=pipeline)(*args)
        assert_close(out, want, pipeline)


@pytest.mark.parametrize("sq", [1, 4, 16])
@pytest.mark.parametrize("causal", [False, True])
def test_ragged_batch_gqa(sq, causal):
    lengths = [0, 300, 17, 257] if sq == 1 else [300, sq, 100, 257]
    ir, args, want = kv_case(4, 8, 2, sq, 300, 32, lengths, causal, seed=sq)
    run_all(ir, args, want)


@pytest.mark.parametrize("garbage", [np.nan, np.inf])
@pytest.mark.parametrize("sq,smax,lengths", [(1, 1000, [700, 999]),
                                             (4, 1000, [513, 1000]),
                                             (16, 300, [100, 257]),
                                             (64, 256, [200, 130])])
def test_non_finite_past_the_lengths(sq, smax, lengths, garbage):
    """Rows past a sequence's length are memory the caller never wrote
    (np.empty, a recycled cache): NaN or inf there must not reach the
    output, not even as a masked key's 0 x v (the reference lowering
    multiplied its zero probabilities into all of V until the seventeenth
    session). Every output is finite and matches the numpy reference."""
    for elem in ("f32", "f16"):
        # The reference's q K^T meets the garbage before its mask does.
        with np.errstate(invalid="ignore", over="ignore"):
            ir, args, want = kv_case(2, 8, 2, sq, smax, 128, lengths, True,
                                     elem=elem, seed=sq, garbage=garbage)
        assert np.isfinite(want).all()
        run_all(ir, args, want)


def test_long_cache_decode():
    ir, args, want = kv_case(2, 8, 2, 1, 2048, 64, [2048, 1500], True, seed=3)
    run_all(ir, args, want, [FUSED, REFERENCE])


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_half_cache_f32_query(elem, sq, causal):
    ir, args, want = kv_case(2, 4, 2, sq, 200, 32, [200, 77], causal, elem=elem, seed=5)
    run_all(ir, args, want)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_half_kv_without_lengths(elem):
    # Mixed element types on their own: an f32 query over an f16/bf16 K/V.
    rng = np.random.default_rng(8)
    q = rng.standard_normal((1, 4, 3, 32)).astype(np.float32)
    k, kf = to_elem(rng.standard_normal((1, 2, 50, 32)), elem)
    v, vf = to_elem(rng.standard_normal((1, 2, 50, 32)), elem)
    qt, kt = ttype([1, 4, 3, 32]), ttype([1, 2, 50, 32], elem)
    ir = (f"func.func @f(%q: {qt}, %k: {kt}, %v: {kt}) -> {qt} {{\n"
          f"  %o = posenc.attention %q, %k, %v {{causal}} : {qt}, {kt}, {kt} -> {qt}\n"
          f"  return %o : {qt}\n}}\n")
    run_all(ir, [q, k, v], ref.attention(q, kf, vf, causal=True))


@pytest.mark.parametrize("elem", ["f32", "f16"])
def test_rope_at_per_sequence_offsets(elem):
    ir, args, want = kv_case(3, 8, 2, 4, 120, 32, [120, 40, 4], True, elem=elem,
                             rope=True, seed=9)
    run_all(ir, args, want)


def test_dynamic_sequence_lengths():
    ir, args, want = kv_case(2, 4, 2, 5, 90, 16, [90, 33], True, dynamic=True, seed=10)
    run_all(ir, args, want)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("pipeline", [FUSED, REFERENCE])
def test_standalone_rope_per_batch_positions(layout, pipeline):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 4, 5, 64)).astype(np.float32)
    pos = np.array([[0, 1, 2, 3, 4], [100, 101, 102, 103, 104], [7, 3, 9, 1, 0]], np.int64)
    xt, pt = ttype([3, 4, None, 64]), ttype([3, None], "i64")
    ir = (f"func.func @f(%x: {xt}, %p: {pt}) -> {xt} {{\n"
          f"  %r = posenc.rope %x, %p layout {layout} : {xt}, {pt}\n"
          f"  return %r : {xt}\n}}\n")
    out = posenc.compile(ir, pipeline=pipeline)(x, pos)
    assert_close(out, ref.rope(x, pos, layout), f"{pipeline} rope", 2e-5, 2e-5)


@pytest.mark.parametrize("pipeline", [FUSED, REFERENCE])
def test_bad_kv_length_is_an_error_and_the_next_call_works(pipeline):
    ir, args, want = kv_case(2, 4, 2, 1, 64, 16, [64, 10], False, seed=13)
    f = posenc.compile(ir, pipeline=pipeline)
    for bad in ([65, 10], [10, -1]):
        with pytest.raises(posenc.PosencError, match="'kv_lengths' value lies outside"):
            f(*args[:3], np.array(bad, np.int32))
    assert_close(f(*args), want, f"{pipeline} after the failed calls")
