"""posenc.disentangled_attention (DeBERTa): buckets and the p2c index against
HuggingFace DeBERTa-v2, and the compiled op against posenc.reference.

`hf_make_log_bucket_position`, `hf_build_relative_position` and
`hf_disentangled_bias` below are a numpy transcription of HuggingFace
transformers' DeBERTa-v2 (`modeling_deberta_v2.py`): torch ops replaced one
by one by numpy ops of the same dtype (an int64 tensor divided by a Python
int is float32, torch's default dtype; `torch.tensor(python_float)` is
float32; `torch.log` a float32 log, here the correctly rounded one: float64
log rounded to float32; `.to(torch.long)` truncation), the c2p / p2c
gathers as `take_along_axis`. They are written from that code, not from
docs/spec.md or the C++, so three independent forms meet here:

* `posenc.reference.deberta_bucket` (written from docs/spec.md) against the
  transcription, for every |r| < 2^20 and several (bucket_size,
  max_position) pairs, bit for bit;
* `posenc.reference.disentangled_attention`'s scores against the
  transcription's gathers (c2p, and p2c through the key-major product and
  its transpose, r_pos over (Sk, Sk) when Sq != Sk), float64, to 1e-12;
* the compiled op's table row for every relative position in
  (-2048, 2^14) (read back through the softmax: see `compiled_rows`)
  against clamp(HF bucket + k), exactly, through the reference lowering and
  the fused path (whose band index row is a second form of the index); and
  its outputs against `posenc.reference` on every CPU path: the reference
  lowering, the fused path (DeBERTa's terms as per-tile band products),
  the fused path with small tiles (8 x 16: many partial and clamped bands)
  and the scalar tile layout (two dot products per score), f32 / f16 /
  bf16, causal or not, Sq != Sk, dynamic sequence length, each set of
  terms, with and without buckets, shared and per-head tables; the fused
  ones also against the reference lowering (check_cpu_paths).

Tolerances (as test_t5_attention.py): f32 atol 2e-5 + rtol 2e-4 (f32
arithmetic against float64); f16 / bf16: inputs and tables rounded to the
type and given rounded to the reference, f32 arithmetic, one rounding of
the result: atol = rtol = 4e-3 (f16), 3e-2 (bf16).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED,  # noqa: E402
                             CPU_FUSED_SMALL_TILES as FUSED_SMALL_TILES,
                             CPU_REFERENCE as REFERENCE,
                             CPU_SCALAR_TILES as SCALAR_TILES, assert_close,
                             check_cpu_paths, to_elem)

ALL_FUSED = (FUSED, FUSED_SMALL_TILES, SCALAR_TILES)
TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}
SPAN = 1 << 20


# ---------------------------------------------------------------------------
# HuggingFace DeBERTa-v2, transcribed to numpy
# ---------------------------------------------------------------------------

def _f32_log(x):
    return np.log(np.asarray(x, np.float32).astype(np.float64)).astype(np.float32)


def hf_make_log_bucket_position(relative_pos, bucket_size, max_position):
    """`make_log_bucket_position` (its float32 result; the caller's
    `.to(torch.long)` is applied by hf_build_relative_position)."""
    relative_pos = np.asarray(relative_pos, np.int64)
    sign = np.sign(relative_pos)
    mid = bucket_size // 2
    abs_pos = np.where((relative_pos < mid) & (relative_pos > -mid),
                       np.int64(mid - 1), np.abs(relative_pos))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pos = (np.ceil(_f32_log(abs_pos.astype(np.float32) / np.float32(mid))
                           / _f32_log(np.float32((max_position - 1) / mid))
                           * np.float32(mid - 1)) + np.float32(mid))
    return np.where(abs_pos <= mid, relative_pos.astype(np.float32),
                    log_pos * sign.astype(np.float32))


def hf_build_relative_position(query_size, key_size, bucket_size=-1, max_position=-1):
    """`build_relative_position`: [query_size, key_size] (without the leading 1)."""
    rel_pos_ids = np.arange(query_size)[:, None] - np.arange(key_size)[None, :]
    if bucket_size > 0 and max_position > 0:
        with np.errstate(invalid="ignore"):
            rel_pos_ids = hf_make_log_bucket_position(rel_pos_ids, bucket_size, max_position)
    return rel_pos_ids.astype(np.int64)


def hf_disentangled_bias(q, k, pos_key, pos_query, att_span, bucket_size, max_position):
    """The unscaled c2p and p2c scores of `disentangled_attention_bias` for
    one head (q [Sq, D], k [Sk, D], tables [2k, D]). HF's p2c result is [Sk,
    Sk] when Sq != Sk (added to [Sq, Sk] scores, it only broadcasts for Sq =
    1); query row i is its row i, so it needs Sq <= Sk here."""
    sq, sk = q.shape[0], k.shape[0]
    assert sq <= sk
    relative_pos = hf_build_relative_position(sq, sk, bucket_size, max_position)
    c2p_att = q @ pos_key.T
    c2p_pos = np.clip(relative_pos + att_span, 0, att_span * 2 - 1)
    c2p = np.take_along_axis(c2p_att, c2p_pos, axis=-1)
    r_pos = (hf_build_relative_position(sk, sk, bucket_size, max_position) if sq != sk
             else relative_pos)
    p2c_pos = np.clip(-r_pos + att_span, 0, att_span * 2 - 1)
    p2c_att = k @ pos_query.T  # key-major [Sk, 2k]
    p2c = np.take_along_axis(p2c_att, p2c_pos, axis=-1).T  # [Sk, Sk]
    return c2p, p2c[:sq], c2p_pos, p2c_pos.T[:sq]


# (bucket_size, max_position): DeBERTa-v2/v3's (256, 512), more and fewer
# buckets than the span, max_position just past the exact buckets, tiny.
BUCKET_CONFIGS = [(256, 512), (64, 1024), (32, 100), (8, 20), (128, 66), (4, 4), (2, 3),
                  (7, 30)]


def test_huggingface_transcription_on_known_buckets():
    # mid = 4, max_position = 20: log(|r|/4) / log(19/4) * 3, ceil'd, + 4.
    r = np.array([0, 3, 4, -4, 5, 10, 19, 20, 100, -5, -100])
    want = [0, 3, 4, -4, 5, 6, 7, 8, 11, -5, -11]
    assert hf_build_relative_position(1, 1, 8, 20).tolist() == [[0]]
    assert hf_make_log_bucket_position(r, 8, 20).astype(np.int64).tolist() == want


@pytest.mark.parametrize("bucket_size,max_position", BUCKET_CONFIGS)
def test_reference_bucket_is_bit_equal_to_huggingface(bucket_size, max_position):
    r = np.arange(1 - SPAN, SPAN)
    with np.errstate(invalid="ignore"):
        want = hf_make_log_bucket_position(r, bucket_size, max_position).astype(np.int64)
    got = ref.deberta_bucket(r, bucket_size, max_position)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{bad.size} buckets differ, first at r={r[bad[0]]}: "
                           f"reference {got[bad[0]]}, HuggingFace {want[bad[0]]}")


@pytest.mark.parametrize("buckets", [None, (8, 20)], ids=["plain", "buckets"])
@pytest.mark.parametrize("sq,sk", [(11, 11), (6, 40)])
def test_reference_scores_match_huggingface_gathers(sq, sk, buckets):
    span = buckets[0] if buckets else 5
    bucket_size, max_position = buckets or (-1, -1)
    rng = np.random.default_rng(sq * sk)
    q, k = rng.standard_normal((sq, 8)), rng.standard_normal((sk, 8))
    pk, pq = rng.standard_normal((2 * span, 8)), rng.standard_normal((2 * span, 8))
    c2p, p2c, c2p_pos, p2c_pos = hf_disentangled_bias(q, k, pk, pq, span, bucket_size,
                                                      max_position)
    # The p2c index HF's gather-and-transpose reads equals the c2p index.
    assert np.array_equal(p2c_pos, c2p_pos)
    # Scores through the reference with v = identity on one query row at a
    # time would mix them with the softmax; compare logits instead: with
    # scale 1, e[i, j] - q_i . k_j is the relative part.
    kwargs = dict(position_buckets=buckets[0] if buckets else 0,
                  max_relative_positions=buckets[1] if buckets else None, scale=1.0)
    v = np.eye(sk)[None]
    for terms, want in ((("c2p",), c2p), (("p2c",), p2c), (("c2p", "p2c"), c2p + p2c)):
        tables = dict(pos_key=pk if "c2p" in terms else None,
                      pos_query=pq if "p2c" in terms else None)
        probs = ref.disentangled_attention(q[None], k[None], v, terms=terms, **tables,
                                           **kwargs)[0]
        logits = np.log(probs)
        e = q @ k.T + want
        # Softmax rows are logits up to a per-row constant.
        assert_close(logits - logits[:, :1], e - e[:, :1], 1e-9, 1e-9, f"terms {terms}")


# ---------------------------------------------------------------------------
# The compiled op's table rows, read back through the softmax
# ---------------------------------------------------------------------------

def row_program(sq, sk, dv, span, term, buckets):
    attrs = ["scale = 1.0 : f64"]
    if buckets:
        attrs += [f"position_buckets = {buckets[0]} : i64",
                  f"max_relative_positions = {buckets[1]} : i64"]
    table = "pos_key" if term == "c2p" else "pos_query"
    qt, kt, vt = (f"tensor<1x{sq}x1xf32>", f"tensor<1x{sk}x1xf32>",
                  f"tensor<1x{sk}x{dv}xf32>")
    tt = f"tensor<{2 * span}x1xf32>"
    return f"""
func.func @rows(%q: {qt}, %k: {kt}, %v: {vt}, %t: {tt}) -> tensor<1x{sq}x{dv}xf32> {{
  %o = posenc.disentangled_attention %q, %k, %v {table}(%t : {tt}) terms {term}
      {{{", ".join(attrs)}}} : {qt}, {kt}, {vt} -> tensor<1x{sq}x{dv}xf32>
  return %o : tensor<1x{sq}x{dv}xf32>
}}"""


def compiled_rows(span, term, buckets, negative_keys, positive_rows, pipeline=REFERENCE):
    """The table row c(r) the compiled op reads for r in (-negative_keys,
    positive_rows). The table is t[c] = c * step, and the term's other
    factor is 1 with q . k = 0 (c2p: q = 1, k = 0; p2c: q = 0, k = 1), so
    e[i, j] = step * c(i - j) and log(p[i, j] / p[i, j']) / step = c(i - j)
    - c(i - j'). Negative r: one query row against `negative_keys` keys,
    v = identity, so the output row is p[0, :] and c(-j) = c(0) + (log p[0,
    j] - log p[0, 0]) / step with c(0) = k. Positive r: `positive_rows`
    rows against 2 keys, v = identity: c(i - 1) - c(i) per row, summed from
    c(0) = k."""
    step = 1.0 / 64  # e spans <= 2k * step: no underflow, rounding << step / 2
    table = (np.arange(2 * span, dtype=np.float32) * np.float32(step))[:, None]
    c2p = term == "c2p"
    out = []
    for sq, sk in ((1, negative_keys), (positive_rows, 2)):
        fn = posenc.compile(row_program(sq, sk, sk, span, term, buckets), pipeline=pipeline)
        q = np.full((1, sq, 1), 1.0 if c2p else 0.0, np.float32)
        k = np.full((1, sk, 1), 0.0 if c2p else 1.0, np.float32)
        v = np.eye(sk, dtype=np.float32)[None]
        out.append(np.log(fn(q, k, v, table)[0].astype(np.float64)) / step)
    neg, pos = out
    c_neg = np.rint(span + neg[0] - neg[0, 0]).astype(np.int64)  # r = 0, -1, ...
    c_pos = span - np.concatenate([[0], np.cumsum(np.rint(pos[1:, 1] - pos[1:, 0]))])
    r = np.concatenate([-np.arange(negative_keys)[::-1], np.arange(1, positive_rows)])
    c = np.concatenate([c_neg[::-1], c_pos[1:].astype(np.int64)])
    return r, c


@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "fused"])
@pytest.mark.parametrize("term", ["c2p", "p2c"])
@pytest.mark.parametrize("buckets", [(256, 512), (64, 1024), (8, 20), (7, 30), (2, 3), None],
                         ids=str)
def test_compiled_rows_are_huggingface_buckets(buckets, term, pipeline):
    span = buckets[0] if buckets else 24
    r, got = compiled_rows(span, term, buckets, 2048, 1 << 14, pipeline)
    if buckets:
        with np.errstate(invalid="ignore"):
            bucket = hf_make_log_bucket_position(r, *buckets).astype(np.int64)
    else:
        bucket = r
    want = np.clip(bucket + span, 0, 2 * span - 1)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{bad.size} rows differ, first at r={r[bad[0]]}: op "
                           f"{got[bad[0]]}, HuggingFace {want[bad[0]]}")


# ---------------------------------------------------------------------------
# The op against posenc.reference
# ---------------------------------------------------------------------------

def deberta_case(elem, batch, heads, sq, sk, d, span, terms, buckets, causal,
                 per_head, dynamic=False, scale=None, seed=0):
    program = posenc.deberta_attention(
        batch, heads, None if dynamic else sq, d, span,
        kv_seq=None if dynamic else sk, terms=terms,
        position_buckets=buckets[0] if buckets else 0,
        max_relative_positions=buckets[1] if buckets else None,
        per_head_tables=per_head, causal=causal, scale=scale, dtype=elem)
    rng = np.random.default_rng(seed)
    q, q64 = to_elem(rng.standard_normal((batch, heads, sq, d)), elem)
    k, k64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    v, v64 = to_elem(rng.standard_normal((batch, heads, sk, d)), elem)
    table_shape = ((heads,) if per_head else ()) + (2 * span, d)
    args, tables = [q, k, v], {}
    for term, name in (("c2p", "pos_key"), ("p2c", "pos_query")):
        if term in terms:
            t, t64 = to_elem(rng.standard_normal(table_shape), elem)
            args.append(t)
            tables[name] = t64
    want = ref.disentangled_attention(
        q64, k64, v64, terms=terms, position_buckets=buckets[0] if buckets else 0,
        max_relative_positions=buckets[1] if buckets else None, scale=scale,
        causal=causal, **tables)
    return program, args, want


def run_paths(program, args, want, elem, pipelines=ALL_FUSED):
    check_cpu_paths(program, args, want, elem, *TOLERANCE[elem], pipelines)


TERMS = [("c2p",), ("p2c",), ("c2p", "p2c")]
#: (sq, sk, causal) of the f32 cases (also test_gpu_relative_emulation.py's).
F32_SHAPES = [(13, 13, False), (7, 30, True), (30, 9, False), (25, 25, True)]


def f32_case(sq, sk, causal, terms, buckets):
    """The f32 case of `test_disentangled_attention_f32`: B = 2, H = 3,
    D = 16, span 8 with buckets (8, 20) else 6, per-head tables when Sq is
    odd."""
    span = 8 if buckets else 6
    return deberta_case("f32", 2, 3, sq, sk, 16, span, terms, buckets, causal,
                        per_head=(sq % 2 == 1), seed=sq * sk)


@pytest.mark.parametrize("buckets", [None, (8, 20)], ids=["plain", "buckets"])
@pytest.mark.parametrize("terms", TERMS, ids="|".join)
@pytest.mark.parametrize("sq,sk,causal", F32_SHAPES)
def test_disentangled_attention_f32(sq, sk, causal, terms, buckets):
    run_paths(*f32_case(sq, sk, causal, terms, buckets), "f32")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["bidirectional", "causal"])
def test_disentangled_attention_16bit(elem, causal):
    program, args, want = deberta_case(elem, 1, 2, 20, 33, 32, 8, ("c2p", "p2c"), (8, 20),
                                       causal, per_head=True, seed=7)
    run_paths(program, args, want, elem)


@pytest.mark.parametrize("terms", TERMS, ids="|".join)
def test_disentangled_attention_dynamic_sequence(terms):
    program, args, want = deberta_case("f32", 1, 2, 19, 41, 16, 16, terms, (16, 40),
                                       True, per_head=False, dynamic=True, seed=11)
    run_paths(program, args, want, "f32")


@pytest.mark.parametrize("terms", TERMS, ids="|".join)
@pytest.mark.parametrize("sq,sk,causal", [(150, 200, True), (200, 130, False)])
def test_disentangled_attention_many_tiles(sq, sk, causal, terms):
    # Several query tiles and key tiles of the default 64 x 64 (partial last
    # ones), distances past the span on both sides: bands whose rows clamp.
    program, args, want = deberta_case("f32", 1, 2, sq, sk, 32, 16, terms, (16, 64),
                                       causal, per_head=causal, seed=sq + sk)
    run_paths(program, args, want, "f32", (FUSED,))


def test_disentangled_attention_explicit_scale_and_long_distances():
    # DeBERTa-v3's buckets (256, 512) over distances past max_position, and an
    # explicit scale instead of 1/sqrt(3 D).
    program, args, want = deberta_case("f32", 1, 1, 40, 700, 8, 256, ("c2p", "p2c"),
                                       (256, 512), False, per_head=False, scale=0.2,
                                       seed=3)
    run_paths(program, args, want, "f32")


def test_builder_rejects_bad_terms():
    with pytest.raises(ValueError):
        posenc.deberta_attention(1, 2, 8, 16, 4, terms=("p2p",))
    with pytest.raises(ValueError):
        posenc.deberta_attention(1, 2, 8, 16, 4, terms=())


@pytest.mark.parametrize("terms", TERMS, ids="|".join)
def test_fusion_makes_the_deberta_terms_unless_disabled(terms):
    program, _, _ = deberta_case("f32", 1, 2, 8, 8, 16, 8, terms, (8, 20), False,
                                 per_head=True)
    fused = posenc.run_pipeline(program, "builtin.module(posenc-fuse-attention)")
    assert "posenc.disentangled_attention" not in fused
    assert "posenc.fused_attention" in fused
    assert ("deberta_pos_key(" in fused) == ("c2p" in terms)
    assert ("deberta_pos_query(" in fused) == ("p2c" in terms)
    assert "deberta_position_buckets = 8" in fused
    # disentangled=false leaves the op to the reference lowering.
    kept = posenc.run_pipeline(
        program, "builtin.module(posenc-fuse-attention{disentangled=false})")
    assert "posenc.disentangled_attention" in kept and "deberta_pos" not in kept
