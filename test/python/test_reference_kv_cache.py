"""Checks of the numpy reference's KV-cache forms (SPEC.md "Additions":
posenc.attention over a cache with kv_lengths, posenc.rope with per-batch
positions) against facts derived by hand from the spec: a cache of length L
is the attention over its first L rows, a batch of sequences is each
sequence on its own. These test the reference itself, not the compiler."""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from posenc import reference as ref  # noqa: E402

RNG = np.random.default_rng(2026)


def rand(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("causal", [False, True])
def test_full_lengths_equal_plain_attention(causal):
    q, k, v = rand(2, 4, 3, 8), rand(2, 2, 10, 8), rand(2, 2, 10, 8)
    got = ref.attention(q, k, v, causal=causal, kv_lengths=np.array([10, 10], np.int32))
    np.testing.assert_allclose(got, ref.attention(q, k, v, causal=causal), rtol=0, atol=0)


@pytest.mark.parametrize("causal", [False, True])
def test_each_sequence_attends_to_its_first_rows(causal):
    # Rows past a sequence's length are garbage in a preallocated cache.
    q, k, v = rand(3, 4, 2, 8), rand(3, 2, 12, 8), rand(3, 2, 12, 8)
    lengths = np.array([5, 12, 2], np.int64)
    got = ref.attention(q, k, v, causal=causal, kv_lengths=lengths)
    for b, n in enumerate(lengths):
        expect = ref.attention(q[b:b + 1], k[b:b + 1, :, :n], v[b:b + 1, :, :n], causal=causal)
        np.testing.assert_allclose(got[b:b + 1], expect, rtol=1e-12, atol=1e-12)


def test_decode_row_by_hand():
    # Sq = 1, one head, D = 1, cache [1, 2, 100 (garbage)], length 2:
    # scores q*k*scale = (1*1, 1*2) with scale 1 -> p = softmax(1, 2).
    q = np.array([[[[1.0]]]])
    k = np.array([[[[1.0], [2.0], [100.0]]]])
    v = np.array([[[[10.0], [20.0], [-1e6]]]])
    got = ref.attention(q, k, v, scale=1.0, causal=True, kv_lengths=np.array([2]))
    p = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(got[0, 0, 0, 0], p @ [10.0, 20.0], rtol=1e-14)


def test_rows_without_keys_are_zero():
    q, k, v = rand(2, 2, 3, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 4)
    got = ref.attention(q, k, v, causal=True, kv_lengths=np.array([0, 2], np.int32))
    np.testing.assert_array_equal(got[0], 0.0)
    # Length 2 < Sq = 3: query row i sits at i + 2 - 3, so row 0 sees no key.
    np.testing.assert_array_equal(got[1, :, 0], 0.0)
    expect = ref.attention(q[1:, :, 1:], k[1:, :, :2], v[1:, :, :2], causal=True)
    np.testing.assert_allclose(got[1:, :, 1:], expect, rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(got))


def test_kv_lengths_errors():
    q, k = rand(2, 2, 1, 4), rand(2, 2, 6, 4)
    with pytest.raises(ValueError, match=r"must lie in \[0, Sk = 6\]"):
        ref.attention(q, k, k, kv_lengths=np.array([7, 1]))
    with pytest.raises(ValueError, match=r"must lie in"):
        ref.attention(q, k, k, kv_lengths=np.array([-1, 1]))
    with pytest.raises(ValueError, match=r"shape \[B\] = \[2\]"):
        ref.attention(q, k, k, kv_lengths=np.array([1, 1, 1]))
    with pytest.raises(ValueError, match=r"rank >= 4"):
        ref.attention(q[0], k[0], k[0], kv_lengths=np.array([1, 1]))


def test_mixed_precision_cache_is_read_as_its_values():
    # An f16 cache is the attention over the f16-rounded values (f32 query).
    q = rand(1, 4, 1, 8).astype(np.float32)
    k, v = rand(1, 2, 5, 8).astype(np.float16), rand(1, 2, 5, 8).astype(np.float16)
    got = ref.attention(q, k, v, kv_lengths=np.array([4]))
    expect = ref.attention(q, k.astype(np.float64)[:, :, :4], v.astype(np.float64)[:, :, :4])
    np.testing.assert_allclose(got, expect, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_per_batch_positions_rotate_each_sequence_at_its_offset(layout):
    x = rand(3, 2, 4, 8)
    pos = np.array([[0, 1, 2, 3], [7, 8, 9, 10], [100, 101, 102, 103]], np.int32)
    got = ref.rope(x, pos, layout)
    for b in range(3):
        np.testing.assert_allclose(got[b], ref.rope(x[b], pos[b], layout), rtol=0, atol=0)
    # Rank 3: the batch dim is directly before S.
    got3 = ref.rope(x[:, 0], pos, layout)
    np.testing.assert_allclose(got3, got[:, 0], rtol=0, atol=0)


def test_per_batch_positions_by_hand():
    # One pair (D = 2), base irrelevant at pair 0 (inv_freq 1): angle = pos.
    x = np.ones((2, 1, 1, 2))
    got = ref.rope(x, np.array([[0], [1]]), "interleaved")
    np.testing.assert_allclose(got[0, 0, 0], [1.0, 1.0], rtol=1e-15)
    c, s = math.cos(1.0), math.sin(1.0)
    np.testing.assert_allclose(got[1, 0, 0], [c - s, s + c], rtol=1e-15)


def test_per_batch_positions_errors():
    with pytest.raises(ValueError, match=r"per-batch positions \(3, 4\) must be \[B, S\] = \[2, 4\]"):
        ref.rope(rand(2, 2, 4, 8), np.zeros((3, 4)), "half")
