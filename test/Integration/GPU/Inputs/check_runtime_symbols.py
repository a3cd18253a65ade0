#!/usr/bin/env python3
"""Check that a runtime library defines every mgpu* function that lowered
host code declares.

  mlir-translate --mlir-to-llvmir lowered.mlir | check_runtime_symbols.py LIB

Reads LLVM IR on stdin, collects the `declare ... @mgpu*(...)` functions and
looks each up in the dynamic symbol table of LIB (llvm-nm -D --defined-only).
Prints one line per function; exits 1 when one is missing.
"""
import re
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    declared = sorted(set(re.findall(r"^declare\s[^@]*@(mgpu\w+)\(", sys.stdin.read(), re.M)))
    if not declared:
        sys.exit("check_runtime_symbols.py: the IR declares no mgpu* function")
    nm = shutil.which("llvm-nm") or shutil.which("nm")
    out = subprocess.run([nm, "-D", "--defined-only", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    missing = [name for name in declared if name not in defined]
    for name in declared:
        print(f"{name}: {'defined' if name in defined else 'MISSING'}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
