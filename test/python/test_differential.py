"""Differential tests: programs from posenc.builders, compiled and run on the
CPU, against posenc.reference, over seeded random shapes and attributes.

Every case is drawn from ``numpy.random.default_rng(SEED + case)``; the test id
spells out the drawn configuration, so a failure names what to reproduce.
Shapes are drawn so that sizes often do not divide the attention tiles
(odd sequence lengths, head dims like 6 or 34), with GQA ratios 1-4,
causal/non-causal, Sq < Sk (decoding with a KV cache), Sq = Sk and Sq > Sk
(rows with no visible key: zeros), both RoPE layouts, partial rotary_dim,
every scaling kind, ALiBi head counts that are and are not powers of two with
head sharding (num_heads, head_offset), and Shaw clipping distances K smaller
and larger than the sequence.

The attention blocks (and the rope and Shaw cases) run through two pipelines:
the materializing reference lowering (``posenc-cpu-pipeline{reference=true}``)
and the fused path (``reference=false``, ``posenc.compile``'s default) with
small tiles (8 query x 16 key rows), so that ragged last tiles are the rule.
Both are compared with the numpy reference, so a wrong fused path and a wrong
reference lowering each fail on their own.

Tolerances (absolute + relative * |reference|), from the arithmetic:
* f32 results against the float64 reference: softmax and matmul accumulate in
  f32 (~1e-6 relative); RoPE's default ``fast`` angles carry ~2.4e-7 * theta
  absolute error, theta <= max position. RoPE: atol 2e-6 + 3e-7 * max|pos|
  (times the attention factor), rtol 2e-6. Attention blocks: atol 5e-5,
  rtol 5e-4.
* f16 / bf16: the reference gets the same rounded inputs; the result type's
  rounding (2^-11, 2^-8 relative) dominates: atol = rtol = 2e-3 (f16),
  1.6e-2 (bf16), times the magnitude of the values.
"""
import math

import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import PosencError  # noqa: E402
from posenc import builders  # noqa: E402
from posenc import reference as ref  # noqa: E402
from posenc_testutil import assert_close, elem_tolerance, from_elem, to_elem  # noqa: E402

SEED = 20240917

ROPE_ATTENTION_ATOL, ROPE_ATTENTION_RTOL = 5e-5, 5e-4
PIPELINES = {
    "reference": "builtin.module(posenc-cpu-pipeline{reference=true})",
    "fused": "builtin.module(posenc-cpu-pipeline{reference=false "
             "attention-query-tile=8 attention-key-tile=16})",
}

NP_INT = {"i32": np.int32, "i64": np.int64}


# ----------------------------------------------------------------- helpers

def draw(case):
    return np.random.default_rng(SEED + case)


def choice(rng, options):
    return options[int(rng.integers(len(options)))]


_pipeline_problems = {}


def pipeline_problem(pipeline_name):
    """None when the named pipeline compiles and runs one small causal RoPE
    attention on random inputs to the reference's numbers, else why not. The
    inputs are random so that RoPE, the mask and the scale all change the
    result (all-ones inputs give 1.0 whatever they do)."""
    if pipeline_name not in _pipeline_problems:
        problem = None
        try:
            program = posenc.llama_attention(1, 2, 1, 5, 4, causal=True)
            rng = draw(-1)
            q = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
            k = rng.standard_normal((1, 1, 5, 4)).astype(np.float32)
            v = rng.standard_normal((1, 1, 5, 4)).astype(np.float32)
            pos = np.arange(3, 8, dtype=np.int32)
            got = posenc.compile(program, pipeline=PIPELINES[pipeline_name])(q, k, v, pos)
            rope_kw = dict(base=program.config["rope_base"])
            want = ref.attention(ref.rope(q, pos, "half", **rope_kw),
                                 ref.rope(k, pos, "half", **rope_kw), v, causal=True)
            if not np.allclose(got, want, atol=ROPE_ATTENTION_ATOL, rtol=ROPE_ATTENTION_RTOL):
                problem = ("a 5-row causal RoPE attention gives wrong numbers: max error "
                           f"{float(np.max(np.abs(got - want))):.3g}")
        except PosencError as error:
            problem = str(error).splitlines()[0] + " " + (error.diagnostics or "")[:300]
        _pipeline_problems[pipeline_name] = problem
    return _pipeline_problems[pipeline_name]


@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_pipeline_health(pipeline):
    problem = pipeline_problem(pipeline)
    assert problem is None, f"the {pipeline} pipeline: {problem}"


def compile_with(program, pipeline_name):
    """Compiles through the named pipeline (see PIPELINES); a pipeline that
    fails the health check fails every case with its reason (never skips)."""
    problem = pipeline_problem(pipeline_name)
    if problem:
        pytest.fail(f"the {pipeline_name} pipeline is broken in this build: {problem}")
    return posenc.compile(program, pipeline=PIPELINES[pipeline_name])


def random_scaling(rng, rotary_dim):
    """A scaling dict of a random kind, valid for `rotary_dim`."""
    kinds = ["none", "linear", "dynamic", "yarn", "llama3", "longrope"]
    if rotary_dim > 2:
        kinds.append("ntk")
    else:
        kinds.remove("dynamic")  # base' has the exponent R/(R-2)
    kind = choice(rng, kinds)
    orig = int(choice(rng, [8, 16, 32, 4096]))
    factor = float(choice(rng, [2.0, 4.0, 8.0, 16.0]))
    if kind == "none":
        return None if rng.random() < 0.5 else {"kind": "none"}
    if kind in ("linear", "ntk"):
        return {"kind": kind, "factor": factor}
    if kind == "dynamic":
        return {"kind": kind, "factor": factor, "original_max_position": orig}
    if kind == "yarn":
        scaling = {"kind": kind, "factor": factor, "original_max_position": orig}
        if rng.random() < 0.5:
            scaling.update(beta_fast=float(choice(rng, [16.0, 32.0])),
                           beta_slow=float(choice(rng, [1.0, 2.0])))
        if rng.random() < 0.3:
            scaling["attention_factor"] = 1.25
        return scaling
    if kind == "llama3":
        return {"kind": kind, "factor": factor, "low_freq_factor": 1.0,
                "high_freq_factor": float(choice(rng, [2.0, 4.0])),
                "original_max_position": orig}
    half = rotary_dim // 2
    scaling = {"kind": "longrope", "original_max_position": orig,
               "short_factor": [float(x) for x in 1.0 + rng.random(half)],
               "long_factor": [float(x) for x in 1.0 + 8.0 * rng.random(half)]}
    if rng.random() < 0.3:
        scaling["attention_factor"] = 1.1
    return scaling


def rope_tolerance(positions, scaling, attention_factor, precision):
    magnitude = max(1.0, ref.rope_attention_factor(scaling, attention_factor))
    if precision == "exact":
        return 2e-6 * magnitude, 2e-6
    return (2e-6 + 3e-7 * float(np.max(np.abs(positions), initial=0))) * magnitude, 2e-6


# ------------------------------------------------------------------ rope op

def rope_case(case):
    rng = draw(case)
    rank = int(rng.integers(2, 5))
    head_dim = int(choice(rng, [2, 4, 6, 10, 16, 34, 64, 80]))
    seq = int(rng.integers(1, 38))
    shape = [int(rng.integers(1, 4)) for _ in range(rank - 2)] + [seq, head_dim]
    rotary_dim = None
    if rng.random() < 0.4:
        rotary_dim = 2 * int(rng.integers(1, head_dim // 2 + 1))
    dtype = choice(rng, ["f32"] * 6 + ["f16", "bf16", "f64"])
    return dict(
        shape=shape,
        layout=choice(rng, ["interleaved", "half"]),
        base=float(choice(rng, [10000.0, 500000.0, 1e6])),
        rotary_dim=rotary_dim,
        scaling=random_scaling(rng, rotary_dim or head_dim),
        attention_factor=0.75 if rng.random() < 0.15 else None,
        precision=choice(rng, [None, None, "fast", "exact"]),
        dtype=dtype,
        pos_dtype=choice(rng, ["i32", "i64"]),
        dynamic_seq=bool(rng.random() < 0.4),
        start=int(choice(rng, [0, 0, 5, 1000, 70000])),
    )


ROPE_CASES = [rope_case(case) for case in range(40)]


def rope_id(c):
    kind = c["scaling"]["kind"] if c["scaling"] else "plain"
    return (f"{'x'.join(map(str, c['shape']))}-{c['layout']}-R{c['rotary_dim']}-{kind}"
            f"-{c['dtype']}-{c['precision'] or 'default'}-pos{c['start']}"
            f"{'-dyn' if c['dynamic_seq'] else ''}")


@pytest.mark.parametrize("c", ROPE_CASES, ids=[rope_id(c) for c in ROPE_CASES])
@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_rope(c, pipeline):
    shape = list(c["shape"])
    program_shape = list(shape)
    if c["dynamic_seq"]:
        program_shape[-2] = None
    program = posenc.rope(program_shape, c["layout"], base=c["base"],
                          rotary_dim=c["rotary_dim"], scaling=c["scaling"],
                          attention_factor=c["attention_factor"],
                          precision=c["precision"], dtype=c["dtype"],
                          pos_dtype=c["pos_dtype"])
    rng = draw(1000 + ROPE_CASES.index(c))
    x, x64 = to_elem(rng.uniform(-1, 1, size=shape), c["dtype"])
    positions = (c["start"] + np.arange(shape[-2])).astype(NP_INT[c["pos_dtype"]])
    got = from_elem(compile_with(program, pipeline)(x, positions), c["dtype"])
    want = ref.rope(x64, positions.astype(np.int64), c["layout"], base=c["base"],
                    rotary_dim=c["rotary_dim"], scaling=c["scaling"],
                    attention_factor=c["attention_factor"])
    atol, rtol = rope_tolerance(positions, c["scaling"], c["attention_factor"],
                                c["precision"])
    if c["dtype"] in ("f16", "bf16"):
        magnitude = max(1.0, ref.rope_attention_factor(c["scaling"], c["attention_factor"]))
        atol2, rtol2 = elem_tolerance(c["dtype"], magnitude)
        atol, rtol = max(atol, atol2), max(rtol, rtol2)
    assert_close(got, want, atol, rtol, rope_id(c))
    if c["rotary_dim"] is not None and c["dtype"] != "bf16":
        # Dims past rotary_dim pass through unchanged, bit for bit.
        assert np.array_equal(got[..., c["rotary_dim"]:], x64[..., c["rotary_dim"]:])


# -------------------------------------------------------------- sinusoidal

SINUSOIDAL_CASES = [
    dict(seq=int(r.integers(1, 50)), dim=int(choice(r, [2, 6, 18, 64])),
         base=float(choice(r, [100.0, 10000.0])), layout=choice(r, ["interleaved", "half"]),
         dynamic=bool(r.random() < 0.5), add=bool(r.random() < 0.5))
    for r in (draw(2000 + case) for case in range(6))
]


@pytest.mark.parametrize("c", SINUSOIDAL_CASES,
                         ids=[f"S{c['seq']}-D{c['dim']}-{c['layout']}"
                              f"{'-dyn' if c['dynamic'] else ''}{'-add' if c['add'] else ''}"
                              for c in SINUSOIDAL_CASES])
@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_sinusoidal(c, pipeline):
    program = posenc.sinusoidal(None if c["dynamic"] else c["seq"], c["dim"],
                                base=c["base"], layout=c["layout"], add_to_input=c["add"])
    rng = draw(2100 + SINUSOIDAL_CASES.index(c))
    positions = rng.integers(0, 2000, size=c["seq"]).astype(np.int32)
    want = ref.sinusoidal(positions, c["dim"], base=c["base"], layout=c["layout"])
    args = [positions]
    if c["add"]:
        x = rng.standard_normal((c["seq"], c["dim"])).astype(np.float32)
        args.insert(0, x)
        want = want + x
    got = compile_with(program, pipeline)(*args)
    assert_close(got, want, 1e-5 + 3e-7 * 2000, 1e-6, f"sinusoidal {c}")


# ----------------------------------------------------- LLaMA attention block

def llama_case(case):
    rng = draw(3000 + case)
    kv_heads = int(rng.integers(1, 4))
    group = int(choice(rng, [1, 2, 3, 4]))
    head_dim = int(choice(rng, [4, 6, 10, 16, 34]))
    seq = int(rng.integers(1, 30))
    relation = choice(rng, ["same", "same", "shorter", "longer"])
    kv_seq = {"same": seq, "shorter": seq + int(rng.integers(1, 20)),
              "longer": max(1, seq - int(rng.integers(1, seq + 1)))}[relation]
    rotary_dim = None
    if rng.random() < 0.3:
        rotary_dim = 2 * int(rng.integers(1, head_dim // 2 + 1))
    return dict(
        batch=int(rng.integers(1, 3)), q_heads=kv_heads * group, kv_heads=kv_heads,
        seq=seq, kv_seq=kv_seq, relation=relation, head_dim=head_dim,
        rope_base=float(choice(rng, [10000.0, 500000.0])),
        rope_scaling=random_scaling(rng, rotary_dim or head_dim),
        rotary_dim=rotary_dim,
        layout=choice(rng, ["interleaved", "half"]),
        causal=bool(rng.random() < 0.7),
        dynamic=bool(rng.random() < 0.4),
        dynamic_batch=bool(rng.random() < 0.2),
    )


LLAMA_CASES = [llama_case(case) for case in range(24)]


def llama_id(c):
    kind = c["rope_scaling"]["kind"] if c["rope_scaling"] else "plain"
    return (f"B{c['batch']}-H{c['q_heads']}/{c['kv_heads']}-S{c['seq']}/{c['kv_seq']}"
            f"-D{c['head_dim']}-R{c['rotary_dim']}-{c['layout']}-{kind}"
            f"-{'causal' if c['causal'] else 'full'}{'-dyn' if c['dynamic'] else ''}"
            f"{'-dynB' if c['dynamic_batch'] else ''}")


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("c", LLAMA_CASES, ids=[llama_id(c) for c in LLAMA_CASES])
def test_llama_attention(c, pipeline):
    same = c["relation"] == "same"
    kwargs = {} if same else {"kv_seq": None if c["dynamic"] else c["kv_seq"]}
    program = posenc.llama_attention(
        None if c["dynamic_batch"] else c["batch"], c["q_heads"], c["kv_heads"],
        None if c["dynamic"] else c["seq"], c["head_dim"], rope_base=c["rope_base"],
        rope_scaling=c["rope_scaling"], layout=c["layout"], causal=c["causal"],
        rotary_dim=c["rotary_dim"], **kwargs)
    rng = draw(3100 + LLAMA_CASES.index(c))
    b, hq, hkv, sq, sk, d = (c["batch"], c["q_heads"], c["kv_heads"], c["seq"],
                             c["kv_seq"], c["head_dim"])
    q = rng.standard_normal((b, hq, sq, d)).astype(np.float32)
    k = rng.standard_normal((b, hkv, sk, d)).astype(np.float32)
    v = rng.standard_normal((b, hkv, sk, d)).astype(np.float32)
    # Queries are the last Sq positions of the Sk keys (decoding), or the
    # other way round when there are more queries than keys.
    k_pos = np.arange(sk, dtype=np.int32) + max(0, sq - sk)
    q_pos = np.arange(sq, dtype=np.int32) + max(0, sk - sq)
    args = [q, k, v, q_pos] if same else [q, k, v, q_pos, k_pos]
    got = compile_with(program, pipeline)(*args)

    rope_kw = dict(base=c["rope_base"], rotary_dim=c["rotary_dim"], scaling=c["rope_scaling"])
    q_rot = ref.rope(q.astype(np.float64), q_pos, c["layout"], **rope_kw)
    k_rot = ref.rope(k.astype(np.float64), k_pos, c["layout"], **rope_kw)
    want = ref.attention(q_rot, k_rot, v.astype(np.float64), causal=c["causal"])
    assert_close(got, want, ROPE_ATTENTION_ATOL, ROPE_ATTENTION_RTOL, llama_id(c))
    if c["causal"] and sq > sk:
        # Rows that see no key are zeros, not NaN.
        assert np.all(got[..., : sq - sk, :] == 0.0)


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_llama_attention_half_precision(dtype, pipeline):
    program = posenc.llama_attention(1, 4, 2, None, 32, rope_scaling={
        "kind": "llama3", "factor": 8.0, "original_max_position": 16}, dtype=dtype)
    rng = draw(3500)
    q, q64 = to_elem(rng.standard_normal((1, 4, 19, 32)), dtype)
    k, k64 = to_elem(rng.standard_normal((1, 2, 19, 32)), dtype)
    v, v64 = to_elem(rng.standard_normal((1, 2, 19, 32)), dtype)
    pos = np.arange(19, dtype=np.int32)
    got = from_elem(compile_with(program, pipeline)(q, k, v, pos), dtype)
    scaling = program.config["rope_scaling"]
    # The rotated q and k are rounded to the element type before attention.
    q_rot = from_elem(to_elem(ref.rope(q64, pos, "half", base=500000.0, scaling=scaling),
                              dtype)[0], dtype)
    k_rot = from_elem(to_elem(ref.rope(k64, pos, "half", base=500000.0, scaling=scaling),
                              dtype)[0], dtype)
    want = ref.attention(q_rot, k_rot, v64, causal=True)
    assert_close(got, want, *elem_tolerance(dtype, 2.0), f"llama {dtype}")


# ----------------------------------------------------- BLOOM ALiBi attention

def bloom_case(case):
    rng = draw(4000 + case)
    heads = int(choice(rng, [1, 3, 4, 5, 6, 8, 12, 16]))
    sharded = rng.random() < 0.3
    num_heads = heads + int(rng.integers(1, 9)) if sharded else None
    head_offset = int(rng.integers(0, num_heads - heads + 1)) if sharded else 0
    seq = int(rng.integers(1, 26))
    relation = choice(rng, ["same", "same", "shorter", "longer"])
    kv_seq = {"same": seq, "shorter": seq + int(rng.integers(1, 15)),
              "longer": max(1, seq - int(rng.integers(1, seq + 1)))}[relation]
    return dict(batch=int(rng.integers(1, 3)), heads=heads, num_heads=num_heads,
                head_offset=head_offset, seq=seq, kv_seq=kv_seq, relation=relation,
                head_dim=int(choice(rng, [4, 6, 16, 18])),
                max_bias=float(choice(rng, [8.0, 8.0, 4.0, 16.0])),
                causal=bool(rng.random() < 0.7), symmetric=bool(rng.random() < 0.2),
                dynamic=bool(rng.random() < 0.4))


BLOOM_CASES = [bloom_case(case) for case in range(16)]


def bloom_id(c):
    shard = f"-of{c['num_heads']}@{c['head_offset']}" if c["num_heads"] else ""
    return (f"B{c['batch']}-H{c['heads']}{shard}-S{c['seq']}/{c['kv_seq']}-D{c['head_dim']}"
            f"-mb{c['max_bias']:g}-{'causal' if c['causal'] else 'full'}"
            f"{'-sym' if c['symmetric'] else ''}{'-dyn' if c['dynamic'] else ''}")


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("c", BLOOM_CASES, ids=[bloom_id(c) for c in BLOOM_CASES])
def test_bloom_alibi_attention(c, pipeline):
    dyn = c["dynamic"]
    kwargs = {} if c["relation"] == "same" else {"kv_seq": None if dyn else c["kv_seq"]}
    program = posenc.bloom_alibi_attention(
        c["batch"], c["heads"], None if dyn else c["seq"], c["head_dim"],
        causal=c["causal"], max_bias=c["max_bias"], num_heads=c["num_heads"],
        head_offset=c["head_offset"], symmetric=c["symmetric"], **kwargs)
    rng = draw(4100 + BLOOM_CASES.index(c))
    b, h, sq, sk, d = c["batch"], c["heads"], c["seq"], c["kv_seq"], c["head_dim"]
    q = rng.standard_normal((b, h, sq, d)).astype(np.float32)
    k = rng.standard_normal((b, h, sk, d)).astype(np.float32)
    v = rng.standard_normal((b, h, sk, d)).astype(np.float32)
    got = compile_with(program, pipeline)(q, k, v)
    bias = ref.alibi_bias(h, sq, sk, max_bias=c["max_bias"], num_heads=c["num_heads"],
                          head_offset=c["head_offset"], symmetric=c["symmetric"])
    want = ref.attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
                         bias=bias, causal=c["causal"])
    assert_close(got, want, ROPE_ATTENTION_ATOL, ROPE_ATTENTION_RTOL, bloom_id(c))


# ------------------------------------------------------------ Shaw attention

def shaw_case(case):
    rng = draw(5000 + case)
    seq = int(rng.integers(1, 24))
    relation = choice(rng, ["same", "same", "shorter", "longer"])
    kv_seq = {"same": seq, "shorter": seq + int(rng.integers(1, 12)),
              "longer": max(1, seq - int(rng.integers(1, seq + 1)))}[relation]
    head_dim = int(choice(rng, [2, 4, 6, 16]))
    return dict(batch=int(rng.integers(1, 3)), heads=int(rng.integers(1, 4)), seq=seq,
                kv_seq=kv_seq, relation=relation, head_dim=head_dim,
                value_dim=int(choice(rng, [head_dim, 8])),
                max_distance=int(choice(rng, [0, 1, 2, 3, 5, 40])),
                rel_value=bool(rng.random() < 0.7), causal=bool(rng.random() < 0.5),
                dynamic=bool(rng.random() < 0.4))


SHAW_CASES = [shaw_case(case) for case in range(16)]


def shaw_id(c):
    return (f"B{c['batch']}-H{c['heads']}-S{c['seq']}/{c['kv_seq']}-D{c['head_dim']}"
            f"-Dv{c['value_dim']}-K{c['max_distance']}{'-rv' if c['rel_value'] else ''}"
            f"-{'causal' if c['causal'] else 'full'}{'-dyn' if c['dynamic'] else ''}")


@pytest.mark.parametrize("c", SHAW_CASES, ids=[shaw_id(c) for c in SHAW_CASES])
@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_shaw_attention(c, pipeline):
    dyn = c["dynamic"]
    kwargs = {} if c["relation"] == "same" else {"kv_seq": None if dyn else c["kv_seq"]}
    program = posenc.shaw_attention(
        c["batch"], c["heads"], None if dyn else c["seq"], c["head_dim"], c["max_distance"],
        rel_value=c["rel_value"], causal=c["causal"], value_dim=c["value_dim"], **kwargs)
    rng = draw(5100 + SHAW_CASES.index(c))
    b, h, sq, sk = c["batch"], c["heads"], c["seq"], c["kv_seq"]
    d, dv, kk = c["head_dim"], c["value_dim"], c["max_distance"]
    q = rng.standard_normal((b, h, sq, d)).astype(np.float32)
    k = rng.standard_normal((b, h, sk, d)).astype(np.float32)
    v = rng.standard_normal((b, h, sk, dv)).astype(np.float32)
    rk = rng.standard_normal((2 * kk + 1, d)).astype(np.float32)
    rv = rng.standard_normal((2 * kk + 1, dv)).astype(np.float32)
    args = [q, k, v, rk] + ([rv] if c["rel_value"] else [])
    got = compile_with(program, pipeline)(*args)
    want = ref.rel_pos_attention(*(a.astype(np.float64) for a in (q, k, v, rk)),
                                 rel_value=rv.astype(np.float64) if c["rel_value"] else None,
                                 causal=c["causal"])
    assert_close(got, want, ROPE_ATTENTION_ATOL, ROPE_ATTENTION_RTOL, shaw_id(c))


# ---------------------------------------------------------------- alibi op

@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_alibi_bias(case, pipeline):
    rng = draw(6000 + case)
    heads = int(choice(rng, [1, 5, 7, 12, 32]))
    sq, sk = int(rng.integers(1, 20)), int(rng.integers(1, 20))
    batch = [int(rng.integers(1, 3))] if rng.random() < 0.5 else []
    dynamic = rng.random() < 0.5
    program = posenc.alibi_bias(heads, None if dynamic else sq, None if dynamic else sk,
                                batch_shape=batch, symmetric=bool(rng.random() < 0.3))
    got = compile_with(program, pipeline)(*([sq, sk] if dynamic else []))
    want = ref.alibi_bias(heads, sq, sk, symmetric=program.config["symmetric"],
                          batch_shape=tuple(batch))
    assert_close(got, want, 1e-6, 1e-6, repr(program))


# ------------------------------------------------------------------ errors

def test_bad_ir_raises_posenc_error():
    with pytest.raises(PosencError, match="cannot parse the IR") as info:
        posenc.compile(posenc.rope((4, 8), "half").replace("posenc.rope", "posenc.rop"))
    assert "error:" in info.value.diagnostics


@pytest.mark.parametrize("make,message", [
    (lambda: posenc.rope((5, 16), "half", rotary_dim=32),
     r"rotary_dim \(32\) must be"),
    (lambda: posenc.rope((5, 16), "interleaved", rotary_dim=6, scaling={
        "kind": "longrope", "short_factor": [1.0] * 2, "long_factor": [1.0] * 3,
        "original_max_position": 8}),
     r"longrope"),
    (lambda: posenc.llama_attention(1, 6, 4, 8, 16),
     r"query heads \(6\) must be a multiple of key/value heads \(4\)"),
    (lambda: posenc.llama_attention(1, 4, 2, 8, 16, rope_scaling={"kind": "yarn"}),
     r"rope scaling kind 'yarn' requires parameter 'factor'"),
    (lambda: posenc.llama_attention(1, 4, 2, 8, 16, rope_scaling={
        "kind": "linear", "factor": 2.0, "beta_fast": 3.0}),
     r"rope scaling kind 'linear' takes no parameter 'beta_fast'"),
    (lambda: posenc.rope((5, 16), "half", scaling={"kind": "xpos"}),
     r"unknown rope scaling kind 'xpos'"),
    (lambda: posenc.bloom_alibi_attention(1, 4, 8, 16, num_heads=6, head_offset=3),
     r"head_offset \(3\)"),
    (lambda: posenc.shaw_attention(1, 2, None, 8, 2, scale=None).replace(
        "tensor<5x8xf32>", "tensor<4x8xf32>"),
     r"'rel_key' must be a tensor<\(2K\+1\) x D> with a static odd first dim"),
], ids=["rotary_dim>head_dim", "longrope-factor-lengths", "gqa-ratio", "yarn-no-factor",
        "linear-beta_fast", "unknown-kind", "alibi-head_offset", "shaw-even-rel_key"])
def test_verifier_errors_raise_posenc_error(make, message):
    """Rules of the ops are the verifier's: a builder writes what it is given
    and compile reports the verifier's message as a PosencError."""
    with pytest.raises(PosencError, match=message) as info:
        posenc.compile(make())
    assert info.value.diagnostics and "error:" in info.value.diagnostics


def test_wrong_numpy_arguments_raise_posenc_error():
    attention = posenc.llama_attention(1, 4, 2, None, 8).compile()
    q = np.zeros((1, 4, 5, 8), np.float32)
    kv = np.zeros((1, 2, 5, 8), np.float32)
    pos = np.arange(5, dtype=np.int32)
    assert attention(q, kv, kv, pos).shape == (1, 4, 5, 8)
    with pytest.raises(PosencError, match=r"argument #0 .* must have dtype float32, got float64"):
        attention(q.astype(np.float64), kv, kv, pos)
    with pytest.raises(PosencError, match=r"argument #3 .* must have dtype int32, got int64"):
        attention(q, kv, kv, pos.astype(np.int64))
    with pytest.raises(PosencError, match=r"argument #1 .* \(dim 1 is 4, expected 2\)"):
        attention(q, np.zeros((1, 4, 5, 8), np.float32), kv, pos)
    with pytest.raises(PosencError, match=r"argument #2 .* must have rank 4"):
        attention(q, kv, kv[0], pos)
    with pytest.raises(PosencError, match=r"takes 4 argument\(s\)"):
        attention(q, kv, kv)


@pytest.mark.parametrize("make,error,message", [
    (lambda: posenc.rope((4, 8), "half", dtype="f8"), ValueError, "dtype must be one of"),
    (lambda: posenc.rope((4, 8), "diagonal"), ValueError, "layout must be one of"),
    (lambda: posenc.llama_attention(1, 4, 2, 2.5, 8), TypeError, "seq must be an int or None"),
    (lambda: posenc.llama_attention(1, 4, None, 8, 8), ValueError, "kv_heads must be a static"),
    (lambda: posenc.rope((4, 8), "half", base=math.inf), ValueError, "base must be finite"),
    (lambda: posenc.rope((4, 8), "half", scaling={"factor": 2.0}), ValueError, "needs a 'kind'"),
    (lambda: posenc.rope((8,), "half"), ValueError, "rank >= 2"),
], ids=["dtype", "layout", "float-size", "dynamic-heads", "inf-base", "scaling-no-kind",
        "rank-1"])
def test_builder_argument_errors(make, error, message):
    """What cannot be written as IR is refused by the builder itself."""
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize("value", [1e-07, 1e16, 2.5e-300, 1e300, 0.1, 3.0])
def test_builder_float_literals_parse(value):
    """Every finite float reaches the IR as a literal MLIR parses (repr()
    writes 1e-07 without the '.' MLIR requires), with its exact value."""
    program = posenc.rope((2, 4), "half", scaling={
        "kind": "yarn", "factor": 2.0, "original_max_position": 64, "beta_slow": value})
    assert f"beta_slow = {builders._float(value, 'v')}>" in program
    assert float(builders._float(value, "v")) == value
    printed = posenc.compiler.run_pipeline(program, "builtin.module(canonicalize)")
    assert "beta_slow" in printed


def test_program_is_text_with_a_calling_convention():
    program = posenc.llama_attention(2, 8, 2, None, 16, kv_seq=None, rope_scaling={
        "kind": "yarn", "factor": 4.0, "original_max_position": 64})
    assert isinstance(program, str) and program.ir == str(program)
    assert program.entry == "llama_attention"
    assert [name for name, _ in program.arguments] == [
        "query", "key", "value", "q_positions", "k_positions"]
    assert program.result == "tensor<2x8x?x16xf32>"
    assert ("#posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 64>"
            in program)
    assert builders.rope_scaling_attr(None) is None
    # The text is what posenc-opt would print back (a parse round trip keeps
    # every op); the lowered module has no posenc op left.
    lowered = posenc.compiler.run_pipeline(program, "builtin.module(posenc-to-linalg)")
    assert "posenc.rope %" not in lowered and "posenc.attention %" not in lowered
    assert "linalg.generic" in lowered
