#!/usr/bin/env python3
"""Run a posenc program on seeded inputs and compare it with posenc.reference.

  check_against_reference.py --case CASE --pipeline PIPELINE PROGRAM.mlir
      [--shared-libs a.so,b.so] [--options "chip=sm_90 ..."]

PROGRAM.mlir holds one public function (the program under test); CASE names
its inputs and its reference result (the table CASES below, built from
python/posenc/reference.py, which is written from SPEC.md and never from the
C++). The driver appends a @main that passes the inputs as exact hex constants
and prints the result with printMemrefF32, lowers the module with posenc-opt,
runs it with mlir-runner, and compares within the case's tolerance.

PIPELINE:
  gpu         --posenc-to-nvvm; mlir-runner needs libposenc_cuda_runtime.so in
              --shared-libs and an NVIDIA GPU.
  cpu         --posenc-cpu-pipeline (checks the programs, inputs and
              references themselves on any machine).
  mapped-cpu  the GPU pipeline's preparation (bufferization, constant copies,
              parallel loops mapped to blocks x threads by
              posenc-gpu-map-parallel-loops) and then the mapped loops run as
              plain loops on the CPU: checks the thread mapping's index
              arithmetic (linearization, guards) without a GPU; with
              --posenc-to-nvvm's default fused=true this is what the
              elementwise ops and the standalone encodings run through.
  fused-mapped-cpu
              the fused attention path (fuse, decompose with 6x5 tiles,
              posenc-gpu-map-attention with 8 threads, emulate-on-cpu): each
              mapped tile op runs as a sequential loop over the thread ids,
              checking the row guards, strides, static tile bounds and the
              staged V tiles without a GPU (not the private/shared placement
              or the barriers, which need one).

Prints `CASE (PIPELINE): max |result - reference| = E (atol A, rtol R) ->
AGREES` or `DIFFERS` (exit status 1); every other failure also exits non-zero.
"""
import argparse
import math
import re
import shutil
import subprocess
import sys

import numpy as np

from posenc import reference as ref

RNG_SEED = 4242

# The GPU pipeline's preparation, then the CPU pipeline's lowering of what is
# left (scf.parallel with mapping attributes lowers like any parallel loop).
MAPPED_CPU_PIPELINE = (
    "builtin.module(posenc-to-linalg, func.func(convert-elementwise-to-linalg),"
    " canonicalize, linalg-fuse-elementwise-ops,"
    " cse, one-shot-bufferize{bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map},"
    " posenc-gpu-copy-constants, buffer-deallocation-pipeline,"
    " convert-bufferization-to-memref,"
    " func.func(convert-linalg-to-parallel-loops), canonicalize,"
    " posenc-gpu-map-parallel-loops{block-size=100},"
    " lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine,"
    " finalize-memref-to-llvm, convert-math-to-llvm, convert-math-to-libm,"
    " convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm,"
    " convert-func-to-llvm, reconcile-unrealized-casts)")

# The fused attention path of --posenc-to-nvvm up to its block/thread mapping
# (posenc-gpu-map-attention), emulated on the CPU: every mapped tile op runs as
# a sequential loop over the thread ids. Small tiles (6 query rows on 8
# threads, 5 key rows) so that the test cases have partial tiles, idle
# threads and several key tiles per query tile.
FUSED_MAPPED_CPU_PIPELINE = (
    "builtin.module(posenc-fuse-attention,"
    " posenc-decompose-attention{query-tile=6 key-tile=5},"
    " posenc-to-linalg, func.func(convert-elementwise-to-linalg),"
    " canonicalize, posenc-gpu-fuse-elementwise,"
    " cse, one-shot-bufferize{bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map},"
    " posenc-gpu-copy-constants, buffer-deallocation-pipeline,"
    " convert-bufferization-to-memref,"
    " posenc-gpu-map-attention{block-size=8 emulate-on-cpu},"
    " func.func(scf-forall-to-parallel),"
    " func.func(convert-linalg-to-parallel-loops), canonicalize,"
    " posenc-gpu-map-parallel-loops{block-size=100},"
    " lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine,"
    " finalize-memref-to-llvm, convert-math-to-llvm, convert-math-to-libm,"
    " convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm,"
    " convert-func-to-llvm, reconcile-unrealized-casts)")


def rng(salt):
    return np.random.default_rng(RNG_SEED + salt)


def normal(shape, salt):
    return rng(salt).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------
# Cases: inputs (numpy arrays, in the order of the function's arguments), the
# reference result (float64) and the tolerance, with the reason for it.
# f32 kernels vs the float64 reference: f32 accumulation and libdevice/libm
# sin, cos, exp (a few ulp) stay far below 2e-5; printMemrefF32 prints 6
# significant digits, hence the rtol. RoPE `fast` angles are f32(pos) *
# f32(inv_freq): their absolute error grows like |theta| * 1.2e-7.
# ---------------------------------------------------------------------------

LLAMA3 = {"kind": "llama3", "factor": 8.0, "original_max_position": 8192,
          "low_freq_factor": 1.0, "high_freq_factor": 4.0}


def case_rope_llama3():
    x = normal((2, 4, 37, 64), 1)
    pos = np.arange(100, 137, dtype=np.int32)
    expected = ref.rope(x, pos, "half", base=500000.0, scaling=LLAMA3)
    # |theta| <= 137: angle error <= 137 * 2.4e-7 ~ 3.3e-5, times |x| <= ~4.
    return [x, pos], expected, 2e-4, 1e-4


def case_rope_interleaved_exact():
    x = normal((3, 24, 64), 2)
    pos = rng(3).integers(0, 1 << 20, size=24).astype(np.int64)
    expected = ref.rope(x, pos, "interleaved", base=10000.0, rotary_dim=32)
    # exact mode: cos/sin within 1e-6 of float64 even at positions ~2^20.
    return [x, pos], expected, 2e-5, 1e-4


def case_sinusoidal():
    pos = np.arange(0, 48, dtype=np.int64)
    expected = ref.sinusoidal(pos, 64)
    # |theta| <= 47: angle error <= 47 * 2.4e-7 ~ 1.1e-5.
    return [pos], expected, 3e-5, 1e-4


def case_alibi():
    return [], ref.alibi_bias(12, 16, 16), 1e-6, 1e-5


def case_attention_gqa_causal():
    q = normal((1, 8, 16, 32), 4)
    k = normal((1, 2, 16, 32), 5)
    v = normal((1, 2, 16, 32), 6)
    return [q, k, v], ref.attention(q, k, v, causal=True), 2e-5, 2e-4


def case_attention_bias_causal():
    # Sq < Sk: the causal mask and the bias are bottom-right aligned.
    q = normal((1, 4, 16, 32), 7)
    k = normal((1, 4, 24, 32), 8)
    v = normal((1, 4, 24, 32), 9)
    bias = normal((4, 16, 24), 10)
    return [q, k, v, bias], ref.attention(q, k, v, bias=bias, causal=True), 2e-5, 2e-4


def case_rel_pos_attention():
    q = normal((2, 4, 12, 16), 11)
    k = normal((2, 4, 12, 16), 12)
    v = normal((2, 4, 12, 16), 13)
    rk = normal((9, 16), 14)
    rv = normal((9, 16), 15)
    expected = ref.rel_pos_attention(q, k, v, rk, rel_value=rv, causal=True)
    return [q, k, v, rk, rv], expected, 2e-5, 2e-4


def case_example_llama_rope_attention():
    s = 37
    q = normal((1, 8, s, 64), 16)
    k = normal((1, 2, s, 64), 17)
    v = normal((1, 2, s, 64), 18)
    pos = np.arange(100, 100 + s, dtype=np.int32)
    qr = ref.rope(q, pos, "half", base=500000.0, scaling=LLAMA3)
    kr = ref.rope(k, pos, "half", base=500000.0, scaling=LLAMA3)
    return [q, k, v, pos], ref.attention(qr, kr, v, causal=True), 2e-5, 2e-4


def case_example_alibi_attention():
    q = normal((1, 12, 16, 32), 19)
    k = normal((1, 12, 16, 32), 20)
    v = normal((1, 12, 16, 32), 21)
    bias = ref.alibi_bias(12, 16, 16)
    return [q, k, v], ref.attention(q, k, v, bias=bias, causal=True), 2e-5, 2e-4


CASES = {name[len("case_"):]: fn for name, fn in globals().items()
         if name.startswith("case_")}

# ---------------------------------------------------------------------------
# Building and running the module.
# ---------------------------------------------------------------------------

MLIR_ELEM = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
             np.dtype(np.int64): "i64"}
_FUNC = re.compile(r"func\.func\s+@([\w$]+)\s*\(([^)]*)\)\s*->\s*(tensor<[^>]*>)")
_ARG_TYPE = re.compile(r"%[\w$]+\s*:\s*(tensor<[^>]*>)")


def static_type(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def build_main(program, inputs, result_shape):
    match = _FUNC.search(program)
    if not match:
        sys.exit("check_against_reference.py: no `func.func @f(...) -> tensor<...>` "
                 "in the program")
    name, arg_text, result_type = match.groups()
    arg_types = _ARG_TYPE.findall(arg_text)
    if len(arg_types) != len(inputs):
        sys.exit(f"check_against_reference.py: @{name} takes {len(arg_types)} "
                 f"arguments, the case provides {len(inputs)}")
    lines = ["func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {"]
    operands = []
    for i, (array, dyn_type) in enumerate(zip(inputs, arg_types)):
        st = static_type(array.shape, MLIR_ELEM[array.dtype])
        data = np.ascontiguousarray(array).tobytes().hex().upper()
        lines.append(f'  %c{i} = arith.constant dense<"0x{data}"> : {st}')
        if st != dyn_type:
            lines.append(f"  %a{i} = tensor.cast %c{i} : {st} to {dyn_type}")
            operands.append(f"%a{i}")
        else:
            operands.append(f"%c{i}")
    out_type = static_type(result_shape, "f32")
    lines.append(f"  %r = call @{name}({', '.join(operands)}) : "
                 f"({', '.join(arg_types)}) -> {result_type}")
    result = "%r"
    if result_type != out_type:
        lines.append(f"  %s = tensor.cast %r : {result_type} to {out_type}")
        result = "%s"
    lines.append(f"  %u = tensor.cast {result} : {out_type} to tensor<*xf32>")
    lines.append("  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines)


def parse_printed(text, shape):
    if "data =" not in text:
        sys.exit(f"check_against_reference.py: no printed memref in the output:\n{text}")
    body = text.split("data =", 1)[1]
    numbers = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", body)
    values = np.array([float(x) for x in numbers], dtype=np.float64)
    if values.size != math.prod(shape):
        sys.exit(f"check_against_reference.py: printed {values.size} values, "
                 f"expected {math.prod(shape)}")
    return values.reshape(shape)


def tool(name):
    path = shutil.which(name)
    if not path:
        sys.exit(f"check_against_reference.py: {name} not found on PATH")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--pipeline", required=True, choices=["gpu", "cpu", "mapped-cpu", "fused-mapped-cpu"])
    parser.add_argument("--options", default="",
                        help="options of --posenc-to-nvvm (gpu pipeline only)")
    parser.add_argument("--shared-libs", default="",
                        help="comma-separated libraries for mlir-runner")
    parser.add_argument("program")
    args = parser.parse_args()

    inputs, expected, atol, rtol = CASES[args.case]()
    program = open(args.program, encoding="utf-8").read()
    module = program + "\n" + build_main(program, inputs, expected.shape)

    if args.pipeline == "gpu":
        flags = [f"--posenc-to-nvvm={args.options}" if args.options else "--posenc-to-nvvm"]
    elif args.pipeline == "cpu":
        flags = ["--posenc-cpu-pipeline"]
    elif args.pipeline == "mapped-cpu":
        flags = [f"--pass-pipeline={MAPPED_CPU_PIPELINE}"]
    else:
        flags = [f"--pass-pipeline={FUSED_MAPPED_CPU_PIPELINE}"]
    lowered = subprocess.run([tool("posenc-opt"), *flags, "-"], input=module,
                             capture_output=True, text=True)
    if lowered.returncode != 0:
        sys.exit(f"check_against_reference.py: posenc-opt {' '.join(flags)} failed:\n"
                 f"{lowered.stderr}")
    runner = [tool("mlir-runner"), "-e", "main", "-entry-point-result=void"]
    if args.shared_libs:
        runner.append(f"-shared-libs={args.shared_libs}")
    run = subprocess.run(runner, input=lowered.stdout, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"check_against_reference.py: mlir-runner failed "
                 f"(exit {run.returncode}):\n{run.stderr}")

    got = parse_printed(run.stdout, expected.shape)
    err = np.abs(got - expected)
    ok = bool(np.all(np.isfinite(got))) and bool(np.all(err <= atol + rtol * np.abs(expected)))
    print(f"{args.case} ({args.pipeline}): max |result - reference| = {err.max():.3e} "
          f"(atol {atol:g}, rtol {rtol:g}) -> {'AGREES' if ok else 'DIFFERS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
