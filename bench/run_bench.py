#!/usr/bin/env python3
"""posenc CPU benchmark: time, GFLOP/s, GB/s and peak memory of each case,
as ratios to this machine's FMA peak and memory bandwidth measured in the
same run (bench/peak.cpp).

Each (case, implementation) runs in its own process so that its peak resident
memory is its own. Times are medians of repeated runs after one warm-up call;
shared machines are noisy, so no single run is quoted.

Implementations:
  fused      posenc-cpu-pipeline with the fused path (when the pipeline has it)
  reference  posenc-cpu-pipeline{reference=true}: the materializing lowering
  naive      bench/naive_attention.cpp (prefill) and bench/naive_decode.cpp
             (decode): straightforward C++ loops
  returning, out=
             the fused pipeline's standalone RoPE called from Python as a
             function returning its result (`y = f(x, pos)`) and with the
             caller's array (`f(x, pos, out=y)`), case `rope-*-call`: what
             a returning call costs over a destination-passing one (issue
             11: at most 1.2x the out= call)

Every case writes its result into a 64-byte aligned array
(`posenc.empty_like`).

Decode cases (a few new query rows against a long KV cache, `decode-*`) are
memory-bound or compute-bound depending on the host: their own table gives
the GB/s of K/V read and the fraction reached of the roofline bound
max(FLOPs / FMA peak, K/V bytes / triad bandwidth), both measured in the same
run, with the ISA they were measured on.

Sequential mode (the default) measures all calls of one case, then all of
the next, each in a process of its own. Ratios between cases are taken with
--interleave (bench/interleave.py): each encoded attention case alternates
call by call with plain causal attention of its shape, and each decode case
with a roofline probe (one FMA pass and one triad pass of bench/peak.cpp),
so that load on the host reaches both sides of a ratio.

Usage: scripts/bench.sh [--quick] [--decode] [--interleave] [--cases PATTERN[,...]]
                        [--write-docs]
"""
import argparse
import fnmatch
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

import interleave as ab

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PIPELINES = {
    "fused": "builtin.module(posenc-cpu-pipeline{reference=false})",
    "reference": "builtin.module(posenc-cpu-pipeline{reference=true})",
    # The TOSA-form LLaMA block (kind "tosa_llama"): the default pipeline,
    # which raises it, and the same pipeline with raising off.
    "raised": "builtin.module(posenc-import-tosa, posenc-cpu-pipeline)",
    "unraised": "builtin.module(posenc-import-tosa, posenc-cpu-pipeline{raise=false})",
    # The same block written by hand with posenc ops.
    "handwritten": "builtin.module(posenc-cpu-pipeline)",
}
LLAMA3 = {"kind": "llama3", "factor": 8.0}


def ttype(shape, elem="f32"):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


def mtype(shape, elem="f32"):
    return "memref<" + "x".join(map(str, shape)) + "x" + elem + ">"


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
    def __init__(self, name, kind, impls, **params):
        self.name, self.kind, self.impls, self.p = name, kind, impls, params

    # Work and traffic -------------------------------------------------------
    def flops(self):
        if self.kind not in ("attention", "tosa_llama"):
            return 0.0
        p = self.p
        f = 4.0 * p["s"] * p["s"] * p["d"] * p["h"]
        return f / 2 if p.get("causal", True) else f

    def bytes_moved(self):
        """Compulsory traffic: inputs read once, output written once."""
        p = self.p
        if self.kind in ("rope", "rope_call"):
            n = int(np.prod(p["shape"]))
            return 2 * 4 * n
        s, d, h, hkv = p["s"], p["d"], p["h"], p.get("hkv", p["h"])
        return 4 * (h * s * d + 2 * hkv * s * d + h * s * d + self.encoding_elems())

    def encoding_elems(self):
        """The 4-byte elements of the encoding's own inputs (Transformer-XL's
        [H, 2S - 1, D] rel table and its two [H, D] biases; positions; the
        T5 table; DeBERTa's two [H, 2k, D] tables), counted in the inputs the peak memory is compared with."""
        p = self.p
        s, d, h, enc = p["s"], p["d"], p["h"], p.get("encoding", "plain")
        if enc == "xl":
            return h * (2 * s - 1) * d + 2 * h * d
        if enc in ("rope", "xpos"):
            return s
        if enc == "t5":
            return 32 * h
        if enc == "shaw":
            return 2 * (2 * p["K"] + 1) * d
        if enc == "deberta":
            return 2 * h * 2 * p["span"] * d
        return 0

    # Program ----------------------------------------------------------------
    def program(self, impl=None):
        p = self.p
        if self.kind == "tosa_llama":
            return self.llama_program(impl)
        if self.kind == "rope_call":
            xt, s = ttype(p["shape"]), p["shape"][-2]
            return f"""
func.func @bench(%x: {xt}, %pos: tensor<{s}xi32>) -> {xt} {{
  %r = posenc.rope %x, %pos layout {p['layout']} : {xt}, tensor<{s}xi32>
  return %r : {xt}
}}"""
        if self.kind == "rope":
            xt, mt = ttype(p["shape"]), mtype(p["shape"])
            s = p["shape"][-2]
            return f"""
func.func @bench(%x: {xt}, %pos: tensor<{s}xi32>, %out: {mt}) {{
  %r = posenc.rope %x, %pos layout {p['layout']} : {xt}, tensor<{s}xi32>
  bufferization.materialize_in_destination %r in restrict writable %out : ({xt}, {mt}) -> ()
  return
}}"""
        s, d, h, hkv = p["s"], p["d"], p["h"], p.get("hkv", p["h"])
        qt, kt, mt = ttype([1, h, s, d]), ttype([1, hkv, s, d]), mtype([1, h, s, d])
        enc = p.get("encoding", "plain")
        causal = " {causal}" if p.get("causal", True) else ""
        body, q, k, extra_args = [], "%q", "%k", ""
        if enc in ("rope", "xpos"):
            # xpos: the query/key pair of xPos decays (scale_base 512, gamma 0.4).
            xq, xk = (("", "") if enc == "rope" else
                      (", xpos = #posenc.xpos<role = query>", ", xpos = #posenc.xpos<role = key>"))
            extra_args = f", %pos: tensor<{s}xi32>"
            body.append(f"  %qr = posenc.rope %q, %pos layout half {{base = 5.0e+05 : f64{xq}}} : {qt}, tensor<{s}xi32>")
            body.append(f"  %kr = posenc.rope %k, %pos layout half {{base = 5.0e+05 : f64{xk}}} : {kt}, tensor<{s}xi32>")
            q, k = "%qr", "%kr"
        if enc == "shaw":
            kk = p["K"]
            rt = ttype([2 * kk + 1, d])
            qt3, kt3, mt3 = ttype([h, s, d]), ttype([h, s, d]), mtype([h, s, d])
            return f"""
func.func @bench(%q: {qt3}, %k: {kt3}, %v: {kt3}, %rk: {rt}, %rv: {rt}, %out: {mt3}) {{
  %o = posenc.rel_pos_attention %q, %k, %v rel_key(%rk : {rt}) rel_value(%rv : {rt}){causal}
      : {qt3}, {kt3}, {kt3} -> {qt3}
  bufferization.materialize_in_destination %o in restrict writable %out : ({qt3}, {mt3}) -> ()
  return
}}"""
        if enc == "xl":
            rt, bt = ttype([h, 2 * s - 1, d]), ttype([h, d])
            return f"""
func.func @bench(%q: {qt}, %k: {kt}, %v: {kt}, %rel: {rt}, %u: {bt}, %pb: {bt}, %out: {mt}) {{
  %o = posenc.xl_attention %q, %k, %v rel(%rel : {rt}) content_bias(%u : {bt})
      position_bias(%pb : {bt}){causal} : {qt}, {kt}, {kt} -> {qt}
  bufferization.materialize_in_destination %o in restrict writable %out : ({qt}, {mt}) -> ()
  return
}}"""
        if enc == "deberta":
            # DeBERTa-v3's form: both terms, per-head projected tables of 2k
            # rows, log buckets (k = position_buckets, max_relative_positions).
            kk, mrp = p["span"], p["max_rel"]
            tt = ttype([h, 2 * kk, d])
            return f"""
func.func @bench(%q: {qt}, %k: {kt}, %v: {kt}, %pk: {tt}, %pq: {tt}, %out: {mt}) {{
  %o = posenc.disentangled_attention %q, %k, %v pos_key(%pk : {tt}) pos_query(%pq : {tt})
      {{position_buckets = {kk} : i64, max_relative_positions = {mrp} : i64{", causal" if causal else ""}}}
      : {qt}, {kt}, {kt} -> {qt}
  bufferization.materialize_in_destination %o in restrict writable %out : ({qt}, {mt}) -> ()
  return
}}"""
        bias = ""
        if enc == "t5":
            # A decoder's T5 bias (causal buckets, 32 buckets, max_distance
            # 128), fused into the attention as a score term.
            tt, bt = ttype([32, h]), ttype([h, s, s])
            extra_args = f", %table: {tt}"
            body.append(f"  %b = posenc.t5_bias %table : {tt} -> {bt}")
            bias = f" bias(%b : {bt})"
        if enc == "alibi":
            bt = ttype([h, s, s])
            body.append(f"  %b = posenc.alibi_bias : {bt}")
            bias = f" bias(%b : {bt})"
        body.append(f"  %o = posenc.attention {q}, {k}, %v{bias}{causal} : {qt}, {kt}, {kt} -> {qt}")
        body.append(f"  bufferization.materialize_in_destination %o in restrict writable %out : ({qt}, {mt}) -> ()")
        return (f"func.func @bench(%q: {qt}, %k: {kt}, %v: {kt}{extra_args}, %out: {mt}) {{\n"
                + "\n".join(body) + "\n  return\n}")

    def llama_program(self, impl):
        """The LLaMA block as a TOSA exporter writes it (test/python/
        tosa_blocks.py), or, for "handwritten", with posenc ops."""
        p = self.p
        s, d, h, hkv = p["s"], p["d"], p["h"], p["hkv"]
        if impl != "handwritten":
            sys.path.insert(0, os.path.join(ROOT, "test", "python"))
            import tosa_blocks
            return tosa_blocks.llama_block(s, h, hkv, d, 500000.0, LLAMA3, "lowest")
        proj = {n: ttype([1, s, n * d]) for n in (h, hkv)}
        heads = {n: ttype([1, n, s, d]) for n in (h, hkv)}
        lines = []
        for name, n in (("q", h), ("k", hkv), ("v", hkv)):
            lines += [
                f"  %{name}4 = tensor.expand_shape %{name}_proj [[0], [1], [2, 3]] "
                f"output_shape [1, {s}, {n}, {d}] : {proj[n]} into {ttype([1, s, n, d])}",
                f"  %{name}e = tensor.empty() : {heads[n]}",
                f"  %{name}t = linalg.transpose ins(%{name}4 : {ttype([1, s, n, d])}) "
                f"outs(%{name}e : {heads[n]}) permutation = [0, 2, 1, 3]"]
        rope = ("layout half {base = 5.0e+05 : f64, scaling = "
                "#posenc.rope_scaling<llama3, factor = 8.0>}")
        lines += [
            f"  %pos = tensor.collapse_shape %position_ids [[0, 1]] : tensor<1x{s}xi32> into tensor<{s}xi32>",
            f"  %qr = posenc.rope %qt, %pos {rope} : {heads[h]}, tensor<{s}xi32>",
            f"  %kr = posenc.rope %kt, %pos {rope} : {heads[hkv]}, tensor<{s}xi32>",
            f"  %o = posenc.attention %qr, %kr, %vt {{causal}} : {heads[h]}, {heads[hkv]}, "
            f"{heads[hkv]} -> {heads[h]}",
            f"  %oe = tensor.empty() : {ttype([1, s, h, d])}",
            f"  %ot = linalg.transpose ins(%o : {heads[h]}) outs(%oe : {ttype([1, s, h, d])}) "
            "permutation = [0, 2, 1, 3]",
            f"  %out = tensor.collapse_shape %ot [[0], [1], [2, 3]] : {ttype([1, s, h, d])} into {proj[h]}",
            f"  return %out : {proj[h]}"]
        return (f"func.func @llama_block(%q_proj: {proj[h]}, %k_proj: {proj[hkv]}, "
                f"%v_proj: {proj[hkv]}, %position_ids: tensor<1x{s}xi32>) -> {proj[h]} {{\n"
                + "\n".join(lines) + "\n}")

    def expected(self, args):
        """The numpy reference result (posenc.reference, from docs/spec.md)."""
        from posenc import reference as ref
        p = self.p
        a = [x.astype(np.float64) if x.dtype.kind == "f" else x for x in args]
        if self.kind in ("rope", "rope_call"):
            return ref.rope(a[0], a[1], p["layout"])
        if self.kind == "tosa_llama":
            s, d, h, hkv = p["s"], p["d"], p["h"], p["hkv"]
            heads = lambda x, n: x.reshape(1, s, n, d).transpose(0, 2, 1, 3)  # noqa: E731
            q = ref.rope(heads(a[0], h), a[3][0], "half", 500000.0, scaling=LLAMA3)
            k = ref.rope(heads(a[1], hkv), a[3][0], "half", 500000.0, scaling=LLAMA3)
            o = ref.attention(q, k, heads(a[2], hkv), causal=True)
            return o.transpose(0, 2, 1, 3).reshape(1, s, h * d)
        enc = p.get("encoding", "plain")
        causal = p.get("causal", True)
        if enc == "shaw":
            return ref.rel_pos_attention(a[0], a[1], a[2], a[3], rel_value=a[4], causal=causal)
        if enc == "xl":
            return ref.xl_attention(*a[:6], causal=causal)
        if enc == "deberta":
            return ref.disentangled_attention(
                *a[:3], pos_key=a[3], pos_query=a[4], position_buckets=p["span"],
                max_relative_positions=p["max_rel"], causal=causal)
        q, k, v = a[:3]
        bias = None
        if enc in ("rope", "xpos"):
            xq, xk = (None, None) if enc == "rope" else ({"role": "query"}, {"role": "key"})
            q = ref.rope(q, a[3], "half", base=500000.0, xpos=xq)
            k = ref.rope(k, a[3], "half", base=500000.0, xpos=xk)
        if enc == "alibi":
            bias = ref.alibi_bias(p["h"], p["s"], p["s"])
        if enc == "t5":
            bias = ref.t5_bias(a[3], p["s"], p["s"])
        return ref.attention(q, k, v, bias=bias, causal=causal)

    def inputs(self, rng):
        p = self.p
        if self.kind == "tosa_llama":
            s, d, h, hkv = p["s"], p["d"], p["h"], p["hkv"]
            args = [rng.standard_normal((1, s, n * d), dtype=np.float32) for n in (h, hkv, hkv)]
            return args + [np.arange(s, dtype=np.int32).reshape(1, s)], None
        if self.kind in ("rope", "rope_call"):
            x = rng.standard_normal(p["shape"], dtype=np.float32)
            pos = np.arange(p["shape"][-2], dtype=np.int32)
            return [x, pos], _destination_like(x)
        s, d, h, hkv = p["s"], p["d"], p["h"], p.get("hkv", p["h"])
        enc = p.get("encoding", "plain")
        if enc == "shaw":
            q, k, v = (rng.standard_normal((h, s, d), dtype=np.float32) for _ in range(3))
            rk = rng.standard_normal((2 * p["K"] + 1, d), dtype=np.float32)
            rv = rng.standard_normal((2 * p["K"] + 1, d), dtype=np.float32)
            return [q, k, v, rk, rv], _destination_like(q)
        q = rng.standard_normal((1, h, s, d), dtype=np.float32)
        k = rng.standard_normal((1, hkv, s, d), dtype=np.float32)
        v = rng.standard_normal((1, hkv, s, d), dtype=np.float32)
        args = [q, k, v]
        if enc in ("rope", "xpos"):
            args.append(np.arange(s, dtype=np.int32))
        if enc == "t5":
            args.append(rng.standard_normal((32, h), dtype=np.float32))
        if enc == "xl":
            args.append(rng.standard_normal((h, 2 * s - 1, d), dtype=np.float32))
            args += [0.5 * rng.standard_normal((h, d), dtype=np.float32) for _ in range(2)]
        if enc == "deberta":
            args += [rng.standard_normal((h, 2 * p["span"], d), dtype=np.float32)
                     for _ in range(2)]
        return args, _destination_like(q)


def _destination_like(x):
    """The result array a case writes: 64-byte aligned (posenc.empty_like),
    as a caller who cares about speed passes it; numpy's own arrays are
    16-byte aligned, and vector stores straddling cache lines slow the
    memory-bound cases (docs/design.md, "Calling compiled code")."""
    import posenc
    return posenc.empty_like(x)


# Bytes per element and numpy dtype of the decode cases' K/V element types
# (bf16 travels as uint16 bit patterns, as posenc.compile takes it).
KV_TYPES = {"f32": (4, np.float32), "f16": (2, np.float16), "bf16": (2, np.uint16)}
# bench/naive_decode.cpp's kv_type argument.
NAIVE_KV_TYPE = {"f32": 0, "f16": 1, "bf16": 2}


class DecodeCase(Case):
    """Decode: query [1, Hq, Sq, D] f32 (the last Sq positions, causal)
    against a key/value cache [1, Hkv, Sk, D] of element type `kv`."""

    def __init__(self, name, impls, **params):
        super().__init__(name, "decode", impls, **params)

    def keys_read(self):
        """Causal (query i sees keys j <= i + Sk - Sq): score entries per head."""
        sq, sk = self.p["sq"], self.p["sk"]
        return sq * sk - sq * (sq - 1) // 2

    def flops(self):
        p = self.p
        return 4.0 * p["hq"] * p["d"] * self.keys_read()

    def kv_bytes(self):
        p = self.p
        return 2 * p["hkv"] * p["sk"] * p["d"] * KV_TYPES[p["kv"]][0]

    def bytes_moved(self):
        p = self.p
        return self.kv_bytes() + 2 * 4 * p["hq"] * p["sq"] * p["d"]

    def bound_s(self, peak):
        """The roofline bound (seconds) and which roof it is."""
        compute = self.flops() / (peak["fma_gflops"] * 1e9)
        memory = self.kv_bytes() / (peak["triad_gbs"] * 1e9)
        return (compute, "FMA") if compute > memory else (memory, "BW")

    def program(self, impl=None):
        p = self.p
        qt, mt = ttype([1, p["hq"], p["sq"], p["d"]]), mtype([1, p["hq"], p["sq"], p["d"]])
        kt = ttype([1, p["hkv"], p["sk"], p["d"]], p["kv"])
        return f"""
func.func @bench(%q: {qt}, %k: {kt}, %v: {kt}, %out: {mt}) {{
  %o = posenc.attention %q, %k, %v {{causal}} : {qt}, {kt}, {kt} -> {qt}
  bufferization.materialize_in_destination %o in restrict writable %out : ({qt}, {mt}) -> ()
  return
}}"""

    def expected(self, args):
        from posenc import reference as ref
        q, k, v = (self.widen(x) for x in args)
        return ref.attention(q, k, v, causal=True)

    def widen(self, x):
        if x.dtype == np.uint16:
            import posenc
            x = posenc.from_bf16_bits(x)
        return x.astype(np.float64)

    def inputs(self, rng):
        p = self.p
        q = rng.standard_normal((1, p["hq"], p["sq"], p["d"]), dtype=np.float32)
        kv = []
        for _ in range(2):
            x = rng.standard_normal((1, p["hkv"], p["sk"], p["d"]), dtype=np.float32)
            if p["kv"] == "bf16":
                import posenc
                kv.append(posenc.to_bf16_bits(x))
            else:
                kv.append(x.astype(KV_TYPES[p["kv"]][1]))
        return [q] + kv, _destination_like(q)


def decode_cases(quick):
    """Sq new rows (1: decode, 4 and 16: speculative decoding) per sequence
    against Sk cached keys, GQA and MHA, f32/f16/bf16 K/V."""
    if quick:
        return [DecodeCase(f"decode-gqa-q{sq}-k64-{kv}", ["fused", "naive"],
                           hq=4, hkv=2, sq=sq, sk=64, d=32, kv=kv)
                for sq in (1, 4) for kv in KV_TYPES]
    cases = []
    for heads, hkv in (("gqa", 8), ("mha", 32)):
        for sq in (1, 4, 16):
            for sk in (1024, 4096, 16384, 65536):
                for kv in KV_TYPES:
                    cases.append(DecodeCase(f"decode-{heads}-q{sq}-k{sk}-{kv}",
                                            ["fused", "naive"], hq=32, hkv=hkv,
                                            sq=sq, sk=sk, d=128, kv=kv))
    return cases


def all_cases(quick):
    cases = []
    if quick:
        cases.append(Case("rope-half-small", "rope", ["fused", "reference"],
                          shape=[1, 4, 64, 32], layout="half"))
        cases.append(Case("rope-half-small-call", "rope_call", ["returning", "out="],
                          shape=[1, 4, 64, 32], layout="half"))
        for enc in ("plain", "rope", "alibi"):
            cases.append(Case(f"attn-{enc}-s64", "attention",
                              ["fused", "reference", "naive"], s=64, d=32, h=4,
                              encoding=enc))
        cases.append(Case("attn-shaw16-s64", "attention", ["fused", "reference"],
                          s=64, d=32, h=4, encoding="shaw", K=16))
        cases.append(Case("attn-xl-s64", "attention", ["fused", "reference"],
                          s=64, d=32, h=4, encoding="xl"))
        cases.append(Case("attn-t5-s64", "attention", ["fused", "reference"],
                          s=64, d=32, h=4, encoding="t5"))
        cases.append(Case("attn-deberta-s64", "attention", ["fused", "reference"],
                          s=64, d=32, h=4, encoding="deberta", span=8, max_rel=20))
        cases.append(Case("attn-xpos-s64", "attention", ["fused", "reference"],
                          s=64, d=32, h=4, encoding="xpos"))
        cases.append(Case("tosa-llama-s64", "tosa_llama", ["raised", "handwritten", "unraised"],
                          s=64, d=64, h=4, hkv=2))
        return cases + decode_cases(quick)
    for layout in ("interleaved", "half"):
        cases.append(Case(f"rope-{layout}", "rope", ["fused", "reference"],
                          shape=[1, 32, 2048, 128], layout=layout))
    cases.append(Case("rope-interleaved-call", "rope_call", ["returning", "out="],
                      shape=[1, 32, 2048, 128], layout="interleaved"))
    for s in (512, 1024, 2048, 4096):
        ref = ["reference"] if s <= 512 else []
        cases.append(Case(f"attn-plain-s{s}", "attention", ["fused"] + ref + ["naive"],
                          s=s, d=128, h=32))
        cases.append(Case(f"attn-rope-s{s}", "attention", ["fused"] + ref + ["naive"],
                          s=s, d=128, h=32, encoding="rope"))
        cases.append(Case(f"attn-alibi-s{s}", "attention", ["fused"] + ref + ["naive"],
                          s=s, d=128, h=32, encoding="alibi"))
        for kk in (16, 64):
            cases.append(Case(f"attn-shaw{kk}-s{s}", "attention", ["fused"] + ref,
                              s=s, d=128, h=32, encoding="shaw", K=kk))
    # Transformer-XL (issue 14: within 2.2x of plain causal attention at
    # S = 2048, H = 32, D = 64 and 128; the D = 128 plain case is above).
    cases.append(Case("attn-plain-s2048-d64", "attention", ["fused", "naive"],
                      s=2048, d=64, h=32))
    for d in (64, 128):
        cases.append(Case(f"attn-xl-s2048-d{d}", "attention", ["fused"],
                          s=2048, d=d, h=32, encoding="xl"))
    # DeBERTa (both terms, DeBERTa-v3's k = 256 log buckets with
    # max_relative_positions 512, per-head tables; causal as the plain case
    # it is compared with; issue 14: within 2.5x of plain).
    for d in (64, 128):
        cases.append(Case(f"attn-deberta-s2048-d{d}", "attention", ["fused"],
                          s=2048, d=d, h=32, encoding="deberta", span=256, max_rel=512))
    # xPos and T5 next to plain causal attention at the same sizes (issue 14:
    # within 10 % of plain).
    for d in (64, 128):
        cases.append(Case(f"attn-t5-s2048-d{d}", "attention", ["fused"],
                          s=2048, d=d, h=32, encoding="t5"))
    for d in (64, 128):
        cases.append(Case(f"attn-xpos-s2048-d{d}", "attention", ["fused"],
                          s=2048, d=d, h=32, encoding="xpos"))
    cases.append(Case("attn-plain-s16384", "attention", ["fused"], s=16384, d=128, h=32))
    # Transformer-XL's peak memory at S = 16384 (issue 14: within 1.2x of
    # inputs + output; its inputs include the [H, 2S - 1, D] rel table).
    cases.append(Case("attn-xl-s16384", "attention", ["fused"], s=16384, d=128, h=32,
                      encoding="xl"))
    # DeBERTa's likewise (both terms, k = 256: its tables are small).
    cases.append(Case("attn-deberta-s16384", "attention", ["fused"], s=16384, d=128, h=32,
                      encoding="deberta", span=256, max_rel=512))
    cases.append(Case("tosa-llama-s2048", "tosa_llama", ["raised", "handwritten", "unraised"],
                      s=2048, d=128, h=8, hkv=2))
    return cases + decode_cases(quick)


# ---------------------------------------------------------------------------
# One measurement (runs in a child process)
# ---------------------------------------------------------------------------

def naive_decode_runner(case, build, threads):
    import ctypes
    lib = ctypes.CDLL(os.path.join(build, "lib", "libposenc_bench_naive_decode.so"))
    f = lib.posenc_naive_decode
    fp, vp, i64 = ctypes.POINTER(ctypes.c_float), ctypes.c_void_p, ctypes.c_int64
    f.argtypes = [fp, vp, vp, fp, i64, i64, i64, i64, i64, ctypes.c_int, ctypes.c_int,
                  ctypes.c_int]
    f.restype = ctypes.c_int
    p = case.p

    def run(args, out):
        q, k, v = args
        rc = f(q.ctypes.data_as(fp), k.ctypes.data, v.ctypes.data, out.ctypes.data_as(fp),
               p["hq"], p["hkv"], p["sq"], p["sk"], p["d"], 1, NAIVE_KV_TYPE[p["kv"]],
               threads)
        assert rc == 0, f"posenc_naive_decode returned {rc}"
    return run


def naive_runner(case, build, threads):
    import ctypes
    if case.kind == "decode":
        return naive_decode_runner(case, build, threads)
    lib = ctypes.CDLL(os.path.join(build, "lib", "libposenc_bench_naive.so"))
    f = lib.posenc_naive_attention
    fp = ctypes.POINTER(ctypes.c_float)
    f.argtypes = [fp, fp, fp, ctypes.POINTER(ctypes.c_int32), fp, ctypes.c_int64,
                  ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_double, fp,
                  ctypes.c_int]
    p = case.p
    enc = p.get("encoding", "plain")
    slopes = None
    if enc == "alibi":
        from posenc import reference as ref
        slopes = ref.alibi_slopes(p["h"]).astype(np.float32)

    def run(args, out):
        q, k, v = args[:3]
        pos = args[3] if enc == "rope" else np.arange(p["s"], dtype=np.int32)
        f(q.ctypes.data_as(fp), k.ctypes.data_as(fp), v.ctypes.data_as(fp),
          pos.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), out.ctypes.data_as(fp),
          p["h"], p.get("hkv", p["h"]), p["s"], p["d"],
          500000.0 if enc == "rope" else 0.0,
          slopes.ctypes.data_as(fp) if slopes is not None else None, threads)
    return run


def runner(case, impl, build, threads):
    """`fn(args, out)` calling `impl` of `case`, or {"error": why}."""
    if impl == "naive":
        return naive_runner(case, build, threads)
    import posenc
    try:
        compiled = posenc.compile(case.program(impl),
                                  pipeline=PIPELINES.get(impl, PIPELINES["fused"]))
    except posenc.PosencError as e:
        # The diagnostic, not the pipeline string the message starts with.
        lines = str(e).splitlines() or ["failed"]
        why = next((ln.split("error:", 1)[1] for ln in lines if "error:" in ln), lines[0])
        return {"error": why.strip()[:200]}
    if impl == "fused":
        # Until the pipeline has a fused path, reference=false yields the
        # reference code; do not report that as "fused".
        plain = posenc.compile(case.program(), pipeline=PIPELINES["reference"])
        if plain.lowered_ir == compiled.lowered_ir:
            return {"error": "the pipeline has no fused path yet"}
    if case.kind == "tosa_llama" or impl == "returning":  # returns its result
        return lambda args, out: compiled(*args)  # noqa: E731
    if impl == "out=":
        return lambda args, out: compiled(*args, out=out)  # noqa: E731
    return lambda args, out: compiled(*args, out)  # noqa: E731


def measure(case, impl, build, repeat, threads):
    rng = np.random.default_rng(0)
    fn = runner(case, impl, build, threads)
    if isinstance(fn, dict):
        return fn
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    args, out = case.inputs(rng)
    fn(args, out)  # warm-up (page faults, caches)
    times = []
    deadline = time.perf_counter() + 20.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        result_out = fn(args, out)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() > deadline and len(times) >= 3:
            break
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = {"median_s": statistics.median(times), "runs": len(times),
              "peak_rss": peak, "base_rss": base_rss}
    if ARGS.check:
        got = result_out if case.kind == "tosa_llama" or impl == "returning" else out
        result["max_err"] = float(np.max(np.abs(got - case.expected(args))))
    return result


def plain_partner(case):
    """Plain causal (or not, as the case) attention of an encoded case's
    S, D and H: the denominator of its ratio."""
    p = case.p
    return Case(f"attn-plain-s{p['s']}-d{p['d']}-h{p['h']}", "attention", ["fused"],
                s=p["s"], d=p["d"], h=p["h"], causal=p.get("causal", True))


def measure_ab(case, build, repeat, threads):
    """Interleaved A/B (bench/interleave.py): the fused encoded case
    against plain attention of its shape, or a decode case against the
    roofline probe. Returns the per-pair values of both sides."""
    rng = np.random.default_rng(0)
    if case.kind == "rope_call":
        return measure_call_ab(case, build, threads, repeat, rng)
    fn = runner(case, "fused", build, threads)
    if isinstance(fn, dict):
        return fn
    args, out = case.inputs(rng)
    call = ab.timed(lambda: fn(args, out))
    if case.kind == "decode":
        probe = ab.RooflineProbe(build, threads, ARGS.quick)
        peaks, times = ab.alternate([probe, call], repeat, 60.0)
        result = {"t": times, "peaks": peaks, "isa": probe.isa}
    else:
        plain = plain_partner(case)
        plain_fn = runner(plain, "fused", build, threads)
        if isinstance(plain_fn, dict):
            return plain_fn
        plain_args, plain_out = plain.inputs(rng)
        a, b = ab.alternate([ab.timed(lambda: plain_fn(plain_args, plain_out)), call],
                            repeat, 60.0)
        result = {"a": a, "b": b}
    if ARGS.check:
        err = float(np.max(np.abs(out - case.expected(args))))
        if case.kind != "decode":
            err = max(err, float(np.max(np.abs(plain_out - plain.expected(plain_args)))))
        result["max_err"] = err
    return result


def measure_call_ab(case, build, threads, repeat, rng):
    """A Python call with out= (side a) against the same call returning its
    result (side b), alternating."""
    dest_fn = runner(case, "out=", build, threads)
    ret_fn = runner(case, "returning", build, threads)
    for fn in (dest_fn, ret_fn):
        if isinstance(fn, dict):
            return fn
    args, out = case.inputs(rng)
    a, b = ab.alternate([ab.timed(lambda: dest_fn(args, out)),
                         ab.timed(lambda: ret_fn(args, out))], repeat, 60.0)
    result = {"a": a, "b": b}
    if ARGS.check:
        got = ret_fn(args, out)
        result["max_err"] = float(max(np.max(np.abs(out - case.expected(args))),
                                      np.max(np.abs(got - case.expected(args)))))
    return result


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def run_child(build, case, impl, repeat, threads):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", case.name, "--impl", impl,
           "--build", build, "--repeat", str(repeat), "--threads", str(threads)]
    if ARGS.quick:
        cmd.append("--quick")
    if ARGS.check:
        cmd.append("--check")
    if ARGS.interleave:
        cmd.append("--interleave")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               POSENC_BUILD_DIR=build, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def machine_peak(build, threads):
    r = subprocess.run([os.path.join(build, "bin", "posenc-bench-peak"), f"--threads={threads}"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def fmt_row(cells, widths):
    return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"


class Table:
    """A markdown table printed row by row as the measurements come in."""

    def __init__(self, header, widths):
        if ARGS.check:
            header, widths = header + ["max err"], widths + [9]
        self.header, self.widths = header, widths
        self.lines = [fmt_row(header, widths),
                      "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        print(); print(self.lines[0]); print(self.lines[1])

    def add(self, case, impl, r, cells):
        """One row: `cells` from the measurement `r`, or n/a with its error."""
        self.add_row([case.name, impl], r, [case.name, impl] + cells)

    def add_row(self, label, r, cells):
        """The row `cells` (which start with the `label` cells), or the
        label and n/a with the measurement's error."""
        if "error" in r:
            row = label + ["n/a: " + r["error"][:100]]
            row += [""] * (len(self.header) - len(row))
        else:
            row = list(cells)
            if ARGS.check:
                row.append(f"{r['max_err']:.1e}")
        line = fmt_row(row, self.widths)
        print(line, flush=True)
        self.lines.append(line)


def prefill_cells(case, r, peak):
    t = r["median_s"]
    gf = case.flops() / t / 1e9
    gbs = case.bytes_moved() / t / 1e9
    return [f"{t * 1e3:.3f}", f"{gf:.1f}" if gf else "-",
            f"{100 * gf / peak['fma_gflops']:.1f}" if gf else "-",
            f"{gbs:.1f}", f"{100 * gbs / peak['triad_gbs']:.1f}",
            f"{(r['peak_rss'] - r['base_rss']) / 2**20:.0f}",
            f"{case.bytes_moved() / 2**20:.0f}"]


def decode_cells(case, r, peak):
    t = r["median_s"]
    bound, roof = case.bound_s(peak)
    gbs = case.kv_bytes() / t / 1e9
    return [peak["isa"], f"{t * 1e3:.3f}", f"{gbs:.1f}",
            f"{100 * gbs / peak['triad_gbs']:.1f}", f"{bound * 1e3:.3f} ({roof})",
            f"{100 * bound / t:.1f}"]


PREFILL_TABLE = (["case", "impl", "median ms", "GFLOP/s", "% FMA peak", "GB/s", "% BW",
                  "peak RSS MiB", "in+out MiB"], [20, 9, 10, 8, 10, 7, 6, 12, 10])
DECODE_TABLE = (["case", "impl", "ISA", "median ms", "K/V GB/s", "% triad",
                 "bound ms", "% of bound"], [24, 9, 6, 10, 8, 7, 14, 10])

DECODE_DOC = """## Decode

Decode cases: `decode-{gqa|mha}-q{Sq}-k{Sk}-{K/V type}`: query `[1, 32, Sq, 128]` f32
(the last Sq positions, causal) against a K/V cache `[1, Hkv, Sk, 128]` (GQA: Hkv = 8,
MHA: Hkv = 32). K/V GB/s counts the cache read once; the bound is the roofline
max(FLOPs / FMA peak, K/V bytes / triad bandwidth) with both peaks measured in the
same run (the roof that applies in parentheses); % of bound = bound / median time.
In sequential mode nothing evicts the caches between calls, so a K/V cache that fits
the host's last-level cache (260 MiB on the AMD Zen 5 VM: every case up to Sk = 16384)
is read partly from it and can pass its bandwidth bound; `--interleave` runs a triad
pass before every call, and its figures are the ones the issue's targets are read from.
"""


SEQUENTIAL_MODE = (
    "sequential mode: each case's calls run back to back in a process of its own, one "
    "case after another; medians of up to {repeat} calls after one warm-up. A burst of "
    "load on a shared host can reach one row and not the row it is compared with, so "
    "ratios between cases are taken with `--interleave`, which alternates the two sides "
    "call by call.")


def printed_line(flags):
    """Who printed a docs section, when, from which commit, in which mode."""
    mode = ("interleaved mode (bench/interleave.py), up to {repeat} pairs after one warm-up "
            "call of each side." if ARGS.interleave else SEQUENTIAL_MODE)
    return (f"Printed by `scripts/bench.sh{flags} --write-docs` on {time.strftime('%Y-%m-%d')} "
            f"at commit {ab.commit_measured(ROOT)}, {mode.format(repeat=ARGS.repeat)}\n\n")


def write_interleaved_docs(path, tables, machine):
    """Replaces (or adds, before the Decode section) the interleaved A/B
    section of docs/bench-cpu.md; the other sections stay."""
    section = ab.SECTION + "\n\n" + ab.SECTION_TEXT + "\n" + printed_line(" --interleave") + machine
    section += "\n\n".join("\n".join(tables[kind].lines)
                           for kind in ("prefill", "decode", "calls")
                           if tables.get(kind)) + "\n"
    old = open(path).read() if os.path.exists(path) else "# CPU benchmark results\n\n"
    with open(path, "w") as fh:
        fh.write(ab.splice_section(old, section))
    print(f"wrote the {ab.SECTION[3:]} section of {path}")


def write_docs(tables, peak, decode_only):
    """Writes the tables to docs/bench-cpu.md. A decode-only run replaces
    just the Decode section, so the prefill figures of an earlier run stay;
    an interleaved run, just its own section."""
    path = ARGS.docs
    machine = (f"Machine ({peak['isa']}, {peak['threads']} threads): FMA peak "
               f"{peak['fma_gflops']:.1f} GFLOP/s, triad bandwidth {peak['triad_gbs']:.1f} "
               "GB/s, measured in the same run by `posenc-bench-peak`.\n\n")
    if ARGS.interleave:
        return write_interleaved_docs(path, tables, machine)
    printed = printed_line(" --decode" if decode_only else "")
    decode = ""
    if tables.get("decode"):
        decode = (DECODE_DOC + "\n" + printed + machine
                  + "\n".join(tables["decode"].lines) + "\n"
                  + "\n![% of the roofline bound per cached key count](bench-cpu-decode.svg)\n\n"
                  "(`bench/plot_bench.py` draws it from the table above; `--write-docs` "
                  "runs it.)\n")
    if decode_only:
        old = open(path).read() if os.path.exists(path) else "# CPU benchmark results\n\n"
        start = old.find("## Decode")
        old = old[:start].rstrip() + "\n\n" if start >= 0 else old.rstrip() + "\n\n"
        with open(path, "w") as fh:
            fh.write(old + decode)
        print(f"wrote the Decode section of {path}")
        if not ARGS.quick and decode:
            plot(path)
        return
    with open(path, "w") as fh:
        fh.write("# CPU benchmark results\n\n" + printed + machine)
        fh.write("GFLOP/s counts 4·S²·D·H (half for causal); GB/s counts inputs read once "
                 "and the output written once; peak RSS is the process's growth after "
                 "compilation (inputs, output and everything the kernel allocates).\n\n")
        if tables.get("prefill"):
            fh.write("\n".join(tables["prefill"].lines) + "\n")
            fh.write("\n![GFLOP/s per sequence length](bench-cpu.svg)\n")
        if decode:
            fh.write("\n" + decode)
    print(f"wrote {path}")
    if not ARGS.quick and (tables.get("prefill") or decode):
        plot(path)


def plot(path):
    """The page's plots (bench/plot_bench.py): NAME.svg from its attention
    rows, NAME-decode.svg from its Decode section."""
    subprocess.run([sys.executable, os.path.join(HERE, "plot_bench.py"), path,
                    os.path.splitext(path)[0] + ".svg"], check=True)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks the harness, not speed")
    ap.add_argument("--cases", default="*",
                    help="fnmatch pattern(s) of case names, separated by commas")
    ap.add_argument("--decode", action="store_true",
                    help="only the decode cases (decode-*; --cases narrows them further)")
    ap.add_argument("--impls", default="fused,reference,naive,raised,handwritten,unraised,"
                                        "returning,out=")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", action="store_true",
                    help="also compare every result with posenc.reference (small sizes)")
    ap.add_argument("--interleave", action="store_true",
                    help="A/B mode: each encoded attention case alternates call by call "
                         "with plain attention of its shape, each decode case with the "
                         "roofline probe (--repeat pairs); ratios per pair")
    ap.add_argument("--write-docs", action="store_true",
                    help="write the table(s) to docs/bench-cpu.md (with --decode: "
                         "only its Decode section; with --interleave: only its section)")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "bench-cpu.md"),
                    help="the page --write-docs writes (its plot next to it)")
    ap.add_argument("--child")
    ap.add_argument("--impl")
    ARGS = ap.parse_args()
    build = os.path.abspath(ARGS.build)
    cases = {c.name: c for c in all_cases(ARGS.quick)}

    if ARGS.child:
        measured = (measure_ab(cases[ARGS.child], build, ARGS.repeat, ARGS.threads)
                    if ARGS.interleave else
                    measure(cases[ARGS.child], ARGS.impl, build, ARGS.repeat, ARGS.threads))
        print(json.dumps(measured))
        return 0

    peak = machine_peak(build, ARGS.threads)
    print(f"machine: {peak['isa']}, {peak['threads']} threads: FMA peak "
          f"{peak['fma_gflops']:.1f} GFLOP/s ({peak['fma_gflops_1t']:.1f} on 1 thread), "
          f"triad bandwidth {peak['triad_gbs']:.1f} GB/s")
    patterns = ARGS.cases.split(",")
    selected = [c for c in cases.values()
                if any(fnmatch.fnmatch(c.name, pat) for pat in patterns)
                and (c.kind == "decode" or not ARGS.decode)]
    tables = run_interleaved(selected, build, peak) if ARGS.interleave else \
        run_sequential(selected, build, peak)
    if ARGS.write_docs:
        write_docs(tables, peak, ARGS.decode)
    return 0


def run_interleaved(selected, build, peak):
    """The A/B tables: encoded attention cases against plain attention of
    their shape, decode cases against the roofline probe."""
    tables = {}
    for case in selected:
        if case.kind == "decode":
            kind, layout, cells = "decode", ab.DECODE_AB_TABLE, ab.decode_ab_cells
        elif case.kind == "attention" and case.p.get("encoding", "plain") != "plain":
            kind, layout, cells = "prefill", ab.AB_TABLE, ab.ab_cells
        elif case.kind == "rope_call":
            kind, layout, cells = "calls", ab.CALL_AB_TABLE, ab.call_ab_cells
        else:
            continue
        if kind not in tables:
            tables[kind] = Table(*layout)
        r = run_child(build, case, "fused", ARGS.repeat, ARGS.threads)
        row = [] if "error" in r else cells(peak["isa"], case, r)
        tables[kind].add_row([peak["isa"], case.name], r, row)
    return tables


def run_sequential(selected, build, peak):
    """The tables of the default mode: each (case, implementation) on its own."""
    impls = ARGS.impls.split(",")
    tables = {}
    for case in selected:
        kind = "decode" if case.kind == "decode" else "prefill"
        for impl in case.impls:
            if impl not in impls:
                continue
            if kind not in tables:
                tables[kind] = Table(*(DECODE_TABLE if kind == "decode" else PREFILL_TABLE))
            r = run_child(build, case, impl, ARGS.repeat, ARGS.threads)
            cells = [] if "error" in r else (
                decode_cells(case, r, peak) if kind == "decode" else prefill_cells(case, r, peak))
            tables[kind].add(case, impl, r, cells)
    return tables


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
