#!/usr/bin/env python3
"""A decode loop over one KV cache, updated in place from Python.

One compiled step function takes the key/value caches as memrefs (numpy
arrays the step writes through), the new token's query/key/value rows, its
position (per-batch positions [B, 1]) and the cache length after the step
(kv_lengths [B]). It rotates the new key and query rows (RoPE at the token's
position), appends the key/value rows into the caches at that position
(tensor.insert_slice in destination-passing style: written into the caller's
arrays, the cache is never copied), and attends over the whole preallocated
cache with kv_lengths = t+1, so only the first t+1 rows are read (GQA,
causal; SPEC.md "attention over a KV cache"). The same two numpy arrays
serve every step.

Each step is checked against posenc.reference (float64, from SPEC.md):
the cache row written must be the rotated key, and the output the attention
of the rotated query over the rotated keys so far, within atol 2e-5 + rtol
2e-4 (f32 online softmax, as test_fused_execution.py).

Usage: examples/decode_loop.py [--steps N]   (needs the C API library:
POSENC_BUILD_DIR or an installed posenc)
"""
import argparse
import sys

import numpy as np

import posenc
from posenc import reference as ref

HQ, HKV, D, SMAX = 4, 2, 32, 64


def step_program():
    cache = f"memref<1x{HKV}x{SMAX}x{D}xf32>"
    cache_t = f"tensor<1x{HKV}x{SMAX}x{D}xf32>"
    q_t, row_t = f"tensor<1x{HQ}x1x{D}xf32>", f"tensor<1x{HKV}x1x{D}xf32>"
    out = f"memref<1x{HQ}x1x{D}xf32>"
    return f"""
func.func @step(%cache_k: {cache}, %cache_v: {cache}, %q: {q_t}, %k_new: {row_t},
                %v_new: {row_t}, %pos: tensor<1x1xi32>, %t: index, %len: tensor<1xi32>,
                %out: {out}) {{
  %ck = bufferization.to_tensor %cache_k restrict writable : {cache} to {cache_t}
  %cv = bufferization.to_tensor %cache_v restrict writable : {cache} to {cache_t}
  %kr = posenc.rope %k_new, %pos layout half : {row_t}, tensor<1x1xi32>
  %qr = posenc.rope %q, %pos layout half : {q_t}, tensor<1x1xi32>
  %k2 = tensor.insert_slice %kr into %ck[0, 0, %t, 0] [1, {HKV}, 1, {D}] [1, 1, 1, 1]
      : {row_t} into {cache_t}
  %v2 = tensor.insert_slice %v_new into %cv[0, 0, %t, 0] [1, {HKV}, 1, {D}] [1, 1, 1, 1]
      : {row_t} into {cache_t}
  %o = posenc.attention %qr, %k2, %v2 kv_lengths(%len : tensor<1xi32>) {{causal}}
      : {q_t}, {cache_t}, {cache_t} -> {q_t}
  bufferization.materialize_in_destination %k2 in restrict writable %cache_k
      : ({cache_t}, {cache}) -> ()
  bufferization.materialize_in_destination %v2 in restrict writable %cache_v
      : ({cache_t}, {cache}) -> ()
  bufferization.materialize_in_destination %o in restrict writable %out
      : ({q_t}, {out}) -> ()
  return
}}"""


def check(got, want, what, atol=2e-5, rtol=2e-4):
    err = np.abs(np.asarray(got, np.float64) - want)
    if not np.all(err <= atol + rtol * np.abs(want)):
        raise AssertionError(f"{what}: max error {err.max():.3e}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args(argv)
    steps = min(args.steps, SMAX)
    step = posenc.compile(step_program())
    rng = np.random.default_rng(11)
    cache_k = np.zeros((1, HKV, SMAX, D), np.float32)
    cache_v = np.zeros((1, HKV, SMAX, D), np.float32)
    out = np.empty((1, HQ, 1, D), np.float32)
    keys, values = [], []  # the rotated keys and values so far, float64
    for t in range(steps):
        q = rng.standard_normal((1, HQ, 1, D), dtype=np.float32)
        k_new = rng.standard_normal((1, HKV, 1, D), dtype=np.float32)
        v_new = rng.standard_normal((1, HKV, 1, D), dtype=np.float32)
        pos = np.array([[t]], np.int32)
        step(cache_k, cache_v, q, k_new, v_new, pos, t, np.array([t + 1], np.int32), out)
        keys.append(ref.rope(k_new, pos, "half"))
        values.append(v_new.astype(np.float64))
        check(cache_k[:, :, t:t + 1], keys[-1], f"step {t}: cached key row", 1e-5, 1e-5)
        check(cache_v[:, :, t:t + 1], values[-1], f"step {t}: cached value row", 0, 0)
        want = ref.attention(ref.rope(q, pos, "half"), np.concatenate(keys, axis=2),
                             np.concatenate(values, axis=2), causal=True)
        check(out, want, f"step {t}: attention output")
    # Rows past the last step were never written.
    assert not cache_k[:, :, steps:].any() and not cache_v[:, :, steps:].any()
    print(f"decode loop: {steps} steps on one cache, all agree with the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
