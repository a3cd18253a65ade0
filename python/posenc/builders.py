"""Builders: posenc programs for common configurations, from Python arguments.

Each builder returns a ``Program``: the MLIR text of a module with one
``func.func`` (a ``str``, so it can be printed, saved, fed to ``posenc-opt``
or passed straight to ``posenc.compile``), plus what a caller needs to call
it: ``entry`` (the function name), ``arguments`` (``(name, type)`` pairs in
call order) and ``result`` (the result type)::

    >>> block = llama_attention(batch=1, q_heads=8, kv_heads=2, seq=None,
    ...                         head_dim=64)
    >>> [name for name, _ in block.arguments]
    ['query', 'key', 'value', 'positions']
    >>> attention = posenc.compile(block)        # or block.compile()

Sizes are ints, or ``None`` for a dynamic (``?``) size where the ops allow
one (batch and sequence dims). Element types are MLIR's names: ``"f32"``,
``"f16"``, ``"bf16"`` (passed as ``np.uint16`` bit patterns, see
``posenc.to_bf16_bits``) and ``"f64"``; positions are ``"i32"`` or ``"i64"``.

What the builders check and what they leave to the compiler: a builder raises
``ValueError``/``TypeError`` only for arguments it cannot write as IR (an
unknown element type, a size that is not an int, a non-finite float). Every
rule of the ops themselves (``rotary_dim <= head_dim``, GQA head ratios,
scaling parameters, ...) is the dialect verifier's, so a bad combination
produces a program that ``posenc.compile`` rejects with a ``PosencError``
carrying the verifier's message -- one place states each rule.

The semantics of every op is docs/spec.md's; ``posenc.reference`` computes the
same functions in numpy.
"""

import math
import numbers

__all__ = [
    "SAME_AS_SEQ",
    "Program",
    "alibi_bias",
    "bloom_alibi_attention",
    "llama_attention",
    "rope",
    "rope_scaling_attr",
    "shaw_attention",
    "sinusoidal",
]

_FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
_POSITION_TYPES = ("i32", "i64")
# The parameters of #posenc.rope_scaling that hold an int / a list of floats;
# every other parameter is a float.
_INT_SCALING_KEYS = ("original_max_position",)
_LIST_SCALING_KEYS = ("short_factor", "long_factor")


class _Same:
    """Default of ``kv_seq``: the keys are the queries' sequence (one
    ``positions`` operand serves both)."""

    def __repr__(self):
        return "SAME_AS_SEQ"


#: ``kv_seq`` default: keys and values have the queries' sequence length.
SAME_AS_SEQ = _Same()


class Program(str):
    """The MLIR text of a posenc program, with its calling convention.

    A ``str`` subclass: wherever MLIR text is accepted, a Program is too.
    Attributes: ``ir`` (the text as a plain ``str``), ``entry`` (the
    ``func.func`` name), ``arguments`` (tuple of ``(name, mlir_type)``),
    ``result`` (the result's MLIR type) and ``config`` (the builder's
    arguments, for building the matching reference computation)."""

    def __new__(cls, ir, entry, arguments, result, config=None):
        program = super().__new__(cls, ir)
        program.entry = entry
        program.arguments = tuple(arguments)
        program.result = result
        program.config = dict(config or {})
        return program

    @property
    def ir(self):
        return str.__str__(self)

    def compile(self, **kwargs):
        """``posenc.compile(self.ir, entry=self.entry, **kwargs)``."""
        from .compiler import compile as compile_ir
        return compile_ir(self.ir, entry=self.entry, **kwargs)

    def __repr__(self):
        arguments = ", ".join(f"{name}: {type_}" for name, type_ in self.arguments)
        return f"<posenc Program @{self.entry}({arguments}) -> {self.result}>"


# ---------------------------------------------------------------- formatting

def _check_size(value, what, dynamic_ok=True):
    if value is None:
        if not dynamic_ok:
            raise ValueError(f"{what} must be a static size (an int), got None")
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int{' or None' if dynamic_ok else ''}, "
                        f"got {type(value).__name__}")
    return int(value)


def _check_type(value, allowed, what):
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _float(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{what} must be finite, got {value}")
    # repr() is the shortest text that round-trips; MLIR's float literals
    # need a '.', which repr leaves out in exponent form (1e-07, 1e+16).
    text = repr(value)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
    return text


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return str(int(value))


def _tensor(shape, element):
    dims = "x".join("?" if size is None else str(size) for size in shape)
    return f"tensor<{dims}x{element}>" if dims else f"tensor<{element}>"


def _attention_types(batch, heads, seq, kv_seq, head_dim, value_dim, dtype):
    """Tensor types of query, key, value and result of a [batch, heads, seq,
    dim] attention."""
    return (_tensor([batch, heads, seq, head_dim], dtype),
            _tensor([batch, heads, kv_seq, head_dim], dtype),
            _tensor([batch, heads, kv_seq, value_dim], dtype),
            _tensor([batch, heads, seq, value_dim], dtype))


def _attr_dict(entries):
    entries = [entry for entry in entries if entry]
    return " {" + ", ".join(entries) + "}" if entries else ""


def rope_scaling_attr(scaling):
    """The ``#posenc.rope_scaling<...>`` text of a scaling dict in
    ``posenc.reference``'s form, e.g. ``{"kind": "llama3", "factor": 8.0}``;
    None for ``None``. Keys with value None are left out (the kind's
    default); which keys a kind takes is checked by the dialect's parser."""
    if scaling is None:
        return None
    if not isinstance(scaling, dict):
        raise TypeError(f"rope_scaling must be a dict or None, got {type(scaling).__name__}")
    if "kind" not in scaling:
        raise ValueError(f"rope_scaling needs a 'kind' (none, linear, ntk, dynamic, yarn, "
                         f"llama3, longrope), got keys {sorted(scaling)}")
    kind = scaling["kind"]
    if not isinstance(kind, str) or not kind.isidentifier():
        raise ValueError(f"rope_scaling kind must be a name, got {kind!r}")
    parts = [kind]
    for key, value in scaling.items():
        if key == "kind" or value is None:
            continue
        if not isinstance(key, str) or not key.isidentifier():
            raise ValueError(f"rope_scaling key must be a name, got {key!r}")
        what = f"rope_scaling[{key!r}]"
        if key in _INT_SCALING_KEYS:
            text = _int(value, what)
        elif key in _LIST_SCALING_KEYS:
            text = "[" + ", ".join(_float(v, what) for v in value) + "]"
        else:
            text = _float(value, what)
        parts.append(f"{key} = {text}")
    return "#posenc.rope_scaling<" + ", ".join(parts) + ">"


_XPOS_KEYS = ("role", "scale_base", "gamma", "center")


def xpos_attr(xpos, role=None):
    """The ``#posenc.xpos<...>`` text of an xPos dict in ``posenc.reference``'s
    form, e.g. ``{"role": "query", "scale_base": 512.0, "gamma": 0.4,
    "center": 0}`` (keys other than ``role`` optional: the attribute's
    defaults); ``role`` overrides the dict's. None for ``None``."""
    if xpos is None:
        return None
    if not isinstance(xpos, dict):
        raise TypeError(f"xpos must be a dict or None, got {type(xpos).__name__}")
    unknown = sorted(set(xpos) - set(_XPOS_KEYS))
    if unknown:
        raise ValueError(f"xpos keys must be among {_XPOS_KEYS}, got {unknown}")
    role = _check_type(role if role is not None else xpos.get("role"),
                       ("query", "key"), "xpos role")
    parts = [f"role = {role}"]
    for key in ("scale_base", "gamma"):
        if xpos.get(key) is not None:
            parts.append(f"{key} = {_float(xpos[key], 'xpos ' + key)}")
    if xpos.get("center") is not None:
        parts.append(f"center = {_int(xpos['center'], 'xpos center')}")
    return "#posenc.xpos<" + ", ".join(parts) + ">"


def _rope_op(result, input_, positions, input_type, positions_type, layout, *, base,
             rotary_dim, scaling, attention_factor, precision, xpos=None, xpos_role=None):
    layout = _check_type(layout, ("interleaved", "half"), "layout")
    attrs = []
    if base is not None:
        attrs.append(f"base = {_float(base, 'base')} : f64")
    if rotary_dim is not None:
        attrs.append(f"rotary_dim = {_int(rotary_dim, 'rotary_dim')} : i64")
    scaling_text = rope_scaling_attr(scaling)
    if scaling_text:
        attrs.append(f"scaling = {scaling_text}")
    if attention_factor is not None:
        attrs.append(f"attention_factor = {_float(attention_factor, 'attention_factor')} : f64")
    xpos_text = xpos_attr(xpos, xpos_role)
    if xpos_text:
        attrs.append(f"xpos = {xpos_text}")
    mode = ""
    if precision is not None:
        mode = " precision " + _check_type(precision, ("fast", "exact"), "precision")
    return (f"  {result} = posenc.rope {input_}, {positions} layout {layout}{mode}"
            f"{_attr_dict(attrs)} : {input_type}, {positions_type}\n")


def _function(name, arguments, result_type, body, result, config):
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"the function name must be an identifier, got {name!r}")
    signature = ", ".join(f"%{arg}: {type_}" for arg, type_ in arguments)
    ir = (f"func.func @{name}({signature}) -> {result_type} {{\n{body}"
          f"  return {result} : {result_type}\n}}\n")
    return Program(ir, name, arguments, result_type, config)


def _dims(value, sizes):
    """`tensor.dim` ops for the dynamic `sizes` (dim index -> name) of
    `value`; returns the text and the SSA names in order."""
    text, names = "", []
    for dim, name in sizes:
        text += (f"  %c{name} = arith.constant {dim} : index\n"
                 f"  %{name} = tensor.dim %{value[0]}, %c{name} : {value[1]}\n")
        names.append(f"%{name}")
    return text, names


def _bias_sizes(seq, kv_seq, q_type, k_type):
    """The `tensor.dim` ops of a [H, seq, kv_seq] bias' dynamic sizes, read
    off %query and %key (dim 2); returns the text and the size operands
    (`" (%q_seq, %kv_seq)"`, or "" when both are static)."""
    body, sizes = "", []
    if seq is None:
        text, names = _dims(("query", q_type), [(2, "q_seq")])
        body += text
        sizes += names
    if kv_seq is None:
        text, names = _dims(("key", k_type), [(2, "kv_seq")])
        body += text
        sizes += names
    return body, " (" + ", ".join(sizes) + ")" if sizes else ""


# ------------------------------------------------------------- single ops

def rope(shape, layout, *, base=10000.0, rotary_dim=None, scaling=None,
         attention_factor=None, precision=None, dtype="f32", pos_dtype="i32",
         per_batch_positions=False, xpos=None, name="rope"):
    """``posenc.rope`` on ``x : tensor<shape x dtype>`` (rank >= 2, last dim D
    static, the sequence dim ``shape[-2]`` may be None) with ``positions :
    tensor<S x pos_dtype>``, or with ``per_batch_positions`` (rank >= 3)
    ``tensor<B x S x pos_dtype>``: batch b rotated at its own row (SPEC.md,
    per-batch positions). Arguments ``(x, positions)``; the result has x's
    type. ``scaling`` is a dict as in ``posenc.reference.rope``; ``precision``
    is None (the op's default, ``fast``), ``"fast"`` or ``"exact"``; ``xpos``
    a dict as in ``posenc.reference.rope`` (with its ``role``) adds the xPos
    decay."""
    if len(shape) < 2:
        raise ValueError(f"shape must have rank >= 2 (... x S x D), got {tuple(shape)}")
    shape = [_check_size(size, f"shape[{i}]") for i, size in enumerate(shape)]
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    pos_dtype = _check_type(pos_dtype, _POSITION_TYPES, "pos_dtype")
    x_type = _tensor(shape, dtype)
    pos_type = _tensor(_positions_shape(shape, per_batch_positions), pos_dtype)
    body = _rope_op("%r", "%x", "%positions", x_type, pos_type, layout, base=base,
                    rotary_dim=rotary_dim, scaling=scaling,
                    attention_factor=attention_factor, precision=precision, xpos=xpos)
    config = dict(layout=layout, base=base, rotary_dim=rotary_dim, scaling=scaling,
                  attention_factor=attention_factor, xpos=xpos)
    return _function(name, [("x", x_type), ("positions", pos_type)], x_type, body, "%r",
                     config)


def _rope_table_op(result, input_, cos, sin, input_type, table_type, layout):
    layout = _check_type(layout, ("interleaved", "half"), "layout")
    return (f"  {result} = posenc.rope {input_} tables({cos}, {sin} : {table_type}, "
            f"{table_type}) layout {layout} : {input_type}\n")


def _table_shape(shape, table_shape, rotary_dim):
    """The cos/sin shape: ``table_shape`` (leading dims) + [S, R]."""
    table_shape = [_check_size(size, "table_shape[{}]".format(i))
                   for i, size in enumerate(table_shape)]
    if len(table_shape) > len(shape) - 2:
        raise ValueError(f"table_shape {tuple(table_shape)} has more leading dims than "
                         f"the input {tuple(shape)}")
    r = shape[-1] if rotary_dim is None else _check_size(rotary_dim, "rotary_dim", False)
    return table_shape + [shape[-2], r]


def rope_table(shape, layout, *, table_shape=(), rotary_dim=None, dtype="f32",
               table_dtype=None, name="rope_table"):
    """The table form of ``posenc.rope`` (SPEC.md, "posenc.rope — table form")
    on ``x : tensor<shape x dtype>`` with ``cos``/``sin : tensor<table_shape x
    S x R x table_dtype>`` (default ``dtype``; R = ``rotary_dim``, default D),
    broadcast against x right-aligned (e.g. ``table_shape=(B, 1)`` for x
    ``[B, H, S, D]``, as HuggingFace passes them). Arguments ``(x, cos,
    sin)``; the result has x's type. Compare with
    ``posenc.reference.rope_table``."""
    if len(shape) < 2:
        raise ValueError(f"shape must have rank >= 2 (... x S x D), got {tuple(shape)}")
    shape = [_check_size(size, f"shape[{i}]") for i, size in enumerate(shape)]
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    table_dtype = dtype if table_dtype is None else _check_type(
        table_dtype, _FLOAT_TYPES, "table_dtype")
    x_type = _tensor(shape, dtype)
    t_type = _tensor(_table_shape(shape, table_shape, rotary_dim), table_dtype)
    body = _rope_table_op("%r", "%x", "%cos", "%sin", x_type, t_type, layout)
    config = dict(layout=layout, rotary_dim=rotary_dim, table_shape=tuple(table_shape))
    return _function(name, [("x", x_type), ("cos", t_type), ("sin", t_type)], x_type,
                     body, "%r", config)


def llama_attention_tables(batch, q_heads, kv_heads, seq, head_dim, *, layout="half",
                           causal=True, dtype="f32", table_shape=(1,), rotary_dim=None,
                           scale=None, name="llama_attention_tables"):
    """``llama_attention`` with the table form of RoPE: cos/sin arrive as
    arguments (HuggingFace computes them once per forward and passes them to
    every layer), ``tensor<table_shape x seq x R x dtype>`` broadcast over
    the heads (default ``table_shape=(1,)``; ``(batch, 1)`` per batch)::

        out = attention(rope(q, cos, sin), rope(k, cos, sin), v, causal)

    Arguments ``(query, key, value, cos, sin)``."""
    batch = _check_size(batch, "batch")
    q_heads = _check_size(q_heads, "q_heads", dynamic_ok=False)
    kv_heads = _check_size(kv_heads, "kv_heads", dynamic_ok=False)
    seq = _check_size(seq, "seq")
    head_dim = _check_size(head_dim, "head_dim", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    q_type = _tensor([batch, q_heads, seq, head_dim], dtype)
    k_type = _tensor([batch, kv_heads, seq, head_dim], dtype)
    t_type = _tensor(_table_shape([batch, q_heads, seq, head_dim], table_shape,
                                  rotary_dim), dtype)
    arguments = [("query", q_type), ("key", k_type), ("value", k_type),
                 ("cos", t_type), ("sin", t_type)]
    body = _rope_table_op("%q_rot", "%query", "%cos", "%sin", q_type, t_type, layout)
    body += _rope_table_op("%k_rot", "%key", "%cos", "%sin", k_type, t_type, layout)
    body += (f"  %out = posenc.attention %q_rot, %k_rot, %value"
             f"{_attention_attrs(causal, scale)}\n"
             f"      : {q_type}, {k_type}, {k_type} -> {q_type}\n")
    config = dict(layout=layout, causal=causal, scale=scale, rotary_dim=rotary_dim,
                  table_shape=tuple(table_shape))
    return _function(name, arguments, q_type, body, "%out", config)


def sinusoidal(seq, dim, *, base=10000.0, layout="interleaved", dtype="f32",
               pos_dtype="i32", add_to_input=False, name="sinusoidal"):
    """``posenc.sinusoidal``: the ``seq x dim`` table for ``positions :
    tensor<seq x pos_dtype>`` (``seq`` None: dynamic). Arguments
    ``(positions,)``; with ``add_to_input``, ``(x, positions)`` and the
    result is ``x + table`` (the usual use, which the compiler fuses)."""
    seq = _check_size(seq, "seq")
    dim = _check_size(dim, "dim", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    pos_dtype = _check_type(pos_dtype, _POSITION_TYPES, "pos_dtype")
    layout = _check_type(layout, ("interleaved", "half"), "layout")
    table_type = _tensor([seq, dim], dtype)
    pos_type = _tensor([seq], pos_dtype)
    attrs = [f"base = {_float(base, 'base')} : f64"] if base is not None else []
    body = (f"  %table = posenc.sinusoidal %positions layout {layout}{_attr_dict(attrs)}"
            f" : {pos_type} -> {table_type}\n")
    arguments = [("positions", pos_type)]
    result = "%table"
    if add_to_input:
        arguments.insert(0, ("x", table_type))
        body += f"  %sum = arith.addf %x, %table : {table_type}\n"
        result = "%sum"
    config = dict(dim=dim, base=base, layout=layout)
    return _function(name, arguments, table_type, body, result, config)


def alibi_bias(heads, q_seq, kv_seq, *, batch_shape=(), max_bias=8.0, num_heads=None,
               head_offset=0, symmetric=False, dtype="f32", name="alibi_bias"):
    """``posenc.alibi_bias`` of type ``tensor<batch_shape x heads x q_seq x
    kv_seq x dtype>``. Every dynamic (None) size becomes an ``index``
    argument, in order; the function has no other arguments."""
    shape = [_check_size(size, f"batch_shape[{i}]") for i, size in enumerate(batch_shape)]
    shape += [_check_size(heads, "heads", dynamic_ok=False),
              _check_size(q_seq, "q_seq"), _check_size(kv_seq, "kv_seq")]
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    result_type = _tensor(shape, dtype)
    arguments = [(f"size{i}", "index") for i, size in enumerate(shape) if size is None]
    operands = ""
    if arguments:
        operands = " (" + ", ".join(f"%{arg}" for arg, _ in arguments) + ")"
    attrs = _alibi_attrs(max_bias, num_heads, head_offset, symmetric)
    body = f"  %bias = posenc.alibi_bias{operands}{attrs} : {result_type}\n"
    config = dict(max_bias=max_bias, num_heads=num_heads, head_offset=head_offset,
                  symmetric=symmetric)
    return _function(name, arguments, result_type, body, "%bias", config)


def _alibi_attrs(max_bias, num_heads, head_offset, symmetric):
    attrs = []
    if max_bias is not None:
        attrs.append(f"max_bias = {_float(max_bias, 'max_bias')} : f64")
    if num_heads is not None:
        attrs.append(f"num_heads = {_int(num_heads, 'num_heads')} : i64")
    if head_offset:
        attrs.append(f"head_offset = {_int(head_offset, 'head_offset')} : i64")
    if symmetric:
        attrs.append("symmetric")
    return _attr_dict(attrs)


def _positions_shape(shape, per_batch):
    """[S], or per batch [B, S] (B = shape[0]; rank >= 3 as the op needs)."""
    if not per_batch:
        return [shape[-2]]
    if len(shape) < 3:
        raise ValueError(f"per-batch positions need a batch dim (rank >= 3), got {tuple(shape)}")
    return [shape[0], shape[-2]]


def _attention_attrs(causal, scale):
    attrs = ["causal"] if causal else []
    if scale is not None:
        attrs.append(f"scale = {_float(scale, 'scale')} : f64")
    return _attr_dict(attrs)


# ------------------------------------------------------------ attention blocks

def llama_attention(batch, q_heads, kv_heads, seq, head_dim, rope_base=500000.0,
                    rope_scaling=None, layout="half", causal=True, dtype="f32", *,
                    kv_seq=SAME_AS_SEQ, rotary_dim=None, precision=None,
                    attention_factor=None, scale=None, pos_dtype="i32",
                    value_dim=None, kv_dtype=None, kv_lengths=False,
                    per_batch_positions=False, xpos=None, name="llama_attention"):
    """A LLaMA-style attention block: RoPE on queries and keys, then
    grouped-query attention (``q_heads`` a multiple of ``kv_heads``) with the
    causal mask::

        out = attention(rope(q, pos), rope(k, pos), v, causal)

    Shapes: query ``[batch, q_heads, seq, head_dim]``, key
    ``[batch, kv_heads, kv_seq, head_dim]``, value ``[batch, kv_heads, kv_seq,
    value_dim (default head_dim)]``; result ``[batch, q_heads, seq,
    value_dim]``. ``batch``, ``seq`` and ``kv_seq`` may be None (dynamic).

    Arguments ``(query, key, value, positions)`` when ``kv_seq`` is left at
    its default (keys share the queries' positions), else ``(query, key,
    value, q_positions, k_positions)`` (e.g. decoding with a KV cache:
    ``seq < kv_seq``; the causal mask is bottom-right aligned).

    RoPE: ``rope_base`` (LLaMA 3: 500000), ``rope_scaling`` (dict as in
    ``posenc.reference``, e.g. ``{"kind": "llama3", "factor": 8.0,
    "original_max_position": 8192}``), ``layout`` (``"half"``: HF
    ``rotate_half``; ``"interleaved"``: Meta's complex form), ``rotary_dim``,
    ``precision``, ``attention_factor``. Attention: ``causal``, ``scale``
    (default 1/sqrt(head_dim)).

    xPos (Sun et al.): ``xpos`` a dict as in ``posenc.reference.rope`` without
    ``role`` (``scale_base``, ``gamma``, ``center``; defaults 512, 0.4, 0)
    decays the query rope with role ``query`` and the key rope with role
    ``key``, a pair that posenc-fuse-attention folds into fused attention.

    Attention over a KV cache (SPEC.md): ``kv_dtype`` stores key/value in
    another element type than the query (e.g. ``"f16"`` under an f32 query;
    default ``dtype``); ``kv_lengths=True`` adds a last argument
    ``kv_lengths : tensor<batch x pos_dtype>`` (batch b attends to the first
    ``kv_lengths[b]`` rows of key/value, a preallocated cache, causal mask
    at that length); ``per_batch_positions=True`` makes the positions
    ``[batch, S]`` (each sequence rotated at its own offset)."""
    batch = _check_size(batch, "batch")
    q_heads = _check_size(q_heads, "q_heads", dynamic_ok=False)
    kv_heads = _check_size(kv_heads, "kv_heads", dynamic_ok=False)
    seq = _check_size(seq, "seq")
    head_dim = _check_size(head_dim, "head_dim", dynamic_ok=False)
    shared_positions = kv_seq is SAME_AS_SEQ
    kv_seq = seq if shared_positions else _check_size(kv_seq, "kv_seq")
    value_dim = head_dim if value_dim is None else _check_size(
        value_dim, "value_dim", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    kv_dtype = dtype if kv_dtype is None else _check_type(kv_dtype, _FLOAT_TYPES, "kv_dtype")
    pos_dtype = _check_type(pos_dtype, _POSITION_TYPES, "pos_dtype")

    q_type = _tensor([batch, q_heads, seq, head_dim], dtype)
    k_type = _tensor([batch, kv_heads, kv_seq, head_dim], kv_dtype)
    v_type = _tensor([batch, kv_heads, kv_seq, value_dim], kv_dtype)
    out_type = _tensor([batch, q_heads, seq, value_dim], dtype)
    q_pos_type = _tensor(_positions_shape([batch, q_heads, seq, head_dim],
                                          per_batch_positions), pos_dtype)
    k_pos_type = _tensor(_positions_shape([batch, kv_heads, kv_seq, head_dim],
                                          per_batch_positions), pos_dtype)
    arguments = [("query", q_type), ("key", k_type), ("value", v_type)]
    if shared_positions:
        arguments.append(("positions", q_pos_type))
        q_pos = k_pos = "%positions"
    else:
        arguments += [("q_positions", q_pos_type), ("k_positions", k_pos_type)]
        q_pos, k_pos = "%q_positions", "%k_positions"

    rope_attrs = dict(base=rope_base, rotary_dim=rotary_dim, scaling=rope_scaling,
                      attention_factor=attention_factor, precision=precision)
    body = _rope_op("%q_rot", "%query", q_pos, q_type, q_pos_type, layout, **rope_attrs,
                    xpos=xpos, xpos_role="query")
    body += _rope_op("%k_rot", "%key", k_pos, k_type, k_pos_type, layout, **rope_attrs,
                     xpos=xpos, xpos_role="key")
    lengths = ""
    if kv_lengths:
        lengths_type = _tensor([batch], pos_dtype)
        arguments.append(("kv_lengths", lengths_type))
        lengths = f" kv_lengths(%kv_lengths : {lengths_type})"
    body += (f"  %out = posenc.attention %q_rot, %k_rot, %value{lengths}"
             f"{_attention_attrs(causal, scale)}\n"
             f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    config = dict(layout=layout, rope_base=rope_base, rope_scaling=rope_scaling,
                  rotary_dim=rotary_dim, attention_factor=attention_factor,
                  causal=causal, scale=scale, xpos=xpos)
    return _function(name, arguments, out_type, body, "%out", config)


def bloom_alibi_attention(batch, heads, seq, head_dim, *, kv_seq=SAME_AS_SEQ,
                          causal=True, max_bias=8.0, num_heads=None, head_offset=0,
                          symmetric=False, scale=None, dtype="f32", bias_dtype="f32",
                          value_dim=None, name="bloom_alibi_attention"):
    """A BLOOM-style attention block: no rotation; the ALiBi bias (computed
    in the kernel, not passed in) added to the scores, with the causal mask::

        out = attention(q, k, v, bias = alibi_bias[heads, seq, kv_seq], causal)

    Shapes: query ``[batch, heads, seq, head_dim]``, key/value
    ``[batch, heads, kv_seq, head_dim / value_dim]``; ``batch``, ``seq``,
    ``kv_seq`` may be None. Arguments ``(query, key, value)``. ALiBi:
    ``max_bias``, ``num_heads`` (the model's heads, for head-sharded blocks;
    default ``heads``) and ``head_offset``, ``symmetric``; the bias is
    computed in ``bias_dtype``."""
    batch = _check_size(batch, "batch")
    heads = _check_size(heads, "heads", dynamic_ok=False)
    seq = _check_size(seq, "seq")
    head_dim = _check_size(head_dim, "head_dim", dynamic_ok=False)
    kv_seq = seq if kv_seq is SAME_AS_SEQ else _check_size(kv_seq, "kv_seq")
    value_dim = head_dim if value_dim is None else _check_size(
        value_dim, "value_dim", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    bias_dtype = _check_type(bias_dtype, _FLOAT_TYPES, "bias_dtype")

    q_type, k_type, v_type, out_type = _attention_types(
        batch, heads, seq, kv_seq, head_dim, value_dim, dtype)
    bias_type = _tensor([heads, seq, kv_seq], bias_dtype)
    body, operands = _bias_sizes(seq, kv_seq, q_type, k_type)
    body += (f"  %bias = posenc.alibi_bias{operands}"
             f"{_alibi_attrs(max_bias, num_heads, head_offset, symmetric)} : {bias_type}\n")
    body += (f"  %out = posenc.attention %query, %key, %value bias(%bias : {bias_type})"
             f"{_attention_attrs(causal, scale)}\n"
             f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    arguments = [("query", q_type), ("key", k_type), ("value", v_type)]
    config = dict(max_bias=max_bias, num_heads=num_heads, head_offset=head_offset,
                  symmetric=symmetric, causal=causal, scale=scale)
    return _function(name, arguments, out_type, body, "%out", config)


def shaw_attention(batch, heads, seq, head_dim, max_distance, *, kv_seq=SAME_AS_SEQ,
                   rel_value=True, causal=False, scale=None, dtype="f32",
                   value_dim=None, name="shaw_attention"):
    """Attention with Shaw et al. relative position representations
    (``posenc.rel_pos_attention``), clipping distances at ``max_distance``
    (K): learned tables ``rel_key [2K+1, head_dim]`` and, with ``rel_value``,
    ``rel_value [2K+1, value_dim]``.

    Shapes: query ``[batch, heads, seq, head_dim]``, key/value
    ``[batch, heads, kv_seq, head_dim / value_dim]``; ``batch``, ``seq``,
    ``kv_seq`` may be None. Arguments ``(query, key, value, rel_key[,
    rel_value])``."""
    batch = _check_size(batch, "batch")
    heads = _check_size(heads, "heads")
    seq = _check_size(seq, "seq")
    head_dim = _check_size(head_dim, "head_dim", dynamic_ok=False)
    max_distance = _check_size(max_distance, "max_distance", dynamic_ok=False)
    kv_seq = seq if kv_seq is SAME_AS_SEQ else _check_size(kv_seq, "kv_seq")
    value_dim = head_dim if value_dim is None else _check_size(
        value_dim, "value_dim", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")

    q_type, k_type, v_type, out_type = _attention_types(
        batch, heads, seq, kv_seq, head_dim, value_dim, dtype)
    rk_type = _tensor([2 * max_distance + 1, head_dim], dtype)
    rv_type = _tensor([2 * max_distance + 1, value_dim], dtype)
    arguments = [("query", q_type), ("key", k_type), ("value", v_type),
                 ("rel_key", rk_type)]
    rel = f" rel_key(%rel_key : {rk_type})"
    if rel_value:
        arguments.append(("rel_value", rv_type))
        rel += f" rel_value(%rel_value : {rv_type})"
    body = (f"  %out = posenc.rel_pos_attention %query, %key, %value{rel}"
            f"{_attention_attrs(causal, scale)}\n"
            f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    config = dict(max_distance=max_distance, causal=causal, scale=scale)
    return _function(name, arguments, out_type, body, "%out", config)
