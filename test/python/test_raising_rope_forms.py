"""Execution equivalence of the RoPE forms `posenc-raise` takes beyond the
real-arithmetic ones of test_raising.py (docs/raising.md), in the linalg
torch-mlir writes (linalg_rope_forms): Meta's complex-number rotation, and
the interleaved and expanded pair rotations whose tables are arguments
(the table form).

Each program runs through `posenc-cpu-pipeline` with `raise=false` (the
graph as written: complex tensors lowered to LLVM structs) and with the
default `raise=true` (one posenc.rope), on seeded inputs; both are compared
with the numpy reference (`posenc.reference`, float64, written from
SPEC.md) and with each other, and each case checks that the raising
happened (one posenc.rope, interleaved, no complex op left).

Tolerances. f32 attribute form: atol 2e-5 + rtol 2e-4, as test_raising.py
(the raised op recomputes the graph's f32 inverse frequencies from posenc's
formulas, equal within 8 f32 ulps; positions below 300, where the f32 angle
error is ~1e-5 absolute). f32 table form: 1e-5 + 1e-5 (the same f32 cos/sin
values, two f32 products and a sum, |x| <= ~5, |table| <= 1.5). f16/bf16
(x cast to f32 first and the result back, Meta's `.float()` ...
`.type_as(xq)`): the result type's rounding, `elem_tolerance`.
"""
import re

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (assert_close, elem_tolerance, from_elem,  # noqa: E402
                             run_posenc_opt, to_elem)
import linalg_rope_forms  # noqa: E402
import tosa_blocks  # noqa: E402

RAISED = "builtin.module(posenc-cpu-pipeline)"
UNRAISED = "builtin.module(posenc-cpu-pipeline{raise=false})"
ATOL, RTOL = 2e-5, 2e-4
TABLE_ATOL, TABLE_RTOL = 1e-5, 1e-5
LLAMA3 = {"kind": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position": 8192}


def raise_only(ir):
    return run_posenc_opt(ir, "builtin.module(posenc-raise)")


def run_both(ir, elem, *args):
    raised = from_elem(posenc.compile(ir, pipeline=RAISED)(*args), elem)
    unraised = from_elem(posenc.compile(ir, pipeline=UNRAISED)(*args), elem)
    return raised, unraised


def seeded_cases(n, seed):
    """`n` seeded configurations (batch, heads, seq, head dim, base,
    scaling, position offset)."""
    rng = np.random.default_rng(seed)
    scalings = [None, {"kind": "linear", "factor": 4.0}, LLAMA3]
    cases = []
    for _ in range(n):
        d = int(rng.choice([16, 32, 64, 128]))
        cases.append((int(rng.integers(1, 3)), int(rng.integers(1, 5)),
                      int(rng.integers(3, 40)), d,
                      float(rng.choice([10000.0, 500000.0])),
                      scalings[int(rng.integers(0, 3))], int(rng.integers(0, 250))))
    return cases


@pytest.mark.parametrize("cis", ["polar", "complex"])
@pytest.mark.parametrize("elem", ["f32", "bf16"])
@pytest.mark.parametrize("case", seeded_cases(3, 10), ids=lambda c: "b{}h{}s{}d{}".format(*c[:4]))
def test_complex_rope_raised_equals_unraised(case, elem, cis):
    """Meta's complex rotation with freqs_cis = polar(1, pos * inv_freq) or
    complex(cos, sin) of it raises to the attribute form of posenc.rope
    (interleaved); raised == unraised == numpy."""
    b, h, s, d, base, scaling, offset = case
    ir = linalg_rope_forms.complex_rope(
        b, h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling), cis, elem)
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 1, raised_ir
    assert re.search(r"= posenc.rope %\w+, %arg1 layout interleaved", raised_ir), raised_ir
    assert "complex." not in raised_ir, raised_ir
    rng = np.random.default_rng(b * 1000 + s * 10 + d)
    x, x64 = to_elem(rng.standard_normal((b, h, s, d)), elem)
    positions = np.arange(s, dtype=np.int32) + offset
    want = ref.rope(x64, positions, "interleaved", base, scaling=scaling)
    atol, rtol = elem_tolerance(elem, f32=(ATOL, RTOL))
    raised, unraised = run_both(ir, elem, x, positions)
    assert_close(unraised, want, atol, rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, atol, rtol, "raise=true vs raise=false")


def interleaved_tables(cos, sin):
    """[S, D/2] pair tables as the [S, D] tables of the table form: each
    pair's entry in both of its lanes (SPEC.md, rope table form)."""
    return np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)


@pytest.mark.parametrize("cis", ["polar_arg", "complex_arg", "perturbed"])
@pytest.mark.parametrize("elem", ["f32", "f16"])
@pytest.mark.parametrize("b,h,s,d", [(1, 3, 11, 16), (2, 2, 29, 64)])
def test_complex_rope_table_form(b, h, s, d, elem, cis):
    """freqs_cis of argument angles, of argument cos/sin tables (random,
    unrelated, so a wrong lane or pair assignment fails), or of inverse
    frequencies that match no posenc formula (one pair off by 1e-3): the
    table form of posenc.rope, interleaved, with the graph's cos/sin."""
    rng = np.random.default_rng(s * 100 + d)
    x, x64 = to_elem(rng.standard_normal((b, h, s, d)), elem)
    positions = np.arange(s, dtype=np.int32) + 7
    p = d // 2
    if cis == "polar_arg":
        t = rng.uniform(-20, 20, (s, p)).astype(np.float32)
        args, cos, sin = (t,), np.cos(t.astype(np.float64)), np.sin(t.astype(np.float64))
        ir = linalg_rope_forms.complex_rope(b, h, s, d, cis=cis, elem=elem)
    elif cis == "complex_arg":
        cos = rng.uniform(-1.5, 1.5, (s, p)).astype(np.float32)
        sin = rng.uniform(-1.5, 1.5, (s, p)).astype(np.float32)
        args = (cos, sin)
        ir = linalg_rope_forms.complex_rope(b, h, s, d, cis=cis, elem=elem)
    else:
        inv = tosa_blocks.hf_inv_freq(d, 10000.0).copy()
        inv[p // 2] *= np.float32(1.001)
        angles = (positions.astype(np.float32)[:, None] * inv[None, :]).astype(np.float32)
        args, cos, sin = (), np.cos(angles.astype(np.float64)), np.sin(angles.astype(np.float64))
        ir = linalg_rope_forms.complex_rope(b, h, s, d, inv, "polar", elem)
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 1, raised_ir
    assert re.search(r"= posenc.rope %\w+ tables\(.*layout interleaved", raised_ir), raised_ir
    assert "complex." not in raised_ir, raised_ir
    want = ref.rope_table(x64, *interleaved_tables(cos, sin), "interleaved")
    atol, rtol = elem_tolerance(elem, magnitude=1.5, f32=(TABLE_ATOL, TABLE_RTOL))
    raised, unraised = run_both(ir, elem, x, positions, *args)
    assert_close(unraised, want, atol, rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, atol, rtol, "raise=true vs raise=false")


@pytest.mark.parametrize("layout", ["interleaved", "expanded"])
@pytest.mark.parametrize("case", seeded_cases(2, 20), ids=lambda c: "b{}h{}s{}d{}".format(*c[:4]))
def test_pair_rope_formula_raised(case, layout):
    """The interleaved (expand_shape pairs) and expanded half forms with
    cos/sin of float(pos) * inv_freq still raise to the attribute form."""
    b, h, s, d, base, scaling, offset = case
    ir = linalg_rope_forms.pair_rope(b, h, s, d, layout,
                                     tosa_blocks.hf_inv_freq(d, base, scaling))
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 1 and "tables(" not in raised_ir, raised_ir
    rng = np.random.default_rng(s * 7 + d)
    x = rng.standard_normal((b, h, s, d)).astype(np.float32)
    positions = np.arange(s, dtype=np.int32) + offset
    kind = "interleaved" if layout == "interleaved" else "half"
    want = ref.rope(x.astype(np.float64), positions, kind, base, scaling=scaling)
    raised, unraised = run_both(ir, "f32", x, positions)
    assert_close(unraised, want, ATOL, RTOL, "raise=false vs numpy")
    assert_close(raised, want, ATOL, RTOL, "raise=true vs numpy")
    assert_close(raised, unraised, ATOL, RTOL, "raise=true vs raise=false")


def pair_columns(cos, sin, layout):
    """[S, D/2] pair tables as the table form's [S, D] columns: pair p's
    entry in columns 2p and 2p+1 (interleaved) or p and p + D/2 (half)."""
    if layout == "interleaved":
        return interleaved_tables(cos, sin)
    return np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)


@pytest.mark.parametrize("elem", ["f32", "f16"])
@pytest.mark.parametrize("layout", ["interleaved", "expanded"])
@pytest.mark.parametrize("b,h,s,d", [(1, 3, 13, 16), (2, 2, 30, 64)])
def test_pair_rope_table_form(b, h, s, d, layout, elem):
    """The interleaved and expanded forms with argument cos/sin tables
    (random, unrelated: a wrong column assignment fails) raise to the table
    form. In f16 the graph rounds both products and the sum to f16 and the
    raised op rounds once: unraised within 4x the type's rounding."""
    rng = np.random.default_rng(s * 3 + d + (elem == "f16"))
    x, x64 = to_elem(rng.standard_normal((b, h, s, d)), elem)
    cos, cos64 = to_elem(rng.uniform(-1.5, 1.5, (s, d // 2)), elem)
    sin, sin64 = to_elem(rng.uniform(-1.5, 1.5, (s, d // 2)), elem)
    positions = np.arange(s, dtype=np.int32)
    ir = linalg_rope_forms.pair_rope(b, h, s, d, layout, elem=elem)
    raised_ir = raise_only(ir)
    kind = "interleaved" if layout == "interleaved" else "half"
    assert raised_ir.count("= posenc.rope ") == 1, raised_ir
    assert re.search(rf"= posenc.rope %arg0 tables\(.*layout {kind}", raised_ir), raised_ir
    want = ref.rope_table(x64, *pair_columns(cos64, sin64, layout), kind)
    atol, rtol = elem_tolerance(elem, magnitude=1.5, f32=(TABLE_ATOL, TABLE_RTOL))
    raised, unraised = run_both(ir, elem, x, positions, cos, sin)
    slack = 1 if elem == "f32" else 4
    assert_close(unraised, want, slack * atol, slack * rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, slack * atol, slack * rtol, "raise=true vs raise=false")


def per_batch(fn, x, positions):
    """fn(x[b], positions[b]) stacked over the batch (per-batch positions)."""
    return np.stack([fn(x[i], positions[i]) for i in range(x.shape[0])])


@pytest.mark.parametrize("elem", ["f32", "f16"])
@pytest.mark.parametrize("caches", ["formula", "arguments"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("case", seeded_cases(2, 30), ids=lambda c: "b{}h{}s{}d{}".format(*c[:4]))
def test_gather_rope_raised_equals_unraised(case, layout, caches, elem):
    """ONNX RotaryEmbedding as one gathering generic
    (linalg_rope_forms.gather_rope), random per-batch positions below the
    cache length: constant caches of a posenc formula raise to the
    attribute form with [B, S] positions, argument caches (random,
    unrelated) to the table form with the tables gathered by position."""
    b, h, s, d, base, scaling, _ = case
    m = 300
    rng = np.random.default_rng(b * 100 + s + d + (elem == "f16"))
    x, x64 = to_elem(rng.standard_normal((b, h, s, d)), elem)
    positions = rng.integers(0, m, (b, s)).astype(np.int64)
    if caches == "formula":
        inv = tosa_blocks.hf_inv_freq(d, base, scaling)
        angles = (np.arange(m, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float32)
        tables = (np.cos(angles.astype(np.float64)), np.sin(angles.astype(np.float64)))
        (cos, cos64), (sin, sin64) = (to_elem(t, elem) for t in tables)
        ir = linalg_rope_forms.gather_rope(b, h, s, d, m, layout, (cos, sin), elem)
        args = ()
        if elem == "f32":
            want = per_batch(lambda xb, pb: ref.rope(xb, pb, layout, base, scaling=scaling),
                             x64, positions)
        else:  # caches rounded to f16: the formula only to f16 precision
            want = per_batch(lambda xb, pb: ref.rope_table(
                xb, *pair_columns(cos64[pb], sin64[pb], layout), layout), x64, positions)
        tol = elem_tolerance(elem, f32=(ATOL, RTOL))
    else:
        (cos, cos64), (sin, sin64) = (to_elem(rng.uniform(-1.5, 1.5, (m, d // 2)), elem)
                                      for _ in range(2))
        ir = linalg_rope_forms.gather_rope(b, h, s, d, m, layout, elem=elem)
        args = (cos, sin)
        want = per_batch(lambda xb, pb: ref.rope_table(
            xb, *pair_columns(cos64[pb], sin64[pb], layout), layout), x64, positions)
        tol = elem_tolerance(elem, magnitude=1.5, f32=(TABLE_ATOL, TABLE_RTOL))
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 1, raised_ir
    # f16 caches are cos/sin of a formula only within f16 rounding, not the
    # 8 f32 ulps the attribute form needs: the table form.
    assert ("tables(" in raised_ir) == (caches == "arguments" or elem != "f32"), raised_ir
    if caches == "formula" and elem == "f32":
        assert re.search(r"= posenc.rope %arg0, %\w+ layout " + layout, raised_ir), raised_ir
    raised, unraised = run_both(ir, elem, x, positions, *args)
    slack = 1 if elem == "f32" else 4
    atol, rtol = tol
    assert_close(unraised, want, slack * atol, slack * rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, slack * atol, slack * rtol, "raise=true vs raise=false")


@pytest.mark.parametrize("s,hq,hkv,d", [(24, 4, 2, 64), (9, 2, 1, 32)])
def test_complex_llama_block_raised_equals_unraised(s, hq, hkv, d):
    """A block with Meta's complex RoPE (linalg_rope_forms.complex_llama_block,
    llama3 frequencies of base 500000) raises to two ropes and one attention
    (fused by the pipeline); raised == unraised == numpy within atol 2e-5 +
    rtol 2e-4 (f32 attention, as test_raising.py)."""
    inv = tosa_blocks.hf_inv_freq(d, 500000.0, LLAMA3)
    ir = linalg_rope_forms.complex_llama_block(s, hq, hkv, d, inv)
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 2 and raised_ir.count("= posenc.attention ") == 1, raised_ir
    rng = np.random.default_rng(s + d)
    q = rng.standard_normal((1, hq, s, d)).astype(np.float32)
    k = rng.standard_normal((1, hkv, s, d)).astype(np.float32)
    v = rng.standard_normal((1, hkv, s, d)).astype(np.float32)
    positions = np.arange(s, dtype=np.int32) + 5
    rope = lambda t: ref.rope(t[0].astype(np.float64), positions, "interleaved",  # noqa: E731
                              500000.0, scaling=LLAMA3)
    rep = hq // hkv
    want = ref.attention(rope(q), np.repeat(rope(k), rep, axis=0),
                         np.repeat(v[0].astype(np.float64), rep, axis=0),
                         scale=float(np.float32(1.0 / np.sqrt(d))))
    raised, unraised = run_both(ir, "f32", q, k, v, positions)
    assert_close(unraised, want, ATOL, RTOL, "raise=false vs numpy")
    assert_close(raised, want, ATOL, RTOL, "raise=true vs numpy")
    assert_close(raised, unraised, ATOL, RTOL, "raise=true vs raise=false")


def bshd(fn, x):
    """`fn` of x [B, S, H, D] applied to [B, H, S, D] and transposed back."""
    return fn(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("cis", ["polar", "complex"])
@pytest.mark.parametrize("elem", ["f32", "bf16"])
@pytest.mark.parametrize("case", seeded_cases(3, 11), ids=lambda c: "b{}h{}s{}d{}".format(*c[:4]))
def test_complex_rope_meta_order_raised(case, elem, cis):
    """Meta's complex rotation on x in Meta's own [B, S, H, D] order
    (freqs_cis viewed as [1, S, 1, D/2]) raises to transpose(rope(transpose(x)))
    with the attribute form; raised == unraised == numpy."""
    b, h, s, d, base, scaling, offset = case
    ir = linalg_rope_forms.complex_rope(
        b, h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling), cis, elem, order="bshd")
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 1, raised_ir
    assert re.search(r"= posenc.rope %transposed\w*, %arg1 layout interleaved", raised_ir), raised_ir
    assert "complex." not in raised_ir, raised_ir
    rng = np.random.default_rng(b * 1000 + s * 10 + d + 1)
    x, x64 = to_elem(rng.standard_normal((b, s, h, d)), elem)
    positions = np.arange(s, dtype=np.int32) + offset
    want = bshd(lambda t: ref.rope(t, positions, "interleaved", base, scaling=scaling), x64)
    atol, rtol = elem_tolerance(elem, f32=(ATOL, RTOL))
    raised, unraised = run_both(ir, elem, x, positions)
    assert_close(unraised, want, atol, rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, atol, rtol, "raise=true vs raise=false")


@pytest.mark.parametrize("elem", ["f32", "f16"])
def test_complex_rope_meta_order_table_form(elem):
    """The same with argument cos/sin tables: the table form on the
    transposed x, the graph's tables in both lanes of each pair."""
    b, h, s, d = 2, 3, 13, 32
    rng = np.random.default_rng(7)
    x, x64 = to_elem(rng.standard_normal((b, s, h, d)), elem)
    positions = np.arange(s, dtype=np.int32)
    cos = rng.uniform(-1.5, 1.5, (s, d // 2)).astype(np.float32)
    sin = rng.uniform(-1.5, 1.5, (s, d // 2)).astype(np.float32)
    ir = linalg_rope_forms.complex_rope(b, h, s, d, cis="complex_arg", elem=elem, order="bshd")
    raised_ir = raise_only(ir)
    assert re.search(r"= posenc.rope %\w+ tables\(.*layout interleaved", raised_ir), raised_ir
    assert "complex." not in raised_ir, raised_ir
    want = bshd(lambda t: ref.rope_table(t, *interleaved_tables(cos, sin), "interleaved"), x64)
    atol, rtol = elem_tolerance(elem, magnitude=1.5, f32=(TABLE_ATOL, TABLE_RTOL))
    raised, unraised = run_both(ir, elem, x, positions, cos, sin)
    assert_close(unraised, want, atol, rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, atol, rtol, "raise=true vs raise=false")


@pytest.mark.parametrize("b,s,hq,hkv,d,causal,elem", [
    (1, 24, 4, 2, 64, True, "f32"), (2, 9, 4, 4, 16, False, "f32"),
    (1, 19, 8, 2, 32, True, "f32"), (1, 17, 8, 2, 32, True, "bf16"),
    (2, 10, 4, 1, 32, True, "f16")])
def test_meta_llama_block_raised_equals_unraised(b, s, hq, hkv, d, causal, elem):
    """Meta's reference Attention.forward in torch-mlir's linalg
    (linalg_rope_forms.meta_llama_block: [B, S, H, D] order, complex RoPE,
    repeat_kv before transpose(1, 2), -inf triu mask) raises to two ropes and
    one attention (GQA hq/hkv); raised == unraised == numpy (float64, from
    the rounded inputs). f32: atol 2e-5 + rtol 2e-4; half types: the type's
    rounding for the raised program, 4x that for the graph, which also
    rounds the scores, the scale and P to the half type."""
    inv = tosa_blocks.hf_inv_freq(d, 500000.0, LLAMA3)
    ir = linalg_rope_forms.meta_llama_block(b, s, hq, hkv, d, inv, causal, elem)
    raised_ir = raise_only(ir)
    assert raised_ir.count("= posenc.rope ") == 2 and raised_ir.count("= posenc.attention ") == 1, raised_ir
    assert ("{causal, " in raised_ir) == causal, raised_ir
    rng = np.random.default_rng(s * 10 + d)
    q, q64 = to_elem(rng.standard_normal((b, s, hq * d)), elem)
    k, k64 = to_elem(rng.standard_normal((b, s, hkv * d)), elem)
    v, v64 = to_elem(rng.standard_normal((b, s, hkv * d)), elem)
    positions = np.arange(s, dtype=np.int32) + 3
    heads = lambda t, h: t.reshape(b, s, h, d).transpose(0, 2, 1, 3)  # noqa: E731
    rope = lambda t: ref.rope(t, positions, "interleaved", 500000.0, scaling=LLAMA3)  # noqa: E731
    scale = float(np.float32(1.0 / np.float32(np.sqrt(d)))) if elem == "f32" else None
    out = ref.attention(rope(heads(q64, hq)), rope(heads(k64, hkv)), heads(v64, hkv),
                        scale=scale, causal=causal)
    want = out.transpose(0, 2, 1, 3).reshape(b, s, hq * d)
    atol, rtol = elem_tolerance(elem, f32=(ATOL, RTOL))
    slack = 1 if elem == "f32" else 4
    raised, unraised = run_both(ir, elem, q, k, v, positions)
    assert_close(unraised, want, slack * atol, slack * rtol, "raise=false vs numpy")
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(raised, unraised, slack * atol, slack * rtol, "raise=true vs raise=false")


@pytest.mark.parametrize("case", seeded_cases(3, 12), ids=lambda c: "h{}s{}d{}".format(*c[1:4]))
def test_hf_matmul_angles_raised(case):
    """HuggingFace's angles as the outer-product matmul (inv_freq [1, D/2, 1]
    @ float(position_ids) [1, 1, S], transposed; linalg_rope_forms.hf_matmul_rope)
    raise to the attribute form (the matmul gone); raised == unraised ==
    numpy within atol 2e-5 + rtol 2e-4."""
    _, h, s, d, base, scaling, offset = case
    ir = linalg_rope_forms.hf_matmul_rope(1, h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling))
    raised_ir = raise_only(ir)
    assert re.search(r"= posenc.rope %arg0, %\w+ layout half", raised_ir), raised_ir
    assert "linalg.batch_matmul" not in raised_ir, raised_ir
    rng = np.random.default_rng(s * 10 + d + 2)
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    positions = (np.arange(s, dtype=np.int64) + offset)[None, :]
    want = ref.rope(x.astype(np.float64), positions[0], "half", base, scaling=scaling)
    raised, unraised = run_both(ir, "f32", x, positions)
    assert_close(unraised, want, ATOL, RTOL, "raise=false vs numpy")
    assert_close(raised, want, ATOL, RTOL, "raise=true vs numpy")
    assert_close(raised, unraised, ATOL, RTOL, "raise=true vs raise=false")


@pytest.mark.parametrize("variant", ["k2", "untransposed", "per_batch"])
def test_hf_matmul_angles_near_misses(variant):
    """A contraction of size 2 (each angle a sum of two products), the matmul result used
    untransposed (row s, pair p: pos[p] * inv_freq[s]) and per-batch
    positions (B = 2) are not the attribute form: the table form with the
    graph's own tables; raised == unraised == numpy from the angles the
    graph computes in f32 (atol 1e-5 + rtol 1e-5)."""
    b, h, s, d = (2, 3, 7, 16) if variant == "per_batch" else (1, 3, 8 if variant == "untransposed" else 7, 16)
    inv = tosa_blocks.hf_inv_freq(d, 10000.0)
    ir = linalg_rope_forms.hf_matmul_rope(b, h, s, d, inv, None if variant == "per_batch" else variant)
    raised_ir = raise_only(ir)
    assert re.search(r"= posenc.rope %arg0 tables\(.*layout half", raised_ir), raised_ir
    rng = np.random.default_rng(len(variant))
    x = rng.standard_normal((b, h, s, d)).astype(np.float32)
    positions = rng.integers(0, 200, (b, s)).astype(np.int64)
    pos = positions.astype(np.float32)
    if variant == "k2":
        lanes = np.concatenate([inv, inv]).reshape(d // 2, 2)
        first = (lanes[None, None, :, 0] * pos[:, :, None]).astype(np.float32)
        second = (lanes[None, None, :, 1] * pos[:, :, None]).astype(np.float32)
        angles = (first + second).astype(np.float32)
    elif variant == "untransposed":
        angles = (inv[None, :, None] * pos[:, None, :]).astype(np.float32)
    else:
        angles = (inv[None, None, :] * pos[:, :, None]).astype(np.float32)
    emb = np.concatenate([angles, angles], axis=-1).astype(np.float64)[:, None]
    want = ref.rope_table(x.astype(np.float64), np.cos(emb), np.sin(emb), "half")
    raised, unraised = run_both(ir, "f32", x, positions)
    assert_close(unraised, want, TABLE_ATOL, TABLE_RTOL, "raise=false vs numpy")
    assert_close(raised, want, TABLE_ATOL, TABLE_RTOL, "raise=true vs numpy")
    assert_close(raised, unraised, TABLE_ATOL, TABLE_RTOL, "raise=true vs raise=false")
