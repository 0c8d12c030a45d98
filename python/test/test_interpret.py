"""quire.interpret: the examples on numpy arrays against float64 references,
in place, with the interpreter's access checks as Python exceptions."""

import pytest

import quire
from conftest import FakeCudaArray, example
from helpers import rel_err

np = pytest.importorskip("numpy")


@pytest.fixture
def rng():
    return np.random.default_rng(20240601)


@pytest.mark.parametrize("n", [1, 1000, 3000, 4096])
def test_vector_add(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 5, np.nan, np.float32)  # poisoned, with a tail
    quire.interpret(example("vector_add.mlir"), ((n + 1023) // 1024,), x, y,
                    out, n)
    assert rel_err(np, out[:n], x.astype(np.float64) + y) < 1e-6
    assert np.isnan(out[n:]).all()  # masked lanes write nothing


def test_interpret_a_compiled_kernel(rng):
    k = quire.compile(example("vector_add.mlir"), sm=90)
    x, y = rng.standard_normal((2, 2048)).astype(np.float32)
    out = np.empty_like(x)
    quire.interpret(k, 2, x, y, out, np.int32(2048))
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("rows, cols", [(1, 1), (5, 1000), (3, 1024)])
def test_softmax(rng, rows, cols):
    x = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    out = np.full_like(x, np.nan)
    quire.interpret(example("softmax.mlir"), (rows,), x, out, cols, cols)
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    assert rel_err(np, out, ref) < 1e-6


def test_softmax_on_strided_views(rng):
    # Rows of 700 inside rows of 1024: the kernel strides over the padding,
    # and the view's memory is all the interpreter lets it touch.
    big = rng.standard_normal((4, 1024)).astype(np.float32)
    x = big[:, :700]
    out = np.full((4, 1024), np.nan, np.float32)
    quire.interpret(example("softmax.mlir"), 4, x, out[:, :700], 1024, 700)
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    assert rel_err(np, out[:, :700], ref) < 1e-6
    assert np.isnan(out[:, 700:]).all()


def test_matmul_ragged(rng):
    M, N, K = 70, 65, 40
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    quire.interpret(example("matmul.mlir"), ((M + 63) // 64, (N + 63) // 64),
                    a, b, c, M, N, K, K, N, N)
    assert rel_err(np, c, a.astype(np.float64) @ b) < 2e-3


def test_out_of_bounds_is_located():
    x = np.zeros(2048, np.float32)
    out = np.zeros(100, np.float32)
    with pytest.raises(quire.InterpreterError) as info:
        quire.interpret(example("vector_add.mlir"), 2, x, x, out, 2048)
    msg = str(info.value)
    assert msg.startswith(example("vector_add.mlir") + ":")
    assert "'tile.store' op out-of-bounds access" in msg
    assert "argument #2" in msg and "in program (0, 0, 0)" in msg


def test_store_into_a_read_only_array():
    x = np.zeros(1024, np.float32)
    out = np.zeros(1024, np.float32)
    out.flags.writeable = False
    with pytest.raises(quire.InterpreterError, match="read-only"):
        quire.interpret(example("vector_add.mlir"), 1, x, x, out, 1024)


@pytest.mark.parametrize("make, exc, message", [
    (lambda: np.zeros(4, np.float64), TypeError, "expected float32 data, got float64"),
    (lambda: np.zeros(4, np.int32), TypeError, "expected float32 data, got int32"),
    (lambda: np.zeros(4, ">f4"), ValueError, "big-endian"),
    (lambda: np.zeros(8, np.float32)[::-1], ValueError, "negative strides"),
    (lambda: [0.0] * 4, TypeError, "expected a numpy array, got list"),
    (lambda: None, TypeError, "expected a numpy array, got None"),
    (lambda: FakeCudaArray((4,)), ValueError, "runs on the CPU; got a CUDA tensor"),
])
def test_pointer_checks(make, exc, message):
    x = np.zeros(4, np.float32)
    with pytest.raises(exc, match=message):
        quire.interpret(example("vector_add.mlir"), 1, make(), x, x, 4)


def test_scalar_and_count_checks():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        quire.interpret(example("vector_add.mlir"), 1, x, x, x)
    with pytest.raises(ValueError, match="does not fit in 32 bits"):
        quire.interpret(example("vector_add.mlir"), 1, x, x, x, 2 ** 40)
    with pytest.raises(TypeError, match="expected an int, got float"):
        quire.interpret(example("vector_add.mlir"), 1, x, x, x, 4.0)


def test_empty_grid_runs_nothing():
    x = np.zeros(4, np.float32)
    out = np.full(4, 7, np.float32)
    quire.interpret(example("vector_add.mlir"), 0, x, x, out, 4)
    assert (out == 7).all()


def test_parse_errors_are_compilation_errors():
    with pytest.raises(quire.CompilationError, match="<string>:1:"):
        quire.interpret("func.func @k( {", 1)


def test_kernel_selection():
    src = """
func.func @one(%p: !tile.ptr<i32>) attributes {tile.kernel} {
  %c = arith.constant 1 : i32
  tile.store %p, %c : !tile.ptr<i32>
  return
}
func.func @two(%p: !tile.ptr<i32>) attributes {tile.kernel} {
  %c = arith.constant 2 : i32
  tile.store %p, %c : !tile.ptr<i32>
  return
}
"""
    out = np.zeros(1, np.int32)
    with pytest.raises(ValueError, match="pass kernel=NAME"):
        quire.interpret(src, 1, out)
    quire.interpret(src, 1, out, kernel="two")
    assert out[0] == 2
    quire.interpret(src, 1, out.view(np.uint32), kernel="one")
    assert out[0] == 1


def test_bf16_as_bit_patterns():
    # numpy has no bfloat16; uint16 arrays carry the bits.
    src = """
func.func @double(%x: !tile.ptr<bf16>, %out: !tile.ptr<bf16>, %s: bf16) attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<4x!tile.ptr<bf16>>
  %xp = tile.addptr %xs, %r : tensor<4x!tile.ptr<bf16>>, tensor<4xi32>
  %v = tile.load %xp : tensor<4x!tile.ptr<bf16>>
  %ss = tile.splat %s : bf16 -> tensor<4xbf16>
  %y = arith.mulf %v, %ss : tensor<4xbf16>
  %os = tile.splat %out : !tile.ptr<bf16> -> tensor<4x!tile.ptr<bf16>>
  %op = tile.addptr %os, %r : tensor<4x!tile.ptr<bf16>>, tensor<4xi32>
  tile.store %op, %y : tensor<4x!tile.ptr<bf16>>
  return
}
"""
    vals = np.array([1.0, -2.5, 3.0, 0.125], np.float32)
    bits = (vals.view(np.uint32) >> 16).astype(np.uint16)
    out = np.zeros(4, np.uint16)
    quire.interpret(src, 1, bits, out, 2.0)
    got = (out.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(got, vals * 2)
