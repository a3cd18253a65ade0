"""The mutation catalogue (scripts/mutate.py) stays in step with the code.

Each catalogue entry is a regular expression over lib/; when a change moves
the code an entry mutates, the entry silently stops producing mutants and the
audit would report it MISSING only when someone runs the (long) audit. This
test runs the cheap part, `--check-patterns`, which builds nothing, so a
change that moves mutated code fails here and updates the catalogue with it.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_catalogue_entry_matches_the_code():
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "mutate.py"), "--check-patterns"],
        capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    counts = [line for line in run.stdout.splitlines() if line.endswith("mutant(s)")]
    assert len(counts) >= 25, run.stdout
