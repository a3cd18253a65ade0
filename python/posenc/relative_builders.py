"""Builders of the relative position encodings of docs/spec.md's "Additions"
(T5's bucketed bias, Transformer-XL's attention), in the form and with the
conventions of ``posenc.builders`` (read its docstring): each returns a
``Program``, sizes are ints or None (dynamic), element types MLIR's names,
and every rule of the ops is the verifier's, not the builder's."""

from .builders import (SAME_AS_SEQ, _FLOAT_TYPES, _attention_attrs,
                       _attention_types, _attr_dict, _bias_sizes, _check_size,
                       _check_type, _float, _function, _int, _tensor)

__all__ = ["t5_attention", "t5_bias", "xl_attention", "deberta_attention"]


def _t5_attrs(max_distance, bidirectional):
    attrs = []
    if max_distance is not None:
        attrs.append(f"max_distance = {_int(max_distance, 'max_distance')} : i64")
    if bidirectional:
        attrs.append("bidirectional")
    return _attr_dict(attrs)


def t5_bias(heads, q_seq, kv_seq, num_buckets=32, *, batch_shape=(), max_distance=128,
            bidirectional=False, dtype="f32", name="t5_bias"):
    """``posenc.t5_bias`` of type ``tensor<batch_shape x heads x q_seq x kv_seq
    x dtype>`` from ``table : tensor<num_buckets x heads x dtype>``.
    Arguments ``(table, <one index per dynamic (None) size, in order>)``."""
    shape = [_check_size(size, f"batch_shape[{i}]") for i, size in enumerate(batch_shape)]
    shape += [_check_size(heads, "heads", dynamic_ok=False),
              _check_size(q_seq, "q_seq"), _check_size(kv_seq, "kv_seq")]
    num_buckets = _check_size(num_buckets, "num_buckets", dynamic_ok=False)
    dtype = _check_type(dtype, _FLOAT_TYPES, "dtype")
    result_type = _tensor(shape, dtype)
    table_type = _tensor([num_buckets, shape[-3]], dtype)
    sizes = [(f"size{i}", "index") for i, size in enumerate(shape) if size is None]
    operands = " (" + ", ".join(f"%{arg}" for arg, _ in sizes) + ")" if sizes else ""
    body = (f"  %bias = posenc.t5_bias %table{operands}"
            f"{_t5_attrs(max_distance, bidirectional)} : {table_type} -> {result_type}\n")
    config = dict(num_buckets=num_buckets, max_distance=max_distance,
                  bidirectional=bidirectional)
    return _function(name, [("table", table_type)] + sizes, result_type, body, "%bias",
                     config)


def _checked_attention_sizes(batch, heads, seq, head_dim, kv_seq, value_dim, dtype):
    """The sizes and element type of a [batch, heads, seq, head_dim] attention
    block, checked (heads and dims static); kv_seq defaults to seq, value_dim
    to head_dim."""
    seq = _check_size(seq, "seq")
    head_dim = _check_size(head_dim, "head_dim", dynamic_ok=False)
    return (_check_size(batch, "batch"), _check_size(heads, "heads", dynamic_ok=False),
            seq, head_dim,
            seq if kv_seq is SAME_AS_SEQ else _check_size(kv_seq, "kv_seq"),
            head_dim if value_dim is None else _check_size(value_dim, "value_dim",
                                                           dynamic_ok=False),
            _check_type(dtype, _FLOAT_TYPES, "dtype"))


def t5_attention(batch, heads, seq, head_dim, num_buckets=32, *, kv_seq=SAME_AS_SEQ,
                 max_distance=128, bidirectional=False, causal=False, scale=None,
                 dtype="f32", value_dim=None, name="t5_attention"):
    """A T5-style attention block: the bucketed relative bias from the learned
    ``table [num_buckets, heads]`` added to the scores::

        out = attention(q, k, v, bias = t5_bias(table)[heads, seq, kv_seq], causal)

    Encoders set ``bidirectional``; decoder self-attention sets ``causal``.
    T5 itself does not scale the scores: pass ``scale=1.0`` for it (the
    default is attention's 1/sqrt(head_dim)). Shapes: query ``[batch, heads,
    seq, head_dim]``, key/value ``[batch, heads, kv_seq, head_dim /
    value_dim]``; ``batch``, ``seq``, ``kv_seq`` may be None. Arguments
    ``(query, key, value, table)``; the table has the element type ``dtype``."""
    batch, heads, seq, head_dim, kv_seq, value_dim, dtype = _checked_attention_sizes(
        batch, heads, seq, head_dim, kv_seq, value_dim, dtype)
    num_buckets = _check_size(num_buckets, "num_buckets", dynamic_ok=False)

    q_type, k_type, v_type, out_type = _attention_types(
        batch, heads, seq, kv_seq, head_dim, value_dim, dtype)
    table_type = _tensor([num_buckets, heads], dtype)
    bias_type = _tensor([heads, seq, kv_seq], dtype)
    body, operands = _bias_sizes(seq, kv_seq, q_type, k_type)
    body += (f"  %bias = posenc.t5_bias %table{operands}"
             f"{_t5_attrs(max_distance, bidirectional)} : {table_type} -> {bias_type}\n")
    body += (f"  %out = posenc.attention %query, %key, %value bias(%bias : {bias_type})"
             f"{_attention_attrs(causal, scale)}\n"
             f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    arguments = [("query", q_type), ("key", k_type), ("value", v_type),
                 ("table", table_type)]
    config = dict(num_buckets=num_buckets, max_distance=max_distance,
                  bidirectional=bidirectional, causal=causal, scale=scale)
    return _function(name, arguments, out_type, body, "%out", config)


def xl_attention(batch, heads, seq, head_dim, *, kv_seq=SAME_AS_SEQ, rel_heads=True,
                 causal=False, scale=None, dtype="f32", value_dim=None,
                 name="xl_attention"):
    """Transformer-XL / XLNet relative attention (``posenc.xl_attention``)::

        e[i, j] = scale * ((q_i + u_h) . k_j + (q_i + v_h) . rel[i' - j + seq - 1])

    with i' = i + kv_seq - seq, the relative table ``rel [heads, L, head_dim]``
    (``[L, head_dim]`` shared by the heads when ``rel_heads`` is False), L =
    seq + kv_seq - 1, the content bias u and the position bias v ``[heads,
    head_dim]``. Shapes: query ``[batch, heads, seq, head_dim]``, key/value
    ``[batch, heads, kv_seq, head_dim / value_dim]``; ``batch``, ``seq``,
    ``kv_seq`` may be None (then L is dynamic and checked at run time).
    Arguments ``(query, key, value, rel, content_bias, position_bias)``, all
    of element type ``dtype``."""
    batch, heads, seq, head_dim, kv_seq, value_dim, dtype = _checked_attention_sizes(
        batch, heads, seq, head_dim, kv_seq, value_dim, dtype)

    q_type, k_type, v_type, out_type = _attention_types(
        batch, heads, seq, kv_seq, head_dim, value_dim, dtype)
    rows = None if seq is None or kv_seq is None else seq + kv_seq - 1
    rel_type = _tensor(([heads] if rel_heads else []) + [rows, head_dim], dtype)
    bias_type = _tensor([heads, head_dim], dtype)
    body = (f"  %out = posenc.xl_attention %query, %key, %value rel(%rel : {rel_type})\n"
            f"      content_bias(%content_bias : {bias_type})"
            f" position_bias(%position_bias : {bias_type}){_attention_attrs(causal, scale)}\n"
            f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    arguments = [("query", q_type), ("key", k_type), ("value", v_type),
                 ("rel", rel_type), ("content_bias", bias_type),
                 ("position_bias", bias_type)]
    config = dict(rel_heads=rel_heads, causal=causal, scale=scale)
    return _function(name, arguments, out_type, body, "%out", config)


# ------------------------------------------------------------ DeBERTa

_DEBERTA_TERMS = ("c2p", "p2c")


def deberta_attention(batch, heads, seq, head_dim, span, *, kv_seq=SAME_AS_SEQ,
                      terms=_DEBERTA_TERMS, position_buckets=0, max_relative_positions=None,
                      per_head_tables=False, causal=False, scale=None, dtype="f32",
                      value_dim=None, name="deberta_attention"):
    """DeBERTa's disentangled attention (``posenc.disentangled_attention``)::

        e = scale * (q_i . k_j + [c2p] q_i . pos_key[c] + [p2c] k_j . pos_query[c'])

    with the projected relative embeddings ``pos_key`` / ``pos_query`` of
    ``2 * span`` rows (``[heads, 2 * span, head_dim]`` with
    ``per_head_tables``, else shared ``[2 * span, head_dim]``), one per term
    in ``terms`` (a subset of ``("c2p", "p2c")``). DeBERTa-v2/v3 use
    ``position_buckets=256, max_relative_positions=512`` (then ``span`` must
    be ``position_buckets``). The default scale is ``1/sqrt(head_dim * (1 +
    len(terms)))``. Shapes as ``t5_attention``'s; ``batch``, ``seq``,
    ``kv_seq`` may be None. Arguments ``(query, key, value, <pos_key if c2p>,
    <pos_query if p2c>)``."""
    span = _check_size(span, "span", dynamic_ok=False)
    batch, heads, seq, head_dim, kv_seq, value_dim, dtype = _checked_attention_sizes(
        batch, heads, seq, head_dim, kv_seq, value_dim, dtype)
    q_type, k_type, v_type, out_type = _attention_types(
        batch, heads, seq, kv_seq, head_dim, value_dim, dtype)
    terms = tuple(terms)
    if not terms or any(t not in _DEBERTA_TERMS for t in terms) or len(set(terms)) != len(terms):
        raise ValueError(f"terms must be a non-empty subset of {_DEBERTA_TERMS}, got {terms}")
    table_type = _tensor(([heads] if per_head_tables else []) + [2 * span, head_dim], dtype)
    arguments = [("query", q_type), ("key", k_type), ("value", v_type)]
    operands = ""
    for term, table in zip(_DEBERTA_TERMS, ("pos_key", "pos_query")):
        if term in terms:
            arguments.append((table, table_type))
            operands += f" {table}(%{table} : {table_type})"
    attrs = ["causal"] if causal else []
    if position_buckets:
        attrs.append(f"position_buckets = {_int(position_buckets, 'position_buckets')} : i64")
    if max_relative_positions is not None:
        attrs.append(f"max_relative_positions = "
                     f"{_int(max_relative_positions, 'max_relative_positions')} : i64")
    if scale is not None:
        attrs.append(f"scale = {_float(scale, 'scale')} : f64")
    terms_text = "" if len(terms) == 2 else f" terms {terms[0]}"
    body = (f"  %out = posenc.disentangled_attention %query, %key, %value{operands}"
            f"{terms_text}{_attr_dict(attrs)}\n"
            f"      : {q_type}, {k_type}, {v_type} -> {out_type}\n")
    config = dict(span=span, terms=terms, position_buckets=position_buckets,
                  max_relative_positions=max_relative_positions,
                  per_head_tables=per_head_tables, causal=causal, scale=scale)
    return _function(name, arguments, out_type, body, "%out", config)
