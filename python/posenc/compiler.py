"""``compile``: MLIR functions on tensors, lowered, JIT-compiled, called on
numpy arrays.

    >>> from posenc import compile
    >>> add = compile('''
    ... func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    ...   %init = tensor.empty() : tensor<4xf32>
    ...   %sum = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
    ...                     outs(%init : tensor<4xf32>) -> tensor<4xf32>
    ...   return %sum : tensor<4xf32>
    ... }''')
    >>> add(np.ones(4, np.float32), np.arange(4, dtype=np.float32))
    array([1., 2., 3., 4.], dtype=float32)

``compile`` parses the IR with the posenc dialect and every upstream dialect,
checks that the entry function's signature can be passed from Python, lowers
it with a pass pipeline (``posenc-cpu-pipeline`` by default), JIT-compiles it
with MLIR's ExecutionEngine and returns a ``CompiledFunction``.
``target="cuda"`` compiles with ``--posenc-to-nvvm`` instead and links the
host code with libposenc_cuda_runtime.so (docs/gpu.md, "From Python").

The package by concern: ``capi`` (the ctypes binding of libPosencCAPI.so and
where it is found), ``memref`` (the memref ABI: descriptors, numpy <-> memref,
bf16 as uint16 bits), ``cuda`` (the CUDA runtime of ``target="cuda"``),
``function`` (``CompiledFunction`` and the calling convention) and this
module. The names below stay importable from here.
"""

import ctypes
import json
import os
import re

from .capi import get_library, library_path
from .cuda import chip_for, cuda_device, cuda_runtime_path, get_cuda_runtime
from .errors import PosencError
from .function import CompiledFunction
from .memref import TypeSpec, from_bf16_bits, to_bf16_bits

__all__ = [
    "DEFAULT_PIPELINE",
    "CompiledFunction",
    "PosencError",
    "compile",
    "cuda_device",
    "cuda_runtime_path",
    "from_bf16_bits",
    "library_path",
    "run_pipeline",
    "to_bf16_bits",
]

#: The pipeline ``compile`` lowers with unless told otherwise.
DEFAULT_PIPELINE = "builtin.module(posenc-cpu-pipeline)"


def run_pipeline(ir, pipeline=DEFAULT_PIPELINE):
    """Parses ``ir``, runs the textual pass ``pipeline`` on it and returns the
    resulting module as text. Raises PosencError with MLIR's diagnostics."""
    library = get_library()
    with library.lock:
        module = library.parse(ir)
        try:
            library.run_pipeline(module, pipeline)
            return library.print_module(module)
        finally:
            library.module_destroy(module)


def compile(ir, entry=None, target="cpu", pipeline=None, *, opt_level=2,
            shared_libs=None, chip=None):
    """Compiles the ``func.func`` named ``entry`` (default: the module's only
    function with a body) of the MLIR module ``ir`` and returns a
    ``CompiledFunction``.

    target: ``"cpu"`` (the host, through MLIR's ExecutionEngine) or
      ``"cuda"`` (NVIDIA GPU kernels through ``--posenc-to-nvvm``, host code
      through the ExecutionEngine, linked with libposenc_cuda_runtime.so).
      For ``"cuda"`` the device is probed first (``cuda_device()``): without
      a driver or a GPU, PosencError says so. Array arguments are copied
      into managed memory for the call (memref arguments copied back) and
      results copied out, so callers pass and get numpy arrays as on the
      CPU. A CUDA error during the call (or while copying the arguments)
      raises PosencError with the runtime library's message, and the process
      goes on (docs/reliability.md, "Failure model").
    pipeline: textual pass pipeline, default ``DEFAULT_PIPELINE`` (cpu) or
      ``builtin.module(posenc-to-nvvm{chip=...})`` (cuda); a bare
      pass list is nested into ``builtin.module(...)``. It must lower to the
      LLVM dialect and bufferize function boundaries to identity-layout
      memrefs.
    chip: cuda only, the target architecture when ``pipeline`` is not
      given; default: the device's (sm_90a on compute capability 9.0, which
      selects the warpgroup-MMA attention kernel; sm_80 on 8.0, ...).
    opt_level: LLVM optimization level, 0-3.
    shared_libs: libraries the JIT resolves symbols in, default MLIR's
      runner utils (libmlir_c_runner_utils.so, libmlir_runner_utils.so) and
      the OpenMP runtime (libomp.so) from the LLVM library directory, plus
      libposenc_cuda_runtime.so for ``"cuda"``.

    Raises PosencError with MLIR's diagnostics when parsing, lowering or
    JIT compilation fails, or when the signature has a type that cannot be
    passed from Python."""
    _check_options(entry, target, pipeline, opt_level, chip)
    library = get_library()
    memory = None
    if target == "cuda":
        runtime = get_cuda_runtime()
        _, capability = runtime.probe()
        memory = runtime.memory()
        if pipeline is None:
            pipeline = f"builtin.module(posenc-to-nvvm{{chip={chip or chip_for(capability)}}})"
    if pipeline is None:
        pipeline = DEFAULT_PIPELINE
    if shared_libs is None:
        shared_libs = library.default_shared_libs()
        if target == "cuda":
            shared_libs.append(runtime.path)
    shared_libs = [os.fspath(path) for path in shared_libs]
    jit, signature, lowered_ir = _lower_and_jit(library, ir, entry, pipeline,
                                                shared_libs, opt_level,
                                                destination_passing=target == "cpu")
    try:
        address = library.call(library.jit_lookup_packed, jit,
                               b"_mlir_ciface_" + signature["name"].encode("utf-8"),
                               what=f"cannot find the C interface of @{signature['name']}")
    except PosencError:
        library.jit_destroy(jit)
        raise
    return CompiledFunction(library, jit, address, signature, lowered_ir, memory)


def _check_options(entry, target, pipeline, opt_level, chip):
    """Raises PosencError for an argument of ``compile`` it cannot use."""
    if target not in ("cpu", "cuda"):
        raise PosencError(f"target '{target}' is not supported (supported: 'cpu', 'cuda')")
    if chip is not None and (target != "cuda" or pipeline is not None):
        raise PosencError("chip applies to target 'cuda' without an explicit pipeline")
    if chip is not None and not (isinstance(chip, str) and chip.startswith("sm_")):
        raise PosencError(f"chip must be an NVIDIA architecture such as 'sm_80', got {chip!r}")
    if entry is not None and not isinstance(entry, str):
        raise PosencError(f"entry must be a function name, got {type(entry).__name__}")
    if not isinstance(opt_level, int) or not 0 <= opt_level <= 3:
        raise PosencError(f"opt_level must be an int in [0, 3], got {opt_level!r}")


def _lower_and_jit(library, ir, entry, pipeline, shared_libs, opt_level,
                   destination_passing):
    """Parses ``ir``, checks the entry function's signature, prepares it for
    the C interface (destination-passing where ``destination_passing`` and
    the results allow, ``signature["destination_passing"]``), lowers the
    module with ``pipeline`` and JIT-compiles it. Returns (jit, signature,
    lowered IR)."""
    with library.lock:
        module = library.parse(ir)
        try:
            described = library.call(
                library.module_describe_function, module, (entry or "").encode("utf-8"),
                what="cannot find the entry function")
            signature = json.loads(library.take_string(described))
            # Check the signature before spending time on lowering.
            for i, description in enumerate(signature["arguments"]):
                TypeSpec(description, f"argument #{i} of @{signature['name']}")
            for i, description in enumerate(signature["results"]):
                TypeSpec(description, f"result #{i} of @{signature['name']}")

            library.call(library.module_prepare_for_jit, module,
                         signature["name"].encode("utf-8"), True,
                         what=f"cannot prepare @{signature['name']}")
            signature["destination_passing"] = (
                destination_passing and _to_destinations(library, module, signature))
            library.run_pipeline(module, pipeline)
            lowered_ir = library.print_module(module)

            paths = (ctypes.c_char_p * max(1, len(shared_libs)))(
                *[path.encode("utf-8") for path in shared_libs])
            jit = library.call(library.jit_create, module, opt_level, paths,
                               len(shared_libs), failed=lambda j: not j.ptr,
                               what="cannot JIT-compile the lowered module")
        finally:
            library.module_destroy(module)
    return jit, signature, lowered_ir


_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.-]*")


def _to_destinations(library, module, signature):
    """Rewrites the entry function to write its results into destination
    arguments (``posenc-results-to-destinations``) when every result is a
    statically shaped tensor; returns whether it did. The caller then
    passes one array per result (``CompiledFunction``): ``out=`` without a
    copy, and returned arrays from a pool instead of fresh memory. A
    function called elsewhere in the module keeps its results."""
    results = signature["results"]
    if not results or not _SIMPLE_NAME.fullmatch(signature["name"]):
        return False
    if any(r["kind"] != "tensor" or None in r["shape"] for r in results):
        return False
    try:
        library.run_pipeline(module, "builtin.module(posenc-results-to-destinations"
                                     f"{{function={signature['name']}}})")
    except PosencError as error:
        # The pass changes nothing when it fails.
        if "is used inside the module" in str(error):
            return False
        raise
    return True
