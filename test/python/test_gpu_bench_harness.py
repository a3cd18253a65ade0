"""The GPU benchmark's programs: every quick case lowers through
--posenc-to-nvvm to a binary (when ptxas is available), and the same timing
programs run end to end through the CPU pipeline, which checks the harness
(input generation, warm-up, timed loop, printing) without a GPU. No timing is
asserted."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build"))
SCRIPT = os.path.join(ROOT, "bench", "run_gpu_bench.py")


def run(*args):
    r = subprocess.run([sys.executable, SCRIPT, "--quick", "--build", BUILD, *args],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [l for l in r.stdout.splitlines() if l.startswith("| ") and not l.startswith("| case")]
    assert len(rows) >= 5, r.stdout
    return rows


@pytest.mark.skipif(not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
                    reason="needs ptxas")
def test_every_case_compiles_to_a_cubin():
    for row in run("--compile-only"):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] == "bin" and int(cells[1]) >= 1, row


def test_timing_programs_run_on_the_cpu_pipeline():
    for row in run("--cpu-smoke", "--repeat", "1", "--dtypes", "f32"):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert re.fullmatch(r"[0-9.]+", cells[1]), row


@pytest.mark.skipif(not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
                    reason="needs ptxas")
def test_hopper_cases_compile_for_sm_90a():
    """What --chip auto picks on a Hopper GPU: the bf16 cases build the
    warpgroup-MMA kernel and assemble for sm_90a."""
    for row in run("--compile-only", "--chip", "sm_90a", "--dtypes", "bf16"):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] == "bin" and int(cells[1]) >= 1, row


def test_chip_for_capability():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import run_gpu_bench
    finally:
        sys.path.pop(0)
    assert run_gpu_bench.chip_for_capability("9.0") == "sm_90a"
    assert run_gpu_bench.chip_for_capability("8.0") == "sm_80"
    assert run_gpu_bench.chip_for_capability("8.9") == "sm_89"
    assert run_gpu_bench.chip_for_capability("10.0") == "sm_100"
    assert run_gpu_bench.chip_for_capability("[N/A]") is None
    assert run_gpu_bench.chip_for_capability("") is None
