#!/usr/bin/env python3
"""Inspect the gpu.binary ops of a module that --posenc-to-nvvm produced.

  gpu_objects.py list FILE              one line per object: binary, format, size
  gpu_objects.py ptxas --arch sm_XX FILE
                                        assemble every PTX object with ptxas
                                        for sm_XX; one line per kernel, non-zero
                                        exit status if ptxas rejects one
  gpu_objects.py extract FILE DIR       write each object to DIR/<binary>.<ext>

Objects are printed by MLIR as `#gpu.object<target, [properties = {...},]
[assembly = | bin = | offload = ]"payload">` where the payload is escaped
with llvm::printEscapedString (`\\` for a backslash, `\XX` for other bytes
that are not printable); no keyword means a fatbin.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

_BINARY = re.compile(r"gpu\.binary\s+@([\w$.]+)")
_STRING = re.compile(r'"((?:[^"\\]|\\\\|\\[0-9A-Fa-f]{2})*)"')
_KIND = {"assembly": "ptx", "bin": "cubin", "offload": "llvm"}


def _unescape(text):
    out = bytearray()
    i = 0
    raw = text.encode("ascii")  # the printer escapes every non-ASCII byte
    while i < len(raw):
        c = raw[i]
        if c == 0x5C:  # backslash
            if raw[i + 1] == 0x5C:
                out.append(0x5C)
                i += 2
            else:
                out.append(int(raw[i + 1:i + 3], 16))
                i += 3
        else:
            out.append(c)
            i += 1
    return bytes(out)


def _skip_balanced(text, pos, open_char, close_char):
    """Index just past the bracket group that starts at text[pos] == open_char,
    skipping string literals."""
    depth = 0
    while pos < len(text):
        c = text[pos]
        if c == '"':
            pos = _STRING.match(text, pos).end()
            continue
        if c == open_char:
            depth += 1
        elif c == close_char:
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    raise ValueError("unbalanced " + open_char)


def objects(path):
    """Yields (binary name, kind, payload bytes) for every gpu.object."""
    text = open(path, encoding="utf-8").read()
    for m in _BINARY.finditer(text):
        pos = text.index("[", m.end())
        end = _skip_balanced(text, pos, "[", "]")
        while True:
            start = text.find("#gpu.object<", pos, end)
            if start < 0:
                break
            # The target attribute: `#nvvm.target<...>`.
            pos = text.index("<", start + len("#gpu.object<"))
            pos = _skip_balanced(text, pos, "<", ">")
            rest = re.compile(r",\s*properties\s*=\s*").match(text, pos)
            if rest:
                pos = _skip_balanced(text, rest.end(), "{", "}")
            head = re.compile(r",\s*(?:(\w+)\s*=\s*)?").match(text, pos)
            payload = _STRING.match(text, head.end())
            keyword = head.group(1)
            kind = _KIND.get(keyword, keyword) if keyword else "fatbin"
            yield m.group(1), kind, _unescape(payload.group(1))
            pos = payload.end()


def find_ptxas():
    for candidate in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("gpu_objects.py: ptxas not found")


def describe(kind, data):
    if kind == "ptx":
        text = data.decode("utf-8")
        target = re.search(r"^\.target\s+(\S+)", text, re.M)
        version = re.search(r"^\.version\s+(\S+)", text, re.M)
        entries = re.findall(r"\.entry\s+([\w$]+)", text)
        return (f"ptx .version {version.group(1) if version else '?'} "
                f".target {target.group(1) if target else '?'} "
                f"entries {','.join(entries)}")
    if kind == "cubin":
        if data[:4] != b"\x7fELF":
            return "cubin BAD-MAGIC"
        machine = int.from_bytes(data[18:20], "little")
        flags = int.from_bytes(data[48:52], "little")
        # e_flags holds the SM version: bits 8-15 from CUDA ELF ABI version 8
        # (EI_ABIVERSION, byte 8) on, bits 0-7 before.
        sm = (flags >> 8) & 0xFF if data[8] >= 8 else flags & 0xFF
        return (f"cubin ELF machine {machine}{' (EM_CUDA)' if machine == 190 else ''}"
                f" sm_{sm}")
    if kind == "fatbin":
        magic = int.from_bytes(data[:4], "little")
        return f"fatbin magic {magic:#x}{' (ok)' if magic == 0xBA55ED50 else ' BAD-MAGIC'}"
    return kind


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list")
    p.add_argument("file")
    p = sub.add_parser("ptxas")
    p.add_argument("--arch", required=True)
    p.add_argument("file")
    p = sub.add_parser("extract")
    p.add_argument("file")
    p.add_argument("dir")
    args = parser.parse_args()

    found = list(objects(args.file))
    if not found:
        sys.exit(f"gpu_objects.py: no gpu.object in {args.file}")

    if args.command == "list":
        for name, kind, data in found:
            print(f"{name}: {len(data)} bytes {describe(kind, data)}")
        return 0

    if args.command == "extract":
        os.makedirs(args.dir, exist_ok=True)
        for name, kind, data in found:
            with open(os.path.join(args.dir, f"{name}.{kind}"), "wb") as f:
                f.write(data)
        return 0

    ptxas = find_ptxas()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, data in found:
            if kind != "ptx":
                sys.exit(f"gpu_objects.py: {name} is {kind}, not PTX (use format=isa)")
            ptx = os.path.join(tmp, f"{name}.ptx")
            cubin = os.path.join(tmp, f"{name}.cubin")
            with open(ptx, "wb") as f:
                f.write(data)
            run = subprocess.run([ptxas, f"-arch={args.arch}", ptx, "-o", cubin],
                                 capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(cubin):
                print(f"{name}: ptxas -arch={args.arch} FAILED\n{run.stderr}")
                status = 1
                continue
            with open(cubin, "rb") as f:
                binary = f.read()
            print(f"{name}: ptxas -arch={args.arch} ok, {describe('cubin', binary)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
