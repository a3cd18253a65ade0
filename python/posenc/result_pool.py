"""``ResultPool``: result arrays whose memory is reused once they are dropped.

A compiled function that writes its results into destinations
(``posenc-results-to-destinations``) needs an array for each result of a
call that was given no ``out=``. A fresh large array costs a page fault per
page on its first write -- for a 32 MiB result several times the kernel
itself -- because the allocator hands large blocks back to the operating
system when they are freed. The pool keeps that memory instead: each array
it hands out is a view of a block the pool owns, tied to a small lease
object; when the caller's last reference to the array (and to any view of
it) goes, the lease dies and its block returns to the pool, already faulted
in, for the next call's result of the same size. In a loop such as
``for x in xs: y = f(x)`` two blocks alternate (the previous ``y`` is alive
while the next call runs).

What the caller sees is the same as with fresh arrays: an array is never
handed out while any reference to it, or a view of it, exists. At most
``keep`` free blocks of each size are kept; the rest are released. Small
results (under ``min_bytes``) are plain numpy arrays.
"""

import math
import threading
import weakref

import numpy as np

__all__ = ["ResultPool", "empty", "empty_like"]

_ALIGNMENT = 64  # bytes: a cache line, and an AVX-512 vector


class _Lease:
    """The base object of a handed-out array: exposes the block's memory
    through the array interface and returns the block when it dies."""

    def __init__(self, block, offset, shape, dtype):
        self.__array_interface__ = {
            "data": (block.__array_interface__["data"][0] + offset, False),
            "shape": shape,
            "typestr": dtype.str,
            "version": 3,
        }
        self._block = block


def _aligned_offset(block):
    """Bytes from the start of ``block`` to its first 64-byte boundary."""
    return -block.__array_interface__["data"][0] % _ALIGNMENT


def empty(shape, dtype=np.float32):
    """An uninitialized C-contiguous array aligned to 64 bytes. Compiled
    code stores whole vectors: into a destination (``out=``) at numpy's
    default 16-byte alignment, a vector store can straddle two cache lines,
    which measured a large slowdown of memory-bound kernels
    (docs/design.md, "Calling compiled code")."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = math.prod(shape) * dtype.itemsize
    block = np.empty(nbytes + _ALIGNMENT, dtype=np.uint8)
    offset = _aligned_offset(block)
    return block[offset:offset + nbytes].view(dtype).reshape(shape)


def empty_like(array):
    """``empty`` of ``array``'s shape and dtype."""
    return empty(np.shape(array), np.asarray(array).dtype)


class ResultPool:
    """Blocks of memory for result arrays, reused after their arrays die.
    Results under ``min_bytes`` are plain numpy arrays: the allocator
    reuses small blocks itself, and a lease costs more than it saves there."""

    def __init__(self, keep=2, min_bytes=1 << 20):
        self._keep = keep
        self._min_bytes = min_bytes
        self._free = {}  # block size in bytes -> [uint8 blocks]
        self._lock = threading.Lock()

    def array(self, shape, dtype):
        """A C-contiguous array of ``shape`` and ``dtype`` (uninitialized):
        from ``min_bytes`` on, 64-byte aligned on a block that is reused once
        the array and every view of it are gone; smaller, a plain numpy
        array."""
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes < self._min_bytes:
            # Small: what numpy gives (16-byte aligned); the cache holds it.
            return np.empty(shape, dtype)
        size = nbytes + _ALIGNMENT
        with self._lock:
            blocks = self._free.get(size)
            block = blocks.pop() if blocks else None
        if block is None:
            block = np.empty(size, dtype=np.uint8)
        lease = _Lease(block, _aligned_offset(block), tuple(shape), dtype)
        weakref.finalize(lease, self._give_back, size, block).atexit = False
        return np.asarray(lease)

    def _give_back(self, size, block):
        with self._lock:
            blocks = self._free.setdefault(size, [])
            if len(blocks) < self._keep:
                blocks.append(block)
