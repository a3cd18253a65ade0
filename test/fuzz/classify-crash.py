#!/usr/bin/env python3
"""Classifies posenc-fuzz findings by the stack they crash with.

Each artifact (crash-*, oom-*, timeout-*, leak-* from libFuzzer) is run once
more through posenc-fuzz, and the first stack trace of the report
(AddressSanitizer, UndefinedBehaviorSanitizer, or libFuzzer's deadly-signal
handler) is read frame by frame, skipping the sanitizer/libFuzzer runtime
and libc:

* posenc   the top frame is posenc code (lib/, include/posenc, the dialect),
           or the top posenc *library* frame below an upstream top frame
           (posenc handed upstream something it must not);
* upstream the only posenc frame under the crash is the fuzz driver itself
           (test/fuzz), e.g. a crash inside MLIR's parser on malformed text;
* resource an out-of-memory or a timeout (classified by the report).

A signature (class, function of the deciding frame) groups artifacts; the
upstream signatures listed in test/fuzz/known-upstream.txt (documented in
docs/reliability.md) are accepted, any other signature fails the run.

  test/fuzz/classify-crash.py POSENC_FUZZ_BINARY ARTIFACT...
Exit status: 0 when every artifact is a known upstream crash, else 1.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KNOWN = os.path.join(HERE, "known-upstream.txt")
FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (.*?)(?: (/\S+|\(\S+\)))?$")
RUNTIME = re.compile(r"__asan|__ubsan|__sanitizer|__interceptor|fuzzer::|"
                     r"LLVMFuzzer(?!TestOneInput)|^abort$|^raise$|^__libc|^__GI_|"
                     r"^gsignal$|^_start$|^main$|libc\.so|libclang_rt")


def symbolizer_env():
    env = dict(os.environ)
    env.setdefault("ASAN_SYMBOLIZER_PATH", "/usr/lib/llvm-22/bin/llvm-symbolizer")
    env.setdefault("ASAN_OPTIONS", "allow_user_poisoning=0")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    return env


def frames(report):
    """(function, location) of the first stack trace in `report`."""
    out, started = [], False
    for line in report.splitlines():
        match = FRAME.match(line)
        if match:
            started = True
            out.append((match.group(2).strip(), match.group(3) or ""))
        elif started:
            break
    return out


def is_posenc(function, location):
    if location.startswith(ROOT) or "/posenc/" in location:
        return "/test/fuzz/" not in location and "posenc-fuzz.cpp" not in location
    return bool(re.search(r"\bposenc::", function)) and "fuzz::" not in function


def is_driver(function, location):
    return "/test/fuzz/" in location or "posenc::fuzz::" in function or \
        "runInput" in function or "runPipeline" in function


def short(function):
    """The function name without parameter lists and template arguments."""
    name = function.replace("(anonymous namespace)", "{anon}")
    name = re.sub(r"\(.*", "", name)
    return re.sub(r"<[^<>]*>", "", name).strip()


def classify(report):
    if "out-of-memory" in report or "ERROR: libFuzzer: out-of-memory" in report:
        return "resource", "out-of-memory"
    if "ERROR: libFuzzer: timeout" in report:
        return "resource", "timeout"
    stack = [f for f in frames(report) if not RUNTIME.search(f[0] + " " + f[1])]
    if not stack:
        return "unknown", "no stack"
    top = stack[0]
    if is_posenc(*top):
        return "posenc", short(top[0])
    for frame in stack[1:]:
        if is_posenc(*frame):
            return "posenc", f"{short(frame[0])} -> {short(top[0])}"
        if is_driver(*frame):
            return "upstream", short(top[0])
    return "upstream", short(top[0])


def known_signatures():
    if not os.path.exists(KNOWN):
        return set()
    with open(KNOWN, encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def main():
    binary, artifacts = sys.argv[1], sys.argv[2:]
    known = known_signatures()
    groups = {}
    for artifact in artifacts:
        run = subprocess.run([binary, artifact], capture_output=True, text=True,
                             errors="replace", env=symbolizer_env(), timeout=600)
        kind, where = classify(run.stdout + run.stderr)
        if run.returncode == 0:
            kind, where = "fixed", "no longer reproduces"
        groups.setdefault((kind, where), []).append(artifact)
    failed = False
    for (kind, where), files in sorted(groups.items()):
        accepted = kind == "fixed" or (kind == "upstream" and where in known)
        failed |= not accepted
        state = "known" if accepted else "NEW"
        print(f"{state:5} {kind:8} {where}  ({len(files)}: {', '.join(files[:3])}"
              f"{' ...' if len(files) > 3 else ''})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
