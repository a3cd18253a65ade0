"""The README's Python example, run exactly as the README shows it.

The example is the ```python block that follows the `readme-example` marker
in README.md; it is extracted at test time (so the README can never drift from
what works) and run in a fresh interpreter from the repository root with the
README's environment line: PYTHONPATH=python POSENC_BUILD_DIR=<build dir>.
The example checks itself against posenc.reference (it asserts).
"""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
MARKER = "<!-- readme-example:"


def readme_text():
    with open(README, encoding="utf-8") as readme:
        return readme.read()


def example_code():
    text = readme_text()
    start = text.find(MARKER)
    assert start >= 0, f"README.md has no '{MARKER}' marker"
    match = re.compile(r"```python\n(.*?)\n```", re.S).search(text, start)
    assert match, "no ```python block after the readme-example marker"
    return match.group(1)


def test_readme_documents_the_environment_line():
    assert "PYTHONPATH=python POSENC_BUILD_DIR=build" in readme_text()


def test_example_is_short():
    lines = [line for line in example_code().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert len(lines) <= 20, f"the README example grew to {len(lines)} lines"


def test_readme_example_runs():
    build_dir = os.environ.get("POSENC_BUILD_DIR")
    if not build_dir:
        pytest.skip("POSENC_BUILD_DIR is not set (no build to run against)")
    env = dict(os.environ, PYTHONPATH="python",
               POSENC_BUILD_DIR=os.path.abspath(build_dir))
    env.pop("POSENC_CAPI_LIB", None)
    result = subprocess.run([sys.executable, "-c", example_code()], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    match = re.search(r"max \|posenc - reference\| = (\S+)", result.stdout)
    assert match, result.stdout
    assert float(match.group(1)) < 1e-4
