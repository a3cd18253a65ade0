"""Interleaved A/B of two option sets of the fused pipeline on bench cases.

    POSENC_BUILD_DIR=build PYTHONPATH=python:bench python3 bench/ab_options.py \
        --a 'attention-score-dims-on-lanes=false' --b '' \
        --cases 'decode-gqa-q1-k16384-*' [--extra 'vector-bits=256 ...']

Both variants of a case are compiled in one process (bench/run_bench.py's
cases that write into a caller's array: decode, prefill attention, RoPE)
and called alternately, A B, B A, ... (bench/interleave.py), so a burst of
load on a shared host hits both sides; prints per case the median
time of each side, the median of the per-pair ratio B / A and its
interquartile range, the ratio of the fastest calls (least disturbed by
load), and the ISA. Results are checked against each other
(both sides compute the same function).

With --flush, an untimed triad pass of the roofline probe (3 x 256 MiB,
bench/peak.cpp) runs before every call, as in `scripts/bench.sh
--interleave`: the K/V of a decode case (67-134 MB at Sk = 16384) would
otherwise stay in a last-level cache as large as this host's (260 MiB)
from one call to the next, and the calls would not read them from memory.

With --pages-a/--pages-b, a side's inputs are copies on 4 KiB ("small")
or 2 MiB ("huge") pages (bench/pages.py; default "numpy": the arrays as
numpy allocated them): `--pages-a huge --pages-b small` with the same
options on both sides compares the page kinds alone.
"""
import argparse
import fnmatch
import os

import numpy as np

import interleave
import pages
import run_bench


def flushed(call, probe):
    """`call` after a triad pass (untimed, on the kernels' OpenMP threads)."""
    def run():
        probe.lib.posenc_bench_triad_pass(probe.threads, probe.n)
        return call()
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="", help="options of side A")
    ap.add_argument("--b", default="", help="options of side B")
    ap.add_argument("--extra", default="", help="options of both sides")
    ap.add_argument("--cases", default="decode-gqa-q1-k16384-*")
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--budget", type=float, default=20.0,
                    help="seconds per case (at least 3 pairs)")
    ap.add_argument("--flush", action="store_true",
                    help="evict the caches (a triad pass) before each call")
    for side in ("a", "b"):
        ap.add_argument(f"--pages-{side}", default="numpy",
                        choices=pages.KINDS,
                        help=f"pages of side {side.upper()}'s inputs")
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of the flushing triad pass")
    args = ap.parse_args()
    import posenc
    build = os.environ.get("POSENC_BUILD_DIR", "build")
    probe = interleave.RooflineProbe(build, args.threads, False)
    isa = probe.isa
    patterns = args.cases.split(",")
    print(f"ISA {isa}; A: '{args.a}' ({args.pages_a} pages), "
          f"B: '{args.b}' ({args.pages_b} pages), both: '{args.extra}'")
    print("| case | A ms | B ms | B / A (median) | IQR | min B / min A | pairs |")
    print("|---|---|---|---|---|---|---|")
    for case in run_bench.all_cases(False):
        if case.kind in ("tosa_llama", "rope_call") or not any(
                fnmatch.fnmatch(case.name, p) for p in patterns):
            continue
        inputs, dest = case.inputs(np.random.default_rng(0))
        sides, outs = [], []
        for opts, kind in ((args.a, args.pages_a), (args.b, args.pages_b)):
            side_inputs = [pages.on_pages(x, kind) for x in inputs]
            pipe = f"builtin.module(posenc-cpu-pipeline{{{opts} {args.extra}}})"
            compiled = posenc.compile(case.program("fused"), pipeline=pipe)
            out = posenc.empty_like(dest)
            outs.append(out)
            call = interleave.timed(
                lambda c=compiled, o=out, i=side_inputs: c(*i, o))
            if args.flush:
                call = flushed(call, probe)
            sides.append(call)
        a, b = interleave.alternate(sides, args.pairs, args.budget)
        np.testing.assert_allclose(outs[0], outs[1], atol=1e-4, rtol=1e-3)
        ratio, q1, q3 = interleave.spread([y / x for x, y in zip(a, b)])
        print(f"| {case.name} | {np.median(a) * 1e3:.2f} | "
              f"{np.median(b) * 1e3:.2f} | {ratio:.3f} | {q1:.3f}-{q3:.3f} | "
              f"{min(b) / min(a):.3f} | "
              f"{len(a)} |", flush=True)


if __name__ == "__main__":
    main()
