"""fp8 (tl.float8e4nv = torch.float8_e4m3fn, tl.float8e5 = float8_e5m2) in
the frontend, run by the interpreter: every bit pattern converted up,
float32 values rounded down against a reference found by search, constants,
fp8 to fp8, tl.where and tl.dot on fp8 tiles, quire.reinterpret of uint8
bit patterns, and the errors for what fp8 does not do."""

import pytest

import quire
import quire.language as tl
from helpers import from_fp8, to_fp8

np = pytest.importorskip("numpy")

FORMATS = [("e4m3", tl.float8e4nv), ("e5m2", tl.float8e5)]


@pytest.fixture(autouse=True)
def _interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


@quire.jit
def _up(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=m)


@pytest.mark.parametrize("fmt, dt", FORMATS)
@pytest.mark.parametrize("to", [np.float16, np.float32, np.float64])
def test_every_bit_pattern_converts_up(fmt, dt, to):
    bits = np.arange(256, dtype=np.uint8)
    out = np.full(256, np.nan, to)
    out[:] = 12345  # not a value any pattern converts to
    _up[(2,)](quire.reinterpret(bits, dt), out, 256, BLOCK=128)
    ref = from_fp8(np, bits, fmt)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out), nan)
    assert np.array_equal(out[~nan].astype(np.float64), ref[~nan])


@pytest.mark.parametrize("fmt, dt", FORMATS)
@pytest.mark.parametrize("src", [np.float32, np.float16, np.float64])
def test_rounding_down_is_nearest_even_and_saturating(fmt, dt, src):
    rng = np.random.default_rng(7)
    table = from_fp8(np, np.arange(256, dtype=np.uint8), fmt)
    finite = table[np.isfinite(table)]
    # Every value, the midpoints between neighbours (ties), points just
    # off them, random magnitudes over the whole range and past it.
    vals = np.unique(finite)
    mids = (vals[1:] + vals[:-1]) / 2
    x = np.concatenate([vals, mids, mids * (1 + 2 ** -10),
                        mids * (1 - 2 ** -10), [1e6, -1e6, np.inf, -np.inf],
                        np.exp(rng.uniform(-25, 13, 500)) *
                        rng.choice([-1, 1], 500)])
    with np.errstate(over="ignore"):
        x = x.astype(src)  # past float16's range: infinities
    n = x.size
    out = np.zeros(n, np.uint8)
    _up[(quire.cdiv(n, 256),)](x, quire.reinterpret(out, dt), n, BLOCK=256)
    ref = to_fp8(np, x.astype(np.float64), fmt)
    assert np.array_equal(out, ref), np.flatnonzero(out != ref)[:10]


@pytest.mark.parametrize("fmt, dt", FORMATS)
def test_nan_stays_nan(fmt, dt):
    x = np.array([np.nan, -np.nan, 1.0], np.float32)
    out = np.zeros(3, np.uint8)
    _up[(1,)](x, quire.reinterpret(out, dt), 3, BLOCK=4)
    assert np.isnan(from_fp8(np, out[:2], fmt)).all()
    assert from_fp8(np, out[2:], fmt)[0] == 1.0


@quire.jit
def _consts(out_ptr, DT: tl.constexpr, BLOCK: tl.constexpr):
    vals = tl.full([BLOCK], 0.1, DT)
    tl.store(out_ptr + tl.arange(0, BLOCK), vals)
    tl.store(out_ptr + BLOCK, tl.full([], -300.0, DT))
    tl.store(out_ptr + BLOCK + 1, tl.full([], 1e9, DT))
    tl.store(out_ptr + BLOCK + 2, tl.full([], 2.0 ** -12, DT))


@pytest.mark.parametrize("fmt, dt", FORMATS)
def test_constants_round_as_conversions_do(fmt, dt):
    out = np.zeros(11, np.uint8)
    _consts[(1,)](quire.reinterpret(out, dt), DT=dt, BLOCK=8)
    ref = to_fp8(np, np.array([0.1] * 8 + [-300.0, 1e9, 2.0 ** -12]), fmt)
    assert np.array_equal(out, ref)


@quire.jit
def _fp8_to_fp8(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty))


def test_fp8_to_fp8_goes_through_f16():
    bits = np.arange(256, dtype=np.uint8)
    out = np.zeros(256, np.uint8)
    _fp8_to_fp8[(1,)](quire.reinterpret(bits, tl.float8e4nv),
                      quire.reinterpret(out, tl.float8e5), BLOCK=256)
    ref = to_fp8(np, from_fp8(np, bits, "e4m3"), "e5m2")
    # NaN's sign and payload are not specified; its being NaN is.
    assert np.array_equal(from_fp8(np, out, "e5m2"), from_fp8(np, ref, "e5m2"),
                          equal_nan=True)


@quire.jit
def _where_fp8(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.where(offs % 3 == 0, x, y))


def test_where_selects_fp8_values():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, 64, dtype=np.uint8)
    y = rng.integers(0, 256, 64, dtype=np.uint8)
    out = np.zeros(64, np.uint8)
    r = [quire.reinterpret(a, tl.float8e4nv) for a in (x, y, out)]
    _where_fp8[(1,)](*r, BLOCK=64)
    assert np.array_equal(out, np.where(np.arange(64) % 3 == 0, x, y))


@quire.jit
def _dot_fp8(a_ptr, b_ptr, s_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
             K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b) * tl.load(s_ptr)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("fa, da", FORMATS)
@pytest.mark.parametrize("fb, db", FORMATS)
def test_dot_of_fp8_tiles(fa, da, fb, db):
    rng = np.random.default_rng(11)
    a = to_fp8(np, rng.standard_normal((32, 64)) * 4, fa)
    b = to_fp8(np, rng.standard_normal((64, 16)) * 4, fb)
    s = np.array([0.37], np.float32)
    out = np.full((32, 16), np.nan, np.float32)
    _dot_fp8[(1,)](quire.reinterpret(a, da), quire.reinterpret(b, db), s,
                   out, M=32, N=16, K=64)
    ref = (from_fp8(np, a, fa) @ from_fp8(np, b, fb)) * np.float64(s[0])
    assert np.allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_dot_of_fp8_and_bf16_converts_to_bf16():
    @quire.jit
    def k(a_ptr, b_ptr, out_ptr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
        tl.store(out_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))
    rng = np.random.default_rng(5)
    a = to_fp8(np, rng.standard_normal((16, 16)), "e4m3")
    b = rng.integers(-8, 8, (16, 16)).astype(np.float32)
    b16 = (b.view(np.uint32) >> 16).astype(np.uint16)
    out = np.zeros((16, 16), np.float32)
    k[(1,)](quire.reinterpret(a, tl.float8e4nv),
            quire.reinterpret(b16, tl.bfloat16), out)
    assert np.allclose(out, from_fp8(np, a, "e4m3") @ b, rtol=1e-6)


def test_reinterpret_checks_its_arguments():
    with pytest.raises(TypeError, match="uint16 elements are 2 bytes, "
                       "float8_e4m3fn ones 1"):
        quire.reinterpret(np.zeros(4, np.uint16), tl.float8e4nv)
    with pytest.raises(TypeError, match="expected a quire.language dtype"):
        quire.reinterpret(np.zeros(4, np.uint8), "float8_e4m3fn")
    with pytest.raises(TypeError, match="expected a tensor or array"):
        quire.reinterpret([1, 2], tl.float8e4nv)
    w = quire.reinterpret(np.zeros(4, np.uint8), tl.float8e5)
    assert quire.reinterpret(w, tl.int8).base is w.base


def test_a_uint8_array_is_an_int8_pointer_not_fp8():
    bits = np.full(4, 0x38, np.uint8)  # 1.0 in e4m3, 56 as an integer
    out = np.zeros(4, np.float32)
    _up[(1,)](bits, out, 4, BLOCK=4)
    assert (out == 56).all()
    _up[(1,)](quire.reinterpret(bits, tl.float8e4nv), out, 4, BLOCK=4)
    assert (out == 1).all()


def test_fp8_kernels_compile_for_sm90_and_not_sm80(monkeypatch):
    monkeypatch.delenv("QUIRE_INTERPRET")
    args = (quire.reinterpret(np.zeros(4, np.uint8), tl.float8e4nv),
            np.zeros(4, np.float32), 4)
    ptx = _up.warmup(*args, BLOCK=4, sm=90).asm["ptx"]
    assert "cvt.rn.f16x2.e4m3x2" in ptx
    with pytest.raises(quire.CompilationError, match="fp8 conversions need "
                       "sm_89 or later"):
        _up.warmup(*args, BLOCK=4, sm=80)
