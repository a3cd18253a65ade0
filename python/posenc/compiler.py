"""Compile MLIR functions on tensors and call them on numpy arrays.

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
lowers it with a pass pipeline (``posenc-cpu-pipeline`` by default), JIT-compiles
it with MLIR's ExecutionEngine and returns a ``CompiledFunction``.

How a call works. The entry function is marked ``llvm.emit_c_interface`` and its
tensor arguments ``bufferization.writable = false`` before lowering, so the
lowered code never writes into the caller's arrays. The pipeline bufferizes
function boundaries to identity-layout memrefs, and the JIT exposes
``_mlir_ciface_<name>``, which takes each memref as a pointer to a strided
descriptor ``{allocated, aligned, offset, sizes[rank], strides[rank]}`` and
returns memrefs (or several results) through a leading pointer to a result
struct. It is called through the ExecutionEngine's packed wrapper
(``args[i]`` points to the i-th argument). Result buffers are malloc'ed by the
compiled code; they are copied into fresh numpy arrays and freed.

``target="cuda"`` compiles with ``--posenc-to-nvvm`` instead and links the
host code with libposenc_cuda_runtime.so; arguments are copied into CUDA
managed memory for the call and results (managed memory too) copied out and
released (docs/gpu.md, "From Python").

Types: tensors (static or dynamic dims) of f16, bf16, f32, f64, i1, i8, i16,
i32, i64 and index, identity-layout memrefs of the same, and integer, index and
float scalars. numpy has no bfloat16: bf16 tensors are passed and returned as
``np.uint16`` arrays of bf16 bit patterns (see ``to_bf16_bits`` and
``from_bf16_bits``). Scalars are Python or numpy numbers.

Dynamic sizes that must agree (e.g. the length of RoPE positions and the
sequence dim of its input) are checked by the compiled code; a failed check
raises ``PosencError`` with the op's message instead of aborting the
interpreter (buffers the call allocated before the check are leaked).
Upstream ops without such checks (e.g. an elementwise add of two `?` tensors)
leave a mismatch undefined, so callers must still pass consistent shapes.

The shared library ``libPosencCAPI.so`` is found through, in order,
``$POSENC_CAPI_LIB`` (the file), ``$POSENC_BUILD_DIR/lib`` (a build tree) and
this package's directory (an installation). It is loaded at the first
``compile``, so importing ``posenc`` works without it.
"""

import ctypes
import json
import os
import threading

import numpy as np

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

_LIBRARY_NAME = "libPosencCAPI.so"
_CAPI_VERSION = 1
_SOURCE_NAME = b"<input>"


class PosencError(Exception):
    """A failure to compile or call: MLIR's diagnostics, a JIT error, or a
    mismatch between the arguments and the function's signature.

    ``str(error)`` is the whole message; ``error.diagnostics`` is the text that
    came from MLIR/LLVM (``file:line:col: error: ...``), or None when the
    error was found in Python."""

    def __init__(self, message, diagnostics=None):
        super().__init__(message)
        self.diagnostics = diagnostics


# ------------------------------------------------------------------ bfloat16

def to_bf16_bits(values):
    """Rounds float32 values (array or scalar) to bfloat16, to nearest with
    ties to even, and returns the bit patterns as a ``np.uint16`` array of
    the same shape. NaNs stay (quiet) NaNs."""
    floats = np.asarray(values, dtype=np.float32)
    # int64 holds every uint32 pattern plus the rounding increment, and mixes
    # with Python ints also for 0-d arrays.
    bits = floats.view(np.uint32).astype(np.int64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    quiet_nan = (bits >> 16) | 0x40
    return np.where(np.isnan(floats), quiet_nan, rounded).astype(np.uint16)


def from_bf16_bits(bits):
    """Widens bfloat16 bit patterns (a ``np.uint16`` array) to float32,
    exactly."""
    bits = np.asarray(bits)
    if bits.dtype != np.uint16:
        raise TypeError(f"bf16 bit patterns must be a uint16 array, got {bits.dtype}")
    widened = np.left_shift(bits.astype(np.uint32), np.uint32(16), dtype=np.uint32)
    return np.asarray(widened).view(np.float32)


# ------------------------------------------------------------- the C library

class _Context(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _Module(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _Jit(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


_Error = ctypes.POINTER(ctypes.c_void_p)


def library_path():
    """The path of libPosencCAPI.so that ``compile`` loads (see the module
    documentation); raises PosencError when there is none."""
    explicit = os.environ.get("POSENC_CAPI_LIB")
    if explicit:
        if not os.path.isfile(explicit):
            raise PosencError(f"POSENC_CAPI_LIB={explicit} does not exist")
        return explicit
    build_dir = os.environ.get("POSENC_BUILD_DIR")
    if build_dir:
        candidate = os.path.join(build_dir, "lib", _LIBRARY_NAME)
        if not os.path.isfile(candidate):
            raise PosencError(
                f"POSENC_BUILD_DIR={build_dir} has no lib/{_LIBRARY_NAME}; "
                "build the PosencCAPI target there")
        return candidate
    packaged = os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIBRARY_NAME)
    if os.path.isfile(packaged):
        return packaged
    raise PosencError(
        f"cannot find {_LIBRARY_NAME}: set POSENC_BUILD_DIR to the build "
        "directory or POSENC_CAPI_LIB to the library")


class _Library:
    """libPosencCAPI.so with its prototypes, plus the one context that every
    compilation in this process uses (serialized by ``lock``)."""

    def __init__(self, path):
        self.path = path
        lib = ctypes.CDLL(path)
        self.lib = lib

        def proto(name, restype, *argtypes):
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = list(argtypes)
            return function

        c_char_p, c_void_p, c_bool = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_bool
        self.version = proto("posencGetCAPIVersion", ctypes.c_int)
        if self.version() != _CAPI_VERSION:
            raise PosencError(f"{path} implements C API version {self.version()}, "
                              f"this module needs {_CAPI_VERSION}")
        self.runtime_dir = proto("posencGetRuntimeLibraryDir", c_char_p)
        self.string_free = proto("posencStringFree", None, c_void_p)
        self.context_create = proto("posencContextCreate", _Context)
        self.context_destroy = proto("posencContextDestroy", None, _Context)
        self.module_parse = proto("posencModuleParse", _Module, _Context, c_char_p,
                                  ctypes.c_size_t, c_char_p, _Error)
        self.module_destroy = proto("posencModuleDestroy", None, _Module)
        self.module_print = proto("posencModulePrint", c_void_p, _Module, c_bool, c_bool)
        self.module_run_pipeline = proto("posencModuleRunPipeline", c_bool, _Module,
                                         c_char_p, _Error)
        self.module_describe_function = proto("posencModuleDescribeFunction", c_void_p,
                                              _Module, c_char_p, _Error)
        self.module_prepare_for_jit = proto("posencModulePrepareForJit", c_bool, _Module,
                                            c_char_p, c_bool, _Error)
        self.jit_create = proto("posencJitCreate", _Jit, _Module, ctypes.c_int,
                                ctypes.POINTER(c_char_p), ctypes.c_size_t, _Error)
        self.jit_destroy = proto("posencJitDestroy", None, _Jit)
        self.jit_lookup_packed = proto("posencJitLookupPacked", c_void_p, _Jit, c_char_p,
                                       _Error)
        self.jit_call = proto("posencJitCall", c_bool, c_void_p,
                              ctypes.POINTER(ctypes.c_void_p), _Error)

        libc = ctypes.CDLL(None)
        self.free = libc.free
        self.free.restype = None
        self.free.argtypes = [c_void_p]

        self.lock = threading.RLock()
        self.context = self.context_create()
        if not self.context.ptr:
            raise PosencError("cannot create an MLIR context")

    def take_string(self, pointer):
        """Copies out and frees a string the C API returned."""
        if not pointer:
            return None
        try:
            return ctypes.string_at(pointer).decode("utf-8", errors="replace")
        finally:
            self.string_free(pointer)

    def call(self, function, *args, failed=lambda result: not result, what):
        """Calls a fallible C function; raises PosencError with its message."""
        error = ctypes.c_void_p()
        result = function(*args, ctypes.byref(error))
        message = self.take_string(error.value)
        if failed(result):
            raise PosencError(f"{what}:\n{message}" if message else what, message)
        return result

    def parse(self, ir):
        if isinstance(ir, str):
            ir = ir.encode("utf-8")
        elif not isinstance(ir, (bytes, bytearray)):
            raise PosencError(f"the IR must be a str, got {type(ir).__name__}")
        return self.call(self.module_parse, self.context, bytes(ir), len(ir),
                         _SOURCE_NAME, failed=lambda m: not m.ptr,
                         what="cannot parse the IR")

    def run_pipeline(self, module, pipeline):
        if not isinstance(pipeline, str):
            raise PosencError(f"the pipeline must be a str, got {type(pipeline).__name__}")
        self.call(self.module_run_pipeline, module, pipeline.encode("utf-8"),
                  what=f"pass pipeline '{pipeline}' failed")

    def print_module(self, module):
        return self.take_string(self.module_print(module, False, False))

    def default_shared_libs(self):
        runtime_dir = self.runtime_dir().decode("utf-8")
        # libomp: the fused path runs its tile loop with the OpenMP runtime
        # (threads from OMP_NUM_THREADS).
        names = ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so", "libomp.so"]
        paths = [os.path.join(runtime_dir, name) for name in names]
        return [path for path in paths if os.path.isfile(path)]


_library = None
_library_lock = threading.Lock()


def _get_library():
    global _library
    with _library_lock:
        if _library is None:
            path = library_path()
            try:
                _library = _Library(path)
            except OSError as error:
                raise PosencError(f"cannot load {path}: {error}") from error
        return _library


# ---------------------------------------------------------------- signature

# Element and scalar types: numpy dtype and ctypes type of one value.
_ELEMENT_TYPES = {
    "f16": (np.float16, ctypes.c_uint16),
    "bf16": (np.uint16, ctypes.c_uint16),
    "f32": (np.float32, ctypes.c_float),
    "f64": (np.float64, ctypes.c_double),
    "i1": (np.bool_, ctypes.c_bool),
    "i8": (np.int8, ctypes.c_int8),
    "i16": (np.int16, ctypes.c_int16),
    "i32": (np.int32, ctypes.c_int32),
    "i64": (np.int64, ctypes.c_int64),
    "si8": (np.int8, ctypes.c_int8),
    "si16": (np.int16, ctypes.c_int16),
    "si32": (np.int32, ctypes.c_int32),
    "si64": (np.int64, ctypes.c_int64),
    "ui8": (np.uint8, ctypes.c_uint8),
    "ui16": (np.uint16, ctypes.c_uint16),
    "ui32": (np.uint32, ctypes.c_uint32),
    "ui64": (np.uint64, ctypes.c_uint64),
    "index": (np.int64, ctypes.c_int64),
}

_descriptor_types = {}


def _descriptor_type(rank):
    """The ctypes struct of a ranked memref descriptor (MLIR's
    StridedMemRefType<T, rank>)."""
    if rank not in _descriptor_types:
        class Descriptor(ctypes.Structure):
            _fields_ = [
                ("allocated", ctypes.c_void_p),
                ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64),
                ("sizes", ctypes.c_int64 * rank),
                ("strides", ctypes.c_int64 * rank),
            ]
        Descriptor.__name__ = f"MemRefDescriptor{rank}D"
        _descriptor_types[rank] = Descriptor
    return _descriptor_types[rank]


class _TypeSpec:
    """One argument or result type of the entry function."""

    def __init__(self, description, where):
        self.text = description["type"]
        self.kind = description["kind"]
        self.where = where
        if self.kind in ("tensor", "memref"):
            if self.kind == "memref" and not description["identity_layout"]:
                raise PosencError(f"{where} has type {self.text}: only memrefs with the "
                                  "identity layout can be passed to or from Python")
            if self.kind == "memref" and description["memory_space"]:
                raise PosencError(f"{where} has type {self.text}: only memrefs in the "
                                  "default memory space can be passed to or from Python")
            self.element = description["element_type"]
            self.shape = tuple(description["shape"])
            self.rank = len(self.shape)
            type_name = self.element
        elif self.kind == "scalar":
            type_name = self.text
        else:
            raise PosencError(f"{where} has type {self.text}, which cannot be passed to "
                              "or from Python (ranked tensors, identity-layout memrefs "
                              "and integer/index/float scalars can)")
        if type_name not in _ELEMENT_TYPES:
            raise PosencError(f"{where} has type {self.text}: element type {type_name} is "
                              f"not supported (supported: {', '.join(_ELEMENT_TYPES)})")
        self.is_float = type_name in ("f16", "bf16", "f32", "f64")
        self.dtype = np.dtype(_ELEMENT_TYPES[type_name][0])
        self.ctype = _ELEMENT_TYPES[type_name][1]
        self.is_buffer = self.kind in ("tensor", "memref")
        # How the value sits in the C interface: memrefs by descriptor,
        # scalars by value.
        self.lowered_ctype = _descriptor_type(self.rank) if self.is_buffer else self.ctype

    def shape_text(self):
        return "x".join("?" if size is None else str(size) for size in self.shape)


# -------------------------------------------------------------------- memory

class _HostMemory:
    """CPU target: arguments are passed in place (the numpy arrays' own
    memory); result buffers are malloc'ed by the compiled code."""
    target = "cpu"
    copies_arguments = False

    def __init__(self, library):
        self.free = library.free


class _CopiedMemory:
    """Arguments are copied into buffers from ``alloc`` (memref arguments
    copied back after the call), result buffers released with ``free``.
    The CUDA target uses managed memory, which both the host code and the
    kernels can access (see docs/gpu.md)."""
    copies_arguments = True

    def __init__(self, target, alloc, free):
        self.target = target
        self._alloc = alloc
        self.free = free

    def alloc(self, size):
        pointer = self._alloc(size)
        if not pointer:
            raise PosencError(f"cannot allocate {size} bytes for a {self.target} argument")
        return pointer


_CUDA_RUNTIME_NAME = "libposenc_cuda_runtime.so"


def cuda_runtime_path():
    """The path of libposenc_cuda_runtime.so (the ``mgpu*`` functions that
    GPU host code calls): next to libPosencCAPI.so (the library the
    package's symlink points to, once installed). Raises PosencError when
    it was not built (CMake builds it when it finds the CUDA toolkit)."""
    # An installed package reaches libPosencCAPI.so through a symlink: the
    # runtime is installed next to the library itself.
    path = os.path.join(os.path.dirname(os.path.realpath(library_path())),
                        _CUDA_RUNTIME_NAME)
    if not os.path.isfile(path):
        raise PosencError(f"target 'cuda' needs {_CUDA_RUNTIME_NAME}, which is built "
                          f"when CMake finds the CUDA toolkit; there is none at {path}")
    return path


class _CudaRuntime:
    """libposenc_cuda_runtime.so, loaded with ctypes: the device probe and
    managed allocations for arguments."""

    def __init__(self, path):
        self.path = path
        try:
            lib = ctypes.CDLL(path)
        except OSError as error:
            raise PosencError(f"cannot load {path}: {error} (target 'cuda' needs an NVIDIA "
                              "driver, libcuda.so.1; check nvidia-smi)") from error
        self.probe_fn = lib.posencCudaProbe
        self.probe_fn.restype = ctypes.c_int
        self.probe_fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
        self.mem_alloc = lib.mgpuMemAlloc
        self.mem_alloc.restype = ctypes.c_void_p
        self.mem_alloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
        self.mem_free = lib.mgpuMemFree
        self.mem_free.restype = None
        self.mem_free.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def probe(self):
        """(description, (major, minor)) of the default device; raises
        PosencError when no program could run on it. Never ends the
        process (the mgpu* functions do on a CUDA error)."""
        message = ctypes.create_string_buffer(512)
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        status = self.probe_fn(message, len(message), ctypes.byref(major), ctypes.byref(minor))
        text = message.value.decode("utf-8", errors="replace")
        if status != 0:
            raise PosencError(f"no usable CUDA device: {text}")
        return text, (major.value, minor.value)

    def memory(self):
        return _CopiedMemory("cuda", lambda size: self.mem_alloc(size, None, True),
                             lambda pointer: self.mem_free(pointer, None))


_cuda_runtime = None


def _get_cuda_runtime():
    global _cuda_runtime
    with _library_lock:
        if _cuda_runtime is None:
            _cuda_runtime = _CudaRuntime(cuda_runtime_path())
        return _cuda_runtime


def cuda_device():
    """The default CUDA device as ``(description, (major, minor))``, e.g.
    ``("NVIDIA H200 (compute capability 9.0)", (9, 0))``; raises PosencError
    with the reason when the runtime library, the driver or a device is
    missing."""
    return _get_cuda_runtime().probe()


def _chip_for(capability):
    """The --posenc-to-nvvm chip for a compute capability: sm_90a on 9.0
    (Hopper: the warpgroup-MMA kernel), sm_MN otherwise."""
    major, minor = capability
    return "sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}"


# ------------------------------------------------------------------- calling

class CompiledFunction:
    """A JIT-compiled function; call it with one value per argument.

    Returns None, one numpy array (or Python/numpy scalar), or a tuple when
    the function has several results. Attributes: ``name``, ``signature``
    (the C API's description of the source function: argument and result
    types), ``lowered_ir`` (the module after the pipeline)."""

    def __init__(self, library, jit, packed, signature, lowered_ir, memory=None):
        self._library = library
        self._memory = memory or _HostMemory(library)
        self.target = self._memory.target
        self._jit = jit
        self._packed = packed
        self.name = signature["name"]
        self.signature = signature
        self.lowered_ir = lowered_ir
        self._arguments = [_TypeSpec(description, f"argument #{i} of @{self.name}")
                           for i, description in enumerate(signature["arguments"])]
        self._results = [_TypeSpec(description, f"result #{i} of @{self.name}")
                         for i, description in enumerate(signature["results"])]
        # The C interface returns a struct (memrefs, several results) through
        # a leading pointer argument and a lone scalar by value, which the
        # packed wrapper stores through a trailing pointer.
        self._result_by_pointer = (len(self._results) > 1
                                   or any(r.is_buffer for r in self._results))
        self._result_struct = None
        if self._result_by_pointer:
            self._result_struct = type("Results", (ctypes.Structure,), {
                "_fields_": [(f"r{i}", r.lowered_ctype)
                             for i, r in enumerate(self._results)]})

    def __repr__(self):
        arguments = ", ".join(a.text for a in self._arguments)
        results = ", ".join(r.text for r in self._results)
        return f"<CompiledFunction @{self.name}({arguments}) -> ({results})>"

    def __del__(self):
        jit, self._jit = getattr(self, "_jit", None), None
        if jit is not None and jit.ptr and self._library is not None:
            self._library.jit_destroy(jit)

    # -- arguments

    def _array_argument(self, spec, value):
        if isinstance(value, np.generic) and spec.rank == 0:
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            raise PosencError(f"{spec.where} ({spec.text}) must be a numpy array of "
                              f"{spec.dtype}, got {type(value).__name__}")
        if value.dtype != spec.dtype:
            hint = (" (bf16 tensors take uint16 arrays of bf16 bits: see "
                    "posenc.to_bf16_bits)" if spec.element == "bf16" else "")
            raise PosencError(f"{spec.where} ({spec.text}) must have dtype {spec.dtype}, "
                              f"got {value.dtype}{hint}")
        if value.ndim != spec.rank:
            raise PosencError(f"{spec.where} ({spec.text}) must have rank {spec.rank}, "
                              f"got an array of shape {value.shape}")
        for dim, (expected, actual) in enumerate(zip(spec.shape, value.shape)):
            if expected is not None and expected != actual:
                raise PosencError(f"{spec.where} ({spec.text}) must have shape "
                                  f"{spec.shape_text()}, got {value.shape} (dim {dim} is "
                                  f"{actual}, expected {expected})")
        if spec.kind == "memref":
            # The function may write through a memref: it must be this array.
            if not (value.flags.c_contiguous and value.flags.aligned
                    and value.flags.writeable):
                raise PosencError(f"{spec.where} ({spec.text}) must be a C-contiguous, "
                                  "aligned, writeable array")
        elif not (value.flags.c_contiguous and value.flags.aligned):
            value = np.ascontiguousarray(value)
        return value

    def _scalar_argument(self, spec, value):
        if spec.is_float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, float, np.integer, np.floating)):
                raise PosencError(f"{spec.where} ({spec.text}) must be a number, got "
                                  f"{type(value).__name__}")
            if spec.text == "bf16":
                return int(to_bf16_bits(value))
            if spec.text == "f16":
                return int(np.float16(value).view(np.uint16))
            return float(value)
        if spec.dtype.kind == "b":
            if not isinstance(value, (bool, np.bool_, int, np.integer)) or value not in (0, 1):
                raise PosencError(f"{spec.where} ({spec.text}) must be a bool, got {value!r}")
            return bool(value)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise PosencError(f"{spec.where} ({spec.text}) must be an int, got "
                              f"{type(value).__name__}")
        info = np.iinfo(spec.dtype)
        if not info.min <= int(value) <= info.max:
            raise PosencError(f"{spec.where} ({spec.text}): {value} is out of range")
        return int(value)

    # -- results

    def _array_result(self, spec, descriptor, argument_buffers, freed):
        shape = tuple(descriptor.sizes[i] for i in range(spec.rank))
        strides = tuple(descriptor.strides[i] for i in range(spec.rank))
        itemsize = spec.dtype.itemsize
        if any(size == 0 for size in shape):
            array = np.empty(shape, dtype=spec.dtype)
        else:
            if not descriptor.aligned:
                raise PosencError(f"{spec.where}: the compiled code returned a null buffer")
            low = sum(min(0, (size - 1) * stride) for size, stride in zip(shape, strides))
            high = sum(max(0, (size - 1) * stride) for size, stride in zip(shape, strides))
            start = descriptor.aligned + (descriptor.offset + low) * itemsize
            span = (ctypes.c_byte * ((high - low + 1) * itemsize)).from_address(start)
            flat = np.frombuffer(span, dtype=spec.dtype)
            view = np.lib.stride_tricks.as_strided(
                flat[-low:], shape=shape,
                strides=tuple(stride * itemsize for stride in strides))
            array = np.array(view, copy=True, order="C")
        # The buffer was allocated by the compiled code (malloc; managed
        # memory on the GPU) and is now ours to free -- unless it is one of
        # the arguments' buffers (a memref argument returned as is) or was
        # freed already (a value returned twice).
        allocated = descriptor.allocated
        if allocated and allocated not in argument_buffers and allocated not in freed:
            freed.add(allocated)
            self._memory.free(allocated)
        return array

    def _scalar_result(self, spec, raw):
        if spec.text == "bf16":
            return from_bf16_bits(np.uint16(raw))[()]
        if spec.text == "f16":
            return np.uint16(raw).view(np.float16)
        return spec.dtype.type(raw)

    def __call__(self, *args):
        if self._jit is None:
            raise PosencError(f"@{self.name} was destroyed")
        if len(args) != len(self._arguments):
            expected = ", ".join(a.text for a in self._arguments)
            raise PosencError(f"@{self.name} takes {len(self._arguments)} argument(s) "
                              f"({expected}), got {len(args)}")
        keep_alive = []
        argument_buffers = set()
        slots = []
        # Buffers the memory model made for the arguments: (pointer, array,
        # bytes, written back).
        copies = []
        try:
            return self._call(args, keep_alive, argument_buffers, slots, copies)
        finally:
            for pointer, _, _, _ in copies:
                self._memory.free(pointer)

    def _call(self, args, keep_alive, argument_buffers, slots, copies):
        results = None
        if self._result_by_pointer:
            results = self._result_struct()
            results_pointer = ctypes.c_void_p(ctypes.addressof(results))
            keep_alive.append(results_pointer)
            slots.append(ctypes.addressof(results_pointer))

        for spec, value in zip(self._arguments, args):
            if spec.is_buffer:
                array = self._array_argument(spec, value)
                descriptor = spec.lowered_ctype()
                data = array.ctypes.data
                if self._memory.copies_arguments and array.nbytes:
                    pointer = self._memory.alloc(array.nbytes)
                    copies.append((pointer, array, array.nbytes, spec.kind == "memref"))
                    ctypes.memmove(pointer, data, array.nbytes)
                    data = pointer
                descriptor.allocated = data
                descriptor.aligned = data
                descriptor.offset = 0
                element_strides = (np.array(array.strides, dtype=np.int64)
                                   // spec.dtype.itemsize)
                for i in range(spec.rank):
                    descriptor.sizes[i] = array.shape[i]
                    descriptor.strides[i] = int(element_strides[i])
                descriptor_pointer = ctypes.c_void_p(ctypes.addressof(descriptor))
                keep_alive += [array, descriptor, descriptor_pointer]
                argument_buffers.add(data)
                slots.append(ctypes.addressof(descriptor_pointer))
            else:
                scalar = spec.ctype(self._scalar_argument(spec, value))
                keep_alive.append(scalar)
                slots.append(ctypes.addressof(scalar))

        scalar_result = None
        if not self._result_by_pointer and self._results:
            scalar_result = self._results[0].ctype()
            slots.append(ctypes.addressof(scalar_result))

        packed = (ctypes.c_void_p * max(1, len(slots)))(*slots)
        # Through posencJitCall: a failed run-time check of the compiled code
        # (e.g. inconsistent dynamic sizes) raises PosencError instead of
        # aborting the interpreter.
        self._library.call(self._library.jit_call, self._packed, packed,
                           what=f"@{self.name} failed")
        # A memref argument is the caller's array: what the function wrote
        # into its copy goes back.
        for pointer, array, size, written_back in copies:
            if written_back:
                ctypes.memmove(array.ctypes.data, pointer, size)

        if scalar_result is not None:
            return self._scalar_result(self._results[0], scalar_result.value)
        if results is None:
            return None
        # Convert every result before raising anything, so that no buffer
        # leaks.
        outputs, freed, failure = [], set(), None
        for i, spec in enumerate(self._results):
            raw = getattr(results, f"r{i}")
            try:
                if spec.is_buffer:
                    outputs.append(self._array_result(spec, raw, argument_buffers, freed))
                else:
                    outputs.append(self._scalar_result(spec, raw))
            except PosencError as error:
                failure = failure or error
        if failure is not None:
            raise failure
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


# ----------------------------------------------------------------- frontend

def run_pipeline(ir, pipeline=DEFAULT_PIPELINE):
    """Parses ``ir``, runs the textual pass ``pipeline`` on it and returns the
    resulting module as text. Raises PosencError with MLIR's diagnostics."""
    library = _get_library()
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
      CPU. A CUDA error during the call ends the process with the runtime
      library's message (see docs/gpu.md).
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
    library = _get_library()
    memory = None
    if target == "cuda":
        runtime = _get_cuda_runtime()
        _, capability = runtime.probe()
        memory = runtime.memory()
        if pipeline is None:
            pipeline = f"builtin.module(posenc-to-nvvm{{chip={chip or _chip_for(capability)}}})"
    if pipeline is None:
        pipeline = DEFAULT_PIPELINE
    if shared_libs is None:
        shared_libs = library.default_shared_libs()
        if target == "cuda":
            shared_libs.append(runtime.path)
    shared_libs = [os.fspath(path) for path in shared_libs]
    entry_name = (entry or "").encode("utf-8")

    with library.lock:
        module = library.parse(ir)
        try:
            described = library.call(
                library.module_describe_function, module, entry_name,
                what="cannot find the entry function")
            signature = json.loads(library.take_string(described))
            # Check the signature before spending time on lowering.
            for i, description in enumerate(signature["arguments"]):
                _TypeSpec(description, f"argument #{i} of @{signature['name']}")
            for i, description in enumerate(signature["results"]):
                _TypeSpec(description, f"result #{i} of @{signature['name']}")

            name = signature["name"].encode("utf-8")
            library.call(library.module_prepare_for_jit, module, name, True,
                         what=f"cannot prepare @{signature['name']}")
            library.run_pipeline(module, pipeline)
            lowered_ir = library.print_module(module)

            paths = (ctypes.c_char_p * max(1, len(shared_libs)))(
                *[path.encode("utf-8") for path in shared_libs])
            jit = library.call(library.jit_create, module, opt_level, paths,
                               len(shared_libs), failed=lambda j: not j.ptr,
                               what="cannot JIT-compile the lowered module")
        finally:
            library.module_destroy(module)

    try:
        address = library.call(library.jit_lookup_packed, jit,
                               b"_mlir_ciface_" + name,
                               what=f"cannot find the C interface of @{signature['name']}")
    except PosencError:
        library.jit_destroy(jit)
        raise
    return CompiledFunction(library, jit, address, signature,
                            lowered_ir, memory)
