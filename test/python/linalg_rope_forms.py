"""RoPE written the way torch-mlir's TorchToLinalg writes it, as MLIR text,
for the raising tests (test_raising_rope_forms.py; docs/raising.md).

`complex_rope` is Meta's LLaMA reference rotation:

    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)   # or complex(cos, sin)
    out = torch.view_as_real(xq_ * freqs_cis).flatten(3).type_as(xq)

with view_as_complex as a generic without inputs whose body extracts the two
lanes (torch-mlir's ConvertAtenViewAsComplexOp), the product as a complex.mul
generic broadcasting freqs_cis [S, D/2], view_as_real as a generic selecting
complex.re / complex.im on the index of the new last dim
(ConvertAtenViewAsRealOp), flatten as tensor.collapse_shape; the angles
float(positions) * inv_freq as one elementwise generic per torch op.
"""
import numpy as np


def _f32(v):
    return "{:.9e}".format(float(np.float32(v)))


def _maps(rank):
    d = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({d}) -> ({d})>"


def _par(rank):
    return "[" + ", ".join(['"parallel"'] * rank) + "]"


def _angles(s, p, inv_freq):
    """`%f` [S, P] = float(%pos) * inv_freq (sitofp generic, then mulf)."""
    inv = ", ".join(_f32(v) for v in inv_freq)
    return f"""
  %inv = arith.constant dense<[{inv}]> : tensor<{p}xf32>
  %e_s = tensor.empty() : tensor<{s}xf32>
  %pf = linalg.generic {{indexing_maps = [{_maps(1)}, {_maps(1)}], iterator_types = {_par(1)}}}
      ins(%pos : tensor<{s}xi32>) outs(%e_s : tensor<{s}xf32>) {{
  ^bb0(%a: i32, %o: f32):
    %v = arith.sitofp %a : i32 to f32
    linalg.yield %v : f32
  }} -> tensor<{s}xf32>
  %e_sp = tensor.empty() : tensor<{s}x{p}xf32>
  %f = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, {_maps(2)}], iterator_types = {_par(2)}}}
      ins(%pf, %inv : tensor<{s}xf32>, tensor<{p}xf32>) outs(%e_sp : tensor<{s}x{p}xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }} -> tensor<{s}x{p}xf32>"""


def _trig(name, op, src, s, p):
    return f"""
  %{name} = linalg.generic {{indexing_maps = [{_maps(2)}, {_maps(2)}], iterator_types = {_par(2)}}}
      ins({src} : tensor<{s}x{p}xf32>) outs(%e_sp : tensor<{s}x{p}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %v = {op} %a : f32
    linalg.yield %v : f32
  }} -> tensor<{s}x{p}xf32>"""


def _cis(cis, s, p):
    """`%cis` [S, P] complex<f32>."""
    ctype = f"tensor<{s}x{p}xcomplex<f32>>"
    head = f"\n  %e_c = tensor.empty() : {ctype}"
    if cis in ("polar", "polar_arg"):
        t = "%f" if cis == "polar" else "%t"
        return head + f"""
  %ones = arith.constant dense<1.0> : tensor<{s}x{p}xf32>
  %cis = linalg.generic {{indexing_maps = [{_maps(2)}, {_maps(2)}, {_maps(2)}], iterator_types = {_par(2)}}}
      ins(%ones, {t} : tensor<{s}x{p}xf32>, tensor<{s}x{p}xf32>) outs(%e_c : {ctype}) {{
  ^bb0(%r: f32, %a: f32, %o: complex<f32>):
    %c = math.cos %a : f32
    %sn = math.sin %a : f32
    %re = arith.mulf %r, %c : f32
    %im = arith.mulf %r, %sn : f32
    %z = complex.create %re, %im : complex<f32>
    linalg.yield %z : complex<f32>
  }} -> {ctype}"""
    tables = ""
    if cis == "complex":
        tables = _trig("cos", "math.cos", "%f", s, p) + _trig("sin", "math.sin", "%f", s, p)
    c, sn = ("%cos", "%sin") if cis == "complex" else ("%tc", "%ts")
    return tables + head + f"""
  %cis = linalg.generic {{indexing_maps = [{_maps(2)}, {_maps(2)}, {_maps(2)}], iterator_types = {_par(2)}}}
      ins({c}, {sn} : tensor<{s}x{p}xf32>, tensor<{s}x{p}xf32>) outs(%e_c : {ctype}) {{
  ^bb0(%a: f32, %b: f32, %o: complex<f32>):
    %z = complex.create %a, %b : complex<f32>
    linalg.yield %z : complex<f32>
  }} -> {ctype}"""


def _cis_read(b, h, s, p, order, variant):
    """How the complex product reads freqs_cis: (value, type, map, extra
    text). "bhsd": %cis [S, D/2] through (d2, d3). "bshd": Meta's
    reshape_for_broadcast, a view of %cis as [1, S, 1, D/2], read as
    TorchToLinalg's elementwise lowering reads it (a constant 0 on each
    unit dim broadcast to a larger one). Near misses (`variant`, "bshd"):
    "transposed" reads %cis [S, D/2] as (pair, S) (needs S == D/2),
    "pair_dim" reads its columns by the head index (needs H == D/2)."""
    ct = f"tensor<{s}x{p}xcomplex<f32>>"
    if order == "bhsd":
        return "%cis", ct, "affine_map<(d0, d1, d2, d3) -> (d2, d3)>", ""
    if variant == "transposed":
        assert s == p
        return "%cis", ct, "affine_map<(d0, d1, d2, d3) -> (d3, d1)>", ""
    if variant == "pair_dim":
        assert h == p
        return "%cis", ct, "affine_map<(d0, d1, d2, d3) -> (d1, d2)>", ""
    c4 = f"tensor<1x{s}x1x{p}xcomplex<f32>>"
    dims = ["d0" if b == 1 else "0", "d1", "d2" if h == 1 else "0", "d3"]
    view = (f"\n  %cis4 = tensor.expand_shape %cis [[0, 1], [2, 3]] output_shape [1, {s}, 1, {p}]"
            f" : {ct} into {c4}")
    return "%cis4", c4, f"affine_map<(d0, d1, d2, d3) -> ({', '.join(dims)})>", view


def complex_rope(b, h, s, d, inv_freq=None, cis="polar", elem="f32", order="bhsd",
                 variant=None):
    """func.func @rope(%x: [B, H, S, D] elem, %pos: [S] i32, tables...) in
    Meta's complex form. `cis`: "polar" (polar(1, float(pos) * inv_freq)),
    "complex" (complex(cos(f), sin(f)) of two trig generics), "polar_arg"
    (polar(1, %t) of an argument %t [S, D/2]), "complex_arg" (complex(%tc,
    %ts) of two argument tables). f16/bf16: x cast to f32 first and the
    result back (Meta's `.float()` ... `.type_as(xq)`). `order` "bshd": x
    is [B, S, H, D] (Meta's own order, `wq(x).view(B, S, H, D)`) and
    freqs_cis is viewed as [1, S, 1, D/2] (see _cis_read; `variant` makes
    its near misses)."""
    p = d // 2
    shape = f"{b}x{h}x{s}" if order == "bhsd" else f"{b}x{s}x{h}"
    xt = f"tensor<{shape}x{d}x{elem}>"
    x32 = f"tensor<{shape}x{d}xf32>"
    args = [f"%x: {xt}", f"%pos: tensor<{s}xi32>"]
    tshape = f"{s}x{p}"
    if cis == "polar_arg":
        args.append(f"%t: tensor<{s}x{p}xf32>")
    if cis == "complex_arg":
        args += [f"%tc: tensor<{tshape}xf32>", f"%ts: tensor<{tshape}xf32>"]
    body = ""
    if cis in ("polar", "complex"):
        body += _angles(s, p, inv_freq)
    else:
        body += f"\n  %e_sp = tensor.empty() : tensor<{s}x{p}xf32>"
    body += _cis(cis, s, p)
    cis_value, cis_type, cis_map, view = _cis_read(b, h, s, p, order, variant)
    body += view
    xin = "%x"
    if elem != "f32":
        body += f"""
  %e_x = tensor.empty() : {x32}
  %x32 = linalg.generic {{indexing_maps = [{_maps(4)}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%x : {xt}) outs(%e_x : {x32}) {{
  ^bb0(%a: {elem}, %o: f32):
    %v = arith.extf %a : {elem} to f32
    linalg.yield %v : f32
  }} -> {x32}"""
        xin = "%x32"
    ctype = f"tensor<{shape}x{p}xcomplex<f32>>"
    pairs = f"tensor<{shape}x{p}x2xf32>"
    body += f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xr = tensor.expand_shape {xin} [[0], [1], [2], [3, 4]] output_shape [{shape.replace("x", ", ")}, {p}, 2] : {x32} into {pairs}
  %e_xc = tensor.empty() : {ctype}
  %xc = linalg.generic {{indexing_maps = [{_maps(4)}], iterator_types = {_par(4)}}} outs(%e_xc : {ctype}) {{
  ^bb0(%o: complex<f32>):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %a = tensor.extract %xr[%i0, %i1, %i2, %i3, %c0] : {pairs}
    %bb = tensor.extract %xr[%i0, %i1, %i2, %i3, %c1] : {pairs}
    %z = complex.create %a, %bb : complex<f32>
    linalg.yield %z : complex<f32>
  }} -> {ctype}
  %prod = linalg.generic {{indexing_maps = [{_maps(4)}, {cis_map}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%xc, {cis_value} : {ctype}, {cis_type}) outs(%e_xc : {ctype}) {{
  ^bb0(%a: complex<f32>, %bb: complex<f32>, %o: complex<f32>):
    %m = complex.mul %a, %bb : complex<f32>
    linalg.yield %m : complex<f32>
  }} -> {ctype}
  %e_r = tensor.empty() : {pairs}
  %real = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, {_maps(5)}], iterator_types = {_par(5)}}}
      ins(%prod : {ctype}) outs(%e_r : {pairs}) {{
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %i4 = linalg.index 4 : index
    %is0 = arith.cmpi eq, %i4, %c0 : index
    %v = arith.select %is0, %re, %im : f32
    linalg.yield %v : f32
  }} -> {pairs}
  %out = tensor.collapse_shape %real [[0], [1], [2], [3, 4]] : {pairs} into {x32}"""
    result = "%out"
    if elem != "f32":
        body += f"""
  %e_y = tensor.empty() : {xt}
  %y = linalg.generic {{indexing_maps = [{_maps(4)}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%out : {x32}) outs(%e_y : {xt}) {{
  ^bb0(%a: f32, %o: {elem}):
    %v = arith.truncf %a : f32 to {elem}
    linalg.yield %v : {elem}
  }} -> {xt}"""
        result = "%y"
    return (f"func.func @rope({', '.join(args)}) -> {xt} {{{body}\n"
            f"  return {result} : {xt}\n}}\n")


def _binary(name, op, a, at, amap, bv, bt, bmap, rank, out_t, elem="f32"):
    return f"""
  %{name} = linalg.generic {{indexing_maps = [{amap}, {bmap}, {_maps(rank)}], iterator_types = {_par(rank)}}}
      ins({a}, {bv} : {at}, {bt}) outs(%e_{rank} : {out_t}) {{
  ^bb0(%a: {elem}, %b: {elem}, %o: {elem}):
    %v = {op} %a, %b : {elem}
    linalg.yield %v : {elem}
  }} -> {out_t}"""


def pair_rope(b, h, s, d, layout, inv_freq=None, elem="f32"):
    """func.func @rope(%x: [B, H, S, D] elem, %pos: [S] i32[, %tc, %ts: [S,
    D/2] elem]) rotating pairs in real arithmetic: `layout` "interleaved"
    (x reshaped to [..., D/2, 2], lanes sliced, (a cos - b sin, a sin + b
    cos) concatenated and reshaped back: Meta's rotation as exporters write
    it) or "expanded" (concat(x1 cos - x2 sin, x2 cos + x1 sin) of the
    halves). cos/sin are math.cos/math.sin of float(pos) * inv_freq (f32),
    or the argument tables %tc, %ts when `inv_freq` is None, of type `elem`
    as x: the arithmetic in that type, as an f16/bf16 model does it."""
    assert inv_freq is None or elem == "f32"
    p = d // 2
    xt = f"tensor<{b}x{h}x{s}x{d}x{elem}>"
    args = [f"%x: {xt}", f"%pos: tensor<{s}xi32>"]
    body = ""
    if inv_freq is None:
        args += [f"%tc: tensor<{s}x{p}x{elem}>", f"%ts: tensor<{s}x{p}x{elem}>"]
        c, sn = "%tc", "%ts"
    else:
        body += _angles(s, p, inv_freq)
        body += _trig("cos", "math.cos", "%f", s, p) + _trig("sin", "math.sin", "%f", s, p)
        c, sn = "%cos", "%sin"
    if layout == "interleaved":
        rank, part = 5, f"tensor<{b}x{h}x{s}x{p}x1x{elem}>"
        ct = f"tensor<{s}x{p}x1x{elem}>"
        tmap = "affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>"
        pairs = f"tensor<{b}x{h}x{s}x{p}x2x{elem}>"
        body += f"""
  %c3 = tensor.expand_shape {c} [[0], [1, 2]] output_shape [{s}, {p}, 1] : tensor<{s}x{p}x{elem}> into {ct}
  %s3 = tensor.expand_shape {sn} [[0], [1, 2]] output_shape [{s}, {p}, 1] : tensor<{s}x{p}x{elem}> into {ct}
  %xr = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [{b}, {h}, {s}, {p}, 2] : {xt} into {pairs}
  %xa = tensor.extract_slice %xr[0, 0, 0, 0, 0] [{b}, {h}, {s}, {p}, 1] [1, 1, 1, 1, 1] : {pairs} to {part}
  %xb = tensor.extract_slice %xr[0, 0, 0, 0, 1] [{b}, {h}, {s}, {p}, 1] [1, 1, 1, 1, 1] : {pairs} to {part}"""
        c, sn = "%c3", "%s3"
    else:
        rank, part = 4, f"tensor<{b}x{h}x{s}x{p}x{elem}>"
        ct = f"tensor<{s}x{p}x{elem}>"
        tmap = "affine_map<(d0, d1, d2, d3) -> (d2, d3)>"
        body += f"""
  %xa = tensor.extract_slice %x[0, 0, 0, 0] [{b}, {h}, {s}, {p}] [1, 1, 1, 1] : {xt} to {part}
  %xb = tensor.extract_slice %x[0, 0, 0, {p}] [{b}, {h}, {s}, {p}] [1, 1, 1, 1] : {xt} to {part}"""
    idm = _maps(rank)
    body += f"\n  %e_{rank} = tensor.empty() : {part}"
    body += _binary("ac", "arith.mulf", "%xa", part, idm, c, ct, tmap, rank, part, elem)
    body += _binary("bs", "arith.mulf", "%xb", part, idm, sn, ct, tmap, rank, part, elem)
    body += _binary("as", "arith.mulf", "%xa", part, idm, sn, ct, tmap, rank, part, elem)
    body += _binary("bc", "arith.mulf", "%xb", part, idm, c, ct, tmap, rank, part, elem)
    body += _binary("first", "arith.subf", "%ac", part, idm, "%bs", part, idm, rank, part, elem)
    body += _binary("second", "arith.addf", "%as", part, idm, "%bc", part, idm, rank, part, elem)
    if layout == "interleaved":
        body += f"""
  %cat = tensor.concat dim(4) %first, %second : ({part}, {part}) -> {pairs}
  %out = tensor.collapse_shape %cat [[0], [1], [2], [3, 4]] : {pairs} into {xt}"""
    else:
        body += f"""
  %out = tensor.concat dim(3) %first, %second : ({part}, {part}) -> {xt}"""
    return (f"func.func @rope({', '.join(args)}) -> {xt} {{{body}\n"
            f"  return %out : {xt}\n}}\n")


def _body_of(func_text, prefix, x):
    """The body of a generated @rope function with its SSA names prefixed,
    `%x` renamed to `x`, `%pos` kept; returns (body, result name)."""
    import re
    lines = func_text.splitlines()[1:-1]
    result = lines[-1].split()[1]
    body = "\n".join(lines[:-1])

    def rename(m):
        name = m.group(1)
        if name == "pos":
            return "%pos"
        if name == "x":
            return x
        return f"%{prefix}{name}"
    rename_all = lambda t: re.sub(r"%([A-Za-z_][\w]*)", rename, t)  # noqa: E731
    return rename_all(body), rename_all(result)


def complex_llama_block(s, hq, hkv, d, inv_freq):
    """func.func @block(%q: [1, hq, S, D], %k: [1, hkv, S, D], %v: [1, hkv,
    S, D], %pos: [S]) -> [hq, S, D]: Meta's complex RoPE on q and k
    (complex_rope's IR), K/V repeated for GQA (broadcast + collapse, as
    repeat_kv), scores q . k^T / sqrt(D) by linalg.batch_matmul, softmax,
    P . V."""
    rep = hq // hkv
    qb, qr = _body_of(complex_rope(1, hq, s, d, inv_freq), "q_", "%q")
    kb, kr = _body_of(complex_rope(1, hkv, s, d, inv_freq), "k_", "%k")
    f = "f32"
    t3 = f"tensor<{hq}x{s}x{d}x{f}>"
    sc = f"tensor<{hq}x{s}x{s}x{f}>"
    kv = f"tensor<1x{hkv}x{s}x{d}x{f}>"
    kv5 = f"tensor<1x{hkv}x{rep}x{s}x{d}x{f}>"
    id3 = _maps(3)
    return f"""func.func @block(%q: tensor<1x{hq}x{s}x{d}xf32>, %k: {kv}, %v: {kv}, %pos: tensor<{s}xi32>) -> {t3} {{{qb}{kb}
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant {_f32(1.0 / np.sqrt(d))} : f32
  %q3 = tensor.collapse_shape {qr} [[0, 1], [2], [3]] : tensor<1x{hq}x{s}x{d}xf32> into {t3}
  %e5 = tensor.empty() : {kv5}
  %kb = linalg.broadcast ins({kr} : {kv}) outs(%e5 : {kv5}) dimensions = [2]
  %k3 = tensor.collapse_shape %kb [[0, 1, 2], [3], [4]] : {kv5} into {t3}
  %vb = linalg.broadcast ins(%v : {kv}) outs(%e5 : {kv5}) dimensions = [2]
  %v3 = tensor.collapse_shape %vb [[0, 1, 2], [3], [4]] : {kv5} into {t3}
  %et = tensor.empty() : tensor<{hq}x{d}x{s}xf32>
  %kt = linalg.transpose ins(%k3 : {t3}) outs(%et : tensor<{hq}x{d}x{s}xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : {sc}
  %zs = linalg.fill ins(%zero : f32) outs(%es : {sc}) -> {sc}
  %sc = linalg.batch_matmul ins(%q3, %kt : {t3}, tensor<{hq}x{d}x{s}xf32>) outs(%zs : {sc}) -> {sc}
  %ss = linalg.generic {{indexing_maps = [{id3}, {id3}], iterator_types = {_par(3)}}}
      ins(%sc : {sc}) outs(%es : {sc}) {{
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  }} -> {sc}
  %p = linalg.softmax dimension(2) ins(%ss : {sc}) outs(%es : {sc}) -> {sc}
  %eo = tensor.empty() : {t3}
  %zo = linalg.fill ins(%zero : f32) outs(%eo : {t3}) -> {t3}
  %o = linalg.batch_matmul ins(%p, %v3 : {sc}, {t3}) outs(%zo : {t3}) -> {t3}
  return %o : {t3}
}}
"""


def gather_rope(b, h, s, d, m, layout, caches=None, elem="f32", variant=None):
    """func.func @rope(%x: [B, H, S, D], %pos: [B, S] i64[, %cos_cache,
    %sin_cache: [M, D/2]]) -> [B, H, S, D]: ONNX RotaryEmbedding as one
    linalg.generic in the form torch-mlir's lowering of
    onnx.RotaryEmbedding writes (ONNX Runtime's reference arithmetic): the
    body reads its position from position_ids, gathers
    cos_cache[pos, c] and sin_cache[pos, c] with tensor.extract, reads the
    partner x[..., j] and yields x[d] * cos + sign * x[j] * sin, with
    (c, j, sign) = (d mod D/2, (d + D/2) mod D, -1 if d < D/2 else 1) for
    the half layout and (d / 2, d +- 1, -1 if d even else 1) interleaved.
    `caches`: None (arguments) or a (cos, sin) pair of [M, D/2] arrays
    written as dense constants. `variant` makes a near miss:
    "index" (cache index off by one), "sign" (the signs swapped),
    "position" (position + 1)."""
    p = d // 2
    xt = f"tensor<{b}x{h}x{s}x{d}x{elem}>"
    ct = f"tensor<{m}x{p}x{elem}>"
    args = [f"%x: {xt}", f"%pos: tensor<{b}x{s}xi64>"]
    body = ""
    if caches is None:
        args += [f"%cos_cache: {ct}", f"%sin_cache: {ct}"]
    else:
        for name, table in zip(("cos_cache", "sin_cache"), caches):
            rows = ", ".join("[" + ", ".join(_f32(v) for v in row) + "]" for row in table)
            body += f"\n  %{name} = arith.constant dense<[{rows}]> : {ct}"
    if layout == "half":
        index = f"""
    %c = arith.remsi %i3, %half : index
    %hs = arith.addi %i3, %half : index
    %j = arith.remsi %hs, %dim : index
    %first = arith.cmpi slt, %i3, %half : index"""
    else:
        index = """
    %c = arith.divsi %i3, %c2 : index
    %odd = arith.remsi %i3, %c2 : index
    %first = arith.cmpi eq, %odd, %c0 : index
    %jp = arith.addi %i3, %c1 : index
    %jm = arith.subi %i3, %c1 : index
    %j = arith.select %first, %jp, %jm : index"""
    if variant == "index":
        index += "\n    %cc = arith.addi %c, %c1 : index\n    %cm = arith.remsi %cc, %half : index"
    ci = "%cm" if variant == "index" else "%c"
    row = "%pi"
    if variant == "position":
        index += "\n    %pi1 = arith.addi %pi, %c1 : index"
        row = "%pi1"
    signs = ("%plus", "%minus") if variant == "sign" else ("%minus", "%plus")
    body += f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant {p} : index
  %dim = arith.constant {d} : index
  %minus = arith.constant -1.0 : {elem}
  %plus = arith.constant 1.0 : {elem}
  %e = tensor.empty() : {xt}
  %out = linalg.generic {{indexing_maps = [{_maps(4)}, affine_map<(d0, d1, d2, d3) -> (d0, d2)>, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%x, %pos : {xt}, tensor<{b}x{s}xi64>) outs(%e : {xt}) {{
  ^bb0(%in: {elem}, %p: i64, %o: {elem}):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %pi = arith.index_cast %p : i64 to index{index}
    %cv = tensor.extract %cos_cache[{row}, {ci}] : {ct}
    %sv = tensor.extract %sin_cache[{row}, {ci}] : {ct}
    %xj = tensor.extract %x[%i0, %i1, %i2, %j] : {xt}
    %sign = arith.select %first, {signs[0]}, {signs[1]} : {elem}
    %a = arith.mulf %in, %cv : {elem}
    %bj = arith.mulf %xj, %sv : {elem}
    %sb = arith.mulf %sign, %bj : {elem}
    %r = arith.addf %a, %sb : {elem}
    linalg.yield %r : {elem}
  }} -> {xt}"""
    return (f"func.func @rope({', '.join(args)}) -> {xt} {{{body}\n"
            f"  return %out : {xt}\n}}\n")


def meta_llama_block(b, s, hq, hkv, d, inv_freq, causal=True, elem="f32"):
    """func.func @block(%q_proj: [B, S, hq*D], %k_proj, %v_proj: [B, S,
    hkv*D], %pos: [S] i32) -> [B, S, hq*D]: Meta's reference Attention.forward
    (llama/model.py, no KV-cache prefix) as torch-mlir's TorchToLinalg
    lowers it: `view(B, S, H, D)` (expand_shape); apply_rotary_emb in the
    complex form on [B, S, H, D] (complex_rope, order "bshd", `.float()` /
    `.type_as(xq)` around it for half types); repeat_kv as unsqueeze
    (expand_shape [B, S, Hkv, 1, D]), `expand` (a copy generic reading the
    unit dim at 0, broadcastToGivenShape) and reshape (collapse_shape);
    `transpose(1, 2)` of q, keys and values and `keys.transpose(2, 3)`
    (linalg.transpose each); matmul (batch dims collapsed,
    linalg.batch_matmul, expanded back); `/ sqrt(D)`; `+ mask` with mask =
    triu(full((S, S), -inf), 1) (linalg.fill + an index-select generic)
    when `causal`; softmax(scores.float(), -1).type_as(xq) decomposed;
    matmul with the values; `transpose(1, 2)` and view(B, S, -1)."""
    from linalg_blocks import _Linalg, _softmax, ID, ty
    rep = hq // hkv
    t = _Linalg()
    f = elem
    heads = {}
    for name, h in (("q", hq), ("k", hkv), ("v", hkv)):
        heads[name] = t.op(f"tensor.expand_shape %{name}_proj [[0], [1], [2, 3]] output_shape "
                           f"[{b}, {s}, {h}, {d}] : {ty([b, s, h * d], f)} into {ty([b, s, h, d], f)}")
    for name, h in (("q", hq), ("k", hkv)):
        body, res = _body_of(complex_rope(b, h, s, d, inv_freq, "polar", elem, "bshd"),
                             f"{name}_", heads[name])
        t.lines.append(body.lstrip("\n"))
        heads[name] = res
    for name in ("k", "v"):
        if rep == 1:
            continue
        x5 = t.op(f"tensor.expand_shape {heads[name]} [[0], [1], [2, 3], [4]] output_shape "
                  f"[{b}, {s}, {hkv}, 1, {d}] : {ty([b, s, hkv, d], f)} into {ty([b, s, hkv, 1, d], f)}")
        init = t.empty([b, s, hkv, rep, d], f)
        copy = t.name()
        t.emit(f"{copy} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> "
               f"(d0, d1, d2, 0, d4)>, {ID[5]}], iterator_types = {_par(5)}}} ins({x5} : "
               f"{ty([b, s, hkv, 1, d], f)}) outs({init} : {ty([b, s, hkv, rep, d], f)}) {{")
        t.emit(f"^bb0(%in: {f}, %out: {f}):")
        t.emit(f"  linalg.yield %in : {f}")
        t.emit(f"}} -> {ty([b, s, hkv, rep, d], f)}")
        heads[name] = t.op(f"tensor.collapse_shape {copy} [[0], [1], [2, 3], [4]] : "
                           f"{ty([b, s, hkv, rep, d], f)} into {ty([b, s, hq, d], f)}")
    tr = {}
    for name in ("q", "k", "v"):
        init = t.empty([b, hq, s, d], f)
        tr[name] = t.op(f"linalg.transpose ins({heads[name]} : {ty([b, s, hq, d], f)}) outs({init} : "
                        f"{ty([b, hq, s, d], f)}) permutation = [0, 2, 1, 3]")
    init = t.empty([b, hq, d, s], f)
    kt = t.op(f"linalg.transpose ins({tr['k']} : {ty([b, hq, s, d], f)}) outs({init} : "
              f"{ty([b, hq, d, s], f)}) permutation = [0, 1, 3, 2]")
    n = b * hq
    zero = t.op(f"arith.constant 0.0 : {f}")

    def matmul(lhs, lshape, rhs, rshape):
        l3 = t.op(f"tensor.collapse_shape {lhs} [[0, 1], [2], [3]] : {ty(lshape, f)} into "
                  f"{ty([n] + lshape[2:], f)}")
        r3 = t.op(f"tensor.collapse_shape {rhs} [[0, 1], [2], [3]] : {ty(rshape, f)} into "
                  f"{ty([n] + rshape[2:], f)}")
        oshape = [n, lshape[2], rshape[3]]
        e = t.empty(oshape, f)
        z = t.op(f"linalg.fill ins({zero} : {f}) outs({e} : {ty(oshape, f)}) -> {ty(oshape, f)}")
        mm = t.op(f"linalg.batch_matmul ins({l3}, {r3} : {ty([n] + lshape[2:], f)}, "
                  f"{ty([n] + rshape[2:], f)}) outs({z} : {ty(oshape, f)}) -> {ty(oshape, f)}")
        return t.op(f"tensor.expand_shape {mm} [[0, 1], [2], [3]] output_shape [{b}, {hq}, "
                    f"{oshape[1]}, {oshape[2]}] : {ty(oshape, f)} into "
                    f"{ty([b, hq] + oshape[1:], f)}")

    s4 = [b, hq, s, s]
    scores = matmul(tr["q"], [b, hq, s, d], kt, [b, hq, d, s])
    root = t.op(f"arith.constant {float(np.sqrt(d))!r} : {f}")
    scores = t.generic([(scores, ty(s4, f))], [ID[4]], s4, [f"%r = arith.divf %a0, {root} : {f}"], f)
    if causal:
        ninf = "0xFF800000" if f == "f32" else {"f16": "0xFC00", "bf16": "0xFF80"}[f]
        mval = t.op(f"arith.constant {ninf} : {f}")
        me = t.empty([s, s], f)
        full = t.op(f"linalg.fill ins({mval} : {f}) outs({me} : {ty([s, s], f)}) -> {ty([s, s], f)}")
        tri = t.generic([(full, ty([s, s], f))], [ID[2]], [s, s], [
            "%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
            "%ii = arith.index_cast %i : index to i64", "%jj = arith.index_cast %j : index to i64",
            "%dd = arith.subi %jj, %ii : i64", "%one = arith.constant 1 : i64",
            "%above = arith.cmpi sge, %dd, %one : i64",
            f"%r = arith.select %above, %a0, {zero} : {f}"], f)
        scores = t.binary(scores, s4, ID[4], tri, [s, s], "affine_map<(d0, d1, d2, d3) -> (d2, d3)>",
                          s4, "arith.addf", f)
    if f != "f32":
        scores = t.unary(scores, s4, "arith.extf", f, "f32")
    p = _softmax(t, scores, s4)
    if f != "f32":
        p = t.unary(p, s4, "arith.truncf", "f32", f)
    o = matmul(p, s4, tr["v"], [b, hq, s, d])
    init = t.empty([b, s, hq, d], f)
    ot = t.op(f"linalg.transpose ins({o} : {ty([b, hq, s, d], f)}) outs({init} : "
              f"{ty([b, s, hq, d], f)}) permutation = [0, 2, 1, 3]")
    out = t.op(f"tensor.collapse_shape {ot} [[0], [1], [2, 3]] : {ty([b, s, hq, d], f)} into "
               f"{ty([b, s, hq * d], f)}")
    text = "\n".join(t.lines)
    res = ty([b, s, hq * d], f)
    kv = ty([b, s, hkv * d], f)
    return (f"func.func @block(%q_proj: {res}, %k_proj: {kv}, %v_proj: {kv}, %pos: tensor<{s}xi32>)"
            f" -> {res} {{\n{text}\n  return {out} : {res}\n}}\n")



def hf_matmul_rope(b, h, s, d, inv_freq, variant=None):
    """func.func @rope(%x: [B, H, S, D] f32, %pos: [B, S] i64) -> [B, H, S, D]:
    HuggingFace's LlamaRotaryEmbedding.forward + apply_rotary_pos_emb as
    torch-mlir lowers them: `inv_freq[None, :, None].float().expand(B, -1,
    1)` (expand_shape to [1, D/2, 1], a copy generic reading dim 0 at 0 when
    B > 1), `position_ids[:, None, :].float()` (expand_shape to [B, 1, S],
    sitofp), the `@` as linalg.batch_matmul [B, D/2, 1] x [B, 1, S] into a
    zero-filled init (aten.bmm), `.transpose(1, 2)` (linalg.transpose),
    `cat((freqs, freqs), -1)`, cos/sin times attention_scaling 1.0,
    `unsqueeze(1)`, then x * cos + rotate_half(x) * sin. Near misses
    (`variant`): "k2" a contraction of size 2 (the constant
    concat(inv_freq, inv_freq) viewed as [1, D/2, 2] @ [pos; pos]: each
    angle a sum of two products), "untransposed" the matmul result used without the
    transpose (needs S == D/2: angle pos[p] * inv[s])."""
    p = d // 2
    x = f"tensor<{b}x{h}x{s}x{d}xf32>"
    k = 2 if variant == "k2" else 1
    inv = ", ".join(_f32(v) for v in inv_freq)
    mm = f"tensor<{b}x{p}x{s}xf32>"
    lines = [f"  %inv = arith.constant dense<[{inv}]> : tensor<{p}xf32>"]
    if k == 1:
        lines.append(f"  %inv3 = tensor.expand_shape %inv [[0, 1, 2]] output_shape [1, {p}, 1] : "
                     f"tensor<{p}xf32> into tensor<1x{p}x1xf32>")
    else:
        lines.append(f"  %inv2 = tensor.concat dim(0) %inv, %inv : (tensor<{p}xf32>, tensor<{p}xf32>) -> "
                     f"tensor<{2 * p}xf32>")
        lines.append(f"  %inv3 = tensor.expand_shape %inv2 [[0, 1, 2]] output_shape [1, {p}, 2] : "
                     f"tensor<{2 * p}xf32> into tensor<1x{p}x2xf32>")
    lhs = "%inv3"
    if b > 1:
        lines.append(f"""  %e_ib = tensor.empty() : tensor<{b}x{p}x{k}xf32>
  %invb = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, {_maps(3)}], iterator_types = {_par(3)}}}
      ins(%inv3 : tensor<1x{p}x{k}xf32>) outs(%e_ib : tensor<{b}x{p}x{k}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }} -> tensor<{b}x{p}x{k}xf32>""")
        lhs = "%invb"
    lines.append(f"  %pos3 = tensor.expand_shape %pos [[0, 1], [2]] output_shape [{b}, 1, {s}] : "
                 f"tensor<{b}x{s}xi64> into tensor<{b}x1x{s}xi64>")
    pos = "%pos3"
    if k == 2:
        lines.append(f"  %pos6 = tensor.concat dim(1) %pos3, %pos3 : (tensor<{b}x1x{s}xi64>, "
                     f"tensor<{b}x1x{s}xi64>) -> tensor<{b}x2x{s}xi64>")
        pos = "%pos6"
    lines.append(f"""  %e_pf = tensor.empty() : tensor<{b}x{k}x{s}xf32>
  %pf = linalg.generic {{indexing_maps = [{_maps(3)}, {_maps(3)}], iterator_types = {_par(3)}}}
      ins({pos} : tensor<{b}x{k}x{s}xi64>) outs(%e_pf : tensor<{b}x{k}x{s}xf32>) {{
  ^bb0(%a: i64, %o: f32):
    %v = arith.sitofp %a : i64 to f32
    linalg.yield %v : f32
  }} -> tensor<{b}x{k}x{s}xf32>
  %zero = arith.constant 0.0 : f32
  %e_mm = tensor.empty() : {mm}
  %z_mm = linalg.fill ins(%zero : f32) outs(%e_mm : {mm}) -> {mm}
  %mm = linalg.batch_matmul ins({lhs}, %pf : tensor<{b}x{p}x{k}xf32>, tensor<{b}x{k}x{s}xf32>) outs(%z_mm : {mm}) -> {mm}""")
    fr = f"tensor<{b}x{s}x{p}xf32>"
    if variant == "untransposed":
        assert s == p
        freqs = "%mm"
    else:
        lines.append(f"  %e_fr = tensor.empty() : {fr}")
        lines.append(f"  %fr = linalg.transpose ins(%mm : {mm}) outs(%e_fr : {fr}) permutation = [0, 2, 1]")
        freqs = "%fr"
    emb = f"tensor<{b}x{s}x{d}xf32>"
    lines.append(f"  %emb = tensor.concat dim(2) {freqs}, {freqs} : ({fr}, {fr}) -> {emb}")
    lines.append(f"  %one = arith.constant 1.0 : f32\n  %e_t = tensor.empty() : {emb}")
    for name, op in (("cos", "math.cos"), ("sin", "math.sin")):
        lines.append(f"""  %{name}0 = linalg.generic {{indexing_maps = [{_maps(3)}, {_maps(3)}], iterator_types = {_par(3)}}}
      ins(%emb : {emb}) outs(%e_t : {emb}) {{
  ^bb0(%a: f32, %o: f32):
    %v = {op} %a : f32
    linalg.yield %v : f32
  }} -> {emb}
  %{name}1 = linalg.generic {{indexing_maps = [{_maps(3)}, {_maps(3)}], iterator_types = {_par(3)}}}
      ins(%{name}0 : {emb}) outs(%e_t : {emb}) {{
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %one : f32
    linalg.yield %v : f32
  }} -> {emb}
  %{name} = tensor.expand_shape %{name}1 [[0, 1], [2], [3]] output_shape [{b}, 1, {s}, {d}] : {emb} into tensor<{b}x1x{s}x{d}xf32>""")
    half = f"tensor<{b}x{h}x{s}x{p}xf32>"
    tmap = f"affine_map<(d0, d1, d2, d3) -> (d0, {'0' if h > 1 else 'd1'}, d2, d3)>"
    t4 = f"tensor<{b}x1x{s}x{d}xf32>"
    lines.append(f"""  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [{b}, {h}, {s}, {p}] [1, 1, 1, 1] : {x} to {half}
  %x2 = tensor.extract_slice %x[0, 0, 0, {p}] [{b}, {h}, {s}, {p}] [1, 1, 1, 1] : {x} to {half}
  %e_h = tensor.empty() : {half}
  %n2 = linalg.generic {{indexing_maps = [{_maps(4)}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%x2 : {half}) outs(%e_h : {half}) {{
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  }} -> {half}
  %rot = tensor.concat dim(3) %n2, %x1 : ({half}, {half}) -> {x}
  %e_x = tensor.empty() : {x}""")
    for name, a, t in (("xc", "%x", "%cos"), ("rs", "%rot", "%sin")):
        lines.append(f"""  %{name} = linalg.generic {{indexing_maps = [{_maps(4)}, {tmap}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins({a}, {t} : {x}, {t4}) outs(%e_x : {x}) {{
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.mulf %a, %c : f32
    linalg.yield %v : f32
  }} -> {x}""")
    lines.append(f"""  %out = linalg.generic {{indexing_maps = [{_maps(4)}, {_maps(4)}, {_maps(4)}], iterator_types = {_par(4)}}}
      ins(%xc, %rs : {x}, {x}) outs(%e_x : {x}) {{
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  }} -> {x}""")
    body = "\n".join(lines)
    return (f"func.func @rope(%x: {x}, %pos: tensor<{b}x{s}xi64>) -> {x} {{\n{body}\n"
            f"  return %out : {x}\n}}\n")
