"""Run-time failures of compiled code are errors, not exits
(docs/reliability.md, "Failure model"): an allocation that fails inside the
compiled code, a failed run-time shape check and a CUDA error during a call
raise PosencError; the interpreter survives and the next call works.

The CUDA case runs everywhere with the toolkit's libcuda link stub as the
driver (every CUDA call fails), in a subprocess so that the stub does not
stay loaded in this one; on a machine with a GPU a real device allocation
that cannot be satisfied is checked too.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import posenc
from posenc import PosencError, compiler
from posenc import reference as ref

CUDA_ROOT = os.environ.get("CUDA_HOME", "/usr/local/cuda")
STUB = os.path.join(CUDA_ROOT, "lib64", "stubs", "libcuda.so")


def _cuda_runtime_path():
    try:
        return compiler.cuda_runtime_path()
    except PosencError:
        return None


def test_failed_allocation_in_compiled_code_is_an_error():
    """A dynamic size of 2^60 f32 elements: the compiled code's malloc
    returns null, the call raises PosencError, the same function then
    computes a small case."""
    fill = posenc.compile("""
func.func @fill(%n: index) -> tensor<?xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}""")
    with pytest.raises(PosencError, match=r"cannot allocate \d+ bytes"):
        fill(2 ** 60)
    np.testing.assert_array_equal(fill(5), np.ones(5, np.float32))


def test_failed_allocation_of_a_posenc_op_is_an_error():
    """The same through a posenc op: an ALiBi bias of 4 x 2^28 x 2^28 f32
    (2^60 bytes) cannot be allocated; a small one right after matches the
    reference."""
    program = posenc.alibi_bias(4, None, None)
    alibi = posenc.compile(program)
    with pytest.raises(PosencError, match="cannot allocate"):
        alibi(2 ** 28, 2 ** 28)
    np.testing.assert_allclose(alibi(3, 5), ref.alibi_bias(4, 3, 5), atol=1e-6, rtol=1e-6)


def test_failed_shape_check_leaves_the_function_usable():
    """A run-time length check of an attention block (the positions do not
    match the dynamic sequence dim) raises; the next call is correct."""
    program = posenc.llama_attention(1, 2, 1, None, 8, rope_base=10000.0)
    attention = posenc.compile(program)
    rng = np.random.default_rng(3)
    q = rng.standard_normal((1, 2, 6, 8)).astype(np.float32)
    kv = rng.standard_normal((1, 1, 6, 8)).astype(np.float32)
    with pytest.raises(PosencError, match="run-time check failed"):
        attention(q, kv, kv, np.arange(5, dtype=np.int32))
    pos = np.arange(6, dtype=np.int32)
    kw = dict(base=10000.0)
    want = ref.attention(ref.rope(q, pos, "half", **kw), ref.rope(kv, pos, "half", **kw), kv,
                         causal=True)
    np.testing.assert_allclose(attention(q, kv, kv, pos), want, atol=5e-5, rtol=5e-4)


@pytest.mark.skipif(not (_cuda_runtime_path() and os.path.isfile(STUB)),
                    reason="needs libposenc_cuda_runtime.so and the toolkit's libcuda stub")
def test_cuda_error_during_a_call_is_an_error(tmp_path):
    """A function that calls the CUDA runtime library (mgpuStreamCreate),
    with the link stub as the driver: cuInit fails inside the call, the
    runtime hands the message to posencJitCall, PosencError is raised, the
    interpreter goes on (twice), and a CPU function compiled afterwards
    runs."""
    (tmp_path / "libcuda.so.1").symlink_to(STUB)
    script = r"""
import numpy as np
import posenc
from posenc import compiler
ir = '''
func.func private @mgpuStreamCreate() -> !llvm.ptr
func.func @stream() -> i64 {
  %s = func.call @mgpuStreamCreate() : () -> !llvm.ptr
  %i = llvm.ptrtoint %s : !llvm.ptr to i64
  return %i : i64
}'''
libs = compiler.get_library().default_shared_libs() + [compiler.cuda_runtime_path()]
stream = posenc.compile(ir, shared_libs=libs)
for attempt in range(2):
    try:
        stream()
        print('NO ERROR')
    except posenc.PosencError as error:
        print('PosencError:', str(error).replace('\n', ' | '))
add = posenc.compile('''
func.func @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}''')
print('after:', add(np.float32(1.5)))
"""
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, (out.stdout, out.stderr)
    for line in lines[:2]:
        assert line.startswith("PosencError: @stream failed: | run-time check failed: "
                               "posenc_cuda_runtime: cuInit(0) failed: "
                               "CUDA_ERROR_STUB_LIBRARY (34)"), line
    assert lines[2] == "after: 3.0"


def _gpu():
    if not _cuda_runtime_path():
        return False
    try:
        posenc.cuda_device()
        return True
    except PosencError:
        return False


@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU")
def test_cuda_allocation_failure_during_a_call_is_an_error():
    """On a GPU: a bias of 4 x 2^24 x 2^24 f32 (2^52 bytes of managed
    memory) cannot be allocated: cuMemAllocManaged fails inside the call,
    PosencError is raised, and a small call right after is correct."""
    alibi = posenc.compile(posenc.alibi_bias(4, None, None), target="cuda")
    with pytest.raises(PosencError, match="cuMemAllocManaged"):
        alibi(2 ** 24, 2 ** 24)
    np.testing.assert_allclose(alibi(3, 5), ref.alibi_bias(4, 3, 5), atol=1e-6, rtol=1e-6)
