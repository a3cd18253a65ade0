"""Execution tests of the CPU pipeline against the numpy reference.

Every case builds a small posenc program, compiles it with the CPU pipeline
(through the C API's JIT) on both paths (reference and fused), runs it on seeded random inputs and compares the
result with `posenc.reference`, which is written from docs/spec.md and never from
the C++. Tolerances are stated per case and derived from the arithmetic:

* f32 kernels vs the float64 reference: softmax/matmul accumulation in f32
  gives ~1e-6 relative error; we allow atol 2e-5 + rtol 2e-4.
* RoPE `fast` precision computes theta = f32(pos) * f32(inv_freq): the angle
  carries a relative error of ~2 ulp (2.4e-7), so the absolute tolerance
  grows with the largest position.
* RoPE `exact` precision: cos/sin within 1e-6 of float64 (docs/spec.md), so
  the output is within 1e-6 * |x| plus the f32 rounding of the result.
* f16 / bf16 results are compared after the reference is given the same
  rounded inputs; the tolerance is the result type's rounding (2^-10, 2^-7
  relative) times the magnitude of the values.
"""

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import NP_ELEM, assert_close, from_elem, to_elem  # noqa: E402
from posenc_testutil import elem_tolerance as _elem_tolerance  # noqa: E402

# Every case runs through both CPU paths: the materializing reference
# lowering and the fused flash-style path (the pipeline's default).
PIPELINES = {
    "reference": "builtin.module(posenc-cpu-pipeline{reference=true})",
    "fused": "builtin.module(posenc-cpu-pipeline{reference=false})",
}
_pipeline = PIPELINES["reference"]


@pytest.fixture(autouse=True, params=sorted(PIPELINES))
def cpu_path(request):
    global _pipeline
    _pipeline = PIPELINES[request.param]
    yield request.param
    _pipeline = PIPELINES["reference"]


def compile_ir(ir):
    return posenc.compile(ir, pipeline=_pipeline)

RNG_SEED = 1234
F32_ATOL, F32_RTOL = 2e-5, 2e-4


def rng(salt=0):
    return np.random.default_rng(RNG_SEED + salt)


def ttype(shape, elem):
    dims = "x".join("?" if s is None else str(s) for s in shape)
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def elem_tolerance(elem, magnitude=1.0):
    """(atol, rtol) for comparing a result of type `elem`."""
    return _elem_tolerance(elem, magnitude, f32=(F32_ATOL * magnitude, F32_RTOL))


# ---------------------------------------------------------------------------
# RoPE
# ---------------------------------------------------------------------------

def scaling_attr(scaling):
    if scaling is None:
        return ""
    kind = scaling["kind"]
    parts = [kind]
    for key in ("factor", "original_max_position", "beta_fast", "beta_slow",
                "low_freq_factor", "high_freq_factor", "attention_factor"):
        if key in scaling:
            v = scaling[key]
            parts.append(f"{key} = {int(v)}" if key == "original_max_position"
                         else f"{key} = {float(v)!r}")
    for key in ("short_factor", "long_factor"):
        if key in scaling:
            parts.append(f"{key} = [" + ", ".join(repr(float(x)) for x in scaling[key]) + "]")
    return "#posenc.rope_scaling<" + ", ".join(parts) + ">"


def rope_program(shape, seq_static, layout, elem="f32", pos_elem="i32",
                 base=None, rotary_dim=None, scaling=None,
                 attention_factor=None, precision=None, dynamic_seq=False):
    in_shape = list(shape)
    if dynamic_seq:
        in_shape[-2] = None
    xt = ttype(in_shape, elem)
    pt = ttype([None if dynamic_seq else seq_static], pos_elem)
    attrs = []
    if base is not None:
        attrs.append(f"base = {float(base)!r} : f64")
    if rotary_dim is not None:
        attrs.append(f"rotary_dim = {rotary_dim} : i64")
    if scaling is not None:
        attrs.append(f"scaling = {scaling_attr(scaling)}")
    if attention_factor is not None:
        attrs.append(f"attention_factor = {float(attention_factor)!r} : f64")
    attr_str = (" {" + ", ".join(attrs) + "}") if attrs else ""
    prec = f" precision {precision}" if precision else ""
    return f"""
func.func @rope(%x: {xt}, %pos: {pt}) -> {xt} {{
  %r = posenc.rope %x, %pos layout {layout}{prec}{attr_str} : {xt}, {pt}
  return %r : {xt}
}}"""


def run_rope(shape, positions, layout, elem="f32", tol=None, **kw):
    dynamic_seq = kw.pop("dynamic_seq", False)
    pos_elem = kw.pop("pos_elem", "i32")
    r = rng(len(shape) + shape[-1])
    x, x64 = to_elem(r.uniform(-1, 1, size=shape), elem)
    pos = np.asarray(positions, dtype=NP_ELEM[pos_elem])
    ir = rope_program(shape, shape[-2], layout, elem=elem, pos_elem=pos_elem,
                      dynamic_seq=dynamic_seq, **kw)
    fn = compile_ir(ir)
    got = from_elem(fn(x, pos), elem)
    ref_kw = {k: v for k, v in kw.items() if k not in ("precision",)}
    want = ref.rope(x64, pos.astype(np.int64), layout, **ref_kw)
    if tol is None:
        af = ref.rope_attention_factor(kw.get("scaling"), kw.get("attention_factor"))
        mag = max(1.0, af)
        if kw.get("precision") == "exact":
            atol, rtol = 2e-6 * mag, 2e-6
        else:
            # theta error ~ 2.4e-7 * |theta|, theta <= max|pos| * max(inv_freq)
            atol, rtol = (2e-6 + 3e-7 * float(np.max(np.abs(pos)))) * mag, 2e-6
        if elem != "f32":
            atol2, rtol2 = elem_tolerance(elem, mag)
            atol, rtol = max(atol, atol2), max(rtol, rtol2)
    else:
        atol, rtol = tol
    assert_close(got, want, atol, rtol, f"rope {layout} {elem} {kw}")
    return got, want


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_layouts(layout):
    run_rope((2, 3, 17, 64), np.arange(17), layout)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_partial_rotary_dim(layout):
    got, want = run_rope((1, 2, 9, 64), np.arange(5, 14), layout, rotary_dim=24)
    # Dims past rotary_dim pass through unchanged.
    assert np.array_equal(got[..., 24:], want[..., 24:])


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_positions_not_from_zero(layout):
    pos = np.array([1000, 1001, 1002, 7, 4095, 123, 0], dtype=np.int64)
    run_rope((3, 7, 32), pos, layout, pos_elem="i64", base=500000.0)


def test_rope_dynamic_sequence():
    run_rope((2, 11, 16), np.arange(40, 51), "half", dynamic_seq=True)


def test_rope_head_dim_2():
    run_rope((1, 5, 2), np.arange(5), "interleaved")
    run_rope((1, 1, 2), np.array([3]), "half")


SCALINGS = [
    {"kind": "linear", "factor": 4.0},
    {"kind": "ntk", "factor": 8.0},
    {"kind": "dynamic", "factor": 2.0, "original_max_position": 16},   # L > orig
    {"kind": "dynamic", "factor": 2.0, "original_max_position": 4096},  # L <= orig
    {"kind": "yarn", "factor": 4.0, "original_max_position": 64},
    {"kind": "yarn", "factor": 16.0, "original_max_position": 256, "beta_fast": 16.0,
     "beta_slow": 2.0, "attention_factor": 1.5},
    {"kind": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position": 64},
    {"kind": "longrope", "short_factor": [1.0 + 0.1 * i for i in range(16)],
     "long_factor": [2.0 + 0.5 * i for i in range(16)], "original_max_position": 16},
    {"kind": "longrope", "short_factor": [1.0 + 0.1 * i for i in range(16)],
     "long_factor": [2.0 + 0.5 * i for i in range(16)], "original_max_position": 4096,
     "attention_factor": 1.2},
]


@pytest.mark.parametrize("scaling", SCALINGS, ids=lambda s: s["kind"])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_scaling(scaling, layout):
    run_rope((2, 21, 32), np.arange(3, 24), layout, scaling=scaling)


def test_rope_scaling_changes_result():
    """The scaled kernels really differ from the unscaled one (the test above
    would not notice a scaling that is silently ignored otherwise)."""
    shape, pos = (1, 21, 32), np.arange(3, 24)
    plain, _ = run_rope(shape, pos, "half")
    for scaling in SCALINGS:
        got, _ = run_rope(shape, pos, "half", scaling=scaling)
        if scaling["kind"] == "dynamic" and scaling["original_max_position"] > 24:
            assert np.allclose(got, plain, atol=1e-6), "dynamic NTK below orig is unscaled"
        else:
            assert not np.allclose(got, plain, atol=1e-3), scaling


def test_rope_attention_factor_attr():
    run_rope((1, 4, 8), np.arange(4), "interleaved", attention_factor=0.5)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_half_precision(elem, layout):
    run_rope((2, 13, 32), np.arange(13), layout, elem=elem)


def test_rope_f64():
    run_rope((1, 6, 8), np.arange(6), "half", elem="f64")


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_many_row_blocks(elem, layout):
    """A sequence of several row blocks of the fused lowering
    (--posenc-lower-rope: 16 to 85 rows per block here) with a partial last
    block, rotary_dim < D, a dynamic sequence dim and f16/bf16 storage."""
    got, want = run_rope((2, 2, 101, 48), np.arange(7, 108), layout, elem=elem,
                         rotary_dim=40, dynamic_seq=True)
    assert np.array_equal(got[..., 40:], want[..., 40:])


@pytest.mark.parametrize("rows", [1, 3, 7])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_fused_block_rows_option(rows, layout, cpu_path):
    """The fused pipeline's rope-block-rows option: any block size gives the
    same result (blocks not dividing S, one row per block)."""
    if cpu_path != "fused":
        pytest.skip("option of the fused path")
    global _pipeline
    _pipeline = ("builtin.module(posenc-cpu-pipeline{reference=false "
                 f"rope-block-rows={rows}}})")
    run_rope((3, 17, 36), np.arange(100, 117), layout, rotary_dim=32)
    run_rope((2, 13, 128), np.arange(13), layout, precision="exact",
             tol=(2e-6, 2e-6))


LARGE_POSITIONS = np.array([0, 1, 131071, 131072, 1048576, 2**24 - 1, 2**24,
                            12345678], dtype=np.int64)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_exact_mode_large_positions(layout):
    """Exact mode: cos/sin within 1e-6 of float64 up to 2^24 (docs/spec.md)."""
    run_rope((2, len(LARGE_POSITIONS), 128), LARGE_POSITIONS, layout,
             pos_elem="i64", base=500000.0, precision="exact",
             tol=(2e-6, 2e-6))


def test_rope_fast_mode_is_not_exact_at_large_positions():
    """The fast (default) mode computes f32 angles; at 2^24 its error is far
    above 1e-6. This guards the exact-mode test: it proves the tolerance there
    is tight enough to tell the two modes apart."""
    with pytest.raises(AssertionError):
        run_rope((1, len(LARGE_POSITIONS), 128), LARGE_POSITIONS, "half",
                 pos_elem="i64", base=500000.0, tol=(2e-6, 2e-6))


# ---------------------------------------------------------------------------
# Sinusoidal
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("elem", ["f32", "f16"])
def test_sinusoidal(layout, elem):
    pos = np.array([0, 1, 2, 50, 511, 3, 1000], dtype=np.int32)
    d = 64
    ot = ttype([len(pos), d], elem)
    ir = f"""
func.func @pe(%pos: tensor<?xi32>) -> {ttype([None, d], elem)} {{
  %t = posenc.sinusoidal %pos layout {layout} : tensor<?xi32> -> {ttype([None, d], elem)}
  return %t : {ttype([None, d], elem)}
}}"""
    got = from_elem(compile_ir(ir)(pos), elem)
    want = ref.sinusoidal(pos, d, layout=layout)
    atol, rtol = (1e-5 + 3e-7 * 1000, 0) if elem == "f32" else elem_tolerance(elem)
    assert_close(got, want, atol, rtol, f"sinusoidal {layout} {elem} {ot}")


def test_sinusoidal_added_to_embeddings():
    pos = np.arange(9, dtype=np.int64)
    x = rng(5).standard_normal((9, 16)).astype(np.float32)
    ir = """
func.func @embed(%x: tensor<9x16xf32>, %pos: tensor<9xi64>) -> tensor<9x16xf32> {
  %t = posenc.sinusoidal %pos {base = 100.0 : f64} : tensor<9xi64> -> tensor<9x16xf32>
  %y = arith.addf %x, %t : tensor<9x16xf32>
  return %y : tensor<9x16xf32>
}"""
    got = compile_ir(ir)(x, pos)
    want = x.astype(np.float64) + ref.sinusoidal(pos, 16, base=100.0)
    assert_close(got, want, 1e-5, 1e-6, "x + sinusoidal")


# ---------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------

def alibi_program(shape, elem="f32", attrs="", dynamic=(), slopes=False):
    rt_shape = [None if i in dynamic else s for i, s in enumerate(shape)]
    rt = ttype(rt_shape, elem)
    args, operands = [], ""
    if dynamic:
        args += [f"%d{i}: index" for i in dynamic]
        operands += " (" + ", ".join(f"%d{i}" for i in dynamic) + ")"
    h = shape[-3]
    if slopes:
        args.append(f"%s: tensor<{h}xf32>")
        operands += f" slopes(%s : tensor<{h}xf32>)"
    attr_str = f" {{{attrs}}}" if attrs else ""
    return f"""
func.func @alibi({", ".join(args)}) -> {rt} {{
  %b = posenc.alibi_bias{operands}{attr_str} : {rt}
  return %b : {rt}
}}"""


ALIBI_CASES = [
    # (shape, attrs, reference kwargs, dynamic dims)
    ((8, 6, 6), "", {}, ()),
    ((12, 5, 9), "", {}, ()),          # 12 heads: not a power of two, Sq < Sk
    ((5, 7, 7), "", {}, ()),           # 5 heads
    ((8, 4, 4), "symmetric", {"symmetric": True}, ()),
    ((4, 3, 10), "num_heads = 12 : i64, head_offset = 4 : i64",
     {"num_heads": 12, "head_offset": 4}, ()),
    ((2, 3, 5, 5), "max_bias = 16.0 : f64", {"max_bias": 16.0}, ()),
    ((6, 9, 11), "", {}, (1, 2)),       # dynamic Sq, Sk
    ((1, 1, 1), "", {}, ()),           # S = 1
]


@pytest.mark.parametrize("shape,attrs,kw,dynamic", ALIBI_CASES)
def test_alibi(shape, attrs, kw, dynamic):
    fn = compile_ir(alibi_program(shape, attrs=attrs, dynamic=dynamic))
    got = fn(*[shape[i] for i in dynamic])
    h, sq, sk = shape[-3:]
    want = ref.alibi_bias(h, sq, sk, batch_shape=tuple(shape[:-3]), **kw)
    assert_close(got, want, 1e-6, 1e-6, f"alibi {shape} {attrs}")


def test_alibi_explicit_slopes_f16():
    slopes = np.array([0.5, 0.25, 0.125], dtype=np.float32)
    fn = compile_ir(alibi_program((3, 4, 6), elem="f16", slopes=True))
    got = fn(slopes).astype(np.float64)
    want = ref.alibi_bias(3, 4, 6, slopes=slopes.astype(np.float64))
    assert_close(got, want, *elem_tolerance("f16", 4.0), "alibi slopes f16")


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------

def attention_program(qs, ks, vs, elem="f32", bias_shape=None, causal=False,
                      scale=None, dyn_seq=False):
    def t(shape, seq_axis):
        s = list(shape)
        if dyn_seq:
            s[seq_axis] = None
        return ttype(s, elem)
    qt, kt, vt = t(qs, -2), t(ks, -2), t(vs, -2)
    ot = t(list(qs[:-1]) + [vs[-1]], -2)
    args = [f"%q: {qt}", f"%k: {kt}", f"%v: {vt}"]
    bias = ""
    if bias_shape is not None:
        bt = ttype(bias_shape, "f32")
        args.append(f"%b: {bt}")
        bias = f" bias(%b : {bt})"
    attrs = []
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append(f"scale = {float(scale)!r} : f64")
    attr_str = (" {" + ", ".join(attrs) + "}") if attrs else ""
    return f"""
func.func @attn({", ".join(args)}) -> {ot} {{
  %o = posenc.attention %q, %k, %v{bias}{attr_str} : {qt}, {kt}, {vt} -> {ot}
  return %o : {ot}
}}"""


ATTENTION_CASES = [
    # (q shape, k shape, v shape, bias shape, causal, scale, dynamic seq)
    ((1, 8, 17, 16), (1, 2, 17, 16), (1, 2, 17, 16), None, True, None, False),   # GQA 8/2
    ((2, 4, 5, 8), (2, 4, 9, 8), (2, 4, 9, 12), None, True, None, False),       # Sq < Sk, Dv != D
    ((1, 2, 7, 8), (1, 2, 3, 8), (1, 2, 3, 8), None, True, None, False),        # Sq > Sk: masked rows
    ((1, 4, 1, 2), (1, 4, 1, 2), (1, 4, 1, 2), None, True, None, False),        # S = 1, D = 2
    ((3, 13, 4), (3, 13, 4), (3, 13, 4), None, False, 0.7, False),              # rank 3, scale
    ((1, 6, 11, 16), (1, 3, 11, 16), (1, 3, 11, 16), (6, 11, 11), True, None, False),  # bias
    ((2, 2, 9, 8), (2, 1, 9, 8), (2, 1, 9, 8), (9, 1), False, None, False),     # broadcast bias
    ((1, 4, 23, 16), (1, 2, 23, 16), (1, 2, 23, 16), None, True, None, True),   # dynamic seq
]


@pytest.mark.parametrize("qs,ks,vs,bias_shape,causal,scale,dyn", ATTENTION_CASES)
def test_attention(qs, ks, vs, bias_shape, causal, scale, dyn):
    r = rng(sum(qs) + sum(ks))
    q, k, v = (r.standard_normal(s).astype(np.float32) for s in (qs, ks, vs))
    args = [q, k, v]
    bias = None
    if bias_shape is not None:
        bias = r.standard_normal(bias_shape).astype(np.float32)
        args.append(bias)
    fn = compile_ir(attention_program(qs, ks, vs, bias_shape=bias_shape,
                                      causal=causal, scale=scale, dyn_seq=dyn))
    got = fn(*args)
    want = ref.attention(*(a.astype(np.float64) for a in (q, k, v)),
                         bias=None if bias is None else bias.astype(np.float64),
                         scale=scale, causal=causal)
    assert_close(got, want, F32_ATOL, F32_RTOL, f"attention {qs} {ks} causal={causal}")
    if causal and qs[-2] > ks[-2]:
        # The first Sq - Sk rows see no key at all: zeros, not NaN.
        assert np.all(got[..., : qs[-2] - ks[-2], :] == 0.0)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_attention_half_precision(elem):
    qs, ks = (1, 4, 19, 32), (1, 2, 19, 32)
    r = rng(77)
    q, q64 = to_elem(r.standard_normal(qs), elem)
    k, k64 = to_elem(r.standard_normal(ks), elem)
    v, v64 = to_elem(r.standard_normal(ks), elem)
    fn = compile_ir(attention_program(qs, ks, ks, elem=elem, causal=True))
    got = from_elem(fn(q, k, v), elem)
    want = ref.attention(q64, k64, v64, causal=True)
    assert_close(got, want, *elem_tolerance(elem, 2.0), f"attention {elem}")


def test_attention_with_rope_and_alibi_program():
    """RoPE on q/k, ALiBi bias and causal GQA composed in one program."""
    ir = """
func.func @block(%q: tensor<1x8x10x32xf32>, %k: tensor<1x2x10x32xf32>,
                 %v: tensor<1x2x10x32xf32>, %pos: tensor<10xi32>) -> tensor<1x8x10x32xf32> {
  %qr = posenc.rope %q, %pos layout interleaved : tensor<1x8x10x32xf32>, tensor<10xi32>
  %kr = posenc.rope %k, %pos layout interleaved : tensor<1x2x10x32xf32>, tensor<10xi32>
  %b = posenc.alibi_bias : tensor<8x10x10xf32>
  %o = posenc.attention %qr, %kr, %v bias(%b : tensor<8x10x10xf32>) {causal}
      : tensor<1x8x10x32xf32>, tensor<1x2x10x32xf32>, tensor<1x2x10x32xf32> -> tensor<1x8x10x32xf32>
  return %o : tensor<1x8x10x32xf32>
}"""
    r = rng(3)
    q = r.standard_normal((1, 8, 10, 32)).astype(np.float32)
    k = r.standard_normal((1, 2, 10, 32)).astype(np.float32)
    v = r.standard_normal((1, 2, 10, 32)).astype(np.float32)
    pos = np.arange(10, dtype=np.int32)
    got = compile_ir(ir)(q, k, v, pos)
    qr = ref.rope(q.astype(np.float64), pos, "interleaved")
    kr = ref.rope(k.astype(np.float64), pos, "interleaved")
    want = ref.attention(qr, kr, v.astype(np.float64), bias=ref.alibi_bias(8, 10, 10), causal=True)
    assert_close(got, want, F32_ATOL, F32_RTOL, "rope+alibi+attention")


# ---------------------------------------------------------------------------
# Shaw relative position attention
# ---------------------------------------------------------------------------

def rel_program(qs, ks, vs, kk, with_rv, causal=False, elem="f32"):
    qt, kt, vt = ttype(qs, elem), ttype(ks, elem), ttype(vs, elem)
    ot = ttype(list(qs[:-1]) + [vs[-1]], elem)
    rkt = ttype([2 * kk + 1, qs[-1]], elem)
    rvt = ttype([2 * kk + 1, vs[-1]], elem)
    args = [f"%q: {qt}", f"%k: {kt}", f"%v: {vt}", f"%rk: {rkt}"]
    rv = ""
    if with_rv:
        args.append(f"%rv: {rvt}")
        rv = f" rel_value(%rv : {rvt})"
    attrs = " {causal}" if causal else ""
    return f"""
func.func @rel({", ".join(args)}) -> {ot} {{
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : {rkt}){rv}{attrs}
      : {qt}, {kt}, {vt} -> {ot}
  return %o : {ot}
}}"""


REL_CASES = [
    # (q shape, k shape, v shape, K, rel_value, causal)
    ((2, 9, 8), (2, 9, 8), (2, 9, 8), 2, True, False),     # clipping both ways
    ((2, 9, 8), (2, 9, 8), (2, 9, 8), 2, False, False),    # without rel_value
    ((1, 3, 5, 8), (1, 3, 12, 8), (1, 3, 12, 6), 3, True, True),  # Sq < Sk, causal
    ((17, 4), (17, 4), (17, 4), 20, True, True),           # K larger than S: no clipping
    ((1, 1, 2), (1, 1, 2), (1, 1, 2), 1, True, False),     # S = 1, D = 2
]


@pytest.mark.parametrize("qs,ks,vs,kk,with_rv,causal", REL_CASES)
def test_rel_pos_attention(qs, ks, vs, kk, with_rv, causal):
    r = rng(sum(qs) + kk)
    q, k, v = (r.standard_normal(s).astype(np.float32) for s in (qs, ks, vs))
    rk = r.standard_normal((2 * kk + 1, qs[-1])).astype(np.float32)
    rv = r.standard_normal((2 * kk + 1, vs[-1])).astype(np.float32)
    args = [q, k, v, rk] + ([rv] if with_rv else [])
    got = compile_ir(rel_program(qs, ks, vs, kk, with_rv, causal))(*args)
    want = ref.rel_pos_attention(*(a.astype(np.float64) for a in (q, k, v, rk)),
                                 rel_value=rv.astype(np.float64) if with_rv else None,
                                 causal=causal)
    assert_close(got, want, F32_ATOL, F32_RTOL, f"rel_pos {qs} K={kk}")


def test_rel_pos_attention_bf16():
    qs = (2, 7, 16)
    r = rng(11)
    q, q64 = to_elem(r.standard_normal(qs), "bf16")
    k, k64 = to_elem(r.standard_normal(qs), "bf16")
    v, v64 = to_elem(r.standard_normal(qs), "bf16")
    rk, rk64 = to_elem(r.standard_normal((5, 16)), "bf16")
    rv, rv64 = to_elem(r.standard_normal((5, 16)), "bf16")
    got = from_elem(compile_ir(rel_program(qs, qs, qs, 2, True, True, elem="bf16"))(q, k, v, rk, rv), "bf16")
    want = ref.rel_pos_attention(q64, k64, v64, rk64, rel_value=rv64, causal=True)
    assert_close(got, want, *elem_tolerance("bf16", 4.0), "rel_pos bf16")
