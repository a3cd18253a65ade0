"""Runs the installed Python package (from <prefix>/lib/python3/dist-packages,
not the source tree): where it was imported from, which libPosencCAPI.so it
loaded, which CUDA runtime library target 'cuda' would link, and a compiled
RoPE checked against the reference."""
import numpy as np

import posenc
from posenc import reference as ref

print("package:", posenc.__file__)
print("library:", posenc.compiler.library_path())
try:
    # Installed when the CUDA toolkit was found at build time.
    print("cuda runtime:", posenc.compiler.cuda_runtime_path())
except posenc.PosencError as error:
    print("cuda runtime: none:", error)
rope = posenc.compile(posenc.rope((2, 5, 8), "interleaved", base=100.0))
x = np.random.default_rng(0).standard_normal((2, 5, 8)).astype(np.float32)
pos = np.arange(5, dtype=np.int32)
error = np.abs(rope(x, pos) - ref.rope(x, pos, "interleaved", base=100.0)).max()
print("rope matches the reference:", bool(error < 1e-5))
