"""Attention blocks written in linalg-on-tensors the way torch-mlir's
TorchToLinalg writes them when the sequence length is dynamic (a `?` dim):
every size is a `tensor.dim`, every init a `tensor.empty(%d)`, broadcasts
checked by `arith.cmpi eq` + `cf.assert`, reshapes with dynamic
`output_shape`, the causal mask `triu(full(m), 1)` built from `linalg.index`,
positions an in-graph arange of the dynamic length.

The text is generated, so that pytest can run seeded configurations of it
and the lit test raise-dynamic-block.mlir can hold one of them."""
import numpy as np

ID = {r: "affine_map<(" + ", ".join(f"d{i}" for i in range(r)) + ") -> ("
      + ", ".join(f"d{i}" for i in range(r)) + ")>" for r in range(1, 6)}
LOWEST = {"f32": "-3.40282347E+38", "f16": "-6.550400e+04", "bf16": "-3.389531e+38"}


def ty(shape, elem="f32"):
    return "tensor<" + "x".join("?" if d is None else str(d) for d in shape) + f"x{elem}>"


def _par(n):
    return "[" + ", ".join(['"parallel"'] * n) + "]"


class _Linalg:
    """Accumulates lines; every value gets a fresh name."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def name(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text):
        self.lines.append("  " + text)

    def op(self, text):
        v = self.name()
        self.emit(f"{v} = {text}")
        return v

    def empty(self, shape, elem="f32"):
        dyn = ", ".join("%s" for d in shape if d is None)
        return self.op(f"tensor.empty({dyn}) : {ty(shape, elem)}")

    def generic(self, ins, maps, shape, body, elem="f32", args=None):
        """An all-parallel generic over `shape`; `ins` [(value, type)],
        `maps` their indexing maps (the output's is the identity); `body`
        the lines of the region, the yielded value named %r."""
        init = self.empty(shape, elem)
        r = len(shape)
        amaps = ", ".join(maps + [ID[r]])
        ins_text = (f"ins({', '.join(v for v, _ in ins)} : {', '.join(t for _, t in ins)}) "
                    if ins else "")
        bargs = ", ".join(args or [f"%a{i}: {t.split('x')[-1][:-1]}" for i, (_, t) in enumerate(ins)]
                          + [f"%out: {elem}"])
        v = self.name()
        self.emit(f"{v} = linalg.generic {{indexing_maps = [{amaps}], iterator_types = {_par(r)}}} "
                  f"{ins_text}outs({init} : {ty(shape, elem)}) {{")
        self.emit(f"^bb0({bargs}):")
        for line in body:
            self.emit("  " + line)
        self.emit("  linalg.yield %r : " + elem)
        self.emit(f"}} -> {ty(shape, elem)}")
        return v

    def unary(self, x, shape, op, elem="f32", out_elem=None):
        out_elem = out_elem or elem
        return self.generic([(x, ty(shape, elem))], [ID[len(shape)]], shape,
                            [f"%r = {op} %a0 : {elem}" + (f" to {out_elem}" if out_elem != elem else "")],
                            out_elem)

    def binary(self, a, ashape, amap, b, bshape, bmap, shape, op, elem="f32"):
        return self.generic([(a, ty(ashape, elem)), (b, ty(bshape, elem))], [amap, bmap], shape,
                            [f"%r = {op} %a0, %a1 : {elem}"], elem)


def _rope(t, x, h, d, cos, sin, elem):
    """HuggingFace apply_rotary_pos_emb on x [1, h, S, d]."""
    shape = [1, h, None, d]
    half = [1, h, None, d // 2]
    x1 = t.op(f"tensor.extract_slice {x}[0, 0, 0, 0] [1, {h}, %s, {d // 2}] [1, 1, 1, 1] : "
              f"{ty(shape, elem)} to {ty(half, elem)}")
    x2 = t.op(f"tensor.extract_slice {x}[0, 0, 0, {d // 2}] [1, {h}, %s, {d // 2}] [1, 1, 1, 1] : "
              f"{ty(shape, elem)} to {ty(half, elem)}")
    n2 = t.unary(x2, half, "arith.negf", elem)
    rot = t.op(f"tensor.concat dim(3) {n2}, {x1} : ({ty(half, elem)}, {ty(half, elem)}) -> "
               f"{ty(shape, elem)}")
    table = "affine_map<(d0, d1, d2, d3) -> (d2, d3)>"
    xc = t.binary(x, shape, ID[4], cos, [None, d], table, shape, "arith.mulf", elem)
    rs = t.binary(rot, shape, ID[4], sin, [None, d], table, shape, "arith.mulf", elem)
    return t.binary(xc, shape, ID[4], rs, shape, ID[4], shape, "arith.addf", elem)


def _heads(t, proj, h, d, elem):
    """[1, S, h*d] -> [1, h, S, d] (view + transpose)."""
    x4 = t.op(f"tensor.expand_shape {proj} [[0], [1], [2, 3]] output_shape [1, %s, {h}, {d}] : "
              f"{ty([1, None, h * d], elem)} into {ty([1, None, h, d], elem)}")
    init = t.empty([1, h, None, d], elem)
    return t.op(f"linalg.transpose ins({x4} : {ty([1, None, h, d], elem)}) outs({init} : "
                f"{ty([1, h, None, d], elem)}) permutation = [0, 2, 1, 3]")


def _repeat_kv(t, x, hkv, hq, d, elem):
    """[1, hkv, S, d] -> [hq, S, d] (repeat_kv: expand + reshape)."""
    rep = hq // hkv
    if rep == 1:
        return t.op(f"tensor.collapse_shape {x} [[0, 1], [2], [3]] : {ty([1, hkv, None, d], elem)} "
                    f"into {ty([hq, None, d], elem)}")
    init = t.empty([1, hkv, rep, None, d], elem)
    b = t.op(f"linalg.broadcast ins({x} : {ty([1, hkv, None, d], elem)}) outs({init} : "
             f"{ty([1, hkv, rep, None, d], elem)}) dimensions = [2]")
    return t.op(f"tensor.collapse_shape {b} [[0, 1, 2], [3], [4]] : {ty([1, hkv, rep, None, d], elem)} "
                f"into {ty([hq, None, d], elem)}")


def _assert_same(t, a, adim, atype, b, bdim, btype):
    """torch-mlir's broadcast check of two dims."""
    ca = t.op(f"arith.constant {adim} : index")
    da = t.op(f"tensor.dim {a}, {ca} : {atype}")
    cb = t.op(f"arith.constant {bdim} : index")
    db = t.op(f"tensor.dim {b}, {cb} : {btype}")
    eq = t.op(f"arith.cmpi eq, {da}, {db} : index")
    t.emit(f'cf.assert {eq}, "mismatched size for broadcast"')


def _softmax(t, x, shape):
    """torch-mlir's decomposed softmax over the last dim (f32)."""
    r = len(shape)
    red = affine = "affine_map<(" + ", ".join(f"d{i}" for i in range(r)) + ") -> (" + \
        ", ".join(f"d{i}" for i in range(r - 1)) + ")>"
    rshape = shape[:-1]
    iters = "[" + ", ".join(['"parallel"'] * (r - 1) + ['"reduction"']) + "]"

    def reduce(v, init_value, op):
        e = t.empty(rshape)
        c = t.op(f"arith.constant {init_value} : f32")
        f = t.op(f"linalg.fill ins({c} : f32) outs({e} : {ty(rshape)}) -> {ty(rshape)}")
        out = t.name()
        t.emit(f"{out} = linalg.generic {{indexing_maps = [{ID[r]}, {affine}], iterator_types = {iters}}} "
               f"ins({v} : {ty(shape)}) outs({f} : {ty(rshape)}) {{")
        t.emit("^bb0(%in: f32, %acc: f32):")
        t.emit(f"  %r = {op} %in, %acc : f32")
        t.emit("  linalg.yield %r : f32")
        t.emit(f"}} -> {ty(rshape)}")
        return out

    mx = reduce(x, "0xFF800000", "arith.maximumf")
    sub = t.binary(x, shape, ID[r], mx, rshape, red, shape, "arith.subf")
    e = t.unary(sub, shape, "math.exp")
    total = reduce(e, "0.0", "arith.addf")
    return t.binary(e, shape, ID[r], total, rshape, red, shape, "arith.divf")


def llama_block(hq, hkv, d, inv_freq, mask="lowest", offset=0, elem="f32"):
    """A LLaMA-style block with a dynamic sequence length: (q_proj [1,?,hq*d],
    k_proj, v_proj [1,?,hkv*d], all `elem`) -> [1,?,hq*d]. RoPE (half
    layout) from the f32 `inv_freq` and positions arange(S) + offset; GQA
    by linalg.broadcast; scores scaled by 1/sqrt(d) in `elem`; `mask`
    "lowest" (finfo(elem).min), "-inf" or None: triu(full(m), 1) added in
    `elem`; softmax in f32 (extf/truncf around it for half types)."""
    t = _Linalg()
    c1 = t.op("arith.constant 1 : index")
    t.emit(f"%s = tensor.dim %q_proj, {c1} : {ty([1, None, hq * d], elem)}")
    q = _heads(t, "%q_proj", hq, d, elem)
    k = _heads(t, "%k_proj", hkv, d, elem)
    v = _heads(t, "%v_proj", hkv, d, elem)
    # cos/sin of arange(S) + offset times inv_freq (HuggingFace's rotary
    # embedding, in f32), cast to elem.
    pos = t.generic([], [], [None], [
        "%i = linalg.index 0 : index", "%ii = arith.index_cast %i : index to i64",
        f"%off = arith.constant {offset} : i64", "%r = arith.addi %ii, %off : i64"], "i64",
        args=["%out: i64"])
    posf = t.generic([(pos, ty([None], "i64"))], [ID[1]], [None],
                     ["%r = arith.sitofp %a0 : i64 to f32"], "f32", args=["%a0: i64", "%out: f32"])
    text = ", ".join(f"{float(np.float32(f))!r}" for f in inv_freq)
    inv = t.op(f"arith.constant dense<[{text}]> : {ty([d // 2])}")
    freqs = t.binary(posf, [None], "affine_map<(d0, d1) -> (d0)>", inv, [d // 2],
                     "affine_map<(d0, d1) -> (d1)>", [None, d // 2], "arith.mulf")
    emb = t.op(f"tensor.concat dim(1) {freqs}, {freqs} : ({ty([None, d // 2])}, "
               f"{ty([None, d // 2])}) -> {ty([None, d])}")
    cos, sin = (t.unary(emb, [None, d], f) for f in ("math.cos", "math.sin"))
    if elem != "f32":
        cos, sin = (t.unary(x, [None, d], "arith.truncf", "f32", elem) for x in (cos, sin))
    q = _rope(t, q, hq, d, cos, sin, elem)
    k = _rope(t, k, hkv, d, cos, sin, elem)
    k3 = _repeat_kv(t, k, hkv, hq, d, elem)
    v3 = _repeat_kv(t, v, hkv, hq, d, elem)
    q3 = t.op(f"tensor.collapse_shape {q} [[0, 1], [2], [3]] : {ty([1, hq, None, d], elem)} "
              f"into {ty([hq, None, d], elem)}")
    kt_init = t.empty([hq, d, None], elem)
    kt = t.op(f"linalg.transpose ins({k3} : {ty([hq, None, d], elem)}) outs({kt_init} : "
              f"{ty([hq, d, None], elem)}) permutation = [0, 2, 1]")
    zero = t.op(f"arith.constant 0.0 : {elem}")
    sshape = [hq, None, None]
    se = t.op(f"tensor.empty(%s, %s) : {ty(sshape, elem)}")
    sz = t.op(f"linalg.fill ins({zero} : {elem}) outs({se} : {ty(sshape, elem)}) -> {ty(sshape, elem)}")
    scores = t.op(f"linalg.batch_matmul ins({q3}, {kt} : {ty([hq, None, d], elem)}, "
                  f"{ty([hq, d, None], elem)}) outs({sz} : {ty(sshape, elem)}) -> {ty(sshape, elem)}")
    scale = t.op(f"arith.constant {1.0 / np.sqrt(d)!r} : {elem}")
    scores = t.generic([(scores, ty(sshape, elem))], [ID[3]], sshape,
                       [f"%r = arith.mulf %a0, {scale} : {elem}"], elem)
    s4 = [1, hq, None, None]
    scores = t.op(f"tensor.expand_shape {scores} [[0, 1], [2], [3]] output_shape [1, {hq}, %s, %s] : "
                  f"{ty(sshape, elem)} into {ty(s4, elem)}")
    if mask is not None:
        m = LOWEST[elem] if mask == "lowest" else "0xFF800000" if elem == "f32" else \
            {"f16": "0xFC00", "bf16": "0xFF80"}[elem]
        mval = t.op(f"arith.constant {m} : {elem}")
        me = t.op(f"tensor.empty(%s, %s) : {ty([None, None], elem)}")
        full = t.op(f"linalg.fill ins({mval} : {elem}) outs({me} : {ty([None, None], elem)}) -> "
                    f"{ty([None, None], elem)}")
        tri = t.generic([(full, ty([None, None], elem))], [ID[2]], [None, None], [
            "%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
            "%ii = arith.index_cast %i : index to i64", "%jj = arith.index_cast %j : index to i64",
            "%dd = arith.subi %jj, %ii : i64", "%one = arith.constant 1 : i64",
            "%above = arith.cmpi sge, %dd, %one : i64",
            f"%r = arith.select %above, %a0, {zero} : {elem}"], elem)
        _assert_same(t, tri, 1, ty([None, None], elem), scores, 3, ty(s4, elem))
        scores = t.binary(scores, s4, ID[4], tri, [None, None],
                          "affine_map<(d0, d1, d2, d3) -> (d2, d3)>", s4, "arith.addf", elem)
    if elem != "f32":
        scores = t.unary(scores, s4, "arith.extf", elem, "f32")
    p = _softmax(t, scores, s4)
    if elem != "f32":
        p = t.unary(p, s4, "arith.truncf", "f32", elem)
    p3 = t.op(f"tensor.collapse_shape {p} [[0, 1], [2], [3]] : {ty(s4, elem)} into {ty(sshape, elem)}")
    oe = t.empty([hq, None, d], elem)
    oz = t.op(f"linalg.fill ins({zero} : {elem}) outs({oe} : {ty([hq, None, d], elem)}) -> "
              f"{ty([hq, None, d], elem)}")
    o = t.op(f"linalg.batch_matmul ins({p3}, {v3} : {ty(sshape, elem)}, {ty([hq, None, d], elem)}) "
             f"outs({oz} : {ty([hq, None, d], elem)}) -> {ty([hq, None, d], elem)}")
    o4 = t.op(f"tensor.expand_shape {o} [[0, 1], [2], [3]] output_shape [1, {hq}, %s, {d}] : "
              f"{ty([hq, None, d], elem)} into {ty([1, hq, None, d], elem)}")
    ti = t.empty([1, None, hq, d], elem)
    ot = t.op(f"linalg.transpose ins({o4} : {ty([1, hq, None, d], elem)}) outs({ti} : "
              f"{ty([1, None, hq, d], elem)}) permutation = [0, 2, 1, 3]")
    out = t.op(f"tensor.collapse_shape {ot} [[0], [1], [2, 3]] : {ty([1, None, hq, d], elem)} "
               f"into {ty([1, None, hq * d], elem)}")
    res = ty([1, None, hq * d], elem)
    kv = ty([1, None, hkv * d], elem)
    return (f"func.func @llama_block(%q_proj: {res}, %k_proj: {kv}, %v_proj: {kv}) -> {res} {{\n"
            + "\n".join(t.lines) + f"\n  return {out} : {res}\n}}\n")


def single_head_attention(d, causal=True, transpose_b_maps=True):
    """Single-head attention on 2-D tensors with a dynamic length, the
    products as `linalg.matmul` (Q.K^T with the transposed-B indexing maps
    MLIR 22 writes for matmul_transpose_b, or a linalg.transpose of K and
    the default maps), scale 1/sqrt(d), the triu causal mask with the
    lowest finite value, linalg.softmax. (q, k, v [?, d] f32) -> [?, d]."""
    t = _Linalg()
    c0 = t.op("arith.constant 0 : index")
    t.emit(f"%s = tensor.dim %q, {c0} : {ty([None, d])}")
    zero = t.op("arith.constant 0.0 : f32")
    se = t.op(f"tensor.empty(%s, %s) : {ty([None, None])}")
    sz = t.op(f"linalg.fill ins({zero} : f32) outs({se} : {ty([None, None])}) -> {ty([None, None])}")
    if transpose_b_maps:
        maps = ("affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
                "affine_map<(d0, d1, d2) -> (d0, d1)>")
        scores = t.op(f"linalg.matmul indexing_maps = [{maps}] ins(%q, %k : {ty([None, d])}, "
                      f"{ty([None, d])}) outs({sz} : {ty([None, None])}) -> {ty([None, None])}")
    else:
        init = t.empty([d, None])
        kt = t.op(f"linalg.transpose ins(%k : {ty([None, d])}) outs({init} : {ty([d, None])}) "
                  "permutation = [1, 0]")
        scores = t.op(f"linalg.matmul ins(%q, {kt} : {ty([None, d])}, {ty([d, None])}) "
                      f"outs({sz} : {ty([None, None])}) -> {ty([None, None])}")
    scale = t.op(f"arith.constant {1.0 / np.sqrt(d)!r} : f32")
    scores = t.generic([(scores, ty([None, None]))], [ID[2]], [None, None],
                       [f"%r = arith.mulf %a0, {scale} : f32"])
    if causal:
        lowest = t.op(f"arith.constant {LOWEST['f32']} : f32")
        full = t.op(f"linalg.fill ins({lowest} : f32) outs({se} : {ty([None, None])}) -> "
                    f"{ty([None, None])}")
        tri = t.generic([(full, ty([None, None]))], [ID[2]], [None, None], [
            "%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
            "%above = arith.cmpi sgt, %j, %i : index",
            f"%r = arith.select %above, %a0, {zero} : f32"])
        scores = t.binary(scores, [None, None], ID[2], tri, [None, None], ID[2], [None, None],
                          "arith.addf")
    p = t.op(f"linalg.softmax dimension(1) ins({scores} : {ty([None, None])}) outs({se} : "
             f"{ty([None, None])}) -> {ty([None, None])}")
    oe = t.empty([None, d])
    oz = t.op(f"linalg.fill ins({zero} : f32) outs({oe} : {ty([None, d])}) -> {ty([None, d])}")
    o = t.op(f"linalg.matmul ins({p}, %v : {ty([None, None])}, {ty([None, d])}) outs({oz} : "
             f"{ty([None, d])}) -> {ty([None, d])}")
    arg = ty([None, d])
    return (f"func.func @attention(%q: {arg}, %k: {arg}, %v: {arg}) -> {arg} {{\n"
            + "\n".join(t.lines) + f"\n  return {o} : {arg}\n}}\n")
