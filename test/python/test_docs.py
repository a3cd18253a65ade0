"""The documentation stays true to the tree.

* Every relative link in README.md and docs/*.md resolves to a file or
  directory inside the repository (not outside it, not in a build tree), and
  every `#anchor` to a heading of the linked page.
* Every ```mlir example in docs/spec.md parses, verifies and round-trips
  through posenc-opt, and every op of the dialect has one.
* The "Status:" line of each section under docs/spec.md's "Additions" says
  "not yet implemented" exactly when the dialect lacks the feature (its ODS
  name is absent, or posenc-opt rejects a program that uses it), so the
  status cannot go stale in either direction.
"""
import glob
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("POSENC_BUILD_DIR", os.path.join(ROOT, "build")))
POSENC_OPT = os.path.join(BUILD, "bin", "posenc-opt")
SPEC = os.path.join(ROOT, "docs", "spec.md")
ODS_DIR = os.path.join(ROOT, "include", "posenc", "Dialect", "Posenc", "IR")
PAGES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))

requires_posenc_opt = pytest.mark.skipif(not os.path.exists(POSENC_OPT),
                                         reason=f"{POSENC_OPT} is not built")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def without_code(text):
    """Markdown text with fenced blocks and inline code spans blanked (links
    inside code are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation other than '-'
    and '_' dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    for line in without_code(read(path)).splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path):
    """(target, anchor) of every relative inline link of a page."""
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", without_code(read(path))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        yield file_part, anchor


@pytest.mark.parametrize("page", PAGES, ids=lambda p: os.path.relpath(p, ROOT))
def test_relative_links_resolve_inside_the_repository(page):
    problems = []
    for file_part, anchor in links(page):
        target = (os.path.normpath(os.path.join(os.path.dirname(page), file_part))
                  if file_part else page)
        where = f"{os.path.relpath(page, ROOT)}: ({file_part}#{anchor})"
        if os.path.commonpath([target, ROOT]) != ROOT:
            problems.append(f"{where} points outside the repository")
        elif os.path.commonpath([target, BUILD]) == BUILD:
            problems.append(f"{where} points into the build tree")
        elif not os.path.exists(target):
            problems.append(f"{where}: {os.path.relpath(target, ROOT)} does not exist")
        elif anchor and target.endswith(".md") and anchor not in anchors(target):
            problems.append(f"{where}: no heading '#{anchor}' in {os.path.relpath(target, ROOT)}")
    assert not problems, "\n".join(problems)


def test_link_checker_sees_dead_links(tmp_path):
    """The checker itself: a dead file, an outside path and a dead anchor
    are found, links inside code are not."""
    page = tmp_path / "page.md"
    page.write_text("# Top\n[a](missing.md) [b](page.md#top) [c](#nowhere)\n"
                    "`[d](inside-code.md)`\n[e](https://example.org/x)\n")
    assert list(links(str(page))) == [("missing.md", ""), ("page.md", "top"), ("", "nowhere")]
    assert anchors(str(page)) == {"top"}
    assert slug("posenc.rope: table form") == "posencrope-table-form"


# ------------------------------------------------------------ spec examples

def spec_examples():
    return re.findall(r"^```mlir\n(.*?)^```", read(SPEC), flags=re.S | re.M)


def dialect_ops():
    """The mnemonics of the posenc ops, from ODS."""
    ops = set()
    for td in glob.glob(os.path.join(ODS_DIR, "*.td")):
        ops |= set(re.findall(r"def \w+ : Posenc_Op<\"(\w+)\"", read(td)))
    return ops


def posenc_opt(text, *flags):
    return subprocess.run([POSENC_OPT, *flags, "-"], input=text, capture_output=True,
                          text=True, timeout=120)


@requires_posenc_opt
@pytest.mark.parametrize("index", range(len(spec_examples())))
def test_spec_example_round_trips(index):
    example = spec_examples()[index]
    printed = posenc_opt(example)
    assert printed.returncode == 0, f"example {index}:\n{example}\n{printed.stderr}"
    generic = posenc_opt(printed.stdout, "--mlir-print-op-generic")
    assert generic.returncode == 0, generic.stderr
    again = posenc_opt(generic.stdout)
    assert again.returncode == 0 and again.stdout == printed.stdout, again.stderr


def test_every_op_has_a_spec_example():
    examples = "\n".join(spec_examples())
    missing = sorted(op for op in dialect_ops() - {"yield"}
                     if f"posenc.{op} " not in examples)
    assert dialect_ops(), "no ops found in ODS"
    assert not missing, f"docs/spec.md has no ```mlir example of: {missing}"


# ------------------------------------------------------- additions status

def ods_has(name):
    return any(re.search(name, read(td)) for td in glob.glob(os.path.join(ODS_DIR, "*.td")))


def posenc_opt_accepts(program):
    if not os.path.exists(POSENC_OPT):
        pytest.skip(f"{POSENC_OPT} is not built")
    return posenc_opt(program).returncode == 0


PER_BATCH_POSITIONS = """
func.func @f(%x: tensor<2x4x8x64xf32>, %pos: tensor<2x8xi32>) -> tensor<2x4x8x64xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<2x4x8x64xf32>, tensor<2x8xi32>
  return %r : tensor<2x4x8x64xf32>
}"""

MIXED_ELEMENT_TYPES = """
func.func @f(%q: tensor<1x2x8x64xf32>, %k: tensor<1x2x8x64xf16>, %v: tensor<1x2x8x64xf16>)
    -> tensor<1x2x8x64xf32> {
  %o = posenc.attention %q, %k, %v
      : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16> -> tensor<1x2x8x64xf32>
  return %o : tensor<1x2x8x64xf32>
}"""

#: Heading of each section under "Additions" -> whether the dialect has it.
ADDITIONS = {
    "posenc.rope: table form": lambda: ods_has(r"\$cos\b"),
    "Per-batch positions": lambda: posenc_opt_accepts(PER_BATCH_POSITIONS),
    "posenc.attention: KV cache lengths": lambda: ods_has(r"\$kv_lengths\b"),
    "posenc.attention: mixed element types": lambda: posenc_opt_accepts(MIXED_ELEMENT_TYPES),
    "posenc.t5_bias": lambda: ods_has(r"Posenc_Op<\"t5_bias\""),
    "xPos": lambda: ods_has(r"\$xpos\b"),
    "posenc.xl_attention": lambda: ods_has(r"Posenc_Op<\"xl_attention\""),
    "posenc.disentangled_attention": lambda: ods_has(r"Posenc_Op<\"disentangled_attention\""),
}


def addition_sections():
    text = read(SPEC)
    start = text.index("\n## Additions\n") + 1
    end = text.find("\n## ", start)
    additions = text[start:end if end >= 0 else len(text)]
    parts = re.split(r"^### (.*)$", additions, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_additions_are_the_listed_sections():
    assert sorted(addition_sections()) == sorted(ADDITIONS)


@pytest.mark.parametrize("heading", sorted(ADDITIONS))
def test_addition_status_matches_the_dialect(heading):
    body = addition_sections()[heading]
    status = re.search(r"\*\*Status: ([^*]*)\*\*", body)
    assert status, f"section '{heading}' has no **Status: ...** line"
    says_missing = "not yet implemented" in status.group(1)
    implemented = ADDITIONS[heading]()
    assert says_missing != implemented, (
        f"docs/spec.md, '{heading}': the status says '{status.group(1)}', but the "
        f"dialect {'implements' if implemented else 'does not implement'} it")


# ------------------------------------------------------- benchmark figures

BENCH_TABLE = os.path.join(ROOT, "docs", "bench-cpu.md")
FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(ms|s|GFLOP/s|GB/s|MiB)\b")


def recorded_figures():
    """The numbers of docs/bench-cpu.md's recorded run: its table rows and the
    machine line printed with them."""
    lines = [line for line in read(BENCH_TABLE).splitlines()
             if line.startswith("| ") or line.startswith("Machine (")]
    return [float(x) for line in lines for x in re.findall(r"\d+(?:\.\d+)?", line)]


def quoted_figures(path):
    """(text, value, decimals) of every time, rate or size in a page's prose."""
    prose = "\n".join(line for line in read(path).splitlines() if not line.startswith("| "))
    for match in FIGURE.finditer(prose):
        number = match.group(1)
        decimals = len(number.split(".")[1]) if "." in number else 0
        yield match.group(0), float(number), decimals


@pytest.mark.parametrize("page", PAGES, ids=lambda p: os.path.relpath(p, ROOT))
def test_quoted_benchmark_figures_come_from_the_recorded_table(page):
    """Docs quote only figures of the recorded benchmark run (rounded), so a
    one-off measurement cannot contradict the table."""
    recorded = recorded_figures()
    assert recorded, "docs/bench-cpu.md has no recorded table"
    strays = [text for text, value, decimals in quoted_figures(page)
              if not any(round(r, decimals) == value for r in recorded)]
    assert not strays, (f"{os.path.relpath(page, ROOT)} quotes figures that are not in "
                        f"docs/bench-cpu.md's table: {strays}")
