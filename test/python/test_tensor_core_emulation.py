"""The f16/bf16 tensor-core attention kernel (posenc-gpu-tensor-core-attention),
run on the CPU by posenc-gpu-emulate-tensor-cores, against posenc.reference
over seeded random configurations: D in {16, 32, 64, 128}, value head dims
8/16/D, GQA ratios 1-3, sequence lengths that do and do not divide the 64-row
tiles (1, 7, 63, 64, 65, 100, 129), Sq < Sk, Sq > Sk (rows with no visible
key: zeros), causal or not, RoPE (both layouts, positions 0, 5, 10, ...),
ALiBi.

Each case runs on both kernels: mma.sync (sm_80+) and warpgroup MMA
(warpgroup-mma=1, what --posenc-to-nvvm builds for sm_90a; wgmma reads its
shared-memory operands through matrix descriptors, which the emulation
decodes).

The emulated kernel sets its OpenMP team to one thread per GPU thread (128)
itself. The emulation pass is test-only code (test/lib), linked into
posenc-opt but not into the C API library: posenc-opt runs the passes up to
the emulation, the C API (posenc.compile) the CPU pipeline, the JIT and the
call; the IR between them is printed and parsed back unchanged.

Tolerance per element (u = 2^-11 f16, 2^-8 bf16): the kernel rounds RoPE'd
Q/K to the element type (the reference gets the same rounding), rounds P
before P.V and rounds the output: |err| <= 4u sum_j p_ij |v_j| + 2u |O_i| +
1e-6, twice the first-order bound of those two roundings.
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import from_elem, run_posenc_opt, to_elem  # noqa: E402

SEED = 20261129
CASES = 12
EMULATION = ("builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention,"
             " posenc-gpu-emulate-tensor-cores)")
UNIT = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}
KERNELS = {"mma-sync": "", "wgmma": "{warpgroup-mma=1}"}
# In the lowered IR (as the bytes of an assert message) only when a wgmma
# was emulated.
WGMMA_MARK = ", ".join(str(c) for c in b"a wgmma operand element lies outside")


def emulated_kernel(ir, options):
    """`ir` with its attention on the tensor-core kernel (pass `options`, e.g.
    "{warpgroup-mma=1}"), emulated on the CPU and compiled by the C API."""
    pipeline = EMULATION.replace("posenc-gpu-tensor-core-attention,",
                                 f"posenc-gpu-tensor-core-attention{options},")
    return posenc.compile(run_posenc_opt(ir, pipeline),
                          pipeline="builtin.module(posenc-cpu-pipeline)")


def draw(case):
    rng = np.random.default_rng(SEED + case)
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    c = {"dt": pick(["f16", "bf16"]), "D": pick([16, 32, 64, 128])}
    c["Dv"] = pick([8, 16, c["D"]])
    c["hkv"] = pick([1, 2])
    c["hq"] = c["hkv"] * pick([1, 2, 3])
    c["sq"] = pick([1, 7, 63, 64, 65, 100])
    c["sk"] = pick([c["sq"], 1, 30, 129])
    c["causal"] = bool(rng.integers(2))
    c["enc"] = pick(["none", "rope", "alibi"])
    c["layout"] = pick(["half", "interleaved"])
    if c["enc"] == "rope":
        c["Dv"], c["sk"] = c["D"], c["sq"]
    if c["enc"] == "alibi":
        c["hkv"] = c["hq"]
    return c


def program(c):
    dt, D, Dv, hq, hkv, sq, sk = (c[x] for x in ("dt", "D", "Dv", "hq", "hkv", "sq", "sk"))
    qt, kt = f"tensor<1x{hq}x{sq}x{D}x{dt}>", f"tensor<1x{hkv}x{sk}x{D}x{dt}>"
    vt, ot = f"tensor<1x{hkv}x{sk}x{Dv}x{dt}>", f"tensor<1x{hq}x{sq}x{Dv}x{dt}>"
    args, body, q, k, bias = f"%q: {qt}, %k: {kt}, %v: {vt}", [], "%q", "%k", ""
    if c["enc"] == "rope":
        args += f", %pos: tensor<{sq}xi32>"
        body += [f"%qr = posenc.rope %q, %pos layout {c['layout']} : {qt}, tensor<{sq}xi32>",
                 f"%kr = posenc.rope %k, %pos layout {c['layout']} : {kt}, tensor<{sq}xi32>"]
        q, k = "%qr", "%kr"
    if c["enc"] == "alibi":
        body.append(f"%b = posenc.alibi_bias : tensor<{hq}x{sq}x{sk}xf32>")
        bias = f" bias(%b : tensor<{hq}x{sq}x{sk}xf32>)"
    causal = " {causal}" if c["causal"] else ""
    body.append(f"%o = posenc.attention {q}, {k}, %v{bias}{causal} : {qt}, {kt}, {vt} -> {ot}")
    return (f"func.func @f({args}) -> {ot} {{\n  " + "\n  ".join(body)
            + f"\n  return %o : {ot}\n}}")


def inputs(c, case):
    rng = np.random.default_rng(SEED + 1000 + case)
    shapes = [(1, c["hq"], c["sq"], c["D"]), (1, c["hkv"], c["sk"], c["D"]),
              (1, c["hkv"], c["sk"], c["Dv"])]
    args, exact = zip(*(to_elem(rng.standard_normal(s), c["dt"]) for s in shapes))
    args, exact = list(args), list(exact)
    if c["enc"] == "rope":
        args.append(np.arange(c["sq"], dtype=np.int32) * 5)
    return args, exact


def round_to(x, dt):
    return to_elem(x, dt)[1]


@pytest.fixture(scope="module", params=sorted(KERNELS))
def emulated(request):
    """Every case compiled and run once per kernel: {case: float64 result}."""
    results = {}
    for case in range(CASES):
        c = draw(case)
        f = emulated_kernel(program(c), KERNELS[request.param])
        assert "omp_get_num_threads" in f.lowered_ir, "the tensor-core kernel was not used"
        assert (WGMMA_MARK in f.lowered_ir) == (request.param == "wgmma")
        args, _ = inputs(c, case)
        out = f(*args)
        results[case] = from_elem(out, c["dt"])
    return results


def case_id(case):
    c = draw(case)
    return (f"{c['dt']}-D{c['D']}-Dv{c['Dv']}-H{c['hq']}/{c['hkv']}-Sq{c['sq']}-Sk{c['sk']}"
            f"-{'causal' if c['causal'] else 'full'}-{c['enc']}"
            + (f"-{c['layout']}" if c["enc"] == "rope" else ""))


@pytest.mark.parametrize("case", range(CASES), ids=[case_id(i) for i in range(CASES)])
def test_tensor_core_kernel_matches_reference(emulated, case):
    c = draw(case)
    _, (q, k, v) = inputs(c, case)
    bias = None
    if c["enc"] == "rope":
        pos = np.arange(c["sq"], dtype=np.int32) * 5
        q = round_to(ref.rope(q, pos, c["layout"]), c["dt"])
        k = round_to(ref.rope(k, pos, c["layout"]), c["dt"])
    if c["enc"] == "alibi":
        bias = ref.alibi_bias(c["hq"], c["sq"], c["sk"])
    expected = ref.attention(q, k, v, bias=bias, causal=c["causal"])
    weighted = ref.attention(q, k, np.abs(v), bias=bias, causal=c["causal"])
    u = UNIT[c["dt"]]
    tolerance = 4 * u * weighted + 2 * u * np.abs(expected) + 1e-6
    got = emulated[case]
    err = np.abs(got - expected)
    assert np.all(np.isfinite(got))
    assert np.all(err <= tolerance), (
        f"max error {err.max():.3e}, max error/tolerance {np.max(err / tolerance):.3f}")


@pytest.mark.parametrize("options", ["warps=1 key-tile=16", "warps=2 key-tile=32",
                                     "warps=8 key-tile=128",
                                     "warpgroup-mma=1 key-tile=16",
                                     "warpgroup-mma=1 key-tile=48",
                                     "warpgroup-mma=1 key-tile=192"])
@pytest.mark.parametrize("causal", [False, True])
def test_tensor_core_kernel_shapes(options, causal):
    """Other block shapes (16 * warps query rows, key tiles of 16-128 rows;
    wgmma: N = key tile of 16-192) on 77 rows: partial tiles of every size."""
    t = "tensor<1x2x77x32xf16>"
    attr = " {causal}" if causal else ""
    ir = (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
          f"  %o = posenc.attention %q, %k, %v{attr} : {t}, {t}, {t} -> {t}\n"
          f"  return %o : {t}\n}}")
    f = emulated_kernel(ir, f"{{{options}}}")
    assert "omp_get_num_threads" in f.lowered_ir
    assert (WGMMA_MARK in f.lowered_ir) == ("warpgroup-mma" in options)
    rng = np.random.default_rng(SEED + 7)
    q, k, v = [rng.standard_normal((1, 2, 77, 32)).astype(np.float16) for _ in range(3)]
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    expected = ref.attention(q64, k64, v64, causal=causal)
    weighted = ref.attention(q64, k64, np.abs(v64), causal=causal)
    u = UNIT["f16"]
    tolerance = 4 * u * weighted + 2 * u * np.abs(expected) + 1e-6
    err = np.abs(f(q, k, v).astype(np.float64) - expected)
    assert np.all(err <= tolerance), f"max error/tolerance {np.max(err / tolerance):.3f}"
