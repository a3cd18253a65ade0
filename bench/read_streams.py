"""How fast this host reads memory as one, two, four or eight streams per thread.

    POSENC_BUILD_DIR=build PYTHONPATH=bench python3 bench/read_streams.py [--passes 8]

A decode step reads its K/V once and writes almost nothing, so its memory
roof is a read stream, not the triad the roofline bound of bench/run_bench.py
uses (the issue's definition). Each row is the median of `--passes` read
passes of bench/peak.cpp's library over 128 MiB (the size of a GQA 32/8
f32 cache of 16384 keys), each right after an untimed triad pass (3 x 256
MiB, which also evicts the caches), with the triad passes' own median in
the same run: per thread, the share is read as `streams` equal segments in
lockstep, without and with a software prefetch (`prefetcht0`) of each line
1 KiB before it is read. A thread of the decode schedule reads two streams at a time (its
key tile's K rows, then its V rows, each prefetched one tile ahead).
"""
import argparse
import ctypes
import os
import statistics

import interleave


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passes", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    build = os.environ.get("POSENC_BUILD_DIR", "build")
    probe = interleave.RooflineProbe(build, args.threads, False)
    read = probe.lib.posenc_bench_read_pass
    read.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    read.restype = ctypes.c_double
    n = (128 << 20) // 4
    read(args.threads, 1, 0, n)  # allocate and touch
    print(f"ISA {probe.isa}, {args.threads} threads, {args.passes} passes per row")
    print("| streams per thread | prefetch ahead | read GB/s (median) | "
          "triad GB/s (median) | read / triad (median) |")
    print("|---|---|---|---|---|")
    for streams in (1, 2, 4, 8):
        for ahead in (0, 256):
            reads, triads = [], []
            for _ in range(args.passes):
                triads.append(probe.lib.posenc_bench_triad_pass(args.threads, probe.n))
                reads.append(read(args.threads, streams, ahead, n))
            ratio = statistics.median(r / t for r, t in zip(reads, triads))
            print(f"| {streams} | {ahead * 4 if ahead else '-'} {'B' if ahead else ''} | "
                  f"{statistics.median(reads):.1f} | {statistics.median(triads):.1f} | "
                  f"{ratio:.2f} |", flush=True)


if __name__ == "__main__":
    main()
