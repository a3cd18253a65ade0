"""The benchmark harness runs end to end on tiny sizes and every number it
times is also checked against posenc.reference (no timing is asserted: speed
is measured by scripts/bench.sh, never in tests)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build"))


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "bin", "posenc-bench-peak")),
                    reason="benchmark binaries not built")
def test_quick_bench_checks_results():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), POSENC_BUILD_DIR=BUILD)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run_bench.py"),
                        "--quick", "--check", "--repeat", "2", "--build", BUILD],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.search(r"FMA peak [0-9.]+ GFLOP/s", r.stdout)
    rows = [line for line in r.stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| case")]
    measured = [row for row in rows if "n/a" not in row]
    assert len(measured) >= 5, r.stdout
    for row in measured:
        err = float(row.strip(" |").split("|")[-1])
        assert err <= 1e-4, row
    # The decode table: the ISA it ran on, and the C++ baseline measured and
    # checked for each K/V element type (f16/bf16 read and widened to f32).
    # The returning call and the out= call of the same RoPE, both checked.
    for impl in ("returning", "out="):
        assert any(row.startswith("| rope-half-small-call ") and f"| {impl} " in row
                   for row in measured), r.stdout
    assert re.search(r"\| case +\| impl +\| ISA +\|", r.stdout)
    for kv in ("f32", "f16", "bf16"):
        assert any(row.startswith(f"| decode-gqa-q1-k64-{kv} ") and "| naive " in row
                   for row in measured), r.stdout


def test_plot_is_drawn_from_the_recorded_table(tmp_path):
    out = tmp_path / "bench.svg"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plot_bench.py"),
                        os.path.join(ROOT, "docs", "bench-cpu.md"), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.count("<polyline") >= 3 and "FMA peak" in text
