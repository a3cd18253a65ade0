"""The README's demo (examples/run_demo.py: posenc-opt | mlir-runner on the
example programs, compared with posenc.reference) runs and agrees."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build"))


def test_demo_agrees_with_reference():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_demo.py"),
                        "--build", BUILD], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("-> AGREES") == 2, r.stdout
    assert "demo: all results agree with the reference" in r.stdout
