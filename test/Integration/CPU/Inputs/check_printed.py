"""Compares a printMemrefF32 dump on stdin with posenc.reference.

Usage: check_printed.py CASE. Each case recomputes the inputs its .mlir test
builds and the expected result from the numpy reference.
"""
import re
import sys

import numpy as np

from posenc import reference as ref


def rope_interleaved_base100():
    x = np.array([[d - 2.5 + 0.25 * s for d in range(6)] for s in range(3)])
    return ref.rope(x, np.array([5, 6, 7]), "interleaved", base=100.0), 1e-5


CASES = {"rope_interleaved_base100": rope_interleaved_base100}


def main():
    want, tol = CASES[sys.argv[1]]()
    text = sys.stdin.read()
    body = text.split("data =", 1)[1]
    got = np.array([float(v) for v in re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", body)])
    if got.size != want.size:
        sys.exit(f"expected {want.size} values, got {got.size}:\n{text}")
    err = np.abs(got.reshape(want.shape) - want).max()
    if not err <= tol:
        sys.exit(f"max error {err:.3e} > {tol:g}\ngot:\n{got.reshape(want.shape)}\nwant:\n{want}")
    print(f"ok: max error {err:.3e} <= {tol:g}")


if __name__ == "__main__":
    main()
