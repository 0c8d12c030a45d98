"""quire.language constructs, each in a small @quire.jit kernel run by the
reference interpreter (QUIRE_INTERPRET) and checked against numpy."""

import math

import pytest

import quire
import quire.language as tl

np = pytest.importorskip("numpy")


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# --- elementwise arithmetic, promotion, C integer semantics ---------------

@quire.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    if OP == "add":
        r = x + y
    elif OP == "sub":
        r = x - y
    elif OP == "mul":
        r = x * y
    elif OP == "div":
        r = x / y
    elif OP == "floordiv":
        r = x // y
    elif OP == "mod":
        r = x % y
    elif OP == "and":
        r = x & y
    elif OP == "or":
        r = x | y
    elif OP == "xor":
        r = x ^ y
    elif OP == "shl":
        r = x << (y & 7)
    elif OP == "shr":
        r = x >> (y & 7)
    elif OP == "max":
        r = tl.maximum(x, y)
    elif OP == "min":
        r = tl.minimum(x, y)
    elif OP == "lt":
        r = x < y
    elif OP == "ge":
        r = x >= y
    elif OP == "eq":
        r = x == y
    elif OP == "ne":
        r = x != y
    else:
        tl.static_assert(False, "unknown op")
    tl.store(out_ptr + offs, r, mask=mask)


def _c_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


INT_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b, "floordiv": _c_div,
    "mod": lambda a, b: a - _c_div(a, b) * b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "shl": lambda a, b: a << (b & 7),
    "shr": lambda a, b: a >> (b & 7), "max": np.maximum, "min": np.minimum,
    "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
}


@pytest.mark.parametrize("op", sorted(INT_OPS))
def test_int32_ops_have_c_semantics(rng, op):
    n = 300
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    y = rng.integers(-50, 50, n).astype(np.int32)
    y[y == 0] = 3
    x[:4], y[:4] = [-7, 7, -7, 7], [2, -2, -2, 2]
    want = INT_OPS[op](x.astype(np.int64), y.astype(np.int64))
    out = np.zeros(n, np.bool_ if want.dtype == np.bool_ else np.int32)
    binary_kernel[(3,)](x, y, out, n, OP=op, BLOCK=128)
    np.testing.assert_array_equal(out, want.astype(out.dtype))


FLOAT_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
             "div": np.divide, "mod": np.fmod, "max": np.fmax,
             "min": np.fmin, "lt": np.less, "ne": np.not_equal}


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_float32_ops(rng, op):
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    y = (rng.standard_normal(n) + 3).astype(np.float32)
    want = FLOAT_OPS[op](x.astype(np.float64), y.astype(np.float64))
    out = np.zeros(n, np.bool_ if want.dtype == np.bool_ else np.float32)
    binary_kernel[(2,)](x, y, out, n, OP=op, BLOCK=128)
    if out.dtype == np.bool_:
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


@quire.jit
def promote_kernel(a_ptr, b_ptr, out_ptr, KIND: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if KIND == 0:
        r = a + b            # f16 + f32 -> f32
    elif KIND == 1:
        r = a * 2            # f16 * python int -> f16
    elif KIND == 2:
        r = a + 1.5          # f16 + python float -> f16
    else:
        r = a / 2            # f16 / int -> f32 (Triton divides in f32)
    tl.static_assert(r.dtype == (tl.float32 if KIND in (0, 3) else
                                 tl.float16))
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_type_promotion_follows_triton(rng, kind):
    a = rng.standard_normal(16).astype(np.float16)
    b = rng.standard_normal(16).astype(np.float32)
    dt = np.float32 if kind in (0, 3) else np.float16
    out = np.zeros(16, dt)
    promote_kernel[(1,)](a, b, out, KIND=kind)
    want = [a.astype(np.float32) + b, a * np.float16(2), a + np.float16(1.5),
            a.astype(np.float32) / 2][kind]
    np.testing.assert_allclose(out, want, rtol=1e-3)


@quire.jit
def int_literal_kernel(out_ptr, x):
    big = x + 5000000000       # does not fit 32 bits: int64
    tl.static_assert(big.dtype == tl.int64)
    small = x + 3              # int32
    tl.static_assert(small.dtype == tl.int32)
    tl.store(out_ptr, big)
    tl.store(out_ptr + 1, small.to(tl.int64))


def test_python_ints_are_int32_unless_they_need_int64():
    out = np.zeros(2, np.int64)
    int_literal_kernel[(1,)](out, 5)
    assert list(out) == [5000000005, 8]


@quire.jit
def unary_kernel(x_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    if OP == "neg":
        r = -x
    elif OP == "invert":
        r = ~x
    elif OP == "not":
        r = not x
    elif OP == "pow":
        r = x ** 3
    tl.store(out_ptr + offs, r)


def test_unary_ops(rng):
    x = rng.integers(-100, 100, 64).astype(np.int32)
    for op, want in (("neg", -x), ("invert", ~x), ("pow", x ** 3)):
        out = np.zeros(64, np.int32)
        unary_kernel[(1,)](x, out, OP=op)
        np.testing.assert_array_equal(out, want)
    out = np.zeros(64, np.bool_)
    unary_kernel[(1,)](x, out, OP="not")
    np.testing.assert_array_equal(out, x == 0)


@quire.jit
def logic_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    r = (x > 0 and x < 10) or x == -5
    tl.store(out_ptr + offs, r)


def test_and_or_on_tensors(rng):
    x = rng.integers(-20, 20, 64).astype(np.int32)
    out = np.zeros(64, np.bool_)
    logic_kernel[(1,)](x, out)
    np.testing.assert_array_equal(out, ((x > 0) & (x < 10)) | (x == -5))


# --- math ------------------------------------------------------------------

MATH = {
    "exp": (tl.exp, np.exp), "exp2": (tl.exp2, np.exp2),
    "log": (tl.log, np.log), "log2": (tl.log2, np.log2),
    "sqrt": (tl.sqrt, np.sqrt), "rsqrt": (tl.rsqrt, lambda v: 1 / np.sqrt(v)),
    "abs": (tl.abs, np.abs), "sigmoid": (tl.sigmoid,
                                         lambda v: 1 / (1 + np.exp(-v))),
    "sin": (tl.sin, np.sin), "cos": (tl.cos, np.cos),
    "floor": (tl.floor, np.floor), "ceil": (tl.ceil, np.ceil),
    "math_exp": (tl.math.exp, np.exp), "math_log2": (tl.math.log2, np.log2),
}


@quire.jit
def math_kernel(x_ptr, out_ptr, FN: tl.constexpr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, FN(x))


@pytest.mark.parametrize("name", sorted(MATH))
def test_math_functions(rng, name):
    fn, ref = MATH[name]
    x = rng.uniform(0.1, 4, 128).astype(np.float32)
    if name in ("abs", "floor", "ceil", "sin", "cos", "sigmoid"):
        x = (x - 2) * 3
    out = np.zeros(128, np.float32)
    math_kernel[(1,)](x, out, FN=fn)
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=2e-6,
                               atol=1e-6)


@quire.jit
def where_clamp_kernel(x_ptr, out_ptr, lo, hi):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y = tl.where(x > 0, x, 0.0)
    z = tl.clamp(x, lo, hi)
    f = tl.fma(x, x, 1.0)
    tl.store(out_ptr + offs, y)
    tl.store(out_ptr + 64 + offs, z)
    tl.store(out_ptr + 128 + offs, f)


def test_where_clamp_fma(rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(192, np.float32)
    where_clamp_kernel[(1,)](x, out, -0.5, 0.5)
    np.testing.assert_array_equal(out[:64], np.where(x > 0, x, 0))
    np.testing.assert_array_equal(out[64:128], np.clip(x, -0.5, 0.5))
    np.testing.assert_allclose(out[128:], x * x + 1, rtol=1e-6)


# --- shapes, broadcasting, reductions --------------------------------------

@quire.jit
def outer_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm)
    y = tl.load(y_ptr + rn)
    prod = x[:, None] * y[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], prod)
    t = tl.trans(prod)
    tl.store(out_ptr + M * N + rn[:, None] * M + rm[None, :], t)
    e = tl.expand_dims(x, 1) + tl.zeros((M, N), tl.float32)
    tl.store(out_ptr + 2 * M * N + rm[:, None] * N + rn[None, :], e.T.T)


def test_indexing_broadcasting_and_trans(rng):
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(3 * 16 * 32, np.float32)
    outer_kernel[(1,)](x, y, out, M=16, N=32)
    o = np.outer(x, y)
    np.testing.assert_allclose(out[:512].reshape(16, 32), o, rtol=1e-6)
    np.testing.assert_allclose(out[512:1024].reshape(32, 16), o.T, rtol=1e-6)
    np.testing.assert_array_equal(out[1024:].reshape(16, 32),
                                  np.repeat(x[:, None], 32, 1))


@quire.jit
def reduce_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rm, tl.sum(x, axis=1))
    tl.store(out_ptr + M + rn, tl.max(x, axis=0))
    tl.store(out_ptr + M + N + rm, tl.min(x, 1))
    tl.store(out_ptr + 2 * M + N + rn, tl.argmax(x, axis=0).to(tl.float32))
    tl.store(out_ptr + 2 * M + 2 * N + rm, tl.argmin(x, axis=1).to(tl.float32))
    tl.store(out_ptr + 3 * M + 2 * N, tl.sum(x))
    k = tl.sum(x, axis=1, keep_dims=True)
    tl.static_assert(k.shape == (M, 1))
    tl.store(out_ptr + 3 * M + 2 * N + 1 + rm[:, None], k)
    tl.store(out_ptr + 4 * M + 2 * N + 1, x.max())
    m, i = tl.max(x, axis=1, return_indices=True)
    tl.store(out_ptr + 4 * M + 2 * N + 2 + rm, i.to(tl.float32))


def test_reductions(rng):
    M, N = 8, 16
    x = rng.standard_normal((M, N)).astype(np.float32)
    x[3, 5] = x[3].max()  # a tie: the first index wins
    out = np.zeros(5 * M + 2 * N + 2, np.float32)
    reduce_kernel[(1,)](x, out, M=M, N=N)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out[:M], xd.sum(1), rtol=1e-5)
    np.testing.assert_array_equal(out[M:M + N], x.max(0))
    np.testing.assert_array_equal(out[M + N:2 * M + N], x.min(1))
    np.testing.assert_array_equal(out[2 * M + N:2 * M + 2 * N], x.argmax(0))
    np.testing.assert_array_equal(out[2 * M + 2 * N:3 * M + 2 * N],
                                  x.argmin(1))
    assert abs(out[3 * M + 2 * N] - xd.sum()) < 1e-4
    np.testing.assert_allclose(out[3 * M + 2 * N + 1:4 * M + 2 * N + 1],
                               xd.sum(1), rtol=1e-5)
    assert out[4 * M + 2 * N + 1] == x.max()
    np.testing.assert_array_equal(out[4 * M + 2 * N + 2:], x.argmax(1))


@quire.jit
def int_sum_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    s = tl.sum(x, axis=0)
    tl.static_assert(s.dtype == tl.int32)   # int8 sums as int32
    tl.store(out_ptr, s)


def test_small_int_sums_widen():
    x = np.full(128, 100, np.int8)
    out = np.zeros(1, np.int32)
    int_sum_kernel[(1,)](x, out)
    assert out[0] == 12800


# --- dot -------------------------------------------------------------------

@quire.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
               K: tl.constexpr, ACC: tl.constexpr, OUT: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if ACC:
        acc = tl.full((M, N), 1.0, tl.float32)
        c = tl.dot(a, b, acc)
    else:
        c = tl.dot(a, b, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("acc, out_dtype", [(True, tl.float32),
                                            (False, tl.float32),
                                            (False, tl.float16)])
def test_dot(rng, acc, out_dtype):
    M, N, K = 32, 16, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16 if out_dtype == tl.float16 else
                 np.float32)
    dot_kernel[(1,)](a, b, c, M=M, N=N, K=K, ACC=acc, OUT=out_dtype)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (1.0 if acc else 0.0)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 2e-3


# --- casts, dtypes, constants ----------------------------------------------

@quire.jit
def cast_kernel(x_ptr, i_ptr, f_ptr, b_ptr, h_ptr):
    offs = tl.arange(0, 32)
    x = tl.load(x_ptr + offs)
    tl.static_assert(x.dtype.is_floating() and not x.dtype.is_fp8())
    tl.store(i_ptr + offs, x.to(tl.int32))
    tl.store(f_ptr + offs, x.to(tl.int32).to(tl.float32))
    tl.store(b_ptr + offs, x.to(tl.int1))
    tl.store(h_ptr + offs, x.to(tl.float16).to(tl.float32))
    bits = x.to(tl.int32, bitcast=True)
    tl.store(i_ptr + 32 + offs, bits)


def test_casts(rng):
    x = (rng.standard_normal(32) * 10).astype(np.float32)
    x[0] = 0.0
    i = np.zeros(64, np.int32)
    f = np.zeros(32, np.float32)
    b = np.zeros(32, np.bool_)
    h = np.zeros(32, np.float32)
    cast_kernel[(1,)](x, i, f, b, h)
    np.testing.assert_array_equal(i[:32], x.astype(np.int32))
    np.testing.assert_array_equal(f, x.astype(np.int32).astype(np.float32))
    np.testing.assert_array_equal(b, x != 0)
    np.testing.assert_array_equal(h, x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(i[32:], x.view(np.int32))


@quire.jit
def full_kernel(out_ptr, v, DT: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.full((16,), 7, DT)
    c = tl.full((16,), v, tl.float32)
    z = tl.zeros_like(c)
    tl.store(out_ptr + offs, a + c + z)


def test_full_and_zeros():
    out = np.zeros(16, np.float32)
    full_kernel[(1,)](out, 0.25, DT=tl.int16)
    np.testing.assert_array_equal(out, np.full(16, 7.25, np.float32))


@quire.jit
def cdiv_kernel(out_ptr, n, B: tl.constexpr):
    tl.store(out_ptr, tl.cdiv(n, B))
    tl.store(out_ptr + 1, tl.cdiv(B * 3 + 1, B))


def test_cdiv_at_compile_and_run_time():
    out = np.zeros(2, np.int32)
    cdiv_kernel[(1,)](out, 1000, B=64)
    assert list(out) == [16, 4]


@quire.jit
def scalar_kernel(x_ptr, out_ptr, n, scale):
    acc = 0.0
    for i in range(n):
        acc += tl.load(x_ptr + i) * scale
    tl.store(out_ptr, acc)


def test_scalar_loads_and_float_args(rng):
    x = rng.standard_normal(10).astype(np.float32)
    out = np.zeros(1, np.float32)
    scalar_kernel[(1,)](x, out, 10, 0.5)
    assert abs(out[0] - x.astype(np.float64).sum() * 0.5) < 1e-5


@quire.jit
def mask_other_kernel(x_ptr, out_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.0)
    tl.store(out_ptr + offs, x)
    tl.store(out_ptr + 64 + offs, x, mask=offs >= n)


def test_masks_read_other_and_skip_stores():
    x = np.arange(64, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    mask_other_kernel[(1,)](x, out, 40)
    np.testing.assert_array_equal(out[:40], x[:40])
    assert (out[40:64] == -1).all()
    assert np.isnan(out[64:104]).all() and (out[104:] == -1).all()


@quire.jit
def program_kernel(out_ptr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    tl.store(out_ptr + pid, pid + 100 * tl.num_programs(1))


def test_program_id_and_num_programs():
    out = np.zeros(6, np.int32)
    program_kernel[(3, 2)](out)
    np.testing.assert_array_equal(out, np.arange(6) + 200)


@quire.jit
def softmax_builtin_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 32)
    tl.store(out_ptr + offs, tl.softmax(tl.load(x_ptr + offs)))


def test_softmax_builtin(rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    softmax_builtin_kernel[(1,)](x, out)
    ref = np.exp(x - x.max())
    np.testing.assert_allclose(out, ref / ref.sum(), rtol=1e-5)


@quire.jit
def hints_kernel(x_ptr, out_ptr, n):
    offs = tl.program_id(0) * 64 + tl.arange(0, 64)
    offs = tl.max_contiguous(tl.multiple_of(offs, 64), 64)
    tl.debug_barrier()
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_hints_and_barrier_keep_results(rng):
    x = rng.standard_normal(100).astype(np.float32)
    out = np.zeros(100, np.float32)
    hints_kernel[(2,)](x, out, 100)
    np.testing.assert_array_equal(out, x)


@quire.jit
def assert_kernel(x_ptr, n):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x < n, "x must be small")


def test_device_assert_reports_in_the_interpreter():
    x = np.arange(16, dtype=np.int32)
    assert_kernel[(1,)](x, 100)
    with pytest.raises(quire.InterpreterError, match="x must be small"):
        assert_kernel[(1,)](x, 10)


@quire.jit
def annotated_kernel(out_ptr, x: tl.int64, y: tl.float64):
    tl.static_assert(x.dtype == tl.int64 and y.dtype == tl.float64)
    tl.store(out_ptr, x.to(tl.float64) + y)


def test_parameter_annotations_set_types():
    out = np.zeros(1, np.float64)
    annotated_kernel[(1,)](out, 2**40, 0.5)
    assert out[0] == 2.0**40 + 0.5


@quire.jit
def uint_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, (x >> 1) + (x // 3) + (x < 5))
    tl.store(out_ptr + 16, tl.max(x, axis=0))


def test_unsigned_ints_use_unsigned_ops():
    x = np.array([0xFFFFFFF0, 1, 2, 7] * 4, np.uint32)
    out = np.zeros(17, np.uint32)
    uint_kernel[(1,)](x, out)
    xd = x.astype(np.uint64)
    np.testing.assert_array_equal(out[:16],
                                  ((xd >> 1) + xd // 3 + (xd < 5)) % 2**32)
    assert out[16] == 0xFFFFFFF0


GLOBAL_SCALE = tl.constexpr(3)


@quire.jit
def global_kernel(out_ptr):
    tl.store(out_ptr + tl.arange(0, 4), tl.arange(0, 4) * GLOBAL_SCALE)


def test_global_constexprs():
    out = np.zeros(4, np.int32)
    global_kernel[(1,)](out)
    assert list(out) == [0, 3, 6, 9]


def test_math_module_matches_language():
    assert tl.math.exp is tl.exp
    assert math.isclose(quire.cdiv(10, 3), 4)
    assert quire.next_power_of_2(33) == 64


@quire.jit
def argmax_nan_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(out_ptr, tl.argmax(x, axis=0))


def test_argmax_with_nan_is_the_first_nan():
    x = np.array([1, 5, np.nan, 2, np.nan, 0, 0, 0], np.float32)
    out = np.zeros(1, np.int32)
    argmax_nan_kernel[(1,)](x, out)
    assert out[0] == 2


@quire.jit
def index_kernel(x_ptr, out_ptr, T: tl.constexpr):
    r = tl.arange(0, 4)
    tl.static_assert(r[None].shape == (1, 4))
    tl.static_assert(T[1:] == (2, 3))
    tl.store(out_ptr + r[None], r[None])
    tl.store(out_ptr + 16 + tl.arange(0, 2), tl.full((2,), 1.5, tl.int32))
    tl.store(out_ptr + 18, 2.7)


def test_none_indexing_tuple_slices_and_float_to_int():
    out = np.zeros(19, np.int32)
    index_kernel[(1,)](out, out, T=(1, 2, 3))
    assert list(out[:4]) == [0, 1, 2, 3]
    assert list(out[16:19]) == [1, 1, 2]
