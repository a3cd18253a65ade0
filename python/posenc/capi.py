"""The ctypes binding of the C API (``libPosencCAPI.so``, ``posenc-c/Posenc.h``).

``get_library()`` loads the library once per process, declares the
prototypes of the functions the package calls and creates the one MLIR
context every compilation uses (serialized by ``Library.lock``). Fallible C
functions report a failure through a trailing ``char **`` error string;
``Library.call`` turns it into a ``PosencError`` carrying MLIR's diagnostics.

The library is found through, in order, ``$POSENC_CAPI_LIB`` (the file),
``$POSENC_BUILD_DIR/lib`` (a build tree) and this package's directory (an
installation, through a relative symlink). It is loaded at the first
``posenc.compile``, so importing ``posenc`` works without it.
"""

import ctypes
import os
import threading

from ._once import once
from .errors import PosencError

__all__ = ["Library", "get_library", "library_path"]

_LIBRARY_NAME = "libPosencCAPI.so"
_CAPI_VERSION = 1
_SOURCE_NAME = b"<input>"


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


class Library:
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


@once
def get_library():
    """The process's ``Library``, loaded at the first call."""
    path = library_path()
    try:
        return Library(path)
    except OSError as error:
        raise PosencError(f"cannot load {path}: {error}") from error
