"""Execution equivalence of `posenc-raise` (docs/raising.md).

Each case is a LLaMA-style attention block written as a TOSA exporter
writes it (tosa_blocks.llama_block: RoPE from HuggingFace's float32 inverse
frequencies, GQA by tile, an additive causal mask, decomposed softmax,
tosa.matmul). It is compiled twice through `posenc-import-tosa` and
`posenc-cpu-pipeline`, with `raise=false` (upstream's materializing
lowering of the graph as written) and with the default `raise=true` (one
posenc.fused_attention with RoPE prologues), run on seeded inputs, and
both are compared with the numpy reference (`posenc.reference`, float64,
written from SPEC.md) and with each other.

Tolerances: both paths compute in f32 (online vs. materialized softmax,
different summation orders; the raised RoPE recomputes the graph's inverse
frequencies from posenc's formulas, equal within 8 f32 ulps); against
float64 we allow atol 2e-5 + rtol 2e-4, as the fused-attention tests do,
and between the two paths the same. Positions stay below 300, where the f32
angle error is ~1e-5 absolute.
"""
import os
import subprocess

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close, elem_tolerance, from_elem, to_elem  # noqa: E402
import tosa_blocks  # noqa: E402


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POSENC_OPT = os.path.join(os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build")),
                          "bin", "posenc-opt")

ATOL, RTOL = 2e-5, 2e-4
RAISED = "builtin.module(posenc-import-tosa, posenc-cpu-pipeline)"
UNRAISED = "builtin.module(posenc-import-tosa, posenc-cpu-pipeline{raise=false})"
LLAMA3 = {"kind": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position": 8192}

# (seq, q heads, kv heads, head dim, base, scaling, mask, position offset)
CASES = [
    (8, 4, 2, 64, 500000.0, LLAMA3, "lowest", 0),
    (17, 2, 2, 32, 10000.0, None, "-inf", 3),
    (33, 6, 2, 16, 10000.0, {"kind": "linear", "factor": 4.0}, None, 0),
    (70, 8, 1, 64, 500000.0, LLAMA3, "lowest", 200),
    (5, 3, 3, 128, 1000000.0, None, "lowest", 0),
]


def raised_ops(ir):
    """The posenc ops `posenc-import-tosa,posenc-raise` leaves in `ir`, so
    that each case checks that raising happened, not only that numbers
    agree."""
    out = subprocess.run([POSENC_OPT, "--posenc-import-tosa", "--posenc-raise"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    return {op: out.count(f"= posenc.{op} ") for op in ("attention", "rope")}, out


def check_raised_equals_unraised(ir, want, *args):
    """Runs `ir` through the pipeline with raise=false and with raise=true;
    both agree with `want` (numpy, float64) and with each other within
    atol ATOL + rtol RTOL."""
    unraised = posenc.compile(ir, pipeline=UNRAISED)(*args)
    raised = posenc.compile(ir, pipeline=RAISED)(*args)
    assert_close(unraised, want, ATOL, RTOL, "raise=false vs numpy")
    assert_close(raised, want, ATOL, RTOL, "raise=true vs numpy")
    assert_close(raised, unraised, ATOL, RTOL, "raise=true vs raise=false")


def llama_reference(q_proj, k_proj, v_proj, positions, hq, hkv, d, base,
                    scaling, causal, attention_factor=None):
    s = q_proj.shape[1]

    def heads(x, h):
        return x.reshape(1, s, h, d).transpose(0, 2, 1, 3)

    q = ref.rope(heads(q_proj, hq), positions, "half", base, scaling=scaling,
                 attention_factor=attention_factor)
    k = ref.rope(heads(k_proj, hkv), positions, "half", base, scaling=scaling,
                 attention_factor=attention_factor)
    out = ref.attention(q, k, heads(v_proj, hkv), causal=causal)
    return out.transpose(0, 2, 1, 3).reshape(1, s, hq * d)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"S{c[0]}-h{c[1]}/{c[2]}-d{c[3]}-{c[6]}")
def test_llama_block_raised_equals_unraised(case):
    s, hq, hkv, d, base, scaling, mask, offset = case
    rng = np.random.default_rng(hash(case[:4]) % (1 << 32))
    q_proj = rng.standard_normal((1, s, hq * d)).astype(np.float32)
    k_proj = rng.standard_normal((1, s, hkv * d)).astype(np.float32)
    v_proj = rng.standard_normal((1, s, hkv * d)).astype(np.float32)
    positions = (np.arange(s, dtype=np.int32) + offset).reshape(1, s)
    ir = tosa_blocks.llama_block(s, hq, hkv, d, base, scaling, mask)
    args = (q_proj, k_proj, v_proj, positions)
    counts, raised_ir = raised_ops(ir)
    assert counts == {"attention": 1, "rope": 2}, raised_ir
    assert ("causal" in raised_ir) == (mask is not None)

    want = llama_reference(q_proj, k_proj, v_proj, positions[0], hq, hkv, d,
                           base, scaling, causal=mask is not None)
    check_raised_equals_unraised(ir, want, *args)


@pytest.mark.parametrize("s,h,d", [(9, 2, 16), (40, 3, 32)])
def test_padding_mask_stays_a_bias(s, h, d):
    """A run-time padding mask (finite lowest value on padded keys) is the
    bias operand of the raised attention."""
    rng = np.random.default_rng(s * 100 + h)
    projs = [rng.standard_normal((1, s, h * d)).astype(np.float32) for _ in range(3)]
    mask = np.zeros((1, 1, 1, s), np.float32)
    mask[..., s - 3:] = np.finfo(np.float32).min  # the last three keys are padding
    ir = tosa_blocks.padded_attention_block(s, h, d)
    counts, raised_ir = raised_ops(ir)
    assert counts == {"attention": 1, "rope": 0} and "bias(" in raised_ir, raised_ir

    def heads(x):
        return x.reshape(1, s, h, d).transpose(0, 2, 1, 3)

    want = ref.attention(heads(projs[0]), heads(projs[1]), heads(projs[2]),
                         bias=mask.astype(np.float64))
    want = want.transpose(0, 2, 1, 3).reshape(1, s, h * d)
    args = (*projs, mask)
    check_raised_equals_unraised(ir, want, *args)


@pytest.mark.parametrize("h,s,d,base,scaling,offset", [
    (2, 7, 16, 10000.0, None, 0),
    (3, 33, 64, 500000.0, LLAMA3, 250),
    (1, 12, 32, 10000.0, {"kind": "linear", "factor": 2.0}, 3),
])
def test_interleaved_rope_raised_equals_unraised(h, s, d, base, scaling, offset):
    """Meta's LLaMA rotation in real arithmetic (tosa_blocks.rope_interleaved)
    raises to posenc.rope interleaved; both programs match the reference."""
    rng = np.random.default_rng(h * 1000 + s)
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    positions = (np.arange(s, dtype=np.int32) + offset).reshape(1, s)
    ir = "func.func @rope" + tosa_blocks.rope_interleaved(
        h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling))
    counts, raised_ir = raised_ops(ir)
    assert counts["rope"] == 1 and "layout interleaved" in raised_ir, raised_ir
    want = ref.rope(x, positions[0], "interleaved", base, scaling=scaling)
    check_raised_equals_unraised(ir, want, x, positions)


# (batch, seq, heads, head dim, causal). BLOOM's powf of a rounded base
# drifts from SPEC.md's rule with max_bias 8 by up to 6 ulps at H=32, but is
# the rule for a max_bias a few ulps off 8, which the raising recovers; with
# B=2 the flat heads repeat and the slopes become the `slopes` operand.
BLOOM_CASES = [
    (1, 8, 4, 16, True),
    (2, 17, 3, 32, True),
    (1, 33, 12, 64, False),
    (1, 9, 32, 16, True),
    (1, 20, 5, 16, True),
]


@pytest.mark.parametrize("case", BLOOM_CASES, ids=lambda c: "b{}-S{}-h{}-d{}-{}".format(
    *c[:4], "causal" if c[4] else "full"))
def test_bloom_block_raised_equals_unraised(case):
    """BLOOM's ALiBi attention (tosa_blocks.bloom_block: slopes * j in the
    graph, baddbmm, masked_fill by select) raises to one posenc.attention
    with a posenc.alibi_bias; the BLOOM-form term differs from SPEC.md's
    slope * (j - i') by a constant per row, which softmax ignores."""
    b, s, h, d, causal = case
    rng = np.random.default_rng(b * 1000 + s * 10 + h)
    q, k, v = (rng.standard_normal((b, s, h, d)).astype(np.float32) for _ in range(3))
    ir = tosa_blocks.bloom_block(b, s, h, d, causal)
    out = subprocess.run([POSENC_OPT, "--posenc-import-tosa", "--posenc-raise"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    assert out.count("= posenc.attention ") == 1, out
    assert out.count("= posenc.alibi_bias") == 1, out
    assert ("causal" in out) == causal
    assert ("slopes(" in out) == (b > 1), out

    slopes = tosa_blocks.bloom_slopes(h).astype(np.float64)
    bias = slopes[:, None, None] * np.arange(s, dtype=np.float64)[None, None, :]

    def heads(x):
        return x.transpose(0, 2, 1, 3)

    want = ref.attention(heads(q), heads(k), heads(v), bias=bias, causal=causal)
    want = want.transpose(0, 2, 1, 3).reshape(b, s, h * d)
    check_raised_equals_unraised(ir, want, q, k, v)


@pytest.mark.parametrize("s,h,d,layout", [
    (12, 2, 8, "interleaved"),
    (33, 3, 16, "half"),
    (20, 4, 32, "interleaved"),
])
def test_sinusoidal_encoder_block_raised_equals_unraised(s, h, d, layout):
    """An encoder block with the sinusoidal table added to the embeddings
    (tosa_blocks.sinusoidal_encoder_block: the PyTorch tutorial's constant
    buffer, or tensor2tensor's concat(sin, cos) computed in the graph)
    raises to posenc.sinusoidal plus one posenc.attention."""
    dm = h * d
    rng = np.random.default_rng(s * 7 + h)
    x = rng.standard_normal((1, s, dm)).astype(np.float32)
    w = [(rng.standard_normal((1, dm, dm)) / np.sqrt(dm)).astype(np.float32)
         for _ in range(3)]
    ir = tosa_blocks.sinusoidal_encoder_block(s, h, d, layout)
    out = subprocess.run([POSENC_OPT, "--posenc-import-tosa", "--posenc-raise"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    assert out.count("= posenc.sinusoidal ") == 1, out
    assert ("layout half" in out) == (layout == "half"), out
    assert out.count("= posenc.attention ") == 1, out

    xe = x.astype(np.float64) + ref.sinusoidal(np.arange(s), dm, 10000.0, layout)
    q, k, v = ((xe @ wi[0]).reshape(1, s, h, d).transpose(0, 2, 1, 3) for wi in w)
    want = ref.attention(q, k, v).transpose(0, 2, 1, 3).reshape(1, s, dm)
    check_raised_equals_unraised(ir, want, x, *w)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("s,h,d,causal", [(5, 2, 8, True), (19, 3, 32, True),
                                          (12, 2, 64, False)])
def test_half_precision_attention_raised(elem, s, h, d, causal):
    """f16/bf16 attention as HuggingFace runs it (products, scale and mask
    in the half type, softmax(dtype=float32).to(half)) raises to
    posenc.attention on the half tensors, which computes in f32 (SPEC.md).

    Tolerances: the raised result is the f32 computation rounded to the
    half type once (posenc_testutil.elem_tolerance); the unraised graph
    also rounds the scores, the scaled scores and P to the half type, and
    accumulates the products in it, so it is compared with 4x that."""
    rng = np.random.default_rng(s * 31 + d)
    args, refs = zip(*(to_elem(rng.standard_normal((1, h, s, d)), elem)
                       for _ in range(3)))
    ir = tosa_blocks.half_attention_block(s, h, d, elem, causal)
    counts, raised_ir = raised_ops(ir)
    assert counts["attention"] == 1 and f"x{elem}> -> tensor" in raised_ir, raised_ir
    assert ("causal" in raised_ir) == causal
    want = ref.attention(*refs, scale=float(to_elem([1 / np.sqrt(d)], elem)[1][0]),
                         causal=causal)
    atol, rtol = elem_tolerance(elem)
    raised = from_elem(posenc.compile(ir, pipeline=RAISED)(*args), elem)
    unraised = from_elem(posenc.compile(ir, pipeline=UNRAISED)(*args), elem)
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(unraised, want, 4 * atol, 4 * rtol, "raise=false vs numpy")


@pytest.mark.parametrize("h,s,d,r,base", [(2, 7, 64, 16, 10000.0),
                                          (3, 20, 80, 32, 10000.0),
                                          (1, 9, 128, 64, 500000.0)])
def test_partial_rotary_raised_equals_unraised(h, s, d, r, base):
    """GPT-NeoX/Phi partial rotary (tosa_blocks.rope_partial) raises to one
    posenc.rope with rotary_dim = R; both programs match the reference."""
    rng = np.random.default_rng(h * 100 + d)
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    positions = np.arange(s, dtype=np.int32).reshape(1, s) + 5
    ir = "func.func @rope" + tosa_blocks.rope_partial(
        h, s, d, r, tosa_blocks.hf_inv_freq(r, base))
    counts, raised_ir = raised_ops(ir)
    assert counts["rope"] == 1 and f"rotary_dim = {r}" in raised_ir, raised_ir
    want = ref.rope(x, positions[0], "half", base, rotary_dim=r)
    check_raised_equals_unraised(ir, want, x, positions)


@pytest.mark.parametrize("h,s,d,base,scaling", [
    (2, 7, 16, 10000.0, None),
    (3, 30, 64, 500000.0, LLAMA3),
])
def test_expanded_half_rope_raised_equals_unraised(h, s, d, base, scaling):
    """concat(x1 cos - x2 sin, x2 cos + x1 sin) (tosa_blocks.rope_expanded)
    raises to posenc.rope half; both programs match the reference."""
    rng = np.random.default_rng(h * 10 + s)
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    positions = np.arange(s, dtype=np.int32).reshape(1, s) + 2
    ir = "func.func @rope" + tosa_blocks.rope_expanded(
        h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling))
    counts, raised_ir = raised_ops(ir)
    assert counts["rope"] == 1 and "layout half" in raised_ir, raised_ir
    want = ref.rope(x, positions[0], "half", base, scaling=scaling)
    check_raised_equals_unraised(ir, want, x, positions)


@pytest.mark.parametrize("h,s,d,base,scaling,start", [
    (2, 9, 16, 10000.0, None, 0),
    (3, 40, 64, 500000.0, LLAMA3, 0),
    (1, 17, 128, 10000.0, {"kind": "linear", "factor": 4.0}, 300),
])
def test_constant_rope_tables_raised(h, s, d, base, scaling, start):
    """cos/sin folded into dense constants (tosa_blocks.rope_constant_tables)
    are matched by value: raised to posenc.rope with constant positions
    start..start+S-1 and the recovered base and scaling."""
    rng = np.random.default_rng(s + d)
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    ir = "func.func @rope" + tosa_blocks.rope_constant_tables(
        h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling), start)
    counts, raised_ir = raised_ops(ir)
    assert counts["rope"] == 1 and "layout half" in raised_ir, raised_ir
    want = ref.rope(x, np.arange(start, start + s), "half", base, scaling=scaling)
    check_raised_equals_unraised(ir, want, x)


YARN = {"kind": "yarn", "factor": 4.0, "original_max_position": 4096}
YARN_BETAS = {"kind": "yarn", "factor": 8.0, "original_max_position": 4096,
              "beta_fast": 16.0, "beta_slow": 2.0}


# (head dim, base, scaling, the tables' attention scaling, what the raised
# rope must say about its attention factor)
YARN_CASES = [
    # HuggingFace's yarn: the tables times 0.1 ln(4) + 1, the op's default.
    (64, 10000.0, YARN, tosa_blocks.hf_attention_scaling(YARN), None),
    (128, 500000.0, {"kind": "yarn", "factor": 16.0, "original_max_position": 8192},
     tosa_blocks.hf_attention_scaling({"kind": "yarn", "factor": 16.0}), None),
    # yarn frequencies with unscaled tables: attention_factor = 1 explicitly.
    (64, 10000.0, YARN, None, 1.0),
    # yarn with other betas (correction dims 12 and 21 of 32 pairs: no
    # original_max_position gives them with the default betas).
    (64, 10000.0, YARN_BETAS, tosa_blocks.hf_attention_scaling(YARN_BETAS), None),
    # plain frequencies, tables times 0.5: attention_factor = 0.5.
    (32, 10000.0, None, 0.5, 0.5),
]


@pytest.mark.parametrize("d,base,scaling,table_scale,explicit", YARN_CASES,
                         ids=["yarn-d64", "yarn-d128-f16", "yarn-unscaled-tables",
                              "yarn-other-betas", "plain-scaled-tables"])
def test_yarn_and_attention_scaling_raised(d, base, scaling, table_scale, explicit):
    """yarn is recovered from HuggingFace's float32 frequencies (the
    correction range read off the ramp), and a constant factor on cos and sin
    becomes the op's attention factor: implied by yarn when it is yarn's
    default, explicit otherwise, so the raised program computes what the
    graph does."""
    s, hq, hkv = 12, 4, 2
    rng = np.random.default_rng(d + s)
    projs = [rng.standard_normal((1, s, h * d)).astype(np.float32) for h in (hq, hkv, hkv)]
    positions = (np.arange(s, dtype=np.int32) + 5).reshape(1, s)
    ir = tosa_blocks.llama_block(s, hq, hkv, d, base, scaling, "lowest",
                                 attention_scaling=table_scale)
    counts, raised_ir = raised_ops(ir)
    assert counts == {"attention": 1, "rope": 2}, raised_ir
    ropes = [line for line in raised_ir.splitlines() if "posenc.rope " in line]
    for line in ropes:
        assert ("rope_scaling<yarn" in line) == (scaling is not None), line
        if explicit is None:
            assert "attention_factor" not in line, line
        else:
            assert f"attention_factor = {explicit:.6e}" in line, line
    af = 1.0 if table_scale is None else table_scale
    want = llama_reference(*projs, positions[0], hq, hkv, d, base, scaling,
                           causal=True, attention_factor=af)
    check_raised_equals_unraised(ir, want, *projs, positions)


def einsum_attention(b, h, sq, sk, d, scale, causal):
    """Attention as StableHLO's dot_general with two batch dims lowers to
    linalg (JAX's `bhqd,bhkd->bhqk` and `bhqk,bhkd->bhqd` einsums): two
    contraction `linalg.generic`s over [b, h, m, n, k] into zero-filled
    inits, the scale a generic multiply, HuggingFace's additive causal mask
    a dense constant, and `linalg.softmax` over the key dim."""
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    q, k, v, s4 = t(b, h, sq, d), t(b, h, sk, d), t(b, h, sk, d), t(b, h, sq, sk)
    lines = [
        "#qk_a = affine_map<(b, h, m, n, k) -> (b, h, m, k)>",
        "#qk_b = affine_map<(b, h, m, n, k) -> (b, h, n, k)>",
        "#pv_b = affine_map<(b, h, m, n, k) -> (b, h, k, n)>",
        "#out = affine_map<(b, h, m, n, k) -> (b, h, m, n)>",
        "#id = affine_map<(b, h, i, j) -> (b, h, i, j)>",
        "#mask = affine_map<(b, h, i, j) -> (i, j)>",
        f"func.func @attention(%q: {q}, %k: {k}, %v: {v}) -> {q} {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %c = arith.constant {scale!r} : f32",
        f"  %e = tensor.empty() : {s4}",
        f"  %z = linalg.fill ins(%zero : f32) outs(%e : {s4}) -> {s4}",
        "  %s = linalg.generic {indexing_maps = [#qk_a, #qk_b, #out], iterator_types = "
        '["parallel", "parallel", "parallel", "parallel", "reduction"]} '
        f"ins(%q, %k : {q}, {k}) outs(%z : {s4}) {{",
        "  ^bb0(%a: f32, %bb: f32, %o: f32):",
        "    %m = arith.mulf %a, %bb : f32",
        "    %r = arith.addf %o, %m : f32",
        "    linalg.yield %r : f32",
        f"  }} -> {s4}",
        "  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
        '["parallel", "parallel", "parallel", "parallel"]} '
        f"ins(%s : {s4}) outs(%e : {s4}) {{",
        "  ^bb0(%a: f32, %o: f32):",
        "    %m = arith.mulf %a, %c : f32",
        "    linalg.yield %m : f32",
        f"  }} -> {s4}",
    ]
    scores = "%ss"
    if causal:
        mask = tosa_blocks.causal_mask(sq, sk)
        values = "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in row) + "]"
                                 for row in mask) + "]"
        lines += [
            f"  %mask = arith.constant dense<{values}> : {t(sq, sk)}",
            "  %sm = linalg.generic {indexing_maps = [#id, #mask, #id], iterator_types = "
            '["parallel", "parallel", "parallel", "parallel"]} '
            f"ins(%ss, %mask : {s4}, {t(sq, sk)}) outs(%e : {s4}) {{",
            "  ^bb0(%a: f32, %mk: f32, %o: f32):",
            "    %m = arith.addf %a, %mk : f32",
            "    linalg.yield %m : f32",
            f"  }} -> {s4}",
        ]
        scores = "%sm"
    lines += [
        f"  %p = linalg.softmax dimension(3) ins({scores} : {s4}) outs(%e : {s4}) -> {s4}",
        f"  %eo = tensor.empty() : {q}",
        f"  %zo = linalg.fill ins(%zero : f32) outs(%eo : {q}) -> {q}",
        "  %o = linalg.generic {indexing_maps = [#qk_a, #pv_b, #out], iterator_types = "
        '["parallel", "parallel", "parallel", "parallel", "reduction"]} '
        f"ins(%p, %v : {s4}, {v}) outs(%zo : {q}) {{",
        "  ^bb0(%a: f32, %bb: f32, %o: f32):",
        "    %m = arith.mulf %a, %bb : f32",
        "    %r = arith.addf %o, %m : f32",
        "    linalg.yield %r : f32",
        f"  }} -> {q}",
        f"  return %o : {q}",
        "}",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("b,h,sq,sk,d,causal", [
    (1, 4, 8, 8, 16, False), (2, 3, 5, 12, 32, True), (1, 2, 17, 17, 64, True)])
def test_einsum_attention_raised_equals_unraised(b, h, sq, sk, d, causal):
    """The contraction generics of StableHLO's dot_general become
    linalg.batch_matmul next to a softmax, so the attention matcher raises
    them; raise=false runs the generics (and linalg.softmax, decomposed by
    posenc-decompose-aggregates) as they are."""
    rng = np.random.default_rng(b * 1000 + sq * 10 + d)
    q = rng.standard_normal((b, h, sq, d)).astype(np.float32)
    k = rng.standard_normal((b, h, sk, d)).astype(np.float32)
    v = rng.standard_normal((b, h, sk, d)).astype(np.float32)
    scale = 1.0 / np.sqrt(d)
    ir = einsum_attention(b, h, sq, sk, d, float(np.float32(scale)), causal)
    counts, raised_ir = raised_ops(ir)
    assert counts == {"attention": 1, "rope": 0}, raised_ir
    assert ("causal" in raised_ir) == causal, raised_ir
    want = ref.attention(q, k, v, scale=float(np.float32(scale)), causal=causal)
    check_raised_equals_unraised(ir, want, q, k, v)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("h,s,d,base,scaling,offset", [
    (2, 9, 64, 10000.0, None, 0),
    (3, 33, 128, 500000.0, LLAMA3, 250),
])
def test_half_precision_rope_raised(elem, h, s, d, base, scaling, offset):
    """RoPE in an f16/bf16 model (tosa_blocks.rope_half_precision: f32
    tables cast to the model's type, the rotation in that type) raises to
    posenc.rope on the half tensor. The raised op rotates in f32 and rounds
    once; the graph rounds the tables, both products and the sum: both agree
    with the float64 reference within the type's rounding (raised: one
    rounding; unraised: four, so 4x the tolerance)."""
    rng = np.random.default_rng(h * 10 + d)
    x, x_ref = to_elem(rng.standard_normal((1, h, s, d)), elem)
    positions = np.arange(s, dtype=np.int32).reshape(1, s) + offset
    ir = "func.func @rope" + tosa_blocks.rope_half_precision(
        h, s, d, tosa_blocks.hf_inv_freq(d, base, scaling), elem)
    counts, raised_ir = raised_ops(ir)
    assert counts["rope"] == 1 and f"x{elem}>, tensor<{s}xi32>" in raised_ir, raised_ir
    want = ref.rope(x_ref, positions[0], "half", base, scaling=scaling)
    atol, rtol = elem_tolerance(elem)
    raised = from_elem(posenc.compile(ir, pipeline=RAISED)(x, positions), elem)
    unraised = from_elem(posenc.compile(ir, pipeline=UNRAISED)(x, positions), elem)
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(unraised, want, 4 * atol, 4 * rtol, "raise=false vs numpy")

