"""xPos (posenc.rope's `xpos` attribute, SPEC.md "xPos") on every CPU path:
the standalone op through the reference lowering and the fast standalone
lowering (posenc-lower-rope), and a query/key pair inside attention through
the reference lowering (two decayed copies, then attention), the fused flash
path (posenc-fuse-attention folds the pair into fused_attention, whose
decomposition re-centers the decay per query tile), the fused path with
small tiles (many partial tiles, one center per 8 rows) and the scalar tile
layout of the GPU's FMA kernel -- each against `posenc.reference` (float64,
written from docs/spec.md).

Tolerances: f32 rope 5e-5 absolute + 1e-5 relative (f32 angles at
positions <= 108: |d theta| <= 108 * 2^-24 ~ 6e-6 rad, on pairs of magnitude
up to ~8 after the decay, plus f32 cos/sin and exp); f32 attention as
test_fused_execution.py (atol 2e-5 + rtol 2e-4: online vs. materialized
softmax in f32 against float64). f16 / bf16: inputs rounded to the type
and given to the reference rounded, f32 arithmetic, the rotated Q/K and the
result rounded to the type (2^-11 / 2^-8 relative, values <= ~4):
atol = rtol = 4e-3 (f16) and 3e-2 (bf16).

Long positions: near 2^24 the standalone decay zeta_p^(+-pos/scale_base)
underflows (query) and overflows (key) in f32, so the unfused program
yields NaN; the fused one agrees with float64 (exact angles: the op's
`exact` precision, cos/sin within 1e-6) at atol 1e-4 + rtol 1e-3.
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import (CPU_FUSED as FUSED,  # noqa: E402
                             CPU_FUSED_SMALL_TILES as FUSED_SMALL_TILES,
                             CPU_REFERENCE as REFERENCE, CPU_SCALAR_TILES as SCALAR_TILES,
                             assert_close, from_elem, to_elem)

ROPE_TOLERANCE = {"f32": (5e-5, 1e-5), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}
TOLERANCE = {"f32": (2e-5, 2e-4), "f16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}

XPOS = {"scale_base": 128.0, "gamma": 0.4}


# ------------------------------------------------------------ standalone op

@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("role", ["query", "key"])
@pytest.mark.parametrize("rotary_dim", [None, 24])
@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "lower-rope"])
def test_xpos_rope_against_reference(elem, layout, role, rotary_dim, pipeline):
    shape = (2, 3, 37, 32)
    xpos = dict(XPOS, role=role, center=20)
    program = posenc.rope([2, 3, None, 32], layout, rotary_dim=rotary_dim, xpos=xpos,
                          dtype=elem)
    rng = np.random.default_rng(hash((elem, layout, role, rotary_dim)) % 2**32)
    x, x64 = to_elem(rng.standard_normal(shape), elem)
    positions = (np.arange(shape[2]) * 3).astype(np.int32)
    got = from_elem(posenc.compile(program, pipeline=pipeline)(x, positions), elem)
    want = ref.rope(x64, positions, layout, rotary_dim=rotary_dim, xpos=xpos)
    atol, rtol = ROPE_TOLERANCE[elem]
    assert_close(got, want, atol, rtol, f"xpos rope {role} {layout}")
    # The decay is there: without it the result differs by far more.
    plain = ref.rope(x64, positions, layout, rotary_dim=rotary_dim)
    assert np.max(np.abs(plain - want)) > 0.5


@pytest.mark.parametrize("pipeline", [REFERENCE, FUSED], ids=["reference", "lower-rope"])
def test_xpos_rope_per_batch_positions_and_scaling(pipeline):
    xpos = dict(XPOS, role="key", center=-5)
    scaling = {"kind": "linear", "factor": 2.0}
    program = posenc.rope([2, 4, 19, 16], "interleaved", scaling=scaling, xpos=xpos,
                          attention_factor=1.25, per_batch_positions=True)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 19, 16)).astype(np.float32)
    positions = np.stack([np.arange(19) + 7, np.arange(19) + 300]).astype(np.int32)
    got = posenc.compile(program, pipeline=pipeline)(x, positions)
    want = ref.rope(x.astype(np.float64), positions, "interleaved", scaling=scaling,
                    attention_factor=1.25, xpos=xpos)
    # f32 angles at positions ~300 (|d theta| <= 300 * 2^-24) on pairs of
    # magnitude up to ~10 after the decay: 3e-4 absolute.
    assert_close(got, want, 3e-4, 1e-5, "per-batch xpos rope")


def test_reference_xpos_decay_matches_spec_formula():
    # One value by hand: R = 8, pair p = 1: zeta = (2/8 + 0.4) / 1.4.
    d = ref.xpos_decay(np.array([1000]), 8, {"role": "key", "scale_base": 512.0,
                                             "gamma": 0.4, "center": 488})
    zeta1 = (0.25 + 0.4) / 1.4
    assert d.shape == (1, 4)
    assert abs(d[0, 1] - zeta1 ** (-(1000 - 488) / 512.0)) < 1e-15


# ------------------------------------------------------ inside attention

def with_ir(program, ir):
    """`program` with its text replaced (same calling convention)."""
    return posenc.Program(ir, program.entry, program.arguments, program.result,
                          program.config)


def xpos_case(elem, batch, heads, kv_heads, sq, sk, d, layout, causal, rotary_dim=None,
              dynamic=False, q_center=0, k_center=0, precision=None, pos0=0, seed=0):
    """(program, args, want) of llama_attention with an xPos pair; the keys
    sit at positions pos0 + [0, Sk), the queries at the last Sq of them."""
    xpos_q = dict(XPOS, center=q_center)
    program = posenc.llama_attention(
        batch, heads, kv_heads, None if dynamic else sq, d, rope_base=10000.0,
        layout=layout, causal=causal, dtype=elem, kv_seq=None if dynamic else sk,
        rotary_dim=rotary_dim, precision=precision, xpos=xpos_q)
    if k_center != q_center:
        # The builder sets one center on both; move the key's.
        program = with_ir(program, program.ir.replace(
            f"role = key, scale_base = 128.0, gamma = 0.4, center = {q_center}",
            f"role = key, scale_base = 128.0, gamma = 0.4, center = {k_center}"))
        assert f"center = {k_center}" in program.ir
    rng = np.random.default_rng(seed)
    q, q64 = to_elem(rng.standard_normal((batch, heads, sq, d)), elem)
    k, k64 = to_elem(rng.standard_normal((batch, kv_heads, sk, d)), elem)
    v, v64 = to_elem(rng.standard_normal((batch, kv_heads, sk, d)), elem)
    k_pos = (pos0 + np.arange(sk)).astype(np.int32)
    q_pos = k_pos[sk - sq:].copy()
    return program, [q, k, v, q_pos, k_pos], (q64, k64, v64, q_pos, k_pos)


def reference_attention(inputs, layout, causal, rotary_dim=None, q_center=0,
                        k_center=0, heads_per_kv=1):
    q64, k64, v64, q_pos, k_pos = inputs
    qr = ref.rope(q64, q_pos, layout, rotary_dim=rotary_dim,
                  xpos=dict(XPOS, role="query", center=q_center))
    kr = ref.rope(k64, k_pos, layout, rotary_dim=rotary_dim,
                  xpos=dict(XPOS, role="key", center=k_center))
    return ref.attention(qr, np.repeat(kr, heads_per_kv, axis=1),
                         np.repeat(v64, heads_per_kv, axis=1), causal=causal)


def run_paths(program, args, want, elem, pipelines=(REFERENCE, FUSED, FUSED_SMALL_TILES,
                                                    SCALAR_TILES)):
    atol, rtol = TOLERANCE[elem]
    for pipeline in pipelines:
        out = from_elem(posenc.compile(program, pipeline=pipeline)(*args), elem)
        assert_close(out, want, atol, rtol, f"{pipeline} vs numpy")


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("sq,sk", [(33, 33), (9, 70), (1, 45)])
def test_xpos_attention_f32(layout, causal, sq, sk):
    program, args, inputs = xpos_case("f32", 2, 4, 2, sq, sk, 32, layout, causal,
                                      seed=sq + sk, q_center=5, k_center=-3, pos0=40)
    want = reference_attention(inputs, layout, causal, q_center=5, k_center=-3,
                               heads_per_kv=2)
    run_paths(program, args, want, "f32")


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_xpos_attention_16bit(elem, causal):
    program, args, inputs = xpos_case(elem, 1, 2, 2, 40, 64, 64, "half", causal,
                                      rotary_dim=32, seed=4)
    want = reference_attention(inputs, "half", causal, rotary_dim=32)
    run_paths(program, args, want, elem)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_xpos_attention_dynamic_partial_rotary(layout):
    program, args, inputs = xpos_case("f32", 1, 2, 1, 50, 77, 32, layout, True,
                                      rotary_dim=16, dynamic=True, seed=9, pos0=100)
    want = reference_attention(inputs, layout, True, rotary_dim=16, heads_per_kv=2)
    run_paths(program, args, want, "f32")


def test_fused_program_carries_the_xpos_pair():
    program, _, _ = xpos_case("f32", 1, 2, 2, 8, 8, 16, "half", True)
    fused = posenc.run_pipeline(program, "builtin.module(posenc-fuse-attention)")
    assert "posenc.rope" not in fused
    # Inside #posenc.rotary the nested attribute prints without its prefix.
    assert "xpos = <role = query" in fused
    assert "xpos = <role = key" in fused


def test_mismatched_xpos_pair_is_not_fused_and_still_correct():
    # Different gamma on Q and K: the ropes stay standalone (no per-tile
    # re-centering is exact for them) and the program computes the
    # unfused math.
    program, args, inputs = xpos_case("f32", 1, 2, 2, 20, 20, 16, "half", True, seed=2)
    ir = program.ir.replace("role = key, scale_base = 128.0, gamma = 0.4",
                            "role = key, scale_base = 128.0, gamma = 0.5")
    assert ir != program.ir
    program = with_ir(program, ir)
    fused = posenc.run_pipeline(program, "builtin.module(posenc-fuse-attention)")
    assert fused.count("posenc.rope") == 2 and "xpos" not in fused.split("fused_attention")[1]
    q64, k64, v64, q_pos, k_pos = inputs
    qr = ref.rope(q64, q_pos, "half", xpos=dict(XPOS, role="query"))
    kr = ref.rope(k64, k_pos, "half", xpos={"role": "key", "scale_base": 128.0,
                                            "gamma": 0.5})
    want = ref.attention(qr, kr, v64, causal=True)
    run_paths(program, args, want, "f32", (REFERENCE, FUSED))


# ------------------------------------------------------ long positions

@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_xpos_long_positions_fused_recentres(layout):
    """Positions near 2^24 with center 0: the standalone f32 decays
    underflow/overflow (the unfused program's output is not finite), the
    fused program's per-tile centers keep every factor near 1."""
    sq = sk = 192
    pos0 = 2**24 - sk
    program, args, inputs = xpos_case("f32", 1, 2, 2, sq, sk, 64, layout, True,
                                      precision="exact", pos0=pos0, seed=21)
    # Scores depend on pos_i - pos_j only (equal centers): the float64
    # reference evaluates them with both centers moved to pos0, an identity
    # of the math that keeps float64 in range too.
    want = reference_attention(inputs, layout, True, q_center=pos0, k_center=pos0)
    assert np.all(np.isfinite(want))
    unfused = posenc.compile(program, pipeline=REFERENCE)(*args)
    assert not np.all(np.isfinite(unfused)) or np.max(np.abs(unfused - want)) > 1.0, \
        "the unfused f32 form was expected to overflow/underflow at 2^24"
    for pipeline in (FUSED, FUSED_SMALL_TILES, SCALAR_TILES):
        out = posenc.compile(program, pipeline=pipeline)(*args)
        assert_close(out, want, 1e-4, 1e-3, f"{pipeline} at positions near 2^24")
