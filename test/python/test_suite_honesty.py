"""Checks on the suite itself (issue 13, "the suite's own honesty").

* No test file skips itself when the `posenc` package is missing: with a
  wrong PYTHONPATH every numeric test would skip and pytest would exit 0.
* No FileCheck prefix of a lit test has only `-NOT` lines: such a prefix
  passes on empty output (a pipeline that crashed or printed nothing),
  unless that FileCheck run says `--allow-empty`: then empty output is the
  claim itself (e.g. "the install tree has no test code"), and such a test
  keeps a control that shows the search can find something.
"""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX_OPTION = re.compile(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")


def lit_tests():
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            yield os.path.relpath(path, ROOT), f.read()


def prefixes_of(text):
    """The FileCheck prefixes the RUN lines name (CHECK when one runs bare)."""
    prefixes = set()
    for line in text.splitlines():
        if "RUN:" not in line or "FileCheck" not in line:
            continue
        options = line.split("FileCheck", 1)[1]
        if "--allow-empty" in options:
            continue
        named = PREFIX_OPTION.findall(options)
        for group in named:
            prefixes.update(p for p in group.split(",") if p)
        if not named:
            prefixes.add("CHECK")
    return prefixes


def test_no_test_skips_when_posenc_is_missing():
    offenders = []
    for path in glob.glob(os.path.join(ROOT, "test", "python", "*.py")):
        if os.path.samefile(path, __file__):
            continue
        with open(path, encoding="utf-8") as f:
            if re.search(r"importorskip\(\s*[\"']posenc", f.read()):
                offenders.append(os.path.relpath(path, ROOT))
    assert not offenders, f"importorskip('posenc') hides a broken setup: {offenders}"


def test_every_filecheck_prefix_has_a_positive_line():
    offenders = []
    for path, text in lit_tests():
        for prefix in prefixes_of(text):
            directives = re.findall(rf"\b{re.escape(prefix)}(-[A-Z]+)?:", text)
            if directives and all(d == "-NOT" for d in directives):
                offenders.append(f"{path}: {prefix}")
    assert not offenders, ("FileCheck prefixes with only -NOT lines pass on empty "
                           f"output: {offenders}")


def test_the_prefix_check_can_fail():
    """The checker itself sees a -NOT-only prefix and a positive one."""
    text = ("// RUN: posenc-opt %s | FileCheck %s --check-prefixes=A,B\n"
            "// A-NOT: memref.alloc\n// B: func.func\n// B-NOT: linalg\n")
    assert prefixes_of(text) == {"A", "B"}
    only_not = [p for p in sorted(prefixes_of(text))
                if all(d == "-NOT" for d in re.findall(rf"\b{p}(-[A-Z]+)?:", text))]
    assert only_not == ["A"]
