"""The table form of posenc.rope (SPEC.md, "posenc.rope — table form"):
cos/sin given as operands, standalone through the reference lowering and
the fast CPU pipeline, and a query/key pair inside attention through the
reference lowering, the fused flash path (posenc-fuse-attention folds
table-form ropes into fused_attention, whose decomposition reads the tables
per tile), the fused path with small tiles and the scalar tile layout of
the GPU's FMA kernel -- each against `posenc.reference.rope_table`
(float64, written from docs/spec.md).

The tables are random (uniform in [-1.5, 1.5]), halves unequal, so that a
lowering that reads the pair's entry instead of the column's, or swaps
halves, fails; the tables match no formula, as in raising's fallback.

Tolerances: f32 rope 1e-5 absolute + 1e-5 relative (two f32 products and a
sum, |x| <= ~5, |table| <= 1.5); attention as test_fused_execution.py
(atol 2e-5 + rtol 2e-4). f16 / bf16: inputs and tables rounded to the type
and given to the reference rounded, f32 arithmetic, the rotated values and
the result rounded to the type: atol = rtol = 8e-3 (f16), 6e-2 (bf16)
(twice test_xpos.py's, the tables reach 1.5).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED,  # noqa: E402
                             CPU_FUSED_SMALL_TILES as FUSED_SMALL_TILES,
                             CPU_REFERENCE as REFERENCE, CPU_SCALAR_TILES as SCALAR_TILES,
                             assert_close, from_elem, run_posenc_opt, to_elem)

ROPE_TOLERANCE = {"f32": (1e-5, 1e-5), "f16": (8e-3, 8e-3), "bf16": (6e-2, 6e-2)}
TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (8e-3, 8e-3), "bf16": (6e-2, 6e-2)}


def tables(rng, shape, elem):
    cos, cos64 = to_elem(rng.uniform(-1.5, 1.5, shape), elem)
    sin, sin64 = to_elem(rng.uniform(-1.5, 1.5, shape), elem)
    return cos, sin, cos64, sin64


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("table_shape,rotary_dim",
                         [((), None), ((2, 1), None), ((1,), 24)])
@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "cpu"])
def test_rope_table_against_reference(elem, layout, table_shape, rotary_dim, pipeline):
    shape = (2, 3, 37, 32)
    program = posenc.rope_table([2, 3, None, 32], layout, table_shape=table_shape,
                                rotary_dim=rotary_dim, dtype=elem)
    rng = np.random.default_rng(hash((elem, layout, table_shape, rotary_dim)) % 2**32)
    x, x64 = to_elem(rng.standard_normal(shape), elem)
    r = rotary_dim or 32
    cos, sin, cos64, sin64 = tables(rng, tuple(table_shape) + (37, r), elem)
    got = from_elem(posenc.compile(program, pipeline=pipeline)(x, cos, sin), elem)
    want = ref.rope_table(x64, cos64, sin64, layout)
    atol, rtol = ROPE_TOLERANCE[elem]
    assert_close(got, want, atol, rtol, f"rope_table {layout} {table_shape}")
    if rotary_dim:
        np.testing.assert_array_equal(got[..., rotary_dim:], x64[..., rotary_dim:])


def test_rope_table_equals_attribute_form():
    """With the tables of a formula (cos/sin of pos * inv_freq, halves
    duplicated) the table form is the attribute form."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 19, 16))
    positions = np.arange(19) + 5
    inv = ref.rope_inv_freq(16, 10000.0)
    theta = np.concatenate([positions[:, None] * inv] * 2, axis=-1)
    np.testing.assert_allclose(ref.rope_table(x, np.cos(theta), np.sin(theta), "half"),
                               ref.rope(x, positions, "half"), atol=1e-12)
    inter = np.repeat(positions[:, None] * inv, 2, axis=-1)
    np.testing.assert_allclose(
        ref.rope_table(x, np.cos(inter), np.sin(inter), "interleaved"),
        ref.rope(x, positions, "interleaved"), atol=1e-12)


@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "cpu"])
def test_rope_table_sequence_mismatch_is_reported(pipeline):
    program = posenc.rope_table([1, None, 16], "half")
    fn = posenc.compile(program, pipeline=pipeline)
    x = np.zeros((1, 8, 16), np.float32)
    t = np.zeros((9, 16), np.float32)
    with pytest.raises(posenc.PosencError, match="cos/sin tables differs"):
        fn(x, t, t)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("d,rotary_dim", [(160, None), (256, 208)])
def test_standalone_rope_table_wide_heads(layout, d, rotary_dim):
    """posenc-lower-rope streams rows in chunks of 64 lanes: head dims whose
    rotated part (or half of it) is not one chunk, with a pass-through tail."""
    shape = (1, 2, 23, d)
    program = posenc.rope_table([1, 2, None, d], layout, table_shape=(1,),
                                rotary_dim=rotary_dim)
    rng = np.random.default_rng(d + (rotary_dim or 0))
    x = rng.standard_normal(shape).astype(np.float32)
    r = rotary_dim or d
    cos, sin, cos64, sin64 = tables(rng, (1, 23, r), "f32")
    got = posenc.compile(program, pipeline=FUSED)(x, cos, sin)
    want = ref.rope_table(x.astype(np.float64), cos64, sin64, layout)
    assert_close(got, want, *ROPE_TOLERANCE["f32"], f"rope_table {layout} D={d}")


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("table_shape,seq", [((1,), 37), ((2, 1), 19)])
def test_attention_with_rope_tables(elem, layout, table_shape, seq):
    program = posenc.llama_attention_tables(2, 4, 2, None, 32, layout=layout, dtype=elem,
                                            table_shape=table_shape)
    rng = np.random.default_rng(hash((elem, layout, table_shape, seq)) % 2**32)
    q, q64 = to_elem(rng.standard_normal((2, 4, seq, 32)), elem)
    k, k64 = to_elem(rng.standard_normal((2, 2, seq, 32)), elem)
    v, v64 = to_elem(rng.standard_normal((2, 2, seq, 32)), elem)
    cos, sin, cos64, sin64 = tables(rng, tuple(table_shape) + (seq, 32), elem)
    qr = ref.rope_table(q64, cos64, sin64, layout)
    kr = ref.rope_table(k64, cos64, sin64, layout)
    if elem != "f32":  # posenc.rope stores its result in the element type
        qr, kr = to_elem(qr, elem)[1], to_elem(kr, elem)[1]
    want = ref.attention(qr, np.repeat(kr, 2, axis=1), np.repeat(v64, 2, axis=1),
                         causal=True)
    atol, rtol = TOLERANCE[elem]
    for pipeline in (REFERENCE, FUSED, FUSED_SMALL_TILES, SCALAR_TILES):
        got = from_elem(posenc.compile(program, pipeline=pipeline)(q, k, v, cos, sin), elem)
        assert_close(got, want, atol, rtol, f"{pipeline} {layout} {table_shape}")


def test_table_ropes_fuse_into_attention():
    """posenc-fuse-attention folds both table-form ropes: one fused_attention
    reading the tables, no posenc.rope left."""
    program = posenc.llama_attention_tables(2, 4, 2, None, 32, table_shape=(2, 1))
    fused = run_posenc_opt(program.ir, "builtin.module(posenc-fuse-attention)")
    assert "posenc.rope" not in fused
    assert fused.count("tables ") == 2 and "posenc.fused_attention" in fused


# ---------------------------------------------------------------- raising

RAISED = "builtin.module(posenc-cpu-pipeline)"
UNRAISED = "builtin.module(posenc-cpu-pipeline{raise=false})"


def hf_rope_linalg(b, h, s, d, elem):
    """HuggingFace's apply_rotary_pos_emb with cos/sin arguments [B, S, D],
    in the linalg form torch-mlir's TorchToLinalg writes (unsqueeze as
    expand_shape, rotate_half as slices + negf + concat, broadcasting
    products), as test/Dialect/Posenc/raise-rope-arguments.mlir has it."""
    x = f"tensor<{b}x{h}x{s}x{d}x{elem}>"
    half = f"tensor<{b}x{h}x{s}x{d // 2}x{elem}>"
    t3 = f"tensor<{b}x{s}x{d}x{elem}>"
    t4 = f"tensor<{b}x1x{s}x{d}x{elem}>"
    par = '["parallel", "parallel", "parallel", "parallel"]'

    def generic(result, ins, types, maps, op):
        args = ", ".join(f"%a{i}: {elem}" for i in range(len(ins)))
        operands = ", ".join(f"%a{i}" for i in range(len(ins)))
        return (f"  {result} = linalg.generic {{indexing_maps = [{', '.join(maps)}, #id], "
                f"iterator_types = {par}}} ins({', '.join(ins)} : {', '.join(types)}) "
                f"outs(%e{'h' if 'neg' in op else ''} : {half if 'neg' in op else x}) {{\n"
                f"  ^bb0({args}, %o: {elem}):\n    %r = {op} {operands} : {elem}\n"
                f"    linalg.yield %r : {elem}\n  }} -> {half if 'neg' in op else x}\n")
    return (
        "#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>\n"
        "#bc = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>\n"
        f"func.func @hf_rope(%x: {x}, %cos: {t3}, %sin: {t3}) -> {x} {{\n"
        f"  %c = tensor.expand_shape %cos [[0], [1, 2], [3]] output_shape [{b}, 1, {s}, {d}] : {t3} into {t4}\n"
        f"  %s = tensor.expand_shape %sin [[0], [1, 2], [3]] output_shape [{b}, 1, {s}, {d}] : {t3} into {t4}\n"
        f"  %e = tensor.empty() : {x}\n  %eh = tensor.empty() : {half}\n"
        + generic("%xc", ["%x", "%c"], [x, t4], ["#id", "#bc"], "arith.mulf")
        + f"  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [{b}, {h}, {s}, {d // 2}] [1, 1, 1, 1] : {x} to {half}\n"
        f"  %x2 = tensor.extract_slice %x[0, 0, 0, {d // 2}] [{b}, {h}, {s}, {d // 2}] [1, 1, 1, 1] : {x} to {half}\n"
        + generic("%n2", ["%x2"], [half], ["#id"], "arith.negf")
        + f"  %rot = tensor.concat dim(3) %n2, %x1 : ({half}, {half}) -> {x}\n"
        + generic("%rs", ["%rot", "%s"], [x, t4], ["#id", "#bc"], "arith.mulf")
        + generic("%out", ["%xc", "%rs"], [x, x], ["#id", "#id"], "arith.addf")
        + f"  return %out : {x}\n}}\n")


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("b,h,s,d", [(1, 4, 8, 16), (2, 3, 19, 64)])
def test_argument_tables_raised_equals_unraised(elem, b, h, s, d):
    """HF-style RoPE with cos/sin arguments raises to the table form; the
    program with raise=true, with raise=false and float64 agree. The tables
    are HF's own (cos/sin of positions * inv_freq, halves duplicated), at
    positions offset per batch; f32 tolerances as the standalone op's, f16 /
    bf16 looser for the graph's own rounding of each product (raise=false
    rounds x*cos and rotate_half(x)*sin to the type before the sum)."""
    ir = hf_rope_linalg(b, h, s, d, elem)
    raised_ir = run_posenc_opt(ir, "builtin.module(posenc-raise)")
    assert "tables(" in raised_ir and "linalg.generic" not in raised_ir
    rng = np.random.default_rng(b * 100 + s)
    x, x64 = to_elem(rng.standard_normal((b, h, s, d)), elem)
    positions = np.arange(s)[None, :] + 7 * np.arange(b)[:, None]
    inv = ref.rope_inv_freq(d, 10000.0)
    emb = np.concatenate([positions[..., None] * inv] * 2, axis=-1)
    cos, cos64 = to_elem(np.cos(emb), elem)
    sin, sin64 = to_elem(np.sin(emb), elem)
    want = ref.rope_table(x64, cos64[:, None], sin64[:, None], "half")
    atol, rtol = {"f32": (1e-5, 1e-5), "f16": (8e-3, 8e-3), "bf16": (6e-2, 6e-2)}[elem]
    raised = from_elem(posenc.compile(ir, pipeline=RAISED)(x, cos, sin), elem)
    unraised = from_elem(posenc.compile(ir, pipeline=UNRAISED)(x, cos, sin), elem)
    assert_close(raised, want, atol, rtol, "raise=true vs numpy")
    assert_close(unraised, want, atol, rtol, "raise=false vs numpy")
    assert_close(raised, unraised, atol, rtol, "raise=true vs raise=false")
    # The table form here is the attribute form's rotation.
    assert_close(want, ref.rope(x64, positions, "half"), *ROPE_TOLERANCE[elem],
                 "table form vs attribute form")
