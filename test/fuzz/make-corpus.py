#!/usr/bin/env python3
"""Writes posenc-fuzz's seed corpus: every lit input under test/ split at
`// -----` (as --split-input-file does), with comment lines dropped, plus
seeds of the structure-aware mode (a 0x00 byte, then bytes for
ProgramWriter). One file per distinct input, named by its SHA-1.

  test/fuzz/make-corpus.py OUTPUT_DIR
"""
import hashlib
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPLIT = re.compile(r"^// -----\s*$", re.M)
STRUCTURED_SEEDS = 64


def lit_inputs():
    for folder, _, files in os.walk(os.path.join(ROOT, "test")):
        for name in sorted(files):
            if name.endswith(".mlir"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    yield f.read()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = set()
    for text in lit_inputs():
        for chunk in SPLIT.split(text):
            lines = [line for line in chunk.splitlines()
                     if not line.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                seeds.add(body.encode() + b"\n")
    rng = random.Random(20261201)
    for _ in range(STRUCTURED_SEEDS):
        seeds.add(b"\0" + bytes(rng.randrange(256) for _ in range(rng.randrange(8, 96))))
    for seed in seeds:
        with open(os.path.join(out, hashlib.sha1(seed).hexdigest()), "wb") as f:
            f.write(seed)
    print(f"make-corpus: {len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
