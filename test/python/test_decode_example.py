"""examples/decode_loop.py (a decode loop updating one KV cache array in
place across steps, each step checked against posenc.reference) runs and
agrees."""
import os
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_decode_loop_example_agrees_with_reference():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "decode_loop.py"),
                        "--steps", "12"], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "decode loop: 12 steps on one cache, all agree with the reference" in r.stdout
