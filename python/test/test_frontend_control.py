"""Control flow in @quire.jit kernels: run-time and compile-time if, for and
while loops with carried values, early returns, inlined calls; run by the
interpreter and checked against Python."""

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


@quire.jit
def if_kernel(x_ptr, out_ptr, t):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    y = 0
    if x > t:
        y = x * 2
        z = 1.0
    elif x == t:
        y = x
        z = 2.0
    else:
        z = 3.0
    tl.store(out_ptr + pid * 2, y)
    tl.store(out_ptr + pid * 2 + 1, z.to(tl.int32))


def test_runtime_if_elif_else_merges_values():
    x = np.array([5, 3, 1], np.int32)
    out = np.zeros(6, np.int32)
    if_kernel[(3,)](x, out, 3)
    assert list(out) == [10, 1, 3, 2, 0, 3]


@quire.jit
def ifexp_kernel(x_ptr, out_ptr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    tl.store(out_ptr + pid, x if x > 0 else -x * 10)


def test_runtime_conditional_expression():
    x = np.array([4, -2], np.int32)
    out = np.zeros(2, np.int32)
    ifexp_kernel[(2,)](x, out)
    assert list(out) == [4, 20]


@quire.jit
def constexpr_if_kernel(out_ptr, MODE: tl.constexpr, FLAG: tl.constexpr):
    if MODE == "a" and FLAG:
        v = 1
    elif MODE == "b" or not FLAG:
        v = 2
    else:
        v = 3
    tl.store(out_ptr, v)


def test_constexpr_if_picks_a_branch():
    out = np.zeros(1, np.int32)
    for mode, flag, want in (("a", True, 1), ("b", True, 2), ("a", False, 2),
                             ("c", True, 3)):
        constexpr_if_kernel[(1,)](out, MODE=mode, FLAG=flag)
        assert out[0] == want
    # Each constexpr value is its own specialization; only the taken
    # branch is compiled.
    src = constexpr_if_kernel.warmup(out, MODE="a", FLAG=True).asm["source"]
    assert "scf.if" not in src


@quire.jit
def loop_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    total = 0                       # a number: takes the body's type
    count = 0
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        v = tl.load(x_ptr + start + offs, mask=mask, other=0.0)
        acc += v
        total += tl.sum(v, axis=0)
        count += 1
    tl.store(out_ptr + offs, acc)
    tl.store(out_ptr + BLOCK, total)
    tl.store(out_ptr + BLOCK + 1, count.to(tl.float32))


def test_for_loop_carries_tensors_and_numbers():
    n, B = 1000, 64
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    out = np.zeros(B + 2, np.float32)
    loop_kernel[(1,)](x, out, n, BLOCK=B)
    pad = np.zeros(((n + B - 1) // B) * B, np.float64)
    pad[:n] = x
    np.testing.assert_allclose(out[:B], pad.reshape(-1, B).sum(0), rtol=1e-5)
    assert abs(out[B] - x.astype(np.float64).sum()) < 1e-3
    assert out[B + 1] == 16


@quire.jit
def pointer_loop_kernel(x_ptr, out_ptr, n_tiles, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.int32)
    for _ in range(n_tiles):
        acc += tl.load(ptrs)
        ptrs += BLOCK
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_loop_carried_pointers():
    x = np.arange(256, dtype=np.int32)
    out = np.zeros(64, np.int32)
    pointer_loop_kernel[(1,)](x, out, 4, BLOCK=64)
    np.testing.assert_array_equal(out, x.reshape(4, 64).sum(0))


@quire.jit
def step_kernel(out_ptr, lo, hi):
    s = 0
    for i in range(hi, lo, -3):       # a negative constexpr step
        s += i
    tl.store(out_ptr, s)
    t = 0
    for i in tl.static_range(4):      # unrolled: i is a constexpr
        tl.static_assert(isinstance(i, int))
        t += i * 10
    tl.store(out_ptr + 1, t)
    u = 0
    for i in range(lo, hi, 2):
        u += i
    tl.store(out_ptr + 2, u)


def test_loop_steps():
    out = np.zeros(3, np.int32)
    step_kernel[(1,)](out, 2, 20)
    assert list(out) == [sum(range(20, 2, -3)), 60, sum(range(2, 20, 2))]


@quire.jit
def wide_step_kernel(out_ptr, hi, lo, STEP: tl.constexpr):
    n = 0
    last = 0
    for i in range(hi, lo, STEP):
        n += 1
        last = i
    tl.store(out_ptr, n)
    tl.store(out_ptr + 1, last)


@pytest.mark.parametrize("hi,lo,step", [(2**31 - 1, 0, -2**30),
                                        (1_100_000_000, -1_100_000_000,
                                         -2**29),
                                        (2**31 - 1, -2**31, -2**31 + 1),
                                        (0, 2**31 - 1, -1)])
def test_negative_step_spans_past_int32(hi, lo, step):
    """hi - lo and the count pass 2**31 while every i fits int32: the
    count is not wrapped (it was 0 iterations)."""
    out = np.full(2, -7, np.int32)
    wide_step_kernel[(1,)](out, hi, lo, STEP=step)
    r = range(hi, lo, step)
    assert list(out) == [len(r), r[-1] if r else 0]


@quire.jit
def nested_loop_kernel(out_ptr, n, m):
    acc = 0
    for i in range(n):
        for j in range(m):
            if (i + j) % 2 == 0:
                acc += i * j
    tl.store(out_ptr, acc)


def test_nested_loops_with_if():
    out = np.zeros(1, np.int32)
    nested_loop_kernel[(1,)](out, 7, 5)
    assert out[0] == sum(i * j for i in range(7) for j in range(5)
                         if (i + j) % 2 == 0)


@quire.jit
def search_kernel(sorted_ptr, n, keys_ptr, out_ptr):
    """The first index whose value is > key (a while-loop binary search, as
    serving kernels find a token's sequence in query_start_loc)."""
    pid = tl.program_id(0)
    key = tl.load(keys_ptr + pid)
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if tl.load(sorted_ptr + mid) <= key:
            lo = mid + 1
        else:
            hi = mid
    tl.store(out_ptr + pid, lo)


def test_while_binary_search():
    starts = np.array([0, 3, 3, 9, 20, 21], np.int32)
    keys = np.array([0, 2, 3, 8, 9, 19, 20, 25], np.int32)
    out = np.zeros(len(keys), np.int32)
    search_kernel[(len(keys),)](starts, len(starts), keys, out)
    np.testing.assert_array_equal(out, np.searchsorted(starts, keys, "right"))


@quire.jit
def early_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if pid == 1:
        tl.store(out_ptr + offs, -1.0, mask=offs < n)
        return
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2,
             mask=offs < n)


def test_early_return():
    x = np.arange(100, dtype=np.float32)
    out = np.full(100, np.nan, np.float32)
    early_return_kernel[(5,)](x, out, 100, BLOCK=32)
    want = x * 2
    want[32:64] = -1
    np.testing.assert_array_equal(out, want)


@quire.jit
def _scaled(x, factor):
    return x * factor


@quire.jit
def _minmax(a, b):
    if a < b:
        return a, b
    return b, a


@quire.jit
def _sign_or_zero(x, ZERO_OK: tl.constexpr = True):
    if ZERO_OK:
        if x == 0:
            return 0
    return tl.where(x > 0, 1, -1)


@quire.jit
def calls_kernel(x_ptr, out_ptr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    lo, hi = _minmax(x, 10)
    tl.store(out_ptr + pid * 4, _scaled(x, 3))
    tl.store(out_ptr + pid * 4 + 1, lo)
    tl.store(out_ptr + pid * 4 + 2, hi)
    tl.store(out_ptr + pid * 4 + 3, _sign_or_zero(x))


def test_inlined_calls_with_return_values():
    x = np.array([4, 15, 0, -3], np.int32)
    out = np.zeros(16, np.int32)
    calls_kernel[(4,)](x, out)
    assert out.reshape(4, 4).tolist() == [
        [12, 4, 10, 1], [45, 10, 15, 1], [0, 0, 10, 0], [-9, -3, 10, -1]]


@quire.jit
def default_args_kernel(out_ptr, A: tl.constexpr = 5, B: tl.constexpr = 7):
    tl.store(out_ptr, A * B)


def test_constexpr_defaults():
    out = np.zeros(1, np.int32)
    default_args_kernel[(1,)](out)
    assert out[0] == 35
    default_args_kernel[(1,)](out, B=2)
    assert out[0] == 10


@quire.jit
def reused_names_kernel(out_ptr, n):
    acc = 0
    for i in range(0, n):
        t = i * 2
        acc += t
    for i in range(0, n):      # t is local to each loop
        t = i * 3
        acc += t
    if n > 2:
        u = n * 2
        acc += u
    for i in range(0, n):      # u was assigned in one branch only
        u = i
        acc += u
    tl.store(out_ptr, acc)


def test_names_local_to_earlier_loops_and_branches_can_be_reused():
    out = np.zeros(1, np.int32)
    reused_names_kernel[(1,)](out, 4)
    assert out[0] == sum(i * 2 for i in range(4)) + \
        sum(i * 3 for i in range(4)) + 8 + sum(range(4))


@quire.jit
def while_tensor_kernel(a_ptr, out_ptr, n, DOT: tl.constexpr):
    """A while loop carrying a tile: a row sum's running total or, with
    DOT, a dot's accumulator (whose mma layout the loop's regions share)."""
    o = tl.arange(0, 16)
    a = tl.load(a_ptr + o[:, None] * 16 + o[None, :])
    i = 0
    if DOT:
        acc = tl.zeros((16, 16), tl.float32)
        while i < n:
            acc = tl.dot(a, a, acc)
            i += 1
        tl.store(out_ptr + o[:, None] * 16 + o[None, :], acc)
    else:
        acc = tl.zeros((16,), tl.float32)
        while i < n:
            acc = acc + tl.sum(a.to(tl.float32), 1)
            i += 1
        tl.store(out_ptr + o, acc)


@pytest.mark.parametrize("dot", [False, True])
def test_while_carries_a_tile(dot, monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    out = np.full((16, 16) if dot else (16,), np.nan, np.float32)
    while_tensor_kernel[(1,)](a, out, 3, DOT=dot)
    a64 = a.astype(np.float64)
    want = 3 * (a64 @ a64) if dot else 3 * a64.sum(1)
    np.testing.assert_array_equal(out, want)
    # And for the GPU, where the loop's tiles take their layouts.
    monkeypatch.delenv("QUIRE_INTERPRET")
    ptx = while_tensor_kernel.warmup(
        FakeCudaArray((256,), "<f2"), FakeCudaArray(out.shape, "<f4"), 3,
        DOT=dot, grid=(1,), sm=90).asm["ptx"]
    assert ("mma.sync" in ptx) == dot
