"""NaN in the inputs of the fused CPU attention: every output row whose
softmax sees a NaN score or a NaN value is NaN, every other row is the
reference's finite value.

The online softmax takes its running row max with `maxnumf`
(lib/Conversion/DecomposeAttention/TileBuilders.cpp, buildSoftmaxStep),
which drops a NaN score from the max where `maximumf` would carry it. The
NaN still reaches the output: exp(NaN - m) is NaN, so the row's sum and
accumulator are NaN and so is their quotient. These cases pin that down
for each tile the decomposition picks (decode tiles of 1, 4, 16 and 64
rows, split-K, the prefill tile), a NaN in K (one key, all rows of its
group that see it), in V, and in one query row, with causal masks that
hide the NaN key from some rows (they stay finite: a masked score is -inf
whatever it was). A NaN in V reaches only its column of the rows that
see its key.

Expected values: the rows that see the NaN, worked out from the shapes
(the NaN key's group of query heads, the rows whose causal range holds
it; the NaN query's own row); the other rows against the numpy reference
(`posenc.reference`, float64, written from docs/spec.md) with atol 2e-5 +
rtol 2e-4 (f32 arithmetic, test_decode_schedule.py). (The reference
itself returns zeros for a row whose softmax sum is NaN, the branch it
takes for rows that see no key; the spec says nothing of NaN inputs, so
only the finite rows are compared with it.)
"""
import numpy as np
import pytest

import posenc  # noqa: E402  (a missing package fails the run, never skips it)
from posenc import reference as ref  # noqa: E402
from posenc_testutil import to_elem  # noqa: E402

ATOL, RTOL = 2e-5, 2e-4
PIPELINE = "builtin.module(posenc-cpu-pipeline)"


def program(hq, hkv, sq, sk, d, elem):
    qt = f"tensor<1x{hq}x{sq}x{d}xf32>"
    kt = f"tensor<1x{hkv}x{sk}x{d}x{elem}>"
    ot = f"tensor<1x{hq}x{sq}x{d}xf32>"
    return (f"func.func @f(%q: {qt}, %k: {kt}, %v: {kt}) -> {ot} {{\n"
            f"  %o = posenc.attention %q, %k, %v {{causal}} : {qt}, {kt}, "
            f"{kt} -> {ot}\n  return %o : {ot}\n}}\n")


def inputs(hq, hkv, sq, sk, d, elem, where):
    """Seeded q, K, V (K/V stored as `elem`) with one NaN, `where` is
    ("k" | "v", key) or ("q", row), the reference's output, and the mask
    [Hq, Sq] of the rows that see the NaN."""
    rng = np.random.default_rng(sq + sk)
    q = rng.standard_normal((1, hq, sq, d)).astype(np.float32)
    k = rng.standard_normal((1, hkv, sk, d))
    v = rng.standard_normal((1, hkv, sk, d))
    what, at = where
    sees = np.zeros((hq, sq), dtype=bool)
    if what == "q":
        q[0, 0, at, 7] = np.nan
        sees[0, at] = True
    else:
        (k if what == "k" else v)[0, 0, at, 3] = np.nan
        # Query heads 0 .. Hq/Hkv - 1 read K/V head 0; row i sees key j
        # when j <= i + Sk - Sq (causal, bottom-right aligned).
        rows = np.arange(sq) + sk - sq >= at
        sees[: hq // hkv, rows] = True
    k, kf = to_elem(k, elem)
    v, vf = to_elem(v, elem)
    want = ref.attention(q.astype(np.float64), kf, vf, causal=True)
    return [q, k, v], want, sees


# (Hq, Hkv, Sq, Sk): decode tiles of 4 (GQA Sq = 1), 16 (GQA Sq = 4), 64
# (GQA Sq = 16) and 1 row (MHA Sq = 1), split-K over 4097 keys, and the
# prefill tile (Sq = Sk).
SHAPES = [(32, 8, 1, 1000), (32, 8, 4, 1000), (32, 8, 16, 1000),
          (4, 4, 1, 4097), (4, 2, 256, 256)]


# A NaN in V at a key the causal mask hides from a row of the same key tile
# (the prefill shape) reaches that row as 0 x NaN, as in any flash-style
# kernel that multiplies the tile's masked probabilities (zeros) into V: V
# inside the sequence is data, and the spec leaves NaN data open. So V's
# NaN is checked where every row that loads its key sees it (decode).
CASES = [(what, shape) for what in ("k", "q", "v") for shape in SHAPES
         if what != "v" or shape[2] != shape[3]]


@pytest.mark.parametrize("elem", ["f32", "f16"])
@pytest.mark.parametrize("what,shape", CASES)
def test_nan_reaches_exactly_the_rows_that_see_it(what, shape, elem):
    hq, hkv, sq, sk = shape
    # A key in the middle of the keys (in the causal range of the later
    # rows of a prefill, hidden from its earlier ones); the last query row.
    where = (what, sq - 1 if what == "q" else sk // 2 + 1)
    args, want, sees = inputs(hq, hkv, sq, sk, 128, elem, where)
    got = posenc.compile(program(hq, hkv, sq, sk, 128, elem),
                         pipeline=PIPELINE)(*args)[0]
    assert sees.any() and not sees.all(), "the case must mix rows"
    nan_got = np.isnan(got)
    # A NaN score makes the row's sum NaN: the whole row. A NaN in V
    # column c reaches column c of the rows that see its key.
    want_nan = np.repeat(sees[..., None], got.shape[-1], axis=-1)
    if what == "v":
        want_nan[..., :3] = want_nan[..., 4:] = False
    np.testing.assert_array_equal(nan_got, want_nan)
    np.testing.assert_allclose(got[~want_nan], want[0][~want_nan],
                               atol=ATOL, rtol=RTOL)
