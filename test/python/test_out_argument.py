"""Compiled functions' ``out=`` (results written into the caller's arrays)
and returned results that own the compiled code's buffer (no copy), plus the
builders' KV-cache arguments (kv_lengths, per-batch positions, a half cache
under an f32 query). Values are compared with posenc.reference (float64)
within atol/rtol 2e-5 + 2e-4 (f32 arithmetic)."""
import gc

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import builders
from posenc import reference as ref
from posenc_testutil import assert_close, to_elem  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4
RNG = np.random.default_rng(4)
X = RNG.standard_normal((2, 4, 16, 64)).astype(np.float32)
POS = np.arange(16, dtype=np.int32)


@pytest.fixture(scope="module")
def rope():
    return posenc.compile(builders.rope([2, 4, 16, 64], "half"))


def test_out_writes_into_the_callers_array(rope):
    out = np.full_like(X, np.nan)
    result = rope(X, POS, out=out)
    assert result is out
    assert_close(out, ref.rope(X, POS, "half"), ATOL, RTOL, "out=")


def test_returned_results_are_independent_and_survive_collection(rope):
    a = rope(X, POS)
    b = rope(X, POS)
    assert not np.shares_memory(a, b)
    b[...] = 0
    for _ in range(50):  # buffers freed and reused underneath
        rope(X, POS)
    gc.collect()
    assert_close(a, ref.rope(X, POS, "half"), ATOL, RTOL, "returned array")


@pytest.mark.parametrize("bad", [np.empty((2, 4, 16, 63), np.float32),
                                 np.empty((2, 4, 16, 64), np.float64),
                                 np.empty((2, 4, 64, 16), np.float32).transpose(0, 1, 3, 2),
                                 [np.empty((2, 4, 16, 64), np.float32)] * 2])
def test_bad_out_is_an_error_and_the_next_call_works(rope, bad):
    with pytest.raises(posenc.PosencError, match="out="):
        rope(X, POS, out=bad)
    out = np.empty_like(X)
    assert_close(rope(X, POS, out=out), ref.rope(X, POS, "half"), ATOL, RTOL, "after")


def test_out_with_several_results():
    t = "tensor<4x8xf32>"
    f = posenc.compile(f"func.func @two(%x: {t}, %p: tensor<4xi32>) -> ({t}, {t}) {{\n"
                       f"  %a = posenc.rope %x, %p layout half : {t}, tensor<4xi32>\n"
                       f"  %b = posenc.rope %x, %p layout interleaved : {t}, tensor<4xi32>\n"
                       f"  return %a, %b : {t}, {t}\n}}\n")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    p = np.arange(4, dtype=np.int32)
    out = np.empty_like(x)
    a, b = f(x, p, out=(out, None))
    assert a is out
    assert_close(a, ref.rope(x, p, "half"), ATOL, RTOL, "half")
    assert_close(b, ref.rope(x, p, "interleaved"), ATOL, RTOL, "interleaved")


def test_rope_builder_per_batch_positions():
    f = posenc.compile(builders.rope([2, 4, 16, 64], "interleaved", per_batch_positions=True))
    pos = np.stack([POS, POS + 500]).astype(np.int32)
    assert_close(f(X, pos), ref.rope(X, pos, "interleaved"), ATOL, RTOL, "rope [B, S]")


@pytest.mark.parametrize("kv_dtype", ["f32", "f16", "bf16"])
def test_llama_builder_decode_over_a_cache(kv_dtype):
    b, hq, hkv, smax, d = 2, 8, 2, 96, 32
    block = builders.llama_attention(b, hq, hkv, 1, d, kv_seq=smax, kv_dtype=kv_dtype,
                                     kv_lengths=True, per_batch_positions=True)
    assert [n for n, _ in block.arguments] == ["query", "key", "value", "q_positions",
                                               "k_positions", "kv_lengths"]
    lengths = np.array([96, 40], np.int32)
    q = RNG.standard_normal((b, hq, 1, d)).astype(np.float32)
    k, kf = to_elem(RNG.standard_normal((b, hkv, smax, d)), kv_dtype)
    v, vf = to_elem(RNG.standard_normal((b, hkv, smax, d)), kv_dtype)
    qpos = (lengths - 1)[:, None].astype(np.int32)
    kpos = np.tile(np.arange(smax, dtype=np.int32), (b, 1))
    got = posenc.compile(block)(q, k, v, qpos, kpos, lengths)
    krot = ref.rope(kf, kpos, "half", base=500000.0)
    if kv_dtype != "f32":  # posenc.rope stores the rotated keys in the cache's type
        krot = to_elem(krot, kv_dtype)[1]
    want = ref.attention(ref.rope(q, qpos, "half", base=500000.0), krot, vf,
                         causal=True, kv_lengths=lengths)
    assert_close(got, want, ATOL, RTOL, f"decode, {kv_dtype} cache")


def test_returned_buffers_are_freed_when_the_arrays_go():
    # 600 results of 1 MiB: leaked, they would grow the peak RSS by 600 MiB.
    import resource
    f = posenc.compile(builders.rope([1, 8, 256, 128], "half"))
    x = np.ones((1, 8, 256, 128), np.float32)
    pos = np.arange(256, dtype=np.int32)
    for _ in range(50):
        y = f(x, pos)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(600):
        y = f(x, pos)
    growth_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert growth_mib < 100, f"peak RSS grew by {growth_mib:.0f} MiB"
    assert_close(y, ref.rope(x, pos, "half"), ATOL, RTOL, "last result")


# Destination-passing calls (posenc-results-to-destinations): a function
# whose results are all static tensors writes them into arrays the caller
# passes: out= itself, or a pool array that is reused once dropped.

def test_static_results_are_written_in_place(rope):
    # (That nothing of the result's size is allocated or copied is checked
    # on the IR by test/Pipelines/results-to-destinations.mlir.)
    assert rope.signature["destination_passing"]
    out = np.full_like(X, np.nan)
    assert rope(X, POS, out=out) is out
    assert_close(out, ref.rope(X, POS, "half"), ATOL, RTOL, "in place")


def test_a_dropped_result_is_reused_and_a_live_view_is_not():
    # 1 MiB results: pooled (smaller ones are plain arrays, see ResultPool).
    rope = posenc.compile(builders.rope([1, 4, 512, 128], "half"))
    X = RNG.standard_normal((1, 4, 512, 128)).astype(np.float32)
    POS = (np.arange(512) % 32).astype(np.int32)  # small angles: f32-exact enough
    a = rope(X, POS)
    address = a.ctypes.data
    view = a[0, 1]
    del a
    gc.collect()
    b = rope(X, POS)
    assert not np.shares_memory(b, view), "the pool handed out memory a view still uses"
    second = b.ctypes.data
    b[...] = 0
    assert_close(view, ref.rope(X, POS, "half")[0, 1], ATOL, RTOL, "the view")
    del view, b
    gc.collect()
    c = rope(X, POS)
    assert c.ctypes.data in (address, second), "a dropped result's memory was not reused"
    assert c.ctypes.data % 64 == 0
    assert_close(c, ref.rope(X, POS, "half"), ATOL, RTOL, "reused memory")


def test_out_overlapping_an_argument_is_right(rope):
    x = X.copy()
    want = ref.rope(X, POS, "half")
    assert rope(x, POS, out=x) is x  # written through a pool array, then copied
    assert_close(x, want, ATOL, RTOL, "out= is the input")
    y = np.concatenate([X, X], axis=0)  # out= a strided view overlapping the input
    out = y[:2]
    assert rope(y[:2], POS, out=out) is out
    assert_close(y[:2], want, ATOL, RTOL, "out= overlaps the input")


def test_one_array_for_two_results_gets_the_last():
    t = "tensor<4x8xf32>"
    f = posenc.compile(f"func.func @two(%x: {t}, %p: tensor<4xi32>) -> ({t}, {t}) {{\n"
                       f"  %a = posenc.rope %x, %p layout half : {t}, tensor<4xi32>\n"
                       f"  %b = posenc.rope %x, %p layout interleaved : {t}, tensor<4xi32>\n"
                       f"  return %a, %b : {t}, {t}\n}}\n")
    assert f.signature["destination_passing"]
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    p = np.arange(4, dtype=np.int32)
    out = np.empty_like(x)
    a, b = f(x, p, out=(out, out))
    assert a is out and b is out
    assert_close(out, ref.rope(x, p, "interleaved"), ATOL, RTOL, "the second result")


def test_a_failed_check_leaves_the_next_call_working():
    t = "tensor<1x2x8x16xf32>"
    f = posenc.compile(f"func.func @r(%x: {t}, %p: tensor<?xi32>) -> {t} {{\n"
                       f"  %r = posenc.rope %x, %p layout half : {t}, tensor<?xi32>\n"
                       f"  return %r : {t}\n}}\n")
    assert f.signature["destination_passing"]
    x = RNG.standard_normal((1, 2, 8, 16)).astype(np.float32)
    with pytest.raises(posenc.PosencError):
        f(x, np.arange(5, dtype=np.int32))
    p = np.arange(8, dtype=np.int32)
    assert_close(f(x, p), ref.rope(x, p, "half"), ATOL, RTOL, "after the failed check")


def test_functions_that_keep_returning_results():
    # Dynamic result shapes, scalar results, and an entry called inside its
    # module keep the returning convention (and still work).
    dyn = posenc.compile(builders.rope([1, 2, None, 16], "half"))
    assert not dyn.signature["destination_passing"]
    x = RNG.standard_normal((1, 2, 8, 16)).astype(np.float32)
    p = np.arange(8, dtype=np.int32)
    assert_close(dyn(x, p), ref.rope(x, p, "half"), ATOL, RTOL, "dynamic S")
    t = "tensor<4x8xf32>"
    called = posenc.compile(
        f"func.func @inner(%x: {t}, %p: tensor<4xi32>) -> {t} {{\n"
        f"  %r = posenc.rope %x, %p layout half : {t}, tensor<4xi32>\n"
        f"  return %r : {t}\n}}\n"
        f"func.func @outer(%x: {t}, %p: tensor<4xi32>) -> {t} {{\n"
        f"  %r = func.call @inner(%x, %p) : ({t}, tensor<4xi32>) -> {t}\n"
        f"  return %r : {t}\n}}\n", entry="inner")
    assert not called.signature["destination_passing"]
    x4 = RNG.standard_normal((4, 8)).astype(np.float32)
    p4 = np.arange(4, dtype=np.int32)
    assert_close(called(x4, p4), ref.rope(x4, p4, "half"), ATOL, RTOL, "called entry")


def test_posenc_empty_is_aligned():
    a = posenc.empty((3, 5, 7), np.float32)
    assert a.shape == (3, 5, 7) and a.dtype == np.float32 and a.flags.c_contiguous
    assert a.ctypes.data % 64 == 0
    b = posenc.empty_like(X)
    assert b.shape == X.shape and b.dtype == X.dtype and b.ctypes.data % 64 == 0
