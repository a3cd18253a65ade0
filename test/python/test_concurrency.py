"""Compiled posenc functions under concurrency: several Python threads call
the same and different compiled functions at once (the fused attention path
runs its own OpenMP team inside each call), while another thread compiles
new programs; every result matches posenc.reference.

Bounded: a fixed number of calls per thread (a few seconds in all), no
timing threshold. Tolerances as test_differential.py: RoPE attention atol
5e-5, rtol 5e-4; RoPE alone atol 2e-6 + 3e-7 * max position, rtol 2e-6.
"""
import threading

import numpy as np

import posenc
from posenc import reference as ref
from posenc_testutil import assert_close

THREADS = 4
CALLS = 12
ATTENTION_TOL = (5e-5, 5e-4)


def _attention_case(seed):
    """(args, want) of a causal LLaMA block, drawn from `seed`."""
    rng = np.random.default_rng(seed)
    seq = int(rng.integers(5, 40))
    q = rng.standard_normal((1, 4, seq, 16)).astype(np.float32)
    k = rng.standard_normal((1, 2, seq, 16)).astype(np.float32)
    v = rng.standard_normal((1, 2, seq, 16)).astype(np.float32)
    pos = np.arange(seq, dtype=np.int32) + int(rng.integers(0, 100))
    kw = dict(base=10000.0)
    want = ref.attention(ref.rope(q, pos, "half", **kw), ref.rope(k, pos, "half", **kw), v,
                         causal=True)
    return (q, k, v, pos), want


def _rope_case(seed):
    rng = np.random.default_rng(seed)
    seq = int(rng.integers(1, 50))
    x = rng.uniform(-1, 1, (2, seq, 32)).astype(np.float32)
    pos = np.arange(seq, dtype=np.int32) + int(rng.integers(0, 500))
    return (x, pos), ref.rope(x, pos, "interleaved"), 2e-6 + 3e-7 * float(pos.max())


def _run_threads(targets):
    errors = []

    def guarded(target, *args):
        try:
            target(*args)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=t) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads), "a thread hangs"
    assert not errors, errors


def test_calls_from_many_threads():
    """THREADS threads share one fused attention function and one rope
    function (both paths of the CPU pipeline: fused and reference)."""
    program = posenc.llama_attention(1, 4, 2, None, 16, rope_base=10000.0)
    fused = posenc.compile(program)
    reference = posenc.compile(program, pipeline="builtin.module("
                               "posenc-cpu-pipeline{reference=true})")
    rope = posenc.compile(posenc.rope((2, None, 32), "interleaved"))

    def work(thread):
        for call in range(CALLS):
            seed = 1000 * thread + call
            args, want = _attention_case(seed)
            function = fused if call % 2 else reference
            assert_close(function(*args), want, *ATTENTION_TOL, f"attention {seed}")
            (x, pos), want, atol = _rope_case(seed)
            assert_close(rope(x, pos), want, atol, 2e-6, f"rope {seed}")

    _run_threads([(work, thread) for thread in range(THREADS)])


def test_compiling_while_calling():
    """Two threads call a compiled function while two others compile (and
    then call) new programs; compilation takes the library lock, calls do
    not."""
    program = posenc.llama_attention(1, 4, 2, None, 16, rope_base=10000.0)
    attention = posenc.compile(program)

    def call(thread):
        for i in range(2 * CALLS):
            args, want = _attention_case(5000 + 100 * thread + i)
            assert_close(attention(*args), want, *ATTENTION_TOL, f"call {thread}/{i}")

    def compile_and_call(thread):
        for i in range(3):
            head_dim = 8 + 8 * ((thread + i) % 3)
            rope = posenc.compile(posenc.rope((None, head_dim), "half", base=500.0 + i))
            rng = np.random.default_rng(7000 + 10 * thread + i)
            x = rng.uniform(-1, 1, (9, head_dim)).astype(np.float32)
            pos = np.arange(9, dtype=np.int32)
            assert_close(rope(x, pos), ref.rope(x, pos, "half", base=500.0 + i),
                         2e-6 + 3e-7 * 8, 2e-6, f"compiled {thread}/{i}")

    _run_threads([(call, 0), (call, 1), (compile_and_call, 0), (compile_and_call, 1)])
