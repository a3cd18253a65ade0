"""posenc.t5_bias: T5's bucket function, bit-equal to HuggingFace's.

`hf_relative_position_bucket` below is a float32 numpy transcription of
HuggingFace transformers' `T5Attention._relative_position_bucket` (torch ops
replaced one by one by numpy ops of the same dtype: `.float()` is float32,
`torch.log` a float32 log, `math.log(max_distance / max_exact)` a Python
double that torch rounds to float32 when it divides a float32 tensor,
`.to(torch.long)` truncation). It is written from that code, not from
docs/spec.md or the C++, so three independent forms meet here:

* the compiled op (reference lowering; the bucket builder the fused path
  shares) against the transcription, for every distance |n| < 2^20 in both
  directions and several (NB, max_distance) pairs, bit for bit;
* `posenc.reference.t5_bucket` (written from docs/spec.md) against the
  transcription, over the same range;
* the bias tensor (table lookups) against `posenc.reference.t5_bias`, f32 /
  f16 / bf16, static and dynamic sizes, on both CPU paths. The table's values
  are copied, so the comparison is exact.
"""
import math

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close, from_elem, to_elem  # noqa: E402

REFERENCE = "builtin.module(posenc-cpu-pipeline{reference=true})"
FUSED = "builtin.module(posenc-cpu-pipeline{reference=false})"
SPAN = 1 << 20


def hf_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32,
                                max_distance=128):
    """HuggingFace T5's `_relative_position_bucket`, transcribed to numpy in
    float32 (torch.long -> int64)."""
    relative_position = np.asarray(relative_position, dtype=np.int64)
    relative_buckets = np.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).astype(np.int64) * num_buckets
        relative_position = np.abs(relative_position)
    else:
        relative_position = -np.minimum(relative_position, np.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (np.log(relative_position.astype(np.float32) / np.float32(max_exact))
                  / np.float32(math.log(max_distance / max_exact))
                  * np.float32(num_buckets - max_exact))
        # torch's .to(torch.long) truncates; log(0) = -inf lanes are the
        # is_small ones, discarded by the where below.
        relative_position_if_large = max_exact + np.where(
            np.isfinite(scaled), scaled, 0).astype(np.int64)
    relative_position_if_large = np.minimum(
        relative_position_if_large, np.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += np.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


# (NB, max_distance): T5's (32, 128), larger and smaller tables, max_distance
# not a power-of-two multiple of the exact buckets, and an odd NB.
BUCKET_CONFIGS = [(32, 128), (32, 100), (64, 256), (128, 1000), (16, 50), (8, 20),
                  (33, 77), (4, 3)]


def skip_invalid_config(num_buckets, bidirectional):
    if bidirectional and num_buckets < 4:
        pytest.skip("bidirectional needs NB >= 4 (the verifier's rule)")


def bucket_program(sq, sk, num_buckets, max_distance, bidirectional):
    attrs = [f"max_distance = {max_distance} : i64"] + (["bidirectional"] if bidirectional
                                                        else [])
    return f"""
func.func @buckets(%t: tensor<{num_buckets}x1xf32>) -> tensor<1x{sq}x{sk}xf32> {{
  %b = posenc.t5_bias %t {{{", ".join(attrs)}}}
      : tensor<{num_buckets}x1xf32> -> tensor<1x{sq}x{sk}xf32>
  return %b : tensor<1x{sq}x{sk}xf32>
}}"""


@pytest.mark.parametrize("bidirectional", [True, False], ids=["bidirectional", "causal"])
@pytest.mark.parametrize("num_buckets,max_distance", BUCKET_CONFIGS)
def test_compiled_bucket_is_bit_equal_to_huggingface(num_buckets, max_distance,
                                                     bidirectional):
    skip_invalid_config(num_buckets, bidirectional)
    # table[b, 0] = b, so the bias is the bucket itself (exact in f32).
    table = np.arange(num_buckets, dtype=np.float32)[:, None]
    # One query row against 2^20 keys: n = j - (Sk - 1) covers (-2^20, 0];
    # 2^20 query rows against one key: n = (Sq - 1) - i covers [0, 2^20).
    for sq, sk in ((1, SPAN), (SPAN, 1)):
        fn = posenc.compile(bucket_program(sq, sk, num_buckets, max_distance,
                                           bidirectional), pipeline=REFERENCE)
        got = fn(table).reshape(-1)
        n = np.arange(sk) - (sk - 1) if sq == 1 else (sq - 1) - np.arange(sq)
        want = hf_relative_position_bucket(n, bidirectional, num_buckets, max_distance)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, (
            f"NB={num_buckets} max_distance={max_distance} bidirectional={bidirectional}: "
            f"{bad.size} buckets differ, first at n={n[bad[0]]}: op {got[bad[0]]}, "
            f"HuggingFace {want[bad[0]]}")


@pytest.mark.parametrize("bidirectional", [True, False], ids=["bidirectional", "causal"])
@pytest.mark.parametrize("num_buckets,max_distance", BUCKET_CONFIGS)
def test_reference_bucket_is_bit_equal_to_huggingface(num_buckets, max_distance,
                                                      bidirectional):
    skip_invalid_config(num_buckets, bidirectional)
    n = np.arange(1 - SPAN, SPAN)
    got = ref.t5_bucket(n, num_buckets, max_distance, bidirectional)
    want = hf_relative_position_bucket(n, bidirectional, num_buckets, max_distance)
    assert np.array_equal(got, want)


def test_huggingface_transcription_on_known_buckets():
    # T5's encoder (32 buckets, 128): exact buckets 0..7 behind, 16..23
    # ahead; log buckets reach 15 / 31 at max_distance.
    n = np.array([0, -1, -7, -8, -12, -127, -128, -100000, 1, 7, 8, 128, 100000])
    want = [0, 1, 7, 8, 9, 15, 15, 15, 17, 23, 24, 31, 31]
    assert hf_relative_position_bucket(n, True, 32, 128).tolist() == want
    # Decoder: the future (n > 0) is bucket 0.
    assert hf_relative_position_bucket(np.array([5, 0, -3, -200]), False, 32, 128).tolist() \
        == [0, 0, 3, 31]


def bias_program(shape, num_buckets, elem, attrs, dynamic):
    rt = "x".join("?" if i in dynamic else str(s) for i, s in enumerate(shape))
    rt = f"tensor<{rt}x{elem}>"
    tt = f"tensor<{num_buckets}x{shape[-3]}x{elem}>"
    args = [f"%t: {tt}"] + [f"%d{i}: index" for i in dynamic]
    operands = " (" + ", ".join(f"%d{i}" for i in dynamic) + ")" if dynamic else ""
    attr_str = f" {{{attrs}}}" if attrs else ""
    return f"""
func.func @bias({", ".join(args)}) -> {rt} {{
  %b = posenc.t5_bias %t{operands}{attr_str} : {tt} -> {rt}
  return %b : {rt}
}}"""


BIAS_CASES = [
    # (shape, NB, attrs, reference kwargs, dynamic dims)
    ((4, 9, 9), 32, "bidirectional", {"bidirectional": True}, ()),
    ((3, 5, 40), 32, "max_distance = 20 : i64", {"max_distance": 20}, ()),
    ((2, 3, 6, 300), 16, "bidirectional, max_distance = 64 : i64",
     {"bidirectional": True, "max_distance": 64}, ()),
    ((2, 70, 20), 32, "bidirectional", {"bidirectional": True}, (1, 2)),
    ((1, 1, 1), 8, "", {}, ()),
]


@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "fused"])
@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape,num_buckets,attrs,kw,dynamic", BIAS_CASES)
def test_t5_bias_against_reference(shape, num_buckets, attrs, kw, dynamic, elem, pipeline):
    heads, sq, sk = shape[-3:]
    values = np.random.default_rng(7).standard_normal((num_buckets, heads))
    table, table64 = to_elem(values, elem)
    fn = posenc.compile(bias_program(shape, num_buckets, elem, attrs, dynamic),
                        pipeline=pipeline)
    got = from_elem(fn(table, *[shape[i] for i in dynamic]), elem)
    want = ref.t5_bias(table64, sq, sk, batch_shape=tuple(shape[:-3]), **kw)
    # A copy of table entries: exact.
    assert_close(got, want, 0.0, 0.0, f"t5_bias {shape} {attrs} {elem}")


def test_builder_t5_bias_dynamic():
    program = posenc.t5_bias(4, None, None, 32, bidirectional=True, max_distance=64)
    assert [name for name, _ in program.arguments] == ["table", "size1", "size2"]
    table = np.random.default_rng(3).standard_normal((32, 4)).astype(np.float32)
    got = program.compile()(table, 5, 12)
    want = ref.t5_bias(table, 5, 12, max_distance=64, bidirectional=True)
    assert_close(got, want, 0.0, 0.0, "builder t5_bias")


def test_verifier_message_reaches_python():
    program = posenc.t5_bias(4, 8, 8, 32, bidirectional=True, max_distance=8)
    with pytest.raises(posenc.PosencError, match=r"max_distance \(8\) must be > the number "
                                                 r"of exact buckets \(8\)"):
        program.compile()
