"""The CPU pipeline on narrower vector ISAs than the host's.

The machines this project runs on vary between AVX-512 and AVX2-only hosts.
`posenc-cpu-pipeline{target-features=...}` compiles for the host CPU with
features switched off (-avx512f: AVX2 code, the register tiles sized for 16
registers of 256 bits; -avx: SSE code, 128 bits), so the AVX2 (and SSE) code
paths run and are checked here on any host that has them, whichever ISA the
host has itself. Numbers are compared with the numpy reference
(`posenc.reference`, float64, from SPEC.md) with the tolerances of
test_fused_execution.py (atol 2e-5 + rtol 2e-4: f32 online softmax) and, for
RoPE, test_execution.py's (atol 1e-5 + rtol 1e-5: one rotation in f32).
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close  # noqa: E402


# AVX2 (-avx512f) and SSE (-avx) code on this host; an explicit vector-bits
# against the host's features (tiles for 256 bits, code for the host).
PIPELINES = [
    "builtin.module(posenc-cpu-pipeline{target-features=-avx512f})",
    "builtin.module(posenc-cpu-pipeline{target-features=-avx})",
    "builtin.module(posenc-cpu-pipeline{vector-bits=256})",
]


def ttype(shape, elem="f32"):
    return "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + f"x{elem}>"


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("sq,sk", [(1, 100), (17, 257), (100, 100)])
def test_gqa_rope_attention(pipeline, sq, sk):
    rng = np.random.default_rng(7)
    hq, hkv, d = 4, 2, 32
    q = rng.standard_normal((1, hq, sq, d)).astype(np.float32)
    k = rng.standard_normal((1, hkv, sk, d)).astype(np.float32)
    v = rng.standard_normal((1, hkv, sk, d)).astype(np.float32)
    qpos = np.arange(sk - sq, sk, dtype=np.int32)
    kpos = np.arange(sk, dtype=np.int32)
    qt, kt = ttype([1, hq, sq, d]), ttype([1, hkv, sk, d])
    ir = f"""
func.func @f(%q: {qt}, %k: {kt}, %v: {kt}, %qp: tensor<{sq}xi32>, %kp: tensor<{sk}xi32>) -> {qt} {{
  %qr = posenc.rope %q, %qp layout half : {qt}, tensor<{sq}xi32>
  %kr = posenc.rope %k, %kp layout half : {kt}, tensor<{sk}xi32>
  %o = posenc.attention %qr, %kr, %v {{causal}} : {qt}, {kt}, {kt} -> {qt}
  return %o : {qt}
}}"""
    compiled = posenc.compile(ir, pipeline=pipeline)
    out = compiled(q, k, v, qpos, kpos)
    want = ref.attention(ref.rope(q, qpos, "half"), ref.rope(k, kpos, "half"), v, causal=True)
    assert_close(out, want, 2e-5, 2e-4, pipeline)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_standalone_rope(pipeline, layout):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 37, 64)).astype(np.float32)
    pos = np.arange(37, dtype=np.int32) * 3
    xt = ttype(x.shape)
    ir = f"""
func.func @f(%x: {xt}, %p: tensor<37xi32>) -> {xt} {{
  %r = posenc.rope %x, %p layout {layout} : {xt}, tensor<37xi32>
  return %r : {xt}
}}"""
    out = posenc.compile(ir, pipeline=pipeline)(x, pos)
    assert_close(out, ref.rope(x, pos, layout), 1e-5, 1e-5, pipeline)


def test_features_are_recorded_for_the_jit():
    ir = """
func.func @f(%x: tensor<4x8xf32>, %p: tensor<4xi32>) -> tensor<4x8xf32> {
  %r = posenc.rope %x, %p layout half : tensor<4x8xf32>, tensor<4xi32>
  return %r : tensor<4x8xf32>
}"""
    compiled = posenc.compile(
        ir, pipeline="builtin.module(posenc-cpu-pipeline{target-features=-avx512f})")
    assert 'posenc.target_features = "-avx512f"' in compiled.lowered_ir
    plain = posenc.compile(ir, pipeline="builtin.module(posenc-cpu-pipeline)")
    assert "posenc.target_features" not in plain.lowered_ir
