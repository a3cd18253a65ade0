"""posenc.compile(target="cuda"): the GPU pipeline (--posenc-to-nvvm) driven
from Python.

What runs everywhere:
  * the GPU host code (with its embedded fatbin) JIT-compiles in the C API
    and links the runtime library's mgpu* functions;
  * the device probe: without a driver (here the CUDA toolkit's libcuda link
    stub stands in for one, in a subprocess) compile raises PosencError with
    the runtime's reason instead of ending the process;
  * the argument copies the cuda target makes (arrays into managed memory,
    memref arguments copied back, results copied out and released), with
    malloc/free standing in for the managed allocator on a CPU-compiled
    function: same values as the in-place CPU call, every copy released;
  * the chip chosen from a compute capability.
What needs a GPU (skipped without one): f16 attention on the tensor-core
kernel and f32 RoPE, compared with posenc.reference.
"""

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

import posenc
from posenc import PosencError, compiler, cuda, memref
from posenc import reference as ref
from posenc_testutil import from_elem, to_elem

CUDA_ROOT = os.environ.get("CUDA_HOME", "/usr/local/cuda")
STUB = os.path.join(CUDA_ROOT, "lib64", "stubs", "libcuda.so")

WRITES_MEMREF = """
func.func @f(%m: memref<4xf32>, %t: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %x = memref.load %m[%c0] : memref<4xf32>
  %y = arith.addf %x, %one : f32
  memref.store %y, %m[%c0] : memref<4xf32>
  %init = tensor.empty() : tensor<2x3xf32>
  %d = linalg.add ins(%t, %t : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %row = tensor.extract_slice %t[1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
  return %d, %row : tensor<2x3xf32>, tensor<3xf32>
}
"""


def _runtime_built():
    try:
        compiler.cuda_runtime_path()
        return True
    except PosencError:
        return False


def _run_with_stub_driver(tmp_path, script):
    """Runs `script` in a new interpreter whose libcuda.so.1 is the
    toolkit's link stub (first on the library path)."""
    (tmp_path / "libcuda.so.1").symlink_to(STUB)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.mark.skipif(not (_runtime_built() and os.path.isfile(STUB)),
                    reason="needs libposenc_cuda_runtime.so and the toolkit's libcuda stub")
def test_no_driver_is_an_error_not_an_exit(tmp_path):
    """With the link stub as libcuda.so.1 (first on the library path, so
    also on machines with a driver) the probe fails with the stub's error;
    compile raises PosencError and the interpreter goes on."""
    script = (
        "import posenc\n"
        "ir = 'func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }'\n"
        "for call in (posenc.cuda_device, lambda: posenc.compile(ir, target='cuda')):\n"
        "    try:\n"
        "        call()\n"
        "        print('NO ERROR')\n"
        "    except posenc.PosencError as e:\n"
        "        print('PosencError:', e)\n"
        "print('still running')\n")
    out = _run_with_stub_driver(tmp_path, script)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    for line in lines[:2]:
        assert line.startswith("PosencError: no usable CUDA device: cuInit(0) failed: "
                               "CUDA_ERROR_STUB_LIBRARY (34)"), line
        assert "link stub, not an NVIDIA driver" in line
    assert lines[2] == "still running"


@pytest.mark.skipif(not (_runtime_built() and os.path.isfile(STUB)),
                    reason="needs libposenc_cuda_runtime.so and the toolkit's libcuda stub")
def test_gpu_host_code_jit_compiles(tmp_path):
    """The steps of compile(target='cuda') after the probe, with the stub as
    the driver: --posenc-to-nvvm (fatbin), then the ExecutionEngine
    JIT-compiles the host code with its embedded binary and links the mgpu*
    functions of libposenc_cuda_runtime.so. Looking the function up runs the
    module constructor, which loads the binary: there the stub's cuInit
    fails and the runtime ends the process with its message (status 1)."""
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Integration",
                           "GPU", "attention-f16-noncausal.mlir")
    script = (
        "import ctypes\n"
        "from posenc import capi, cuda\n"
        "lib = capi.get_library()\n"
        "runtime = cuda.CudaRuntime(cuda.cuda_runtime_path())\n"
        f"module = lib.parse(open({program!r}).read())\n"
        "lib.call(lib.module_prepare_for_jit, module, b'attention', True, what='prepare')\n"
        "lib.run_pipeline(module, 'builtin.module(posenc-to-nvvm{chip=sm_90a})')\n"
        "print('gpu.binary' in lib.print_module(module))\n"
        "libs = lib.default_shared_libs() + [runtime.path]\n"
        "paths = (ctypes.c_char_p * len(libs))(*[p.encode() for p in libs])\n"
        "jit = lib.call(lib.jit_create, module, 2, paths, len(libs),\n"
        "               failed=lambda j: not j.ptr, what='jit')\n"
        "print('JIT compiled', flush=True)\n"
        "lib.call(lib.jit_lookup_packed, jit, b'_mlir_ciface_attention', what='lookup')\n"
        "print('NOT REACHED')\n")
    out = _run_with_stub_driver(tmp_path, script)
    assert out.stdout.splitlines() == ["True", "JIT compiled"], (out.stdout, out.stderr)
    assert out.returncode == 1
    assert "posenc_cuda_runtime: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY" in out.stderr


def test_copied_arguments_match_in_place_call():
    """The cuda target's argument handling, on the CPU: every array argument
    is copied into a fresh buffer, a memref argument copied back after the
    call, results copied out and released through the allocator's free."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.restype = None
    libc.free.argtypes = [ctypes.c_void_p]
    allocated, released = [], []

    def alloc(size):
        pointer = libc.malloc(size)
        allocated.append(pointer)
        return pointer

    def free(pointer):
        released.append(pointer)
        libc.free(pointer)

    t = np.arange(6, dtype=np.float32).reshape(2, 3)
    m_in_place = np.array([1.5, 2, 3, 4], dtype=np.float32)
    m_copied = m_in_place.copy()

    f = posenc.compile(WRITES_MEMREF)
    want_d, want_row = f(m_in_place, t)
    f._memory = memref.CopiedMemory("test", alloc, free)
    d, row = f(m_copied, t)

    np.testing.assert_array_equal(d, 2 * t)
    np.testing.assert_array_equal(row, t[1])
    np.testing.assert_array_equal(d, want_d)
    np.testing.assert_array_equal(row, want_row)
    # The function wrote m[0] + 1 into its copy; it came back.
    assert m_copied[0] == 2.5 and m_in_place[0] == 2.5
    np.testing.assert_array_equal(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    # Two argument copies; both released, with the result buffers.
    assert len(allocated) == 2
    assert set(allocated) <= set(released)
    assert len(released) == len(set(released))


def test_chip_from_compute_capability():
    assert cuda.chip_for((9, 0)) == "sm_90a"
    assert cuda.chip_for((8, 0)) == "sm_80"
    assert cuda.chip_for((8, 6)) == "sm_86"
    assert cuda.chip_for((12, 0)) == "sm_120"


def test_chip_option_is_checked():
    ir = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }"
    with pytest.raises(PosencError, match="chip applies to target 'cuda'"):
        posenc.compile(ir, chip="sm_80")
    with pytest.raises(PosencError, match="chip must be an NVIDIA architecture"):
        posenc.compile(ir, target="cuda", chip="gfx90a")


def _gpu():
    try:
        return posenc.cuda_device()
    except PosencError as error:
        return str(error)


GPU = _gpu()
needs_gpu = pytest.mark.skipif(not isinstance(GPU, tuple), reason=f"no GPU: {GPU}")


@needs_gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_attention_on_gpu(dt):
    """f16/bf16 causal GQA attention with RoPE on the tensor-core kernel
    (wgmma on compute capability 9.0), vs the float64 reference under the
    per-element tolerance of the kernel's roundings (u = 2^-11 f16, 2^-8
    bf16): 4u sum_j p_ij |v_j| + 2u |O_i| + 1e-6."""
    hq, hkv, s, d = 4, 2, 100, 64
    qt, kt = f"tensor<1x{hq}x{s}x{d}x{dt}>", f"tensor<1x{hkv}x{s}x{d}x{dt}>"
    ir = (f"func.func @f(%q: {qt}, %k: {kt}, %v: {kt}, %pos: tensor<{s}xi32>) -> {qt} {{\n"
          f"  %qr = posenc.rope %q, %pos layout half : {qt}, tensor<{s}xi32>\n"
          f"  %kr = posenc.rope %k, %pos layout half : {kt}, tensor<{s}xi32>\n"
          f"  %o = posenc.attention %qr, %kr, %v {{causal}} : {qt}, {kt}, {kt} -> {qt}\n"
          f"  return %o : {qt}\n}}")
    f = posenc.compile(ir, target="cuda")
    assert f.target == "cuda"
    rng = np.random.default_rng(11)
    (q, qx), (k, kx), (v, vx) = (to_elem(rng.standard_normal(shape), dt) for shape in
                                 [(1, hq, s, d), (1, hkv, s, d), (1, hkv, s, d)])
    pos = np.arange(s, dtype=np.int32)
    got = from_elem(f(q, k, v, pos), dt)
    qr = to_elem(ref.rope(qx, pos, "half"), dt)[1]
    kr = to_elem(ref.rope(kx, pos, "half"), dt)[1]
    want = ref.attention(qr, kr, vx, causal=True)
    weighted = ref.attention(qr, kr, np.abs(vx), causal=True)
    u = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}[dt]
    tolerance = 4 * u * weighted + 2 * u * np.abs(want) + 1e-6
    err = np.abs(got - want)
    assert np.all(err <= tolerance), f"max error/tolerance {np.max(err / tolerance):.3f}"


@needs_gpu
def test_rope_on_gpu():
    """f32 RoPE (an elementwise kernel) vs the reference. `fast` angles are
    f32(pos) * f32(inv_freq), off by up to |theta| 2.4e-7 rad: atol
    2 * 2.4e-7 * max(pos) * max|x| (both elements of a pair), rtol 1e-5."""
    t = "tensor<2x77x64xf32>"
    ir = (f"func.func @f(%x: {t}, %pos: tensor<77xi32>) -> {t} {{\n"
          f"  %r = posenc.rope %x, %pos layout interleaved : {t}, tensor<77xi32>\n"
          f"  return %r : {t}\n}}")
    f = posenc.compile(ir, target="cuda")
    x = np.random.default_rng(3).standard_normal((2, 77, 64)).astype(np.float32)
    pos = (np.arange(77, dtype=np.int32) * 7) % 1000
    atol = 2 * 2.4e-7 * pos.max() * np.abs(x).max()
    np.testing.assert_allclose(f(x, pos), ref.rope(x.astype(np.float64), pos, "interleaved"),
                               rtol=1e-5, atol=atol)
