#!/usr/bin/env python3
"""posenc GPU benchmark: the CPU benchmark's cases through --posenc-to-nvvm.

Each case becomes one self-contained program: `@kernel` is the posenc
program, `@main` builds deterministic inputs on the device (managed memory),
calls the kernel once to warm up, then `repeat` times between two `rtclock()`
calls, and prints the mean time. It is lowered with posenc-opt and run with
mlir-runner against libposenc_cuda_runtime.so, so the only requirement on a
GPU machine is this project's build. When PyTorch with CUDA is importable,
the same shapes are timed with `torch.nn.functional.scaled_dot_product_attention`
(RoPE applied the usual way, as a separate step) and the ratio is printed.

Without a GPU, `--compile-only` lowers every case to a binary (ptxas) and
reports its kernel count: that is what the test suite runs here.

Usage: scripts/bench-gpu.sh [--chip auto|sm_90a|sm_80...] [--dtypes f32,bf16,f16] [--quick]
                            [--compile-only] [--write-docs]
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The LLVM tools and libraries the build uses (scripts/*.sh export them from
# build/posenc-env.sh, which CMake writes); Debian's LLVM 22 otherwise.
LLVM_BIN = os.environ.get("POSENC_LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
LLVM_LIB = os.environ.get("POSENC_LLVM_LIBRARY_DIR", "/usr/lib/llvm-22/lib")


def ttype(shape, elem):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


class Case:
    def __init__(self, name, kind, dtype, **p):
        self.name, self.kind, self.dtype, self.p = name, kind, dtype, p

    def flops(self):
        p = self.p
        if self.kind == "decode":  # Q K^T and P V over the whole cache
            return 4.0 * p["hq"] * p["sq"] * p["sk"] * p["d"]
        if self.kind != "attention":
            return 0.0
        p = self.p
        return 4.0 * p["s"] * p["s"] * p["d"] * p["h"] / 2  # causal

    def bytes_moved(self):
        p = self.p
        width = 2 if self.dtype in ("bf16", "f16") else 4
        if self.kind == "rope":
            return 2 * width * p["h"] * p["s"] * p["d"]
        if self.kind == "decode":  # the K/V cache read once
            return 2 * width * p["hkv"] * p["sk"] * p["d"]
        return width * 4 * p["h"] * p["s"] * p["d"]

    def shapes(self):
        """(argument name, shape, element type) of @kernel."""
        p, e = self.p, self.dtype
        if self.kind == "decode":  # f32 queries over an `e` K/V cache
            d = p["d"]
            return [("q", [1, p["hq"], p["sq"], d], "f32"),
                    ("k", [1, p["hkv"], p["sk"], d], e), ("v", [1, p["hkv"], p["sk"], d], e)]
        s, d, h = p["s"], p["d"], p["h"]
        if self.kind == "rope":
            return [("x", [1, h, s, d], e), ("pos", [s], "i32")]
        enc = p.get("encoding", "plain")
        if enc == "shaw":
            kk = p["K"]
            return [("q", [h, s, d], e), ("k", [h, s, d], e), ("v", [h, s, d], e),
                    ("rk", [2 * kk + 1, d], e), ("rv", [2 * kk + 1, d], e)]
        args = [("q", [1, h, s, d], e), ("k", [1, h, s, d], e), ("v", [1, h, s, d], e)]
        if enc == "rope":
            args.append(("pos", [s], "i32"))
        return args

    def kernel(self):
        p, e = self.p, self.dtype
        args = self.shapes()
        sig = ", ".join(f"%{n}: {ttype(sh, el)}" for n, sh, el in args)
        t = {n: ttype(sh, el) for n, sh, el in args}
        if self.kind == "rope":
            body = [f"  %r = posenc.rope %x, %pos layout {p['layout']} : {t['x']}, {t['pos']}"]
            rt = t["x"]
        elif self.kind == "decode":
            body = [f"  %r = posenc.attention %q, %k, %v {{causal}} : "
                    f"{t['q']}, {t['k']}, {t['v']} -> {t['q']}"]
            rt = t["q"]
        elif p.get("encoding") == "shaw":
            body = [f"  %r = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : {t['rk']}) "
                    f"rel_value(%rv : {t['rv']}) {{causal}} : {t['q']}, {t['k']}, {t['v']} -> {t['q']}"]
            rt = t["q"]
        else:
            enc = p.get("encoding", "plain")
            q, k, bias, body = "%q", "%k", "", []
            if enc == "rope":
                body.append(f"  %qr = posenc.rope %q, %pos layout half {{base = 5.0e+05 : f64}} : {t['q']}, {t['pos']}")
                body.append(f"  %kr = posenc.rope %k, %pos layout half {{base = 5.0e+05 : f64}} : {t['k']}, {t['pos']}")
                q, k = "%qr", "%kr"
            if enc == "alibi":
                bt = ttype([p["h"], p["s"], p["s"]], "f32")
                body.append(f"  %b = posenc.alibi_bias : {bt}")
                bias = f" bias(%b : {bt})"
            body.append(f"  %r = posenc.attention {q}, {k}, %v{bias} {{causal}} : "
                        f"{t['q']}, {t['k']}, {t['v']} -> {t['q']}")
            rt = t["q"]
        return (f"func.func @kernel({sig}) -> {rt} {{\n" + "\n".join(body)
                + f"\n  return %r : {rt}\n}}\n"), rt

    def program(self, repeat):
        """@kernel plus a @main that times it on device-generated inputs."""
        kernel, rt = self.kernel()
        lines = ["func.func private @rtclock() -> f64",
                 "func.func private @printF64(f64)",
                 "func.func private @printNewline()",
                 "func.func @main() {"]
        names = []
        for i, (n, sh, el) in enumerate(self.shapes()):
            tt = ttype(sh, el)
            rank = len(sh)
            lines.append(f"  %{n} = tensor.generate {{")
            lines.append(f"  ^bb0({', '.join(f'%{n}_i{j}: index' for j in range(rank))}):")
            # Region values are prefixed with the argument name: the region is
            # not isolated, so SSA names must be unique across the function.
            g = f"%{n}_"
            if el == "i32":
                lines.append(f"    {g}c = arith.index_cast {g}i{rank - 1} : index to i32")
                lines.append(f"    tensor.yield {g}c : i32")
            else:
                # A deterministic value in [-1, 1]: sin of a mix of the indices.
                lines.append(f"    {g}acc0 = arith.constant 0 : index")
                for j in range(rank):
                    lines.append(f"    {g}m{j} = arith.constant {7 + 13 * j + i} : index")
                    lines.append(f"    {g}p{j} = arith.muli {g}i{j}, {g}m{j} : index")
                    lines.append(f"    {g}acc{j + 1} = arith.addi {g}acc{j}, {g}p{j} : index")
                lines.append(f"    {g}ii = arith.index_cast {g}acc{rank} : index to i64")
                lines.append(f"    {g}fi = arith.sitofp {g}ii : i64 to f32")
                lines.append(f"    {g}sc = arith.constant 0.0137 : f32")
                lines.append(f"    {g}ang = arith.mulf {g}fi, {g}sc : f32")
                lines.append(f"    {g}v = math.sin {g}ang : f32")
                if el != "f32":
                    lines.append(f"    {g}vt = arith.truncf {g}v : f32 to {el}")
                    lines.append(f"    tensor.yield {g}vt : {el}")
                else:
                    lines.append(f"    tensor.yield {g}v : f32")
            lines.append(f"  }} : {tt}")
            names.append(f"%{n}")
        types = ", ".join(ttype(sh, el) for _, sh, el in self.shapes())
        call = f"func.call @kernel({', '.join(names)}) : ({types}) -> {rt}"
        lines.append(f"  %warm = {call}")
        lines.append("  %c0 = arith.constant 0 : index")
        lines.append("  %c1 = arith.constant 1 : index")
        lines.append(f"  %n = arith.constant {repeat} : index")
        lines.append("  %t0 = func.call @rtclock() : () -> f64")
        lines.append("  scf.for %it = %c0 to %n step %c1 {")
        lines.append(f"    %r = {call}")
        lines.append("  }")
        lines.append("  %t1 = func.call @rtclock() : () -> f64")
        lines.append("  %dt = arith.subf %t1, %t0 : f64")
        lines.append(f"  %nf = arith.constant {float(repeat)!r} : f64")
        lines.append("  %mean = arith.divf %dt, %nf : f64")
        lines.append("  func.call @printF64(%mean) : (f64) -> ()")
        lines.append("  func.call @printNewline() : () -> ()")
        lines.append("  return")
        lines.append("}")
        return kernel + "\n".join(lines) + "\n"


def all_cases(quick, dtypes):
    cases = []
    for dt in dtypes:
        if quick:
            cases.append(Case(f"rope-half-{dt}-s256", "rope", dt, h=4, s=256, d=64, layout="half"))
            for enc in ("plain", "rope", "alibi"):
                cases.append(Case(f"attn-{enc}-{dt}-s256", "attention", dt, h=4, s=256, d=64,
                                  encoding=enc))
            cases.append(Case(f"attn-shaw16-{dt}-s256", "attention", dt, h=4, s=256, d=64,
                              encoding="shaw", K=16))
            cases.append(Case(f"decode-gqa-{dt}-sq1-sk1024", "decode", dt, hq=8, hkv=2,
                              sq=1, sk=1024, d=64))
            continue
        for layout in ("interleaved", "half"):
            cases.append(Case(f"rope-{layout}-{dt}", "rope", dt, h=32, s=2048, d=128, layout=layout))
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for enc in ("plain", "rope", "alibi"):
                cases.append(Case(f"attn-{enc}-{dt}-s{s}", "attention", dt, h=32, s=s, d=128,
                                  encoding=enc))
            if s <= 4096:
                for kk in (16, 64):
                    cases.append(Case(f"attn-shaw{kk}-{dt}-s{s}", "attention", dt, h=32, s=s,
                                      d=128, encoding="shaw", K=kk))
        # Decode (docs/gpu.md, "Decode schedule"): f32 queries over a `dt`
        # K/V cache, GQA 32/8 and MHA 32/32, D = 128; GB/s is of K/V read.
        for hkv in (8, 32):
            for sq in (1, 4, 16):
                for sk in (4096, 16384, 65536):
                    cases.append(Case(f"decode-{32 // hkv}g-{dt}-sq{sq}-sk{sk}", "decode", dt,
                                      hq=32, hkv=hkv, sq=sq, sk=sk, d=128))
    return cases


def has_gpu():
    if os.path.exists("/dev/nvidia0"):
        return True
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def chip_for_capability(text):
    """The --posenc-to-nvvm chip of a compute capability "M.m": sm_90a on 9.0
    (Hopper: the warpgroup-MMA attention kernel), sm_Mm otherwise; None when
    `text` is not a capability."""
    if not re.fullmatch(r"\d+\.\d+", text or ""):
        return None
    major, minor = text.split(".")
    return "sm_90a" if (major, minor) == ("9", "0") else f"sm_{major}{minor}"


def device_chip():
    """The chip of GPU 0 (nvidia-smi's compute capability), or None."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True)
    fields = out.stdout.split()
    return chip_for_capability(fields[0]) if out.returncode == 0 and fields else None


def torch_sdpa_ms(case):
    """Median ms of the PyTorch equivalent, or None when torch/CUDA is absent."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    if not torch.cuda.is_available() or case.kind != "attention" \
            or case.p.get("encoding") not in ("plain", "rope", "alibi"):
        return None
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[case.dtype]
    p = case.p
    q, k, v = (torch.randn(1, p["h"], p["s"], p["d"], device="cuda", dtype=dt) for _ in range(3))
    half = p["d"] // 2
    inv = 1.0 / (500000.0 ** (torch.arange(0, half, device="cuda", dtype=torch.float32) / half))
    ang = torch.arange(p["s"], device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)

    def rot(x):
        x1, x2 = x[..., :half], x[..., half:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def run():
        if p["encoding"] == "rope":
            return F.scaled_dot_product_attention(rot(q), rot(k), v, is_causal=True)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        run()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--chip", default="auto",
                    help="target architecture; auto: the GPU's (sm_90a on "
                         "Hopper, wgmma), sm_90 without a GPU")
    ap.add_argument("--features", default="+ptx80")
    ap.add_argument("--dtypes", default="f32,bf16",
                    help="comma-separated element types, of f32, bf16, f16 "
                         "(default f32,bf16)")
    ap.add_argument("--cases", default="*")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--compile-only", action="store_true",
                    help="lower every case to a binary, run nothing (no GPU needed)")
    ap.add_argument("--cpu-smoke", action="store_true",
                    help="run the same timing programs through the CPU pipeline "
                         "(checks the harness without a GPU; the times are CPU times)")
    ap.add_argument("--write-docs", action="store_true",
                    help="write the table to docs/bench-gpu.md")
    args = ap.parse_args()
    bad = [d for d in args.dtypes.split(",") if d not in ("f32", "bf16", "f16")]
    if bad:
        ap.error(f"--dtypes: unknown element type(s) {', '.join(bad)}; use f32, bf16, f16")
    build = os.path.abspath(args.build)
    opt = os.path.join(build, "bin", "posenc-opt")
    runtime = os.path.join(build, "lib", "libposenc_cuda_runtime.so")
    run = not args.compile_only
    if args.cpu_smoke:
        run, args.compile_only = True, False
    if run and not args.cpu_smoke and not has_gpu():
        sys.exit("no NVIDIA GPU here: use --compile-only (figures stay 'not measured')")
    if run and not args.cpu_smoke and not os.path.exists(runtime):
        sys.exit(f"{runtime} is missing: the CUDA runtime library is built when CMake finds the toolkit")
    if args.chip == "auto":
        args.chip = (device_chip() if run and not args.cpu_smoke else None) or "sm_90"
    fmt = "bin" if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas") else "isa"
    pipeline = f"--posenc-to-nvvm=chip={args.chip} features={args.features} format={fmt}"
    libs = [runtime]
    if args.cpu_smoke:
        pipeline = "--posenc-cpu-pipeline"
        libs = [os.path.join(LLVM_LIB, "libomp.so")]
    header = ["case", "ms", "TFLOP/s", "GB/s", "torch sdpa ms", "posenc/torch"] if run \
        else ["case", "kernels", "binary"]
    rows = []
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for case in all_cases(args.quick, args.dtypes.split(",")):
        if not fnmatch.fnmatch(case.name, args.cases):
            continue
        src = case.program(args.repeat)
        low = subprocess.run([opt, pipeline, "-"], input=src, capture_output=True, text=True)
        if low.returncode != 0:
            row = [case.name, "compile failed: " + (low.stderr.strip().splitlines() or ["?"])[0][:80]]
        elif not run:
            kernels = len(re.findall(r"gpu\.launch_func", low.stdout))
            row = [case.name, str(kernels), fmt]
        else:
            shared = ",".join(libs + [os.path.join(LLVM_LIB, "libmlir_runner_utils.so"),
                                      os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so")])
            r = subprocess.run([os.path.join(LLVM_BIN, "mlir-runner"), "-e", "main",
                                "-entry-point-result=void", f"-shared-libs={shared}"],
                               input=low.stdout, capture_output=True, text=True)
            if r.returncode != 0:
                row = [case.name, "run failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:80]]
            else:
                secs = float(r.stdout.strip().splitlines()[-1])
                torch_ms = None if args.cpu_smoke else torch_sdpa_ms(case)
                row = [case.name, f"{secs * 1e3:.3f}",
                       f"{case.flops() / secs / 1e12:.2f}" if case.flops() else "-",
                       f"{case.bytes_moved() / secs / 1e9:.0f}",
                       f"{torch_ms:.3f}" if torch_ms else "n/a",
                       f"{secs * 1e3 / torch_ms:.2f}" if torch_ms else "n/a"]
        line = "| " + " | ".join(row) + " |"
        rows.append(line)
        print(line, flush=True)
    if args.write_docs:
        path = os.path.join(ROOT, "docs", "bench-gpu.md")
        with open(path, "w") as fh:
            fh.write("# GPU benchmark results\n\n")
            fh.write(f"Printed by `scripts/bench-gpu.sh {' '.join(sys.argv[1:])}` on "
                     f"{time.strftime('%Y-%m-%d')} (chip {args.chip}); mean of {args.repeat} "
                     "calls after a warm-up call, timed with rtclock around synchronous launches.\n\n")
            fh.write("| " + " | ".join(header) + " |\n|" + "|".join("---" for _ in header) + "|\n")
            fh.write("\n".join(rows) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
