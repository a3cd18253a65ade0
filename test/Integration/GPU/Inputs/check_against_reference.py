#!/usr/bin/env python3
"""Run a posenc program on seeded inputs and compare it with posenc.reference.

  check_against_reference.py --case CASE --pipeline PIPELINE PROGRAM.mlir
      [--shared-libs a.so,b.so] [--options "chip=sm_90 ..."]

PROGRAM.mlir holds one public function (the program under test); CASE names
its inputs and its reference result (the table CASES below, built from
python/posenc/reference.py, which is written from docs/spec.md and never from the
C++). The driver appends a @main that passes the inputs as exact hex constants
and prints the result with printMemrefF32 (an f16 / bf16 result is widened to
f32 first, exactly, by arith.extf), lowers the module with posenc-opt, runs it
with mlir-runner, and compares within the case's tolerance. Inputs are numpy
arrays: f32, f16 (np.float16), i32, i64, and bf16 carried as np.uint16 arrays
of bf16 bit patterns (as posenc.compile takes them, posenc.to_bf16_bits).

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
  tc-emulated-cpu
              the tensor-core kernel of f16/bf16 attention
              (posenc-gpu-tensor-core-attention) as built, run on the CPU by
              posenc-gpu-emulate-tensor-cores: one OpenMP thread per GPU
              thread (the program sets the team size), ldmatrix,
              mma.sync, shuffles and barriers emulated from their
              definitions, then --posenc-cpu-pipeline. Checks the kernel's
              fragment addressing, masks, online softmax, RoPE prologue and
              16-bit roundings without a GPU. With --options
              warpgroup-mma=1, the wgmma kernel (sm_90a): its shared-memory
              operand layouts and matrix descriptors.

Prints `CASE (PIPELINE): max |result - reference| = E (atol A, rtol R,
max error/tolerance X) -> AGREES` or `DIFFERS` (exit status 1); every other
failure also exits non-zero. A case's atol may be an array (a tolerance per
element, the 16-bit attention cases below); A is then its range.
"""
import argparse
import math
import re
import shutil
import subprocess
import sys

import numpy as np

from posenc import from_bf16_bits, to_bf16_bits
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


# ---------------------------------------------------------------------------
# f16 / bf16 attention (the tensor-core kernel of --posenc-to-nvvm, and the
# CPU pipeline, which computes in f32).
#
# Inputs: seeded normal values rounded to the element type; the reference is
# float64 from exactly those 16-bit values. The program's intermediate
# tensors are 16-bit too (posenc.rope on a bf16 tensor returns a bf16 tensor,
# docs/spec.md), so the reference rounds its float64 RoPE result to the element
# type (correctly rounded) before the attention, as a bias tensor of the
# element type is rounded.
#
# u: unit roundoff of the element type (round to nearest even; the relative
# error of one rounding is <= u): bf16 keeps 8 significant bits, u = 2^-8;
# f16 keeps 11, u = 2^-11. Where the kernel differs from that reference,
# with p_ij the exact softmax weights and O = the reference result:
#  (a) P = exp(s - m) is rounded to the element type before P.V (16-bit mma
#      operands, f32 accumulation): every weight moves by <= u P (+ half the
#      f16 subnormal spacing, 2^-25, below 2^-14; bf16 has f32's exponent
#      range). O_id = sum_j P~_ij v_jd / l_i then moves by
#      <= u sum_j p_ij |v_jd| if l_i sums the unrounded P, and by
#      <= 2u sum_j p_ij |v_jd| if it sums the rounded ones (the weights
#      P~/l are then off by <= 2u relative), plus 2^-25 sum_j |v_jd| for f16.
#  (b) O is stored in the element type: <= u |O_id|.
#  (c) f32 arithmetic elsewhere (Q.K^T accumulated in f32 from exact 16-bit
#      products, scale, exp, the online-softmax rescaling): relative errors
#      ~1e-6, negligible next to u.
#  (d) RoPE is rotated in f32 (fast angles: |theta| <= S, angle error
#      <= ~S * 2^-23, 3e-5 for S = 257) and then rounded; where the float64
#      value lies that close to a rounding midpoint the result is one ulp
#      (<= 2u|x|) off the correctly rounded one (0.03% - 0.05% of the
#      elements in these cases, in the high-frequency pairs). Each moves a
#      score by <= scale * 2u |q_d k_d| (~7e-4 for bf16, ~9e-5 for f16, at
#      D = 128) and O_id by <= |ds| sum_j p_ij |v_jd - O_id|: inside the
#      margin below.
# Tolerance, per element: twice the first-order bound of (a) and (b),
#     |result - reference| <= 2u |O_id| + 4u sum_j p_ij |v_jd| + 2^-24 sum_j |v_jd| (f16),
# as rtol = 2u and an atol array; sum_j p_ij |v_jd| is the reference
# attention with |V| for V (same scores, same softmax). For the rows that
# average many keys sum_j p |v| ~ 0.8 (|v| ~ N(0, 1)), i.e. a tolerance of
# ~0.013 (bf16) / ~0.0016 (f16) on outputs of magnitude ~0.1 - 1; rows with
# few keys (causal) get u-relative tolerances of their few values.
# The bound assumes the kernel's numerics above (Q.K^T from the 16-bit Q and
# K, the scale applied in f32); a kernel that folds the scale into Q before
# rounding it adds a relative error u to every q_d. A numpy emulation of
# these numerics (key tiles of 64, online softmax, P rounded, l from rounded
# or unrounded P, f32 RoPE) stays within 0.23 of this tolerance on the five
# cases; a wrong mask offset, GQA head map, RoPE layout/base/position, ALiBi
# slope (x1.01) or scale (x1.01) exceeds it 5x to 9000x.
# ---------------------------------------------------------------------------

UNIT_ROUNDOFF = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}
# Half the smallest subnormal spacing: an absolute rounding error below the
# smallest normal (f16 2^-14; bf16 shares f32's range, 2^-126).
SUBNORMAL_HALF_SPACING = {"f16": 2.0 ** -25, "bf16": 2.0 ** -134}


def round_to(x, elem):
    """float64 values rounded to `elem` (nearest even), as float64."""
    x = np.asarray(x, dtype=np.float64)
    if elem == "f16":
        return x.astype(np.float16).astype(np.float64)
    if elem == "bf16":
        # 8 significant bits: x = m * 2^e, 0.5 <= |m| < 1; rint rounds half to
        # even. (No value of these cases is near bf16's range limits.)
        m, e = np.frexp(x)
        return np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)
    raise ValueError(elem)


def as_input(x, elem):
    """float64 values already representable in `elem` -> the array passed to
    the program: np.float16, or np.uint16 bf16 bit patterns."""
    if elem == "f16":
        return np.asarray(x).astype(np.float16)
    bits = to_bf16_bits(np.asarray(x, dtype=np.float32))
    assert np.array_equal(from_bf16_bits(bits).astype(np.float64), x)
    return bits


def normal16(shape, salt, elem):
    """(program input, its exact float64 values): seeded normal values
    rounded to `elem`."""
    values = round_to(normal(shape, salt), elem)
    return as_input(values, elem), values


def attention16(elem, q, k, v, bias=None, causal=False, scale=None):
    """Reference and tolerance of a 16-bit attention whose (rounded) operands
    are q, k, v (float64): (expected, atol array, rtol), see above."""
    u = UNIT_ROUNDOFF[elem]
    expected = ref.attention(q, k, v, bias=bias, causal=causal, scale=scale)
    weighted_abs_v = ref.attention(q, k, np.abs(v), bias=bias, causal=causal,
                                   scale=scale)
    # sum_j |v_jd| over all keys of the kv head (an upper bound of the masked
    # sum), broadcast over the query heads and rows.
    hq, hkv = q.shape[-3], v.shape[-3]
    abs_v_sum = np.repeat(np.abs(v).sum(axis=-2, keepdims=True), hq // hkv, axis=-3)
    atol = 4 * u * weighted_abs_v + 2 * SUBNORMAL_HALF_SPACING[elem] * abs_v_sum
    return expected, atol, 2 * u


def case_attention_f16_noncausal():
    # Sq = Sk = 100: not a multiple of any tile size (partial query/key tiles).
    q, qv = normal16((1, 4, 100, 64), 30, "f16")
    k, kv = normal16((1, 4, 100, 64), 31, "f16")
    v, vv = normal16((1, 4, 100, 64), 32, "f16")
    expected, atol, rtol = attention16("f16", qv, kv, vv)
    return [q, k, v], expected, atol, rtol


def case_attention_bf16_rope_half_causal():
    # Dynamic sequence length 257 (= 4 tiles of 64 + 1 row), D = 128.
    s = 257
    q, qv = normal16((1, 4, s, 128), 33, "bf16")
    k, kv = normal16((1, 4, s, 128), 34, "bf16")
    v, vv = normal16((1, 4, s, 128), 35, "bf16")
    pos = np.arange(s, dtype=np.int32)
    qr = round_to(ref.rope(qv, pos, "half", base=500000.0), "bf16")
    kr = round_to(ref.rope(kv, pos, "half", base=500000.0), "bf16")
    expected, atol, rtol = attention16("bf16", qr, kr, vv, causal=True)
    return [q, k, v, pos], expected, atol, rtol


def case_attention_f16_gqa_alibi_causal():
    # 8 query heads over 2 kv heads; the ALiBi bias of the program is f16:
    # slope 2^-(h+1) times an integer distance < 77, exact in f16 (the
    # rounding below changes nothing, it states the program's types).
    s = 77
    q, qv = normal16((1, 8, s, 64), 36, "f16")
    k, kv = normal16((1, 2, s, 64), 37, "f16")
    v, vv = normal16((1, 2, s, 64), 38, "f16")
    bias = round_to(ref.alibi_bias(8, s, s), "f16")
    expected, atol, rtol = attention16("f16", qv, kv, vv, bias=bias, causal=True)
    return [q, k, v], expected, atol, rtol


def case_attention_bf16_sq_lt_sk_causal():
    # Sq = 33 < Sk = 130: the causal mask is bottom-right aligned (query i
    # sees keys j <= i + 97); batch 2, 3 heads.
    q, qv = normal16((2, 3, 33, 64), 39, "bf16")
    k, kv = normal16((2, 3, 130, 64), 40, "bf16")
    v, vv = normal16((2, 3, 130, 64), 41, "bf16")
    expected, atol, rtol = attention16("bf16", qv, kv, vv, causal=True)
    return [q, k, v], expected, atol, rtol


def case_attention_f16_rope_interleaved():
    s = 64
    q, qv = normal16((2, 2, s, 128), 42, "f16")
    k, kv = normal16((2, 2, s, 128), 43, "f16")
    v, vv = normal16((2, 2, s, 128), 44, "f16")
    pos = np.arange(s, dtype=np.int64)
    qr = round_to(ref.rope(qv, pos, "interleaved"), "f16")
    kr = round_to(ref.rope(kv, pos, "interleaved"), "f16")
    expected, atol, rtol = attention16("f16", qr, kr, vv)
    return [q, k, v, pos], expected, atol, rtol


def case_attention_f16_bias_dv_scale():
    # Rank 3 (2 heads), Sq = 50 < Sk = 90, value head dim 16 != D = 32, an
    # f16 bias broadcast over the heads ([1, 50, 90], read per element in
    # score_mod at index 0 of its head dim), scale 0.3, causal.
    q, qv = normal16((2, 50, 32), 45, "f16")
    k, kv = normal16((2, 90, 32), 46, "f16")
    v, vv = normal16((2, 90, 16), 47, "f16")
    b, bv = normal16((1, 50, 90), 48, "f16")
    expected, atol, rtol = attention16("f16", qv, kv, vv, bias=bv, causal=True,
                                       scale=0.3)
    return [q, k, v, b], expected, atol, rtol


CASES = {name[len("case_"):]: fn for name, fn in globals().items()
         if name.startswith("case_")}

# ---------------------------------------------------------------------------
# Building and running the module.
# ---------------------------------------------------------------------------

# np.uint16 arrays are bf16 bit patterns (numpy has no bfloat16).
MLIR_ELEM = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
             np.dtype(np.uint16): "bf16", np.dtype(np.int32): "i32",
             np.dtype(np.int64): "i64"}
_FUNC = re.compile(r"func\.func\s+@([\w$]+)\s*\(([^)]*)\)\s*->\s*(tensor<[^>]*>)")
_ARG_TYPE = re.compile(r"%[\w$]+\s*:\s*(tensor<[^>]*>)")


def static_type(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def element_type(tensor_type):
    """`f32` of `tensor<2x?x64xf32>`."""
    return tensor_type[len("tensor<"):-1].split("x")[-1]


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
    result_elem = element_type(result_type)
    out_type = static_type(result_shape, result_elem)
    lines.append(f"  %r = call @{name}({', '.join(operands)}) : "
                 f"({', '.join(arg_types)}) -> {result_type}")
    result = "%r"
    if result_type != out_type:
        lines.append(f"  %s = tensor.cast %r : {result_type} to {out_type}")
        result = "%s"
    if result_elem != "f32":
        # f16 / bf16 -> f32 is exact; printMemrefF32 prints 6 significant
        # digits, more than either type holds.
        f32_type = static_type(result_shape, "f32")
        lines.append(f"  %w = arith.extf {result} : {out_type} to {f32_type}")
        result, out_type = "%w", f32_type
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
    parser.add_argument("--pipeline", required=True, choices=["gpu", "cpu", "mapped-cpu", "fused-mapped-cpu",
                                 "tc-emulated-cpu"])
    parser.add_argument("--options", default="",
                        help="options of --posenc-to-nvvm (gpu) or of "
                             "posenc-gpu-tensor-core-attention (tc-emulated-cpu, "
                             "e.g. warpgroup-mma=1)")
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
    elif args.pipeline == "tc-emulated-cpu":
        tc_options = f"{{{args.options}}}" if args.options else ""
        flags = ["--pass-pipeline=builtin.module(posenc-fuse-attention,"
                 f" posenc-gpu-tensor-core-attention{tc_options},"
                 " posenc-gpu-emulate-tensor-cores, posenc-cpu-pipeline)"]
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
    tolerance = atol + rtol * np.abs(expected)
    ok = bool(np.all(np.isfinite(got))) and bool(np.all(err <= tolerance))
    ratio = float(np.max(err / tolerance)) if np.all(tolerance > 0) else float("nan")
    atol_text = (f"{atol:g}" if np.ndim(atol) == 0
                 else f"{np.min(atol):.2g}..{np.max(atol):.2g} per element")
    print(f"{args.case} ({args.pipeline}): max |result - reference| = {err.max():.3e} "
          f"(atol {atol_text}, rtol {rtol:g}, max error/tolerance {ratio:.3f}) -> "
          f"{'AGREES' if ok else 'DIFFERS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
