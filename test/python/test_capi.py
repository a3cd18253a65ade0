"""Tests of posenc.compile and the C API under it (lib/CAPI; python/posenc's
compiler, capi, memref and function modules): parse, lower with
posenc-cpu-pipeline, JIT, call on numpy arrays, and every error path.

The functions are plain upstream IR (linalg/arith/tensor) so that these tests
exercise the compile path independently of the posenc lowerings. Expected
values come from numpy; integer and IEEE add/mul/convert results are exact,
so they are compared exactly.

Run with the library built:
  POSENC_BUILD_DIR=<build> PYTHONPATH=python python3 -m pytest test/python/test_capi.py
"""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import posenc  # noqa: E402
from posenc import PosencError, compile, from_bf16_bits, to_bf16_bits  # noqa: E402
from posenc import compiler  # noqa: E402


RNG = np.random.default_rng(7)

ADD_4xN = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c1 : tensor<4x?xf32>
  %init = tensor.empty(%n) : tensor<4x?xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x?xf32>, tensor<4x?xf32>)
      outs(%init : tensor<4x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x?xf32>
  return %sum : tensor<4x?xf32>
}
"""


def binary_elementwise(name, element, shape, body):
    """IR of `name(a, b) -> r` over tensor<shape x element> computing `body`
    (arith ops on %x, %y, yielding %r) element by element. Dynamic sizes
    ('?') are taken from %a."""
    rank = len(shape)
    tensor = f"tensor<{'x'.join(map(str, shape))}x{element}>" if rank else f"tensor<{element}>"
    dims = ", ".join(f"d{i}" for i in range(rank))
    dynamic = [i for i, size in enumerate(shape) if size == "?"]
    sizes = "".join(
        f"  %c{i} = arith.constant {i} : index\n"
        f"  %n{i} = tensor.dim %a, %c{i} : {tensor}\n" for i in dynamic)
    operands = ", ".join(f"%n{i}" for i in dynamic)
    parallel = ", ".join(['"parallel"'] * rank)
    return f"""
#map = affine_map<({dims}) -> ({dims})>
func.func @{name}(%a: {tensor}, %b: {tensor}) -> {tensor} {{
{sizes}  %init = tensor.empty({operands}) : {tensor}
  %res = linalg.generic {{indexing_maps = [#map, #map, #map],
                         iterator_types = [{parallel}]}}
      ins(%a, %b : {tensor}, {tensor}) outs(%init : {tensor}) {{
  ^bb0(%x: {element}, %y: {element}, %out: {element}):
{body}
    linalg.yield %r : {element}
  }} -> {tensor}
  return %res : {tensor}
}}
"""


@pytest.fixture(scope="module")
def add_4xn():
    return compile(ADD_4xN)


# ------------------------------------------------------------------ running

def test_add_dynamic_dim(add_4xn):
    for n in (1, 3, 17):
        a = RNG.standard_normal((4, n)).astype(np.float32)
        b = RNG.standard_normal((4, n)).astype(np.float32)
        result = add_4xn(a, b)
        assert result.dtype == np.float32 and result.shape == (4, n)
        np.testing.assert_array_equal(result, a + b)


def test_add_zero_sized_dim(add_4xn):
    a = np.zeros((4, 0), np.float32)
    result = add_4xn(a, a)
    assert result.shape == (4, 0) and result.dtype == np.float32


def test_non_contiguous_inputs(add_4xn):
    base = RNG.standard_normal((8, 10)).astype(np.float32)
    a = base[::2, 1:8]            # strided rows, offset start
    b = base[:4, :7].T.copy().T   # Fortran order
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    np.testing.assert_array_equal(add_4xn(a, b), a + b)


def test_inputs_are_not_modified():
    # outs(%a): bufferization would write into %a's buffer if the argument
    # were writable; compile marks tensor arguments read-only.
    doubled = compile("""
func.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>)
                  outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}""")
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(doubled(a), 2 * np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(a, np.arange(4, dtype=np.float32))


def test_multiple_results():
    f = compile("""
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @sum_and_product(%a: tensor<?x3xf64>, %b: tensor<?x3xf64>)
    -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3xf64>
  %e0 = tensor.empty(%n) : tensor<?x3xf64>
  %e1 = tensor.empty(%n) : tensor<?x3xf64>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x3xf64>, tensor<?x3xf64>)
      outs(%e0, %e1 : tensor<?x3xf64>, tensor<?x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o0: f64, %o1: f64):
    %s = arith.addf %x, %y : f64
    %p = arith.mulf %x, %y : f64
    linalg.yield %s, %p : f64, f64
  } -> (tensor<?x3xf64>, tensor<?x3xf64>)
  return %r#0, %r#1 : tensor<?x3xf64>, tensor<?x3xf64>
}""")
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    total, product = f(a, b)
    np.testing.assert_array_equal(total, a + b)
    np.testing.assert_array_equal(product, a * b)


def test_mixed_scalar_and_tensor_results():
    f = compile("""
#map = affine_map<(d0) -> (d0)>
func.func @mixed(%x: f32, %a: tensor<3xi64>, %n: index) -> (i64, tensor<3xi64>, f32) {
  %k = arith.index_cast %n : index to i64
  %init = tensor.empty() : tensor<3xi64>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<3xi64>) outs(%init : tensor<3xi64>) {
  ^bb0(%v: i64, %o: i64):
    %s = arith.muli %v, %k : i64
    linalg.yield %s : i64
  } -> tensor<3xi64>
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  return %k, %r, %y : i64, tensor<3xi64>, f32
}""")
    k, r, y = f(1.25, np.array([1, -2, 3], np.int64), 7)
    assert k == 7 and y == 2.5
    np.testing.assert_array_equal(r, [7, -14, 21])


def test_single_scalar_result():
    f = compile("""
func.func @scale(%x: f64, %n: index) -> f64 {
  %i = arith.index_cast %n : index to i64
  %f = arith.sitofp %i : i64 to f64
  %r = arith.mulf %x, %f : f64
  return %r : f64
}""")
    assert f(1.5, 4) == 6.0
    assert f(np.float64(-2.0), np.int64(3)) == -6.0


def test_f16_with_f32_arithmetic():
    f = compile(binary_elementwise("f16_fma", "f16", ["?", 8], """
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %three = arith.constant 3.0 : f32
    %s = arith.addf %xf, %yf : f32
    %m = arith.mulf %s, %three : f32
    %r = arith.truncf %m : f32 to f16"""))
    a = RNG.standard_normal((6, 8)).astype(np.float16)
    b = RNG.standard_normal((6, 8)).astype(np.float16)
    result = f(a, b)
    assert result.dtype == np.float16
    expected = ((a.astype(np.float32) + b.astype(np.float32)) * np.float32(3)).astype(np.float16)
    np.testing.assert_array_equal(result, expected)


def test_bf16_with_f32_arithmetic():
    f = compile(binary_elementwise("bf16_mul", "bf16", [5, "?"], """
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %m = arith.mulf %xf, %yf : f32
    %r = arith.truncf %m : f32 to bf16"""))
    a = to_bf16_bits(RNG.standard_normal((5, 9)).astype(np.float32))
    b = to_bf16_bits(RNG.standard_normal((5, 9)).astype(np.float32))
    result = f(a, b)
    assert result.dtype == np.uint16
    np.testing.assert_array_equal(result, to_bf16_bits(from_bf16_bits(a) * from_bf16_bits(b)))


def test_bf16_arithmetic_in_bf16():
    f = compile(binary_elementwise("bf16_add", "bf16", [7], "    %r = arith.addf %x, %y : bf16"))
    a = to_bf16_bits(np.array([1, 2, 3, 0.5, -1, 256, 1e30], np.float32))
    b = to_bf16_bits(np.array([0.5, 0.25, 1, 0.5, 1, 1, 1e30], np.float32))
    expected = to_bf16_bits(from_bf16_bits(a) + from_bf16_bits(b))
    np.testing.assert_array_equal(f(a, b), expected)


@pytest.mark.parametrize("element,dtype", [("i32", np.int32), ("i64", np.int64),
                                           ("i8", np.int8)])
def test_integers(element, dtype):
    f = compile(binary_elementwise("muladd", element, [2, "?"], f"""
    %m = arith.muli %x, %y : {element}
    %r = arith.addi %m, %x : {element}"""))
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, (2, 11), dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, (2, 11), dtype=dtype, endpoint=True)
    with np.errstate(over="ignore"):
        expected = a * b + a  # wraps, as arith does
    result = f(a, b)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, expected)


def test_bool_and_index_tensors_and_half_scalars():
    f = compile("""
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<?xi1>, %b: tensor<?xindex>, %h: f16, %g: bf16)
    -> (tensor<?xi1>, tensor<?xindex>, f16, bf16) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi1>
  %e0 = tensor.empty(%n) : tensor<?xi1>
  %e1 = tensor.empty(%n) : tensor<?xindex>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xi1>, tensor<?xindex>)
      outs(%e0, %e1 : tensor<?xi1>, tensor<?xindex>) {
  ^bb0(%x: i1, %y: index, %o0: i1, %o1: index):
    %true = arith.constant true
    %not = arith.xori %x, %true : i1
    %c3 = arith.constant 3 : index
    %times3 = arith.muli %y, %c3 : index
    linalg.yield %not, %times3 : i1, index
  } -> (tensor<?xi1>, tensor<?xindex>)
  %hf = arith.extf %h : f16 to f32
  %gf = arith.extf %g : bf16 to f32
  %s = arith.addf %hf, %gf : f32
  %h2 = arith.truncf %s : f32 to f16
  %g2 = arith.truncf %s : f32 to bf16
  return %r#0, %r#1, %h2, %g2 : tensor<?xi1>, tensor<?xindex>, f16, bf16
}""")
    negated, tripled, half, bfloat = f(np.array([True, False, True]),
                                       np.array([1, -2, 5], np.int64), 1.5, 2.25)
    np.testing.assert_array_equal(negated, [False, True, False])
    np.testing.assert_array_equal(tripled, [3, -6, 15])
    assert half.dtype == np.float16 and half == 3.75
    assert bfloat.dtype == np.float32 and bfloat == 3.75  # bf16 scalars come back widened


def test_index_argument_sizes_the_result():
    f = compile("""
func.func @filled(%rows: index, %value: i32) -> tensor<?x3xi32> {
  %init = tensor.empty(%rows) : tensor<?x3xi32>
  %r = linalg.fill ins(%value : i32) outs(%init : tensor<?x3xi32>) -> tensor<?x3xi32>
  return %r : tensor<?x3xi32>
}""")
    np.testing.assert_array_equal(f(4, -9), np.full((4, 3), -9, np.int32))
    assert f(0, 1).shape == (0, 3)


def test_rank_zero():
    f = compile(binary_elementwise("add0", "f64", [], "    %r = arith.addf %x, %y : f64"))
    result = f(np.array(1.5), np.float64(2.0))
    assert result.shape == () and result == 3.5


def test_entry_selection():
    ir = """
func.func @one(%a: tensor<2xf32>) -> tensor<2xf32> {
  %init = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%a, %a : tensor<2xf32>, tensor<2xf32>) outs(%init : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @neg(%a: tensor<2xf32>) -> tensor<2xf32> {
  %init = tensor.empty() : tensor<2xf32>
  %r = linalg.negf ins(%a : tensor<2xf32>) outs(%init : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @declared(f32) -> f32
"""
    neg = compile(ir, entry="neg")
    assert neg.name == "neg"
    np.testing.assert_array_equal(neg(np.array([1, -2], np.float32)), [-1, 2])
    with pytest.raises(PosencError, match=r"2 functions \(@one, @neg\); name the entry"):
        compile(ir)
    with pytest.raises(PosencError, match="no func.func named 'nope'"):
        compile(ir, entry="nope")
    with pytest.raises(PosencError, match="declaration without a body"):
        compile(ir, entry="declared")


def test_return_argument_and_constant():
    identity = compile("""
func.func @identity(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %a, %c : tensor<4xf32>, tensor<4xf32>
}""")
    a = np.arange(4, dtype=np.float32)
    same, constant = identity(a)
    np.testing.assert_array_equal(same, a)
    np.testing.assert_array_equal(constant, [1, 2, 3, 4])
    assert not np.shares_memory(same, a)


def test_memref_arguments_are_written_in_place():
    fill = compile("""
func.func @fill(%m: memref<2x?xf32>, %v: f32) {
  linalg.fill ins(%v : f32) outs(%m : memref<2x?xf32>)
  return
}""")
    m = np.zeros((2, 5), np.float32)
    assert fill(m, 4.0) is None
    np.testing.assert_array_equal(m, np.full((2, 5), 4.0, np.float32))
    with pytest.raises(PosencError, match="C-contiguous"):
        fill(np.zeros((5, 2), np.float32).T, 1.0)


def test_concurrent_calls(add_4xn):
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(50):
                a = rng.standard_normal((4, 33)).astype(np.float32)
                b = rng.standard_normal((4, 33)).astype(np.float32)
                np.testing.assert_array_equal(add_4xn(a, b), a + b)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_result_buffers_are_freed(add_4xn):
    # Each call returns a 1 MiB buffer malloc'ed by the compiled code; 1000
    # leaked calls would grow the process by ~1 GiB.
    a = np.ones((4, 65536), np.float32)
    for _ in range(50):
        add_4xn(a, a)
    before = _resident_bytes()
    for _ in range(1000):
        result = add_4xn(a, a)
    growth = _resident_bytes() - before
    assert result[3, 65535] == 2.0
    assert growth < 64 * 2**20, f"resident memory grew by {growth / 2**20:.1f} MiB"


def test_signature_and_ir_are_exposed(add_4xn):
    assert add_4xn.name == "add"
    assert add_4xn.signature["arguments"][0] == {
        "kind": "tensor", "type": "tensor<4x?xf32>", "element_type": "f32", "shape": [4, None]}
    assert "llvm.func @_mlir_ciface_add" in add_4xn.lowered_ir
    assert "tensor<4x?xf32>" in repr(add_4xn)


def test_run_pipeline_returns_text():
    lowered = compiler.run_pipeline(ADD_4xN)
    assert "llvm.func @add" in lowered and "linalg.generic" not in lowered
    # A bare pass list is nested into builtin.module(...).
    canonical = compiler.run_pipeline(ADD_4xN, "canonicalize,cse")
    assert "linalg.generic" in canonical


@pytest.mark.parametrize("opt_level", [0, 3])
def test_opt_levels(opt_level):
    f = compile(ADD_4xN, opt_level=opt_level)
    a = np.ones((4, 2), np.float32)
    np.testing.assert_array_equal(f(a, a), 2 * a)


# ------------------------------------------------------------------- errors

def test_parse_error_carries_diagnostics():
    with pytest.raises(PosencError) as info:
        compile("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %0 = arith.addf %a, : tensor<4xf32>\n"
                "  return %0 : tensor<4xf32>\n}\n")
    message = str(info.value)
    assert message.startswith("cannot parse the IR")
    assert "<input>:2:22: error: expected SSA operand" in message
    assert "arith.addf %a, : tensor<4xf32>" in message  # the quoted source line
    assert info.value.diagnostics and "error:" in info.value.diagnostics


def test_verifier_error():
    with pytest.raises(PosencError, match=r"<input>:2:3: error: 'func.return' op"):
        compile("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  return\n}\n")


def test_invalid_pipeline_text():
    with pytest.raises(PosencError, match="'no-such-pass' does not refer to a registered pass"):
        compile(ADD_4xN, pipeline="builtin.module(no-such-pass)")


def test_pass_failure_carries_diagnostics():
    # The transform interpreter fails when the module has no entry sequence.
    with pytest.raises(PosencError) as info:
        compile(ADD_4xN, pipeline="builtin.module(transform-interpreter)")
    message = str(info.value)
    assert message.startswith("pass pipeline 'builtin.module(transform-interpreter)' failed:")
    assert ("error: could not find a nested named sequence with name: __transform_main"
            in info.value.diagnostics)


def test_unlowered_module_fails_to_jit():
    with pytest.raises(PosencError, match="(?s)cannot JIT-compile.*func.func"):
        compile(ADD_4xN, pipeline="builtin.module(canonicalize)")


def test_unresolved_external_symbol():
    with pytest.raises(PosencError, match="external symbols.*posenc_no_such_symbol"):
        compile("""
func.func private @posenc_no_such_symbol(f32) -> f32
func.func @f(%x: f32) -> f32 {
  %y = func.call @posenc_no_such_symbol(%x) : (f32) -> f32
  return %y : f32
}""", entry="f")


def test_unsupported_signature_types():
    with pytest.raises(PosencError, match=r"argument #0 of @f has type vector<4xf32>"):
        compile("func.func @f(%v: vector<4xf32>) { return }")
    with pytest.raises(PosencError, match="element type complex<f32> is not supported"):
        compile("func.func @f(%t: tensor<2xcomplex<f32>>) { return }")
    with pytest.raises(PosencError, match="only memrefs with the identity layout"):
        compile("func.func @f(%m: memref<4xf32, strided<[2]>>) { return }")


def test_bad_compile_options():
    with pytest.raises(PosencError, match="target 'gpu' is not supported"):
        compile(ADD_4xN, target="gpu")
    with pytest.raises(PosencError, match="opt_level"):
        compile(ADD_4xN, opt_level=7)
    with pytest.raises(PosencError, match="shared library '/nonexistent/libx.so' does not exist"):
        compile(ADD_4xN, shared_libs=["/nonexistent/libx.so"])


def test_argument_checks(add_4xn):
    good = np.zeros((4, 3), np.float32)
    with pytest.raises(PosencError, match=r"argument #1 of @add \(tensor<4x\?xf32>\) must have "
                                          r"dtype float32, got float64"):
        add_4xn(good, good.astype(np.float64))
    with pytest.raises(PosencError, match="must have rank 2, got an array of shape"):
        add_4xn(good, np.zeros(12, np.float32))
    with pytest.raises(PosencError, match=r"must have shape 4x\?, got \(3, 3\) \(dim 0 is 3"):
        add_4xn(np.zeros((3, 3), np.float32), good)
    with pytest.raises(PosencError, match="must be a numpy array of float32, got list"):
        add_4xn(good, [[0.0] * 3] * 4)
    with pytest.raises(PosencError, match=r"takes 2 argument\(s\) .* got 1"):
        add_4xn(good)


def test_scalar_argument_checks():
    f = compile("""
func.func @f(%n: index, %k: i32, %x: f32) -> i32 {
  return %k : i32
}""")
    assert f(1, -5, 2.0) == -5
    with pytest.raises(PosencError, match=r"argument #0 of @f \(index\) must be an int, got float"):
        f(1.0, 1, 1.0)
    with pytest.raises(PosencError, match=r"argument #1 of @f \(i32\): 4294967296 is out of range"):
        f(1, 2**32, 1.0)
    with pytest.raises(PosencError, match=r"argument #2 of @f \(f32\) must be a number, got str"):
        f(1, 1, "x")


def test_bf16_dtype_hint():
    f = compile(binary_elementwise("g", "bf16", [2], "    %r = arith.addf %x, %y : bf16"))
    with pytest.raises(PosencError, match="uint16 arrays of bf16 bits"):
        f(np.zeros(2, np.float32), np.zeros(2, np.float32))


def test_import_without_library():
    # `import posenc` must work without a build (the reference needs nothing
    # else); compile then says what is missing.
    env = dict(os.environ, POSENC_BUILD_DIR="/nonexistent-posenc-build")
    env.pop("POSENC_CAPI_LIB", None)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(posenc.__file__))
    code = ("import posenc\n"
            "try:\n"
            "    posenc.compile('func.func @f() { return }')\n"
            "except posenc.PosencError as e:\n"
            "    print('PosencError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert "PosencError: POSENC_BUILD_DIR=/nonexistent-posenc-build has no lib/" in out


# ------------------------------------------------------------ bf16 helpers

def test_bf16_helpers():
    values = np.array([0.0, -0.0, 1.0, -2.5, 3.0e38, np.inf, -np.inf, 1e-40], np.float32)
    bits = to_bf16_bits(values)
    assert bits.dtype == np.uint16 and bits.shape == values.shape
    np.testing.assert_array_equal(from_bf16_bits(bits)[[0, 1, 2, 3, 5, 6]],
                                  values[[0, 1, 2, 3, 5, 6]])
    np.testing.assert_array_equal(bits[:4], [0x0000, 0x8000, 0x3F80, 0xC020])
    assert bits[5] == 0x7F80 and bits[6] == 0xFF80
    # Round to nearest, ties to even: 1 + 2^-8 is halfway between 1 and
    # 1 + 2^-7 and goes to 1; 1 + 3*2^-8 goes up to 1 + 2^-6.
    assert to_bf16_bits(np.float32(1 + 2**-8)) == 0x3F80
    assert to_bf16_bits(np.float32(1 + 3 * 2**-8)) == 0x3F82
    assert to_bf16_bits(np.float32(1 + 2**-8 + 2**-20)) == 0x3F81
    # Overflow rounds to infinity; NaN stays NaN.
    assert to_bf16_bits(np.float32(3.4e38)) == 0x7F80
    assert np.isnan(from_bf16_bits(to_bf16_bits(np.float32(np.nan))))
    # Exactly representable values round-trip.
    exact = from_bf16_bits(np.arange(0, 0x7F80, 37, dtype=np.uint16))
    np.testing.assert_array_equal(from_bf16_bits(to_bf16_bits(exact)), exact)
    with pytest.raises(TypeError):
        from_bf16_bits(np.zeros(2, np.int32))


def test_failed_runtime_check_raises_instead_of_aborting():
    """posenc.rope checks at run time that the positions match the sequence
    dim (both dynamic here); a mismatch is a PosencError with the op's
    message, and the interpreter and the compiled function survive it."""
    rope = compile("""
func.func @rope(%x: tensor<?x4xf32>, %pos: tensor<?xi32>) -> tensor<?x4xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<?x4xf32>, tensor<?xi32>
  return %r : tensor<?x4xf32>
}""")
    x = np.ones((4, 4), np.float32)
    with pytest.raises(PosencError, match="length of 'positions' differs from the sequence dim"):
        rope(x, np.arange(3, dtype=np.int32))
    # The same function still works afterwards.
    out = rope(x, np.zeros(4, dtype=np.int32))
    assert np.array_equal(out, x)
