"""Copies of numpy arrays on a chosen kind of memory page.

numpy asks the kernel for transparent huge pages (`madvise(MADV_HUGEPAGE)`)
on every array of 4 MiB or more (`NUMPY_MADVISE_HUGEPAGE`, on by default
on Linux), while C and C++ allocators, the roofline probe's arrays
(bench/peak.cpp) among them, do not: on a host whose THP mode is
`madvise`, a numpy K/V cache sits on 2 MiB pages and the probe's triad on
4 KiB pages. `on_pages` copies an array onto the kind asked for, so a
benchmark can hold that fixed (docs/bench-cpu.md, "Twentieth session").

Kinds: "numpy" (the array as numpy allocated it), "small" (an anonymous
mapping with MADV_NOHUGEPAGE: 4 KiB pages), "huge" (a 2 MiB-aligned
anonymous mapping with MADV_HUGEPAGE: 2 MiB pages where the kernel has
them free).
"""
import mmap

import numpy as np

KINDS = ("numpy", "small", "huge")
_HUGE = 2 << 20
_keep = []  # the mappings behind the arrays handed out


def on_pages(x, kind):
    """`x` copied onto pages of `kind` (see the module's docstring)."""
    if kind == "numpy":
        return x
    if kind not in KINDS:
        raise ValueError(f"page kind '{kind}': expected one of {KINDS}")
    size = max(x.nbytes, 1)
    pad = _HUGE if kind == "huge" else 0
    m = mmap.mmap(-1, size + pad, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = np.frombuffer(m, dtype=np.uint8)
    start = (-base.ctypes.data) % _HUGE if kind == "huge" else 0
    # Before the first touch: the pages are chosen when they fault in.
    m.madvise(mmap.MADV_HUGEPAGE if kind == "huge" else mmap.MADV_NOHUGEPAGE)
    y = base[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    y[...] = x
    _keep.append(m)
    return y

