"""The benchmark harness runs end to end on tiny sizes and every number it
times is also checked against posenc.reference (no timing is asserted: speed
is measured by scripts/bench.sh, never in tests); the interleaved A/B mode's
logic (bench/interleave.py) is checked on made-up values."""
import os
import re
import subprocess
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import interleave as ab  # noqa: E402

needs_bench = pytest.mark.skipif(
    not os.path.exists(os.path.join(BUILD, "lib", "libposenc_bench_peak.so")),
    reason="benchmark binaries not built")


def run_bench(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), POSENC_BUILD_DIR=BUILD)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run_bench.py"),
                        "--quick", "--check", "--repeat", "2", "--build", BUILD, *args],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.search(r"FMA peak [0-9.]+ GFLOP/s", r.stdout)
    return r.stdout


def measured_rows(stdout):
    """Table rows with a measurement (not headers, not n/a), as cell lists."""
    rows = [line for line in stdout.splitlines()
            if line.startswith("| ") and not line.startswith(("| case", "| ISA"))]
    return [[c.strip() for c in row.strip(" |").split("|")] for row in rows if "n/a" not in row]


@needs_bench
def test_quick_bench_checks_results():
    stdout = run_bench()
    rows = [line for line in stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| case")]
    measured = [row for row in rows if "n/a" not in row]
    assert len(measured) >= 5, stdout
    for row in measured:
        err = float(row.strip(" |").split("|")[-1])
        assert err <= 1e-4, row
    # The decode table: the ISA it ran on, and the C++ baseline measured and
    # checked for each K/V element type (f16/bf16 read and widened to f32).
    # The returning call and the out= call of the same RoPE, both checked.
    for impl in ("returning", "out="):
        assert any(row.startswith("| rope-half-small-call ") and f"| {impl} " in row
                   for row in measured), stdout
    assert re.search(r"\| case +\| impl +\| ISA +\|", stdout)
    for kv in ("f32", "f16", "bf16"):
        assert any(row.startswith(f"| decode-gqa-q1-k64-{kv} ") and "| naive " in row
                   for row in measured), stdout


def test_plot_is_drawn_from_the_recorded_table(tmp_path):
    out = tmp_path / "bench.svg"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plot_bench.py"),
                        os.path.join(ROOT, "docs", "bench-cpu.md"), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.count("<polyline") >= 3 and "FMA peak" in text
    # The Decode section's plot beside it: posenc's fused kernel per Sq and
    # K/V type, the C++ loop, the targets.
    decode = (tmp_path / "bench-decode.svg").read_text()
    assert decode.count("<polyline") >= 6 and "target 70 %" in decode, decode[:300]
    assert "Sq=1 f32" in decode and "C++ loop (naive)" in decode


@needs_bench
def test_interleaved_quick_bench_checks_both_sides(tmp_path):
    """--interleave: one row per encoded case (its plain partner checked as
    well), per decode case and per Python-call case (both calls checked),
    the pairs asked for, the ratio inside its
    interquartile range, issue 14's and 11's targets; --write-docs adds the
    section, saying the mode, before "## Decode" and keeps the rest."""
    docs = tmp_path / "bench-cpu.md"
    docs.write_text("# CPU benchmark results\n\nearlier\n\n## Decode\n\nkept\n")
    rows = measured_rows(run_bench("--interleave", "--cases",
                                   "attn-xl-s64,attn-plain-s64,decode-gqa-q1-k64-f16,"
                                   "rope-half-small-call",
                                   "--write-docs", "--docs", str(docs)))
    by_case = {row[1]: row for row in rows}
    assert set(by_case) == {"attn-xl-s64", "decode-gqa-q1-k64-f16", "rope-half-small-call"}, rows
    xl, dec = by_case["attn-xl-s64"], by_case["decode-gqa-q1-k64-f16"]
    call = by_case["rope-half-small-call"]  # out= against returning, issue 11's 1.2x
    assert call[2] == "2" and call[7] == "1.20" and float(call[-1]) <= 1e-4, call
    q1, q3 = map(float, call[6].split("-"))
    assert q1 <= float(call[5]) <= q3
    assert xl[0] in ("avx512", "avx2", "scalar") and xl[3] == "2" and xl[8] == "2.20"
    q1, q3 = map(float, xl[7].split("-"))
    assert q1 <= float(xl[6]) <= q3
    assert dec[2] == "2" and dec[-1] != "" and dec[-2] == "-"
    for row in (xl, dec):
        assert float(row[-1]) <= 1e-4, row
    text = docs.read_text()
    assert text.index("earlier") < text.index(ab.SECTION) < text.index("## Decode\n\nkept")
    assert "interleaved mode" in text and "| attn-xl-s64" in text


@needs_bench
def test_sequential_write_docs_says_its_mode(tmp_path):
    docs = tmp_path / "bench-cpu.md"
    run_bench("--cases", "attn-t5-s64", "--impls", "fused", "--write-docs", "--docs", str(docs))
    text = docs.read_text()
    assert "sequential mode" in text and "--interleave" in text and "| attn-t5-s64" in text


def test_pairs_alternate_which_side_runs_first():
    calls = []
    sides = [lambda: calls.append("a") or 1.0, lambda: calls.append("b") or 2.0]
    a, b = ab.alternate(sides, 4, budget_s=1e9)
    # One warm-up call of each, then A B, B A, A B, B A.
    assert "".join(calls) == "ab" + "abbaabba"
    assert a == [1.0] * 4 and b == [2.0] * 4


def test_pairs_stop_at_the_budget_after_three():
    ticks = iter(range(100))
    a, b = ab.alternate([lambda: 0, lambda: 1], 50, budget_s=0.5, clock=lambda: next(ticks))
    assert len(a) == len(b) == 3


def test_ratio_is_the_median_of_per_pair_ratios():
    # Medians of the sides are 10 and 20 (ratio of medians 2.0); the per-pair
    # ratios are 1, 2, 3, 4, 5: median 3, quartiles 2 and 4.
    case = types.SimpleNamespace(name="attn-t5-s2048-d64", p={"d": 64, "encoding": "t5"})
    r = {"a": [0.010, 0.005, 0.010, 0.010, 0.008],
         "b": [0.010, 0.010, 0.030, 0.040, 0.040]}
    row = ab.ab_cells("avx512", case, r)
    assert row[:4] == ["avx512", "attn-t5-s2048-d64", 64, 5]
    assert row[4:] == ["10.000", "30.000", "3.00", "2.00-4.00", "1.10"]


def test_spread_of_one_value():
    assert ab.spread([2.5]) == (2.5, 2.5, 2.5)


def test_decode_pairs_use_their_own_probe():
    """Each decode call's bound comes from the probe next to it: the same
    time is 50 % or 100 % of the bound as the measured bandwidth halves."""
    case = types.SimpleNamespace(
        name="decode-gqa-q1-k16384-f32", p={"hq": 32, "hkv": 8, "d": 128, "sk": 16384,
                                            "sq": 1, "kv": "f32"},
        flops=lambda: 1e9, kv_bytes=lambda: 1e9)
    # 1 GFLOP at 1000 GFLOP/s = 1 ms; 1 GB at 10 or 5 GB/s = 100 or 200 ms.
    pairs = ab.roofline_pairs(case, [0.2, 0.2], [(1000.0, 10.0), (1000.0, 5.0)])
    assert [(roof, round(f, 6)) for _, roof, f in pairs] == [("BW", 0.5), ("BW", 1.0)]
    compute = ab.roofline_pairs(case, [0.002], [(1000.0, 1e6)])
    assert compute[0][1] == "FMA" and round(compute[0][2], 6) == 0.5
    row = ab.decode_ab_cells("avx512", case, {"t": [0.2, 0.2, 0.2],
                                              "peaks": [(1000.0, 10.0), (1000.0, 5.0),
                                                        (1000.0, 5.0)]})
    assert row[2:] == [3, "200.000", "5.0", "5.0", "200.000 (BW)", "100.0", "75.0-100.0",
                       "70"]


def test_probe_times_the_second_pass_of_each():
    """After its wait the probe runs one untimed FMA pass and one untimed
    triad pass, then returns the timed ones (the first pass after an idle
    wait ran slow on the Zen 5 host, docs/bench-cpu.md)."""
    calls = []

    def pass_of(kind):
        def run(threads, size):
            calls.append(kind)
            return float(sum(1 for c in calls if c == kind))
        return run
    probe = ab.RooflineProbe.__new__(ab.RooflineProbe)
    probe.lib = types.SimpleNamespace(posenc_bench_fma_pass=pass_of("fma"),
                                      posenc_bench_triad_pass=pass_of("triad"))
    probe.threads, probe.n, probe.iters, probe.spin_s = 2, 1 << 10, 10, 0.0
    assert probe() == (2.0, 2.0)
    assert calls == ["fma", "triad", "fma", "triad"]


@needs_bench
def test_read_pass_reads_every_stream_split():
    """bench/read_streams.py's pass: any stream count and prefetch distance
    (clamped to 1-8 streams) returns a finite positive bandwidth and prints
    no failed check."""
    code = ("import ctypes, math\n"
            f"lib = ctypes.CDLL({os.path.join(BUILD, 'lib', 'libposenc_bench_peak.so')!r})\n"
            "f = lib.posenc_bench_read_pass\n"
            "f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]\n"
            "f.restype = ctypes.c_double\n"
            "for streams, ahead in ((1, 0), (3, 256), (8, 16), (12, 0), (0, 0)):\n"
            "    g = f(2, streams, ahead, 1 << 16)\n"
            "    assert math.isfinite(g) and g > 0, (streams, ahead, g)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "check failed" not in r.stderr


def test_targets_of_issues_14_and_11():
    enc = lambda e: types.SimpleNamespace(p={"encoding": e})  # noqa: E731
    assert [ab.encoding_target(enc(e)) for e in ("t5", "xpos", "xl", "deberta", "rope")] == \
        [1.10, 1.10, 2.2, 2.5, None]
    dec = lambda **kw: types.SimpleNamespace(p=dict(  # noqa: E731
        {"hq": 32, "hkv": 8, "d": 128, "sk": 16384, "sq": 1, "kv": "f32"}, **kw))
    assert ab.decode_target(dec()) == 70.0
    assert ab.decode_target(dec(kv="bf16")) == 60.0
    assert ab.decode_target(dec(sq=4, kv="f32")) == 60.0
    assert ab.decode_target(dec(sk=4096)) is None


def test_section_is_inserted_before_decode_and_replaced_in_place():
    page = "# t\n\nprefill\n\n## Decode\n\nd\n"
    first = ab.splice_section(page, ab.SECTION + "\n\none\n")
    assert first == "# t\n\nprefill\n\n" + ab.SECTION + "\n\none\n\n## Decode\n\nd\n"
    second = ab.splice_section(first, ab.SECTION + "\n\ntwo\n")
    assert second == first.replace("one", "two")
    last = ab.splice_section("# t\n\n" + ab.SECTION + "\n\nold\n", ab.SECTION + "\n\nnew\n")
    assert last == "# t\n\n" + ab.SECTION + "\n\nnew\n"
    assert ab.splice_section("# t\n", ab.SECTION + "\n\nx\n") == "# t\n\n" + ab.SECTION + "\n\nx\n"
