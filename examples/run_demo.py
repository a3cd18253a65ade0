#!/usr/bin/env python3
"""posenc demo: compile the example attention programs with posenc-opt, run
them on the CPU with mlir-runner, and compare with the numpy reference.

Each example file holds a function `@attention`; this driver appends a
`@main` that feeds it seeded random inputs (as exact hex constants) and prints
the result, lowers the module with `posenc-opt --posenc-cpu-pipeline`, runs it
with `mlir-runner`, parses the printed numbers and compares them with
`posenc.reference` (written from docs/spec.md, independent of the C++).
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

from posenc import reference as ref

# The LLVM tools and libraries the build uses (scripts/*.sh export them from
# build/posenc-env.sh, which CMake writes); Debian's LLVM 22 otherwise.
LLVM_BIN = os.environ.get("POSENC_LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
LLVM_LIB = os.environ.get("POSENC_LLVM_LIBRARY_DIR", "/usr/lib/llvm-22/lib")
# printMemrefF32 prints 6 significant digits; the f32 kernels agree with the
# float64 reference far better than that, so the tolerance is the print's.
RTOL, ATOL = 1e-4, 1e-5


def hex_constant(a, mlir_type):
    data = np.ascontiguousarray(a).tobytes().hex().upper()
    return f'arith.constant dense<"0x{data}"> : {mlir_type}'


def tensor_type(shape, elem):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + elem + ">"


def build_main(program, args, arg_types, result_shape):
    """A @main that calls @attention on constant inputs and prints the result."""
    lines = ["func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {"]
    names = []
    for i, (a, (static_t, dyn_t)) in enumerate(zip(args, arg_types)):
        lines.append(f"  %c{i} = {hex_constant(a, static_t)}")
        if static_t != dyn_t:
            lines.append(f"  %a{i} = tensor.cast %c{i} : {static_t} to {dyn_t}")
            names.append(f"%a{i}")
        else:
            names.append(f"%c{i}")
    dyn_types = ", ".join(t[1] for t in arg_types)
    out_t = tensor_type(result_shape, "f32")
    # The result type as the program declares it (possibly with dynamic dims).
    res_dyn = re.search(r"->\s*(tensor<[^>]*>)", program).group(1)
    lines.append(f"  %r = call @attention({', '.join(names)}) : ({dyn_types}) -> {res_dyn}")
    lines.append(f"  %s = tensor.cast %r : {res_dyn} to {out_t}")
    lines.append(f"  %u = tensor.cast %s : {out_t} to tensor<*xf32>")
    lines.append("  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines)



def parse_printed(text, shape):
    body = text.split("data =", 1)[1]
    nums = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", body)
    values = np.array([float(x) for x in nums], dtype=np.float64)
    return values.reshape(shape)


def run_example(build, path, args, arg_types, result_shape, expected):
    program = open(path).read()
    module = program + "\n" + build_main(program, args, arg_types, result_shape)
    opt = subprocess.run([os.path.join(build, "bin", "posenc-opt"),
                          "--posenc-cpu-pipeline", "-"],
                         input=module, capture_output=True, text=True)
    if opt.returncode != 0:
        sys.exit(f"posenc-opt failed on {path}:\n{opt.stderr}")
    run = subprocess.run([os.path.join(LLVM_BIN, "mlir-runner"), "-e", "main",
                          "-entry-point-result=void",
                          # libomp: the fused attention runs its tiles in parallel.
                          "-shared-libs=" + ",".join(os.path.join(LLVM_LIB, lib) for lib in (
                              "libmlir_runner_utils.so", "libmlir_c_runner_utils.so",
                              "libomp.so"))],
                         input=opt.stdout, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"mlir-runner failed on {path}:\n{run.stderr}")
    got = parse_printed(run.stdout, result_shape)
    err = np.abs(got - expected)
    ok = np.allclose(got, expected, rtol=RTOL, atol=ATOL)
    name = os.path.basename(path)
    print(f"== {name}: output {list(result_shape)}")
    print("   first row of head 0:", np.array2string(got[0, 0, 0, :6], precision=5), "...")
    print(f"   max |posenc - reference| = {err.max():.3e}  (tolerance {ATOL} + {RTOL}*|ref|)"
          f"  -> {'AGREES' if ok else 'DIFFERS'}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--seq", type=int, default=37, help="sequence length of the RoPE example")
    opts = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    rng = np.random.default_rng(2024)
    all_ok = True

    # RoPE + GQA + causal, positions starting at 100 (a continued sequence).
    s = opts.seq
    q = rng.standard_normal((1, 8, s, 64)).astype(np.float32)
    k = rng.standard_normal((1, 2, s, 64)).astype(np.float32)
    v = rng.standard_normal((1, 2, s, 64)).astype(np.float32)
    pos = np.arange(100, 100 + s, dtype=np.int32)
    scaling = {"kind": "llama3", "factor": 8.0, "original_max_position": 8192,
               "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    qr = ref.rope(q, pos, "half", base=500000.0, scaling=scaling)
    kr = ref.rope(k, pos, "half", base=500000.0, scaling=scaling)
    expected = ref.attention(qr, kr, v, causal=True)
    types = [(tensor_type(q.shape, "f32"), "tensor<1x8x?x64xf32>"),
             (tensor_type(k.shape, "f32"), "tensor<1x2x?x64xf32>"),
             (tensor_type(v.shape, "f32"), "tensor<1x2x?x64xf32>"),
             (tensor_type(pos.shape, "i32"), "tensor<?xi32>")]
    all_ok &= run_example(opts.build, os.path.join(here, "llama_rope_attention.mlir"),
                          [q, k, v, pos], types, q.shape, expected)

    # ALiBi (12 heads) + causal.
    q = rng.standard_normal((1, 12, 16, 32)).astype(np.float32)
    k = rng.standard_normal((1, 12, 16, 32)).astype(np.float32)
    v = rng.standard_normal((1, 12, 16, 32)).astype(np.float32)
    bias = ref.alibi_bias(12, 16, 16)
    expected = ref.attention(q, k, v, bias=bias, causal=True)
    types = [(tensor_type(a.shape, "f32"),) * 2 for a in (q, k, v)]
    all_ok &= run_example(opts.build, os.path.join(here, "alibi_attention.mlir"),
                          [q, k, v], types, q.shape, expected)

    print("demo:", "all results agree with the reference" if all_ok else "MISMATCH")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
