"""Execution tests of the fused attention path (posenc-fuse-attention +
posenc-decompose-attention, `posenc-cpu-pipeline{reference=false}`), and of
the scalar tile layout the GPU's FMA kernel uses, lowered for the CPU.

Each case compiles one program twice, with the fused path and with the
reference lowering (`reference=true`), runs both on the same seeded inputs and
compares each with the numpy reference (`posenc.reference`, float64, written
from docs/spec.md) and with each other. Sizes are chosen not to divide the tiles
(S = 1, 17, 100, 257 against query/key tiles of 32/64 and of 8/16), with
Sq < Sk, grouped-query attention, causal and not, dynamic sequence dims.

Tolerances: both paths compute in f32 (online softmax vs. materialized
softmax, different summation orders); against float64 we allow
atol 2e-5 + rtol 2e-4, as test_execution.py does for attention, and between
the two f32 paths the same (their difference is bounded by the sum of their
errors to float64). RoPE cases use positions < 300, where the f32 angle error
is ~1e-5 absolute, well inside the bound after the dot products.
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close as _assert_close  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4
FUSED = "builtin.module(posenc-cpu-pipeline{reference=false})"
FUSED_SMALL_TILES = ("builtin.module(posenc-cpu-pipeline{reference=false "
                     "attention-query-tile=8 attention-key-tile=16})")
REFERENCE = "builtin.module(posenc-cpu-pipeline{reference=true})"
# The scalar tile layout (vector-layout=false: what --posenc-to-nvvm's FMA
# kernel maps onto threads), decomposed first and then lowered for the CPU:
# its masks, RoPE and score terms run here without a GPU.
SCALAR_TILES = ("builtin.module(posenc-fuse-attention, "
                "posenc-decompose-attention{query-tile=8 key-tile=16}, posenc-cpu-pipeline)")


def ttype(shape, elem="f32"):
    dims = "x".join("?" if s is None else str(s) for s in shape)
    return f"tensor<{dims}x{elem}>"


def assert_close(got, want, what, atol=ATOL, rtol=RTOL):
    _assert_close(got, want, atol, rtol, what)


def run_paths(ir, args, want, pipelines=(FUSED, FUSED_SMALL_TILES, SCALAR_TILES)):
    """Compiles `ir` with each fused pipeline and the reference one, checks
    every result against `want` (numpy) and the fused ones against the
    reference lowering."""
    reference_out = posenc.compile(ir, pipeline=REFERENCE)(*args)
    assert_close(reference_out, want, "reference lowering vs numpy")
    for pipeline in pipelines:
        out = posenc.compile(ir, pipeline=pipeline)(*args)
        assert_close(out, want, f"{pipeline} vs numpy")
        assert_close(out, reference_out, f"{pipeline} vs reference lowering")


def rope_attrs(rope):
    """The attribute dict of a posenc.rope from a test's rope dict."""
    attrs = f"base = {float(rope['base'])!r} : f64"
    if rope.get("rotary_dim") is not None:
        attrs += f", rotary_dim = {rope['rotary_dim']} : i64"
    return attrs


def attention_case(lead, hq, hkv, sq, sk, d, dv, causal=False, q_rope=None,
                   k_rope=None, alibi=None, dynamic=False, seed=0):
    """Builds (ir, args, want) for attention with optional RoPE on q/k
    (dicts with layout/base and optionally rotary_dim) and an ALiBi bias
    ({'symmetric': bool})."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(lead + [hq, sq, d]).astype(np.float32)
    k = rng.standard_normal(lead + [hkv, sk, d]).astype(np.float32)
    v = rng.standard_normal(lead + [hkv, sk, dv]).astype(np.float32)
    sqd, skd = (None, None) if dynamic else (sq, sk)
    qt = ttype(lead + [hq, sqd, d])
    kt = ttype(lead + [hkv, skd, d])
    vt = ttype(lead + [hkv, skd, dv])
    ot = ttype(lead + [hq, sqd, dv])
    params = [f"%q: {qt}", f"%k: {kt}", f"%v: {vt}"]
    args = [q, k, v]
    body = []
    qn, kn = "%q", "%k"
    qf, kf = q, k
    # Queries sit at the last Sq key positions, as in decoding.
    qpos = np.arange(sk - sq, sk, dtype=np.int32)
    kpos = np.arange(sk, dtype=np.int32)
    if q_rope is not None:
        params.append(f"%qpos: {ttype([sqd], 'i32')}")
        args.append(qpos)
        body.append(
            f"%qr = posenc.rope %q, %qpos layout {q_rope['layout']} "
            f"{{{rope_attrs(q_rope)}}} : {qt}, "
            f"{ttype([sqd], 'i32')}")
        qn = "%qr"
        qf = ref.rope(q, qpos, q_rope["layout"], base=q_rope["base"],
                      rotary_dim=q_rope.get("rotary_dim"))
    if k_rope is not None:
        params.append(f"%kpos: {ttype([skd], 'i32')}")
        args.append(kpos)
        body.append(
            f"%kr = posenc.rope %k, %kpos layout {k_rope['layout']} "
            f"{{{rope_attrs(k_rope)}}} : {kt}, "
            f"{ttype([skd], 'i32')}")
        kn = "%kr"
        kf = ref.rope(k, kpos, k_rope["layout"], base=k_rope["base"],
                      rotary_dim=k_rope.get("rotary_dim"))
    bias_clause, bias = "", None
    if alibi is not None:
        bt = ttype([hq, sqd, skd])
        dyn = ""
        if dynamic:
            params.append("%sq: index")
            params.append("%sk: index")
            args.extend([sq, sk])
            dyn = "(%sq, %sk) "
        sym = " {symmetric}" if alibi.get("symmetric") else ""
        body.append(f"%b = posenc.alibi_bias {dyn}{sym}: {bt}".replace("  ", " "))
        bias_clause = f" bias(%b : {bt})"
        bias = ref.alibi_bias(hq, sq, sk, symmetric=bool(alibi.get("symmetric")))
    attrs = " {causal}" if causal else ""
    body.append(f"%o = posenc.attention {qn}, {kn}, %v{bias_clause}{attrs} "
                f": {qt}, {kt}, {vt} -> {ot}")
    ir = (f"func.func @f({', '.join(params)}) -> {ot} {{\n  "
          + "\n  ".join(body) + f"\n  return %o : {ot}\n}}\n")
    want = ref.attention(qf, kf, v, bias=bias, causal=causal)
    return ir, args, want


# Odd sizes against the tiles; (sq, sk) with Sq <= Sk and Sq > Sk.
SIZES = [(1, 1), (17, 17), (100, 100), (257, 257), (1, 100), (17, 257),
         (100, 17)]


@pytest.mark.parametrize("sq,sk", SIZES)
@pytest.mark.parametrize("causal", [False, True])
def test_plain_attention(sq, sk, causal):
    ir, args, want = attention_case([], 2, 2, sq, sk, 16, 8, causal=causal)
    run_paths(ir, args, want)


@pytest.mark.parametrize("sq,sk", [(17, 17), (100, 257), (257, 257)])
@pytest.mark.parametrize("causal", [False, True])
def test_gqa_batch(sq, sk, causal):
    ir, args, want = attention_case([2], 4, 2, sq, sk, 16, 16, causal=causal,
                                    seed=1)
    run_paths(ir, args, want)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("sq,sk", [(1, 17), (17, 17), (100, 257), (257, 257)])
def test_rope_qk_causal_gqa(layout, sq, sk):
    rope = {"layout": layout, "base": 10000.0}
    ir, args, want = attention_case([1], 4, 2, sq, sk, 16, 16, causal=True,
                                    q_rope=rope, k_rope=rope, seed=2)
    assert "posenc.rope" in ir
    run_paths(ir, args, want)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("sq,sk", [(17, 17), (1, 100)])
def test_rope_partial_rotary_dim(layout, sq, sk):
    """rotary_dim < D inside fused attention: dims past rotary_dim pass
    through the RoPE prologue unrotated (a prologue that rotated them too
    survived every other fused test)."""
    rope = {"layout": layout, "base": 10000.0, "rotary_dim": 8}
    ir, args, want = attention_case([1], 4, 2, sq, sk, 32, 16, causal=True,
                                    q_rope=rope, k_rope=rope, seed=4)
    assert "rotary_dim = 8" in ir
    run_paths(ir, args, want)


def test_rope_only_key_dynamic():
    ir, args, want = attention_case(
        [], 4, 1, 17, 100, 32, 16, causal=False,
        k_rope={"layout": "interleaved", "base": 500000.0}, dynamic=True,
        seed=3)
    run_paths(ir, args, want)


@pytest.mark.parametrize("sq,sk", [(1, 1), (17, 17), (100, 257)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("symmetric", [False, True])
def test_alibi(sq, sk, causal, symmetric):
    ir, args, want = attention_case([], 4, 4, sq, sk, 16, 16, causal=causal,
                                    alibi={"symmetric": symmetric}, seed=4)
    run_paths(ir, args, want)


@pytest.mark.parametrize("hq,hkv", [(5, 5), (12, 4)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("symmetric", [False, True])
def test_alibi_non_power_of_two_heads(hq, hkv, causal, symmetric):
    """ALiBi slopes for head counts that are not powers of two interleave a
    second geometric sequence (SPEC.md); the fused score_mod must follow."""
    ir, args, want = attention_case([], hq, hkv, 17, 100, 16, 16, causal=causal,
                                    alibi={"symmetric": symmetric}, seed=12)
    run_paths(ir, args, want)


def test_alibi_rope_dynamic():
    rope = {"layout": "half", "base": 10000.0}
    ir, args, want = attention_case([1], 4, 2, 100, 100, 16, 16, causal=True,
                                    q_rope=rope, k_rope=rope, alibi={},
                                    dynamic=True, seed=5)
    run_paths(ir, args, want)


def test_general_bias_broadcast():
    """A bias tensor that is not an encoding is read inside score_mod."""
    rng = np.random.default_rng(6)
    q = rng.standard_normal((2, 3, 17, 16)).astype(np.float32)
    k = rng.standard_normal((2, 3, 33, 16)).astype(np.float32)
    v = rng.standard_normal((2, 3, 33, 8)).astype(np.float32)
    b = rng.standard_normal((1, 17, 33)).astype(np.float32)
    ir = """
func.func @f(%q: tensor<2x3x17x16xf32>, %k: tensor<2x3x33x16xf32>,
             %v: tensor<2x3x33x8xf32>, %b: tensor<1x17x33xf32>) -> tensor<2x3x17x8xf32> {
  %o = posenc.attention %q, %k, %v bias(%b : tensor<1x17x33xf32>) {causal}
      : tensor<2x3x17x16xf32>, tensor<2x3x33x16xf32>, tensor<2x3x33x8xf32> -> tensor<2x3x17x8xf32>
  return %o : tensor<2x3x17x8xf32>
}"""
    run_paths(ir, [q, k, v, b], ref.attention(q, k, v, bias=b, causal=True))


def test_fully_masked_rows_are_zero():
    """Causal with Sq > Sk: the first Sq - Sk rows see no key."""
    ir, args, want = attention_case([], 2, 2, 100, 17, 16, 8, causal=True,
                                    seed=7)
    assert np.all(want[:, :83] == 0)
    run_paths(ir, args, want)


def shaw_case(lead, sq, sk, d, dv, kmax, causal, with_rel_value, seed=8,
              dynamic=False):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(lead + [sq, d]).astype(np.float32)
    k = rng.standard_normal(lead + [sk, d]).astype(np.float32)
    v = rng.standard_normal(lead + [sk, dv]).astype(np.float32)
    rk = rng.standard_normal((2 * kmax + 1, d)).astype(np.float32)
    rv = rng.standard_normal((2 * kmax + 1, dv)).astype(np.float32)
    sqd, skd = (None, None) if dynamic else (sq, sk)
    qt, kt, vt = (ttype(lead + [sqd, d]), ttype(lead + [skd, d]),
                  ttype(lead + [skd, dv]))
    ot = ttype(lead + [sqd, dv])
    rkt, rvt = ttype([2 * kmax + 1, d]), ttype([2 * kmax + 1, dv])
    params = [f"%q: {qt}", f"%k: {kt}", f"%v: {vt}", f"%rk: {rkt}"]
    args = [q, k, v, rk]
    rv_clause = ""
    if with_rel_value:
        params.append(f"%rv: {rvt}")
        args.append(rv)
        rv_clause = f" rel_value(%rv : {rvt})"
    attrs = " {causal}" if causal else ""
    ir = (f"func.func @f({', '.join(params)}) -> {ot} {{\n"
          f"  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : {rkt})"
          f"{rv_clause}{attrs} : {qt}, {kt}, {vt} -> {ot}\n"
          f"  return %o : {ot}\n}}\n")
    want = ref.rel_pos_attention(q, k, v, rk, rv if with_rel_value else None,
                                 causal=causal)
    return ir, args, want


@pytest.mark.parametrize("sq,sk", [(1, 1), (17, 17), (17, 100), (100, 100)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("with_rel_value", [False, True])
def test_shaw(sq, sk, causal, with_rel_value):
    ir, args, want = shaw_case([2], sq, sk, 16, 8, 4, causal, with_rel_value)
    run_paths(ir, args, want)


def test_shaw_rank2_dynamic_large_k():
    ir, args, want = shaw_case([], 257, 257, 16, 16, 64, True, True, seed=9,
                               dynamic=True)
    run_paths(ir, args, want)


@pytest.mark.parametrize("causal", [False, True])
def test_shaw_band_and_edge_tiles(causal):
    # K between the tile sizes, Sq < Sk, several key tiles on both sides of
    # the band: edge rows (bucket 0 / 2K) broadcast over whole key tiles,
    # per-element buckets only in band tiles (CPU vector layout).
    ir, args, want = shaw_case([2], 150, 300, 16, 24, 40, causal, True,
                               seed=11)
    run_paths(ir, args, want)
