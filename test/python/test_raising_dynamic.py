"""Execution equivalence of `posenc-raise` with a dynamic sequence length
(docs/raising.md, "Dynamic sizes").

Each case is a LLaMA-style block in linalg as torch-mlir writes it when the
sequence dim is `?` (linalg_blocks.llama_block: tensor.dim sizes,
cf.assert broadcast checks, RoPE from an in-graph arange, GQA by
broadcast, triu(full(m), 1) causal mask, decomposed softmax). Each
configuration is compiled ONCE with `posenc-cpu-pipeline{raise=false}` and
once with the default `raise=true`, and the same two compiled programs are
run at three sequence lengths; at each, raised == unraised == numpy
`posenc.reference` (float64, written from SPEC.md).

Lengths: one in 1..16 (at a dynamic Sq <= 16 the fused kernel takes its
run-time decode branch) and two in 17..48 (its prefill schedule).

Configurations are drawn from a seeded generator: GQA ratios 1 to 4, head
dims 16 to 64, none/linear/llama3 RoPE scaling, base 10^4 to 5*10^5,
masks with the lowest finite value, -inf, or none, position offsets up to
100, f32, f16 and bf16.

Tolerances: f32 as test_raising.py (both paths compute in f32; atol 2e-5 +
rtol 2e-4 against float64 and between them). f16/bf16 as
test_half_precision_attention_raised: the raised program rounds once to the
half type (posenc_testutil.elem_tolerance); the unraised graph also rounds
the tables, the rotated Q/K, the scores and P to it and accumulates its
products in it, so it gets 4x that, and raised vs unraised the sum of both.
"""
import subprocess

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close, elem_tolerance, from_elem, to_elem  # noqa: E402
import linalg_blocks  # noqa: E402
import tosa_blocks  # noqa: E402
from test_raising import ATOL, LLAMA3, POSENC_OPT, RTOL  # noqa: E402

RAISED = "builtin.module(posenc-cpu-pipeline)"
UNRAISED = "builtin.module(posenc-cpu-pipeline{raise=false})"
SCALINGS = [None, {"kind": "linear", "factor": 2.0}, LLAMA3]


def draw_cases(seed, count, elems):
    """`count` seeded configurations (hq, hkv, d, base, scaling, mask,
    offset, elem, lengths)."""
    rng = np.random.default_rng(seed)
    cases = []
    for n in range(count):
        hkv = int(rng.integers(1, 3))
        hq = hkv * int(rng.choice([1, 2, 4]))
        d = int(rng.choice([16, 32, 64]))
        base = float(rng.choice([10000.0, 500000.0]))
        scaling = SCALINGS[int(rng.integers(0, len(SCALINGS)))]
        mask = [None, "lowest", "-inf"][int(rng.integers(0, 3))]
        offset = int(rng.integers(0, 101))
        elem = elems[n % len(elems)]
        # One length at most 16 (the fused kernel's run-time decode branch),
        # two above (its prefill schedule).
        lengths = (int(rng.integers(1, 17)),) + tuple(
            sorted(int(s) for s in rng.choice(np.arange(17, 49), 2, replace=False)))
        cases.append((hq, hkv, d, base, scaling, mask, offset, elem, lengths))
    return cases


CASES = draw_cases(20261202, 6, ["f32"]) + draw_cases(7, 4, ["f16", "bf16"])


def case_id(c):
    hq, hkv, d, base, scaling, mask, offset, elem, lengths = c
    kind = scaling["kind"] if scaling else "none"
    return f"h{hq}/{hkv}-d{d}-{kind}-{mask}-{elem}-S{'.'.join(map(str, lengths))}"


def raised_ir(ir):
    return subprocess.run([POSENC_OPT, "--posenc-raise"], input=ir, capture_output=True,
                          text=True, check=True).stdout


def block_reference(q_proj, k_proj, v_proj, hq, hkv, d, base, scaling, causal, offset):
    s = q_proj.shape[1]

    def heads(x, h):
        return x.reshape(1, s, h, d).transpose(0, 2, 1, 3)

    positions = np.arange(s) + offset
    q = ref.rope(heads(q_proj, hq), positions, "half", base, scaling=scaling)
    k = ref.rope(heads(k_proj, hkv), positions, "half", base, scaling=scaling)
    out = ref.attention(q, k, heads(v_proj, hkv), causal=causal)
    return out.transpose(0, 2, 1, 3).reshape(1, s, hq * d)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dynamic_llama_block_raised_equals_unraised(case):
    hq, hkv, d, base, scaling, mask, offset, elem, lengths = case
    ir = linalg_blocks.llama_block(hq, hkv, d, tosa_blocks.hf_inv_freq(d, base, scaling),
                                   mask, offset, elem)
    out = raised_ir(ir)
    assert out.count("= posenc.attention ") == 1, out
    assert out.count("= posenc.rope ") == 2, out
    assert ("causal" in out) == (mask is not None), out
    assert f"tensor<{hq}x?x{d}x{elem}>" in out, out
    raised = posenc.compile(ir, pipeline=RAISED)
    unraised = posenc.compile(ir, pipeline=UNRAISED)
    if elem == "f32":
        tol_raised, tol_unraised = (ATOL, RTOL), (ATOL, RTOL)
    else:
        atol, rtol = elem_tolerance(elem)
        tol_raised, tol_unraised = (atol, rtol), (4 * atol, 4 * rtol)
    rng = np.random.default_rng(hq * 1000 + d * 10 + hkv)
    for s in lengths:
        (q, qr), (k, kr), (v, vr) = (to_elem(rng.standard_normal((1, s, h * d)), elem)
                                     for h in (hq, hkv, hkv))
        want = block_reference(qr, kr, vr, hq, hkv, d, base, scaling, mask is not None, offset)
        got_raised = from_elem(raised(q, k, v), elem)
        got_unraised = from_elem(unraised(q, k, v), elem)
        assert_close(got_raised, want, *tol_raised, f"S={s} raise=true vs numpy")
        assert_close(got_unraised, want, *tol_unraised, f"S={s} raise=false vs numpy")
        assert_close(got_raised, got_unraised, tol_raised[0] + tol_unraised[0],
                     tol_raised[1] + tol_unraised[1], f"S={s} raise=true vs raise=false")


@pytest.mark.parametrize("d,causal,transpose_b_maps", [(16, True, True), (32, False, True),
                                                       (64, True, False)])
def test_single_head_matmul_attention_raised(d, causal, transpose_b_maps):
    """2-D linalg.matmul products (linalg_blocks.single_head_attention) of a
    dynamic length raise to one posenc.attention (a unit batch dim); the
    one compiled program at three lengths: raised == unraised == numpy, f32
    tolerances as above."""
    ir = linalg_blocks.single_head_attention(d, causal, transpose_b_maps)
    out = raised_ir(ir)
    assert out.count("= posenc.attention ") == 1, out
    assert "linalg.matmul" not in out, out
    assert ("causal" in out) == causal, out
    raised = posenc.compile(ir, pipeline=RAISED)
    unraised = posenc.compile(ir, pipeline=UNRAISED)
    rng = np.random.default_rng(d)
    for s in (5, 30, 45):
        q, k, v = (rng.standard_normal((s, d)).astype(np.float32) for _ in range(3))
        want = ref.attention(q[None], k[None], v[None], causal=causal)[0]
        got_raised, got_unraised = raised(q, k, v), unraised(q, k, v)
        assert_close(got_raised, want, ATOL, RTOL, f"S={s} raise=true vs numpy")
        assert_close(got_unraised, want, ATOL, RTOL, f"S={s} raise=false vs numpy")
        assert_close(got_raised, got_unraised, 2 * ATOL, 2 * RTOL, f"S={s} raised vs unraised")


@pytest.mark.parametrize("s", [1, 5, 12, 16, 17])
def test_dynamic_short_query_decode_branch(s):
    """posenc.attention with a dynamic length (no raising involved): at Sq
    <= 16 the fused kernel runs its decode branch, whose last step once
    iterated over the 16 padded rows and wrote past a shorter result. The
    result has Sq rows and equals numpy (f32 tolerances as above)."""
    t = "tensor<2x?x32xf32>"
    ir = (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
          f"  %o = posenc.attention %q, %k, %v {{causal, scale = 0.125 : f64}} : "
          f"{t}, {t}, {t} -> {t}\n  return %o : {t}\n}}\n")
    rng = np.random.default_rng(s)
    q, k, v = (rng.standard_normal((2, s, 32)).astype(np.float32) for _ in range(3))
    got = posenc.compile(ir, pipeline=RAISED)(q, k, v)
    assert_close(got, ref.attention(q, k, v, scale=0.125, causal=True), ATOL, RTOL, "fused")
