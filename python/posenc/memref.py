"""The memref ABI: how numpy values cross into compiled code and back.

A lowered entry function takes every memref as a pointer to MLIR's strided
descriptor ``{allocated, aligned, offset, sizes[rank], strides[rank]}``
(``StridedMemRefType<T, rank>``), and scalars by value. This module holds:

* the element types and their numpy/ctypes forms (``TypeSpec`` describes one
  argument or result of an entry function, from the C API's JSON signature);
* numpy has no bfloat16: bf16 values travel as ``np.uint16`` bit patterns
  (``to_bf16_bits``, ``from_bf16_bits``), f16 scalars as their bits;
* the checks and conversions of one value: ``array_argument`` /
  ``scalar_argument`` (numpy in), ``fill_descriptor``, ``copy_out`` /
  ``scalar_result`` (numpy out);
* where argument buffers live during a call: ``HostMemory`` (the numpy
  arrays' own memory, the CPU target) or ``CopiedMemory`` (copies in memory
  from an allocator, e.g. CUDA managed memory).
"""

import ctypes
import weakref

import numpy as np

from .errors import PosencError

__all__ = [
    "CopiedMemory",
    "HostMemory",
    "adopt_result",
    "TypeSpec",
    "array_argument",
    "copy_out",
    "descriptor_type",
    "fill_descriptor",
    "from_bf16_bits",
    "scalar_argument",
    "scalar_result",
    "to_bf16_bits",
]


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


# ------------------------------------------------------------------- types

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


def descriptor_type(rank):
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


class TypeSpec:
    """One argument or result type of the entry function, from the C API's
    description of it (``posencModuleDescribeFunction``)."""

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
        self.lowered_ctype = descriptor_type(self.rank) if self.is_buffer else self.ctype

    def shape_text(self):
        return "x".join("?" if size is None else str(size) for size in self.shape)


# -------------------------------------------------------------- numpy in

def array_argument(spec, value):
    """``value`` checked against the buffer type ``spec``: a numpy array of
    its dtype, rank and static sizes; C-contiguous (copied if need be, except
    for a memref, which the function may write through)."""
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


def fill_descriptor(spec, array, data):
    """A descriptor of ``spec``'s rank for the buffer at address ``data``
    holding ``array``'s elements in ``array``'s layout."""
    descriptor = spec.lowered_ctype()
    descriptor.allocated = data
    descriptor.aligned = data
    descriptor.offset = 0
    element_strides = np.array(array.strides, dtype=np.int64) // spec.dtype.itemsize
    for i in range(spec.rank):
        descriptor.sizes[i] = array.shape[i]
        descriptor.strides[i] = int(element_strides[i])
    return descriptor


def scalar_argument(spec, value):
    """``value`` checked against the scalar type ``spec``, as the Python
    value its ctype takes (bf16 and f16 as their bits)."""
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


# ------------------------------------------------------------- numpy out

def _row_major_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def adopt_result(spec, descriptor, free):
    """The result buffer ``descriptor`` points to as a numpy array that owns
    it (``free(descriptor.allocated)`` when the array is collected), without
    a copy; None when the layout is not row-major contiguous (the caller
    copies then). Fresh result memory is the one cost a returning call has
    over ``out=``: this saves the second fresh array and the copy."""
    shape = tuple(descriptor.sizes[i] for i in range(spec.rank))
    strides = tuple(descriptor.strides[i] for i in range(spec.rank))
    if any(size == 0 for size in shape) or not descriptor.aligned:
        return None
    if any(stride != expected for size, stride, expected
           in zip(shape, strides, _row_major_strides(shape)) if size != 1):
        return None
    count = 1
    for size in shape:
        count *= size
    itemsize = spec.dtype.itemsize
    start = descriptor.aligned + descriptor.offset * itemsize
    buffer = (ctypes.c_byte * (count * itemsize)).from_address(start)
    # Freed when numpy's last reference to the buffer goes (not at exit:
    # the process's memory goes with it).
    weakref.finalize(buffer, free, descriptor.allocated).atexit = False
    return np.frombuffer(buffer, dtype=spec.dtype).reshape(shape)


def copy_out(spec, descriptor, into=None):
    """A fresh C-ordered numpy array with the elements ``descriptor`` (of
    type ``spec``) points to, in any strided layout, or those elements
    written into ``into`` (a C-contiguous array of the result's dtype, whose
    shape must be the result's), which is returned. The buffer itself is
    left to the caller."""
    shape = tuple(descriptor.sizes[i] for i in range(spec.rank))
    strides = tuple(descriptor.strides[i] for i in range(spec.rank))
    itemsize = spec.dtype.itemsize
    if into is not None and into.shape != shape:
        raise PosencError(f"{spec.where}: out= has shape {into.shape}, the result {shape}")
    if any(size == 0 for size in shape):
        return np.empty(shape, dtype=spec.dtype) if into is None else into
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
    if into is not None:
        np.copyto(into, view)
        return into
    return np.array(view, copy=True, order="C")


def scalar_result(spec, raw):
    """The scalar the C interface returned (``raw``, its ctype's value) as a
    numpy scalar of ``spec``'s type (bf16 widened to float32)."""
    if spec.text == "bf16":
        return from_bf16_bits(np.uint16(raw))[()]
    if spec.text == "f16":
        return np.uint16(raw).view(np.float16)
    return spec.dtype.type(raw)


# ------------------------------------------------------------------ memory

class HostMemory:
    """CPU target: arguments are passed in place (the numpy arrays' own
    memory); result buffers are malloc'ed by the compiled code and released
    with ``free`` (libc's)."""
    target = "cpu"
    copies_arguments = False

    def __init__(self, free):
        self.free = free


class CopiedMemory:
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
