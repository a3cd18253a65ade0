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
