"""The interleaved A/B mode of bench/run_bench.py (`--interleave`).

A ratio read from two rows of the sequential table compares calls made
minutes apart; on a shared host a burst of load then hits one side and not
the other (docs/bench-cpu.md has back-to-back runs that disagree by 2x).
Here both sides of a ratio are measured in one process, call by call:

- an encoded attention case against plain causal attention of the same
  shape (S, D, H, causal), the denominator of issue 14's targets;
- a decode case against the roofline probe of bench/peak.cpp (one FMA pass
  and one triad pass, libposenc_bench_peak.so through ctypes, on the
  threads of the OpenMP runtime the kernels use, with no idle wait), so each
  decode call has its own bound max(FLOPs / FMA peak, K/V bytes / triad
  bandwidth) measured next to it (issue 11's targets);
- a Python call that returns its result against the same call writing into
  the caller's array, `out=` (case `rope-*-call`; issue 11: the returning
  call at most 1.2x the destination-passing one).

After one warm-up call of each side the two alternate, A B, B A, A B, ...
(neither side always runs first); each pair gives one ratio, and the table
reports the medians of each side, the median of the per-pair ratios and
their interquartile range, so the reader sees the spread.
"""
import ctypes
import os
import statistics
import subprocess
import time

# Issue 14: fused time / plain causal time at S = 2048, H = 32, D = 64, 128.
ENCODING_TARGETS = {"t5": 1.10, "xpos": 1.10, "xl": 2.2, "deberta": 2.5}

SECTION = "## Interleaved A/B"


# Issue 11: a returning call / the same call with out=.
CALL_TARGET = 1.2


def encoding_target(case):
    return ENCODING_TARGETS.get(case.p.get("encoding"))


def decode_target(case):
    """Issue 11's % of the roofline bound (GQA 32/8, D = 128, Sk = 16384)."""
    p = case.p
    if (p["hq"], p["hkv"], p["d"], p["sk"]) != (32, 8, 128, 16384):
        return None
    if p["sq"] == 1:
        return 70.0 if p["kv"] == "f32" else 60.0
    return 60.0


def pair_order(i):
    """The order of the two sides in pair i: side 0 first in even pairs,
    side 1 first in odd ones."""
    return (0, 1) if i % 2 == 0 else (1, 0)


def alternate(sides, pairs, budget_s, clock=time.perf_counter):
    """Calls each of the two `sides` once (warm-up), then both `pairs` times
    in pair_order; returns ([values of side 0], [values of side 1]), one of
    each per pair. Stops after `budget_s` seconds once 3 pairs are in."""
    for side in sides:
        side()
    values = ([], [])
    deadline = clock() + budget_s
    for i in range(pairs):
        for j in pair_order(i):
            values[j].append(sides[j]())
        if i >= 2 and clock() > deadline:
            break
    return values


def timed(fn):
    """A side that calls `fn` and returns its wall time in seconds."""
    def call():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return call


def spread(values):
    """(median, first quartile, third quartile) of per-pair values."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, med, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return med, q1, q3


class RooflineProbe:
    """bench/peak.cpp as a library: one FMA pass and one triad pass per call,
    returning (FMA GFLOP/s, triad GB/s). The triad arrays are those of
    posenc-bench-peak (3 x 256 MiB), or small ones for --quick."""

    def __init__(self, build, threads, quick):
        lib = ctypes.CDLL(os.path.join(build, "lib", "libposenc_bench_peak.so"))
        for name in ("posenc_bench_fma_pass", "posenc_bench_triad_pass"):
            getattr(lib, name).argtypes = [ctypes.c_int, ctypes.c_long]
            getattr(lib, name).restype = ctypes.c_double
        lib.posenc_bench_isa.restype = ctypes.c_char_p
        self.lib, self.threads = lib, threads
        self.isa = lib.posenc_bench_isa().decode()
        self.n = 1 << 16 if quick else 1 << 26
        # About 3 ms per pass on one AVX-512 core: long against the timer
        # and thread start, short against a decode call.
        self.iters = 10_000 if quick else 1_000_000
        # Seconds of idle wait before each probe (0: none). The passes run on
        # the kernels' OpenMP threads (bench/peak.cpp), so there are no
        # spinning workers to wait out; an idle wait before the probe made
        # the kernel call after it 10-25 % slower on the AMD Zen 5 virtual
        # machine (docs/bench-cpu.md, "Fourteenth session").
        self.spin_s = 0.0

    def __call__(self):
        if self.spin_s > 0:
            time.sleep(self.spin_s)
        # One untimed pass of each first: on the AMD Zen 5 virtual machine
        # (2026-12-02) the first pass after an idle wait ran slow, FMA at a
        # third of its peak and triad at 2-15 GB/s against 45-60 right
        # after, so a probe that followed a probe (every other pair) gave
        # a bound several times too loose (fractions of 150-450 %).
        # docs/bench-cpu.md, "Twelfth session".
        self.lib.posenc_bench_fma_pass(self.threads, self.iters)
        self.lib.posenc_bench_triad_pass(self.threads, self.n)
        return (self.lib.posenc_bench_fma_pass(self.threads, self.iters),
                self.lib.posenc_bench_triad_pass(self.threads, self.n))


def roofline_pairs(case, times, peaks):
    """Per pair: (bound in seconds, its roof, fraction of it reached)."""
    out = []
    for t, (fma, triad) in zip(times, peaks):
        compute = case.flops() / (fma * 1e9)
        memory = case.kv_bytes() / (triad * 1e9)
        bound, roof = (compute, "FMA") if compute > memory else (memory, "BW")
        out.append((bound, roof, bound / t))
    return out


AB_TABLE = (["ISA", "case", "D", "pairs", "plain ms", "encoded ms", "ratio",
             "ratio IQR", "target"], [6, 24, 3, 5, 9, 10, 5, 11, 6])
DECODE_AB_TABLE = (["ISA", "case", "pairs", "decode ms", "K/V GB/s", "triad GB/s",
                    "bound ms", "% of bound", "% IQR", "target %"],
                   [6, 25, 5, 9, 8, 10, 13, 10, 11, 8])


CALL_AB_TABLE = (["ISA", "case", "pairs", "out= ms", "returning ms", "ratio", "ratio IQR",
                  "target"], [6, 24, 5, 9, 12, 5, 11, 6])


def call_ab_cells(isa, case, r):
    """A Python-call A/B row: medians of the out= and the returning call,
    the median per-pair ratio (returning / out=) and its interquartile range."""
    dest, ret = r["a"], r["b"]
    ratio, q1, q3 = spread([b / a for a, b in zip(dest, ret)])
    return [isa, case.name, len(dest), f"{statistics.median(dest) * 1e3:.3f}",
            f"{statistics.median(ret) * 1e3:.3f}", f"{ratio:.2f}", f"{q1:.2f}-{q3:.2f}",
            f"{CALL_TARGET:.2f}"]


def ab_cells(isa, case, r):
    """A prefill A/B row: medians of each side, the median per-pair ratio
    (encoded / plain) and its interquartile range."""
    plain, enc = r["a"], r["b"]
    ratio, q1, q3 = spread([b / a for a, b in zip(plain, enc)])
    target = encoding_target(case)
    return [isa, case.name, case.p["d"], len(plain), f"{statistics.median(plain) * 1e3:.3f}",
            f"{statistics.median(enc) * 1e3:.3f}", f"{ratio:.2f}", f"{q1:.2f}-{q3:.2f}",
            f"{target:.2f}" if target else "-"]


def decode_ab_cells(isa, case, r):
    """A decode A/B row: median time, K/V GB/s at it, median triad GB/s of
    the probes, the median bound (the roof most pairs had), and the median
    and interquartile range of the per-pair fraction of the bound."""
    pairs = roofline_pairs(case, r["t"], r["peaks"])
    t = statistics.median(r["t"])
    bound = statistics.median(b for b, _, _ in pairs)
    roofs = [roof for _, roof, _ in pairs]
    roof = max(set(roofs), key=roofs.count)
    frac, q1, q3 = spread([100 * f for _, _, f in pairs])
    target = decode_target(case)
    return [isa, case.name, len(pairs), f"{t * 1e3:.3f}", f"{case.kv_bytes() / t / 1e9:.1f}",
            f"{statistics.median(tr for _, tr in r['peaks']):.1f}",
            f"{bound * 1e3:.3f} ({roof})", f"{frac:.1f}", f"{q1:.1f}-{q3:.1f}",
            f"{target:.0f}" if target else "-"]


def commit_measured(root):
    """The short hash of the checkout measured, with -dirty when it has
    uncommitted changes to tracked files."""
    def git(*args):
        r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


SECTION_TEXT = """Printed by `scripts/bench.sh --interleave --write-docs`: interleaved mode. Each
encoded attention case runs in one process with plain causal attention of the
same S, D and H, and each decode case with the roofline probe of
`posenc-bench-peak` (one FMA pass and one triad pass, each after an untimed one,
on the kernels' OpenMP threads); after one warm-up call of
each the two sides alternate call by call (A B, B A, ...), so load on the host
reaches both sides of each pair; each `rope-*-call` case alternates its call
returning the result with the same call writing into the caller's array (`out=`).
ratio = median of the per-pair ratios encoded / plain (returning / out=), with
their interquartile range; % of bound = median of the per-pair
bound / decode time, the bound being max(FLOPs / FMA pass, K/V bytes / triad
pass) of the probe next to that call.
"""


def splice_section(old, section, before="## Decode"):
    """`old` (docs/bench-cpu.md's text) with its SECTION replaced by
    `section`, or `section` inserted before the `before` heading (at the end
    when there is none)."""
    start = old.find(SECTION + "\n")
    if start >= 0:
        end = old.find("\n## ", start + len(SECTION))
        rest = "" if end < 0 else "\n\n" + old[end + 1:]
        return old[:start] + section.rstrip() + rest.rstrip("\n") + "\n"
    at = old.find(before)
    if at < 0:
        return old.rstrip() + "\n\n" + section.rstrip() + "\n"
    return old[:at] + section.rstrip() + "\n\n" + old[at:]
