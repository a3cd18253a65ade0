"""Helpers the pytest files share: 16-bit element conversions, the
element-wise closeness check (absolute + relative tolerance), and
posenc-opt for the test-only passes.

No test skips when the package or libPosencCAPI.so is missing: a wrong
PYTHONPATH or POSENC_BUILD_DIR fails the run (the library is looked up on the
first call, which raises PosencError)."""
import os
import subprocess

import numpy as np
import pytest

import posenc
from posenc import PosencError, compiler


def run_posenc_opt(ir, pipeline):
    """`ir` through `posenc-opt --pass-pipeline=<pipeline>`, as text. For the
    test-only passes (test/lib), which posenc-opt links and the installed C
    API library does not: posenc-opt is looked up in the build tree of
    libPosencCAPI.so (`<build>/bin`). Skips the calling test when it is not
    there (an installed posenc has no test code)."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(compiler.library_path())))
    tool = os.path.join(build, "bin", "posenc-opt")
    if not os.access(tool, os.X_OK):
        pytest.skip(f"posenc-opt (with the test-only passes) not found at {tool}")
    done = subprocess.run([tool, f"--pass-pipeline={pipeline}"], input=ir,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise PosencError(f"posenc-opt --pass-pipeline={pipeline} failed:\n{done.stderr}",
                          done.stderr)
    return done.stdout


#: numpy types of the element types posenc passes as numpy arrays directly
#: (bf16 travels as uint16 bit patterns, see to_elem).
NP_ELEM = {"f32": np.float32, "f16": np.float16, "f64": np.float64,
           "i32": np.int32, "i64": np.int64}


def to_elem(values, elem):
    """Rounds `values` to `elem`; returns (array to pass, float64 copy of the
    rounded values for the reference)."""
    if elem == "bf16":
        bits = posenc.to_bf16_bits(np.asarray(values, np.float32))
        return bits, posenc.from_bf16_bits(bits).astype(np.float64)
    array = np.asarray(values).astype(NP_ELEM[elem])
    return array, array.astype(np.float64)


def from_elem(values, elem):
    """A result of type `elem` as float64."""
    if elem == "bf16":
        return posenc.from_bf16_bits(values).astype(np.float64)
    return np.asarray(values).astype(np.float64)


def elem_tolerance(elem, magnitude=1.0, f32=None):
    """(atol, rtol) for a result stored as f16 / bf16: the result type's
    rounding (2^-11, 2^-8 relative) dominates; `f32` for other types."""
    if elem == "f16":
        return 2e-3 * magnitude, 2e-3
    if elem == "bf16":
        return 1.6e-2 * magnitude, 1.6e-2
    return f32


def assert_close(got, want, atol, rtol, what=""):
    """|got - want| <= atol + rtol |want| everywhere, finite, same shape; the
    message names the worst element."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert np.all(np.isfinite(got)), f"{what}: non-finite values in the result"
    err = np.abs(got - want)
    bound = atol + rtol * np.abs(want)
    if err.size == 0:
        return
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), (
        f"{what}: max error {err.max():.3e} exceeds atol={np.max(atol):.3g} "
        f"rtol={rtol:.3g}; worst at {worst}: got {got[worst]!r}, want {want[worst]!r}")


#: The CPU pipelines the relative-attention execution tests compare: the
#: reference lowering, the fused path, the fused path with small tiles (many
#: partial and diagonal tiles) and the scalar tile layout (the GPU's FMA
#: kernel's, run on the CPU).
CPU_REFERENCE = "builtin.module(posenc-cpu-pipeline{reference=true})"
CPU_FUSED = "builtin.module(posenc-cpu-pipeline{reference=false})"
CPU_FUSED_SMALL_TILES = ("builtin.module(posenc-cpu-pipeline{reference=false "
                         "attention-query-tile=8 attention-key-tile=16})")
CPU_SCALAR_TILES = ("builtin.module(posenc-fuse-attention, "
                    "posenc-decompose-attention{query-tile=8 key-tile=16}, "
                    "posenc-cpu-pipeline)")


def check_cpu_paths(program, args, want, elem, atol, rtol, pipelines):
    """Runs `program` through the reference lowering and each of `pipelines`,
    and checks every result against `want` (atol + rtol |want|) and each
    pipeline's against the reference lowering's (twice the tolerance)."""
    reference_out = from_elem(posenc.compile(program, pipeline=CPU_REFERENCE)(*args), elem)
    assert_close(reference_out, want, atol, rtol, "reference lowering vs numpy")
    for pipeline in pipelines:
        out = from_elem(posenc.compile(program, pipeline=pipeline)(*args), elem)
        assert_close(out, want, atol, rtol, f"{pipeline} vs numpy")
        assert_close(out, reference_out, 2 * atol, 2 * rtol,
                     f"{pipeline} vs reference lowering")
