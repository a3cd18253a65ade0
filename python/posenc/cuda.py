"""The CUDA runtime of ``compile(..., target="cuda")``.

``libposenc_cuda_runtime.so`` holds the ``mgpu*`` functions that the host
code ``--posenc-to-nvvm`` writes calls (module load, launch, managed
allocations), plus ``posencCudaProbe``, which describes the default device
without ending the process. This module loads it with ctypes next to
``libPosencCAPI.so``, probes the device, picks the ``--posenc-to-nvvm`` chip
for its compute capability, and provides the managed-memory
``CopiedMemory`` that calls on the GPU pass their arguments through
(docs/gpu.md, "From Python").
"""

import ctypes
import os

from ._once import once
from .capi import library_path
from .errors import PosencError
from .memref import CopiedMemory

__all__ = ["CudaRuntime", "chip_for", "cuda_device", "cuda_runtime_path",
           "get_cuda_runtime"]

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


class CudaRuntime:
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
        self.alloc_managed = lib.posencCudaAllocManaged
        self.alloc_managed.restype = ctypes.c_int
        self.alloc_managed.argtypes = [ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p),
                                       ctypes.c_char_p, ctypes.c_size_t]
        self.mem_free = lib.mgpuMemFree
        self.mem_free.restype = None
        self.mem_free.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def probe(self):
        """(description, (major, minor)) of the default device; raises
        PosencError when no program could run on it. Never ends the
        process (the mgpu* functions exit on a CUDA error outside a call)."""
        message = ctypes.create_string_buffer(512)
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        status = self.probe_fn(message, len(message), ctypes.byref(major), ctypes.byref(minor))
        text = message.value.decode("utf-8", errors="replace")
        if status != 0:
            raise PosencError(f"no usable CUDA device: {text}")
        return text, (major.value, minor.value)

    def managed(self, size):
        """`size` bytes of managed memory; PosencError (not an exit) when
        the allocation fails."""
        pointer, message = ctypes.c_void_p(), ctypes.create_string_buffer(256)
        status = self.alloc_managed(size, ctypes.byref(pointer), message, len(message))
        if status != 0:
            raise PosencError(message.value.decode("utf-8", errors="replace"))
        return pointer.value

    def memory(self):
        """The memory model of calls on the GPU: arguments copied into
        managed memory, results (managed too) released with mgpuMemFree."""
        return CopiedMemory("cuda", self.managed, lambda pointer: self.mem_free(pointer, None))


@once
def get_cuda_runtime():
    """The process's ``CudaRuntime``, loaded at the first call."""
    return CudaRuntime(cuda_runtime_path())


def cuda_device():
    """The default CUDA device as ``(description, (major, minor))``, e.g.
    ``("NVIDIA H200 (compute capability 9.0)", (9, 0))``; raises PosencError
    with the reason when the runtime library, the driver or a device is
    missing."""
    return get_cuda_runtime().probe()


def chip_for(capability):
    """The --posenc-to-nvvm chip for a compute capability: sm_90a on 9.0
    (Hopper: the warpgroup-MMA kernel), sm_MN otherwise."""
    major, minor = capability
    return "sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}"
