#!/usr/bin/env python3
"""Mutation audit of the test suite (scripts/mutate.sh; docs/reliability.md).

Each entry of CATALOGUE is a meaningful bug (a sign flip in the RoPE
rotation, an ALiBi slope exponent, a causal-mask comparison, a scaling
switch, the Shaw clamp bound), written as a regular expression over the C++
under lib/ and its replacement. Every match of the expression, in any file,
is one mutant: applied alone to a scratch copy of the tree, rebuilt, and
checked with the entry's tests. A mutant the tests do not catch is a
*survivor*: the suite has a gap there. An expression that matches nothing
is reported (the code moved: update the catalogue), never skipped quietly.

  scripts/mutate.py [--only NAME[,NAME...]] [--list | --check-patterns]

--check-patterns counts each entry's mutants in the working tree without
building anything (test/python/test_mutation_catalogue.py runs it, so that a
change that moves the mutated code also updates the catalogue).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRATCH = os.path.join(ROOT, "build-mutate")
SOURCE = os.path.join(SCRATCH, "src")
BUILD = os.path.join(SOURCE, "build")
LIT = "/usr/lib/llvm-22/bin/lit"

ROPE_TESTS = ["test_execution.py -k rope", "test_fused_execution.py -k rope",
              "test_scaling_boundaries.py"]
SCALING_TESTS = ["test_scaling_boundaries.py", "test_execution.py -k scaling"]
ALIBI_TESTS = ["test_execution.py -k alibi", "test_fused_execution.py -k alibi",
               "test_differential.py -k bloom"]
CAUSAL_TESTS = ["test_execution.py -k attention", "test_fused_execution.py -k 'plain or gqa'",
                "test_differential.py -k llama"]
SHAW_TESTS = ["test_execution.py -k rel_pos", "test_fused_execution.py -k shaw",
              "test_differential.py -k shaw"]
KV_TESTS = ["test_kv_cache_execution.py"]
DECODE_TESTS = ["test_decode_schedule.py", "test_kv_cache_execution.py"]
T5_TESTS = ["test_t5.py", "test_t5_attention.py"]
DEBERTA_TESTS = ["test_deberta.py"]

# (name, what the bug is, pattern, replacement, pytest selections)
CATALOGUE = [
    ("rope-rotation-sign", "a cos - b sin becomes a cos + b sin",
     r"SubFOp::create\((\s*)b,(\s*)loc,(\s*)xc,(\s*)ys\)",
     r"AddFOp::create(\1b,\2loc,\3xc,\4ys)", ROPE_TESTS),
    ("rope-prologue-half-sign", "the fused path's half-layout RoPE prologue flips the sign",
     r"buildRotatedElement\(b, loc, x, y, a\[2\], a\[3\], first\)",
     r"buildRotatedElement(b, loc, x, y, a[2], a[3], !first)", ROPE_TESTS),
    ("rope-partial-rotary", "the fused path's RoPE prologue rotates dims >= rotary_dim too",
     r"arith::SelectOp::create\(b, loc, inRotary, rotated, x\)",
     r"rotated", ROPE_TESTS),
    ("alibi-slope-exponent", "slope 2^(-max_bias (h+1)/n) becomes 2^(-max_bias h/n)",
     r"-maxBias \* static_cast<double>\(h \+ 1\)",
     r"-maxBias * static_cast<double>(h)", ALIBI_TESTS),
    ("alibi-extra-slopes", "non-power-of-two heads take every extra slope, not every other",
     r"slopes\.size\(\)\) < numHeads; i \+= 2\)",
     r"slopes.size()) < numHeads; i += 1)", ALIBI_TESTS),
    ("causal-mask-comparison", "key j masked when j >= i + Sk - Sq instead of j >",
     r"CmpIPredicate::sgt,(\s*)j,(\s*)limit",
     r"CmpIPredicate::sge,\1j,\2limit", CAUSAL_TESTS),
    ("causal-key-bound", "the fused key loop stops one key before the last allowed one",
     r"Value lastAllowed = arith::AddIOp::create\(b, loc, rowEnd, shift\);",
     r"Value lastAllowed = arith::SubIOp::create(b, loc, arith::AddIOp::create("
     r"b, loc, rowEnd, shift), indexConst(b, loc, 1));", CAUSAL_TESTS),
    ("key-tail-mask", "padded keys (past Sk, past a split, past kv_lengths) keep key j == length",
     r"CmpIPredicate::sge, j, length\)",
     r"CmpIPredicate::sgt, j, length)", CAUSAL_TESTS + KV_TESTS),
    ("longrope-switch-table", "long factors at L == original_max_position (compile-time L)",
     r"static_cast<double>\(seqLen\) > orig",
     r"static_cast<double>(seqLen) >= orig", SCALING_TESTS),
    ("longrope-long-table-length", "the long-factor table is built for L = orig (short factors)",
     r"scaling\.getOriginalMaxPosition\(\) \+ 1\)",
     r"scaling.getOriginalMaxPosition())", SCALING_TESTS),
    ("longrope-switch-runtime", "long factors at L == original_max_position (run-time L)",
     r"CmpFPredicate::OGT,(\s*)seqLen",
     r"CmpFPredicate::OGE,\1seqLen", SCALING_TESTS),
    ("dynamic-ntk-below-orig", "dynamic NTK rescales below original_max_position",
     r"std::max\(static_cast<double>\(seqLen\), orig\)",
     r"static_cast<double>(seqLen)", SCALING_TESTS),
    ("dynamic-ntk-runtime-length", "run-time dynamic NTK uses min(L, orig) instead of max",
     r"MaximumFOp::create\((\s*)b,(\s*)loc,(\s*)seqLen,",
     r"MinimumFOp::create(\1b,\2loc,\3seqLen,", SCALING_TESTS),
    ("ntk-kind-switch", "the ntk base change applies to linear instead",
     r"if \(kind == RopeScalingKind::ntk\)\n(\s*)base \*=",
     r"if (kind == RopeScalingKind::linear)\n\1base *=", SCALING_TESTS + ROPE_TESTS[:1]),
    ("yarn-ramp-low-end", "YaRN's low correction dim rounds up instead of down",
     r"std::floor\(correctionDim",
     r"std::ceil(correctionDim", SCALING_TESTS),
    ("llama3-low-band", "llama3 divides every pair beyond the high-frequency edge",
     r"if \(wavelen > lowWavelen\)",
     r"if (wavelen > highWavelen)", SCALING_TESTS),
    ("kv-lengths-causal-shift", "over a cache, query i sits at i + length - Sq + 1",
     r"r\.shift = arith::SubIOp::create\(b, loc, r\.length, sq\);",
     r"r.shift = arith::SubIOp::create(b, loc, r.length, arith::SubIOp::create("
     r"b, loc, sq, indexConst(b, loc, 1)));", KV_TESTS),
    ("kv-lengths-batch", "every batch reads kv_lengths[0]",
     r"tensor::ExtractOp::create\(b, loc, kvLengths, batch\);\n  return buildCacheKeyRange",
     r"tensor::ExtractOp::create(b, loc, kvLengths, ValueRange{indexConst(b, loc, 0)});"
     r"\n  return buildCacheKeyRange", KV_TESTS),
    ("kv-lengths-check-upper", "the run-time check rejects kv_lengths == Smax",
     r"CmpIPredicate::sle,(\s*)length, smax\)",
     r"CmpIPredicate::slt,\1length, smax)", KV_TESTS),
    ("kv-lengths-check-lower", "the run-time check accepts a negative kv_lengths",
     r"CmpIPredicate::sge,(\s*)length, zero\)",
     r"CmpIPredicate::sge,\1length, indexConst(b, loc, -1))", KV_TESTS),
    ("decode-split-begin", "each split of the decode schedule skips its first key",
     r"task\.keyBegin = arith::MulIOp::create\(b, loc, task\.split, splits\.chunk\);",
     r"task.keyBegin = arith::AddIOp::create(b, loc, arith::MulIOp::create("
     r"b, loc, task.split, splits.chunk), indexConst(b, loc, 1));", DECODE_TESTS),
    ("t5-bidirectional-ahead", "bidirectional T5 puts distance 0 in the upper half of the buckets",
     r"CmpIPredicate::sgt, dist, zero\)",
     r"CmpIPredicate::sge, dist, zero)", T5_TESTS),
    ("t5-exact-range", "T5's exact buckets stop one distance early",
     r"CmpIPredicate::slt, n, exactV\)",
     r"CmpIPredicate::slt, n, indexConst(b, loc, exact - 1))", T5_TESTS),
    ("deberta-p2c-diagonal", "the fused DeBERTa p2c band is read in the query's "
     "column, not along the tile's diagonal (distance i - j)",
     r"debertaP2C, ValueRange\{jLocal, u\}",
     r"debertaP2C, ValueRange{jLocal, iLocal}", DEBERTA_TESTS),
    ("deberta-far-tile-check", "every DeBERTa key tile is taken for a far tile "
     "(one table row for the whole band) without checking its index entries",
     r"arith::AndIOp::create\(b, loc, acc\[0\], same\)",
     r"acc[0]", DEBERTA_TESTS),
    ("shaw-clamp-bound", "relative distances clamp at K - 1 instead of K",
     r"r = arith::MinSIOp::create\(b, loc, r, indexConst\(b, loc, maxDist\)\)",
     r"r = arith::MinSIOp::create(b, loc, r, indexConst(b, loc, maxDist - 1))", SHAW_TESTS),
    ("shaw-band-edge", "the fused Shaw path's upper clamped band starts at K + 1, not K",
     r"CmpIPredicate::sge, d,(\s*)indexConst\(b, loc, maxDist\)\)",
     r"CmpIPredicate::sgt, d,\1indexConst(b, loc, maxDist))", SHAW_TESTS),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def prepare_scratch():
    """A copy of the tree (tracked and untracked, not ignored files) with its
    own build directory, configured once and kept between runs."""
    files = run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                check=True).stdout.split("\n")
    for rel in filter(None, files):
        src, dst = os.path.join(ROOT, rel), os.path.join(SOURCE, rel)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
            shutil.copy2(src, dst)
    if not os.path.exists(os.path.join(BUILD, "build.ninja")):
        launcher = []
        if shutil.which("ccache"):
            launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                        "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        run(["cmake", "-S", SOURCE, "-B", BUILD, "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_COMPILER=g++",
             "-DCMAKE_C_COMPILER=gcc", *launcher], check=True)


def build():
    jobs = os.environ.get("POSENC_JOBS", "2")
    return run(["ninja", "-C", BUILD, f"-j{jobs}", "posenc-opt", "PosencCAPI",
                "posenc-unittests"])


def sources(tree=SOURCE):
    for folder, _, names in os.walk(os.path.join(tree, "lib")):
        for name in sorted(names):
            if name.endswith((".cpp", ".h")):
                yield os.path.join(folder, name)


def mutants(pattern, tree=SOURCE):
    """(path, text, match) for every match of `pattern` under tree/lib/."""
    regex = re.compile(pattern)
    for path in sources(tree):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for match in regex.finditer(text):
            yield path, text, match


def tests_pass(selections):
    env = dict(os.environ, POSENC_BUILD_DIR=BUILD, PYTHONPATH=os.path.join(SOURCE, "python"))
    for selection in selections:
        file, _, expr = selection.partition(" -k ")
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               os.path.join(SOURCE, "test", "python", file)]
        if expr:
            cmd += ["-k", expr.strip("'")]
        if run(cmd, env=env, cwd=SOURCE).returncode != 0:
            return False, selection
    # Execution tests only: a FileCheck line on the spelling of the mutated
    # code would catch every mutant and hide a gap in what the numbers check.
    lit = run([LIT, "-q", os.path.join(BUILD, "test", "Integration", "CPU"),
               os.path.join(BUILD, "test", "Unit")], env=env)
    return (lit.returncode == 0, "lit Integration/CPU, Unit")


def check_patterns(chosen):
    """Every entry must match at least once in the working tree."""
    missing = []
    for name, _, pattern, _, _ in chosen:
        count = len(list(mutants(pattern, ROOT)))
        print(f"{name}: {count} mutant(s)")
        if not count:
            missing.append(name)
    if missing:
        print("mutate: patterns matching nothing under lib/ (the code moved: "
              "update the catalogue): " + ", ".join(missing), file=sys.stderr)
    return 1 if missing else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated catalogue names")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--check-patterns", action="store_true",
                        help="count each entry's mutants in the working tree; no build")
    args = parser.parse_args()
    chosen = [c for c in CATALOGUE if not args.only or c[0] in args.only.split(",")]
    if args.list:
        for name, what, *_ in chosen:
            print(f"{name}: {what}")
        return 0
    if args.check_patterns:
        return check_patterns(chosen)
    prepare_scratch()
    if build().returncode != 0:
        print("mutate: the unmutated scratch tree does not build", file=sys.stderr)
        return 2
    survivors, missing, results = [], [], []
    for name, what, pattern, replacement, selections in chosen:
        found = list(mutants(pattern))
        if not found:
            missing.append(name)
            print(f"MISSING  {name}: the pattern matches nothing under lib/", flush=True)
            continue
        for index, (path, text, match) in enumerate(found):
            rel = os.path.relpath(path, SOURCE)
            line = text.count("\n", 0, match.start()) + 1
            label = f"{name}#{index} {rel}:{line}"
            mutated = text[:match.start()] + match.expand(replacement) + text[match.end():]
            start = time.time()
            try:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(mutated)
                built = build()
                if built.returncode != 0:
                    verdict, why = "INVALID", "does not compile"
                else:
                    passed, where = tests_pass(selections)
                    verdict, why = ("SURVIVED", "every selected test passes") if passed \
                        else ("killed", f"by {where}")
            finally:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            if verdict == "SURVIVED":
                survivors.append(label)
            results.append((label, verdict))
            print(f"{verdict:8} {label} ({what}): {why} [{time.time() - start:.0f}s]",
                  flush=True)
    build()  # leave the scratch build unmutated
    killed = sum(v == "killed" for _, v in results)
    print(f"mutate: {len(results)} mutants, {killed} killed, {len(survivors)} survived, "
          f"{len(missing)} patterns missing")
    return 1 if survivors or missing else 0


if __name__ == "__main__":
    sys.exit(main())
