"""tl.xor_sum (tile.reduce xor) and tl.swizzle2d, in the interpreter
(QUIRE_INTERPRET, in CI) against numpy and Python, compiled for sm_90, and
on the GPU (marked gpu)."""

import os

import pytest

import quire
import quire.language as tl
import helpers
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@quire.jit
def xor_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(out_ptr + r, tl.xor_sum(x, axis=1))
    tl.store(out_ptr + R + c, tl.xor_sum(x, axis=0))
    tl.store(out_ptr + R + C, tl.xor_sum(x))
    tl.store(out_ptr + R + C + 1, tl.xor_sum(x < 0).to(tl.int32))


def xor_reference(x):
    R, C = x.shape
    return np.array(list(np.bitwise_xor.reduce(x, axis=1)) +
                    list(np.bitwise_xor.reduce(x, axis=0)) +
                    [np.bitwise_xor.reduce(x.ravel()),
                     int((x < 0).sum() % 2)], np.int32)


def random_words(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-2**31, 2**31, shape, dtype=np.int64).astype(np.int32)


def test_xor_sum_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = random_words((8, 16), 1)
    out = np.full(26, -1, np.int32)
    xor_kernel[(1,)](x, out, R=8, C=16)
    assert np.array_equal(out, xor_reference(x))


@quire.jit
def xor_float(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr, tl.xor_sum(x))  # ERR:xor


def test_xor_sum_of_floats_is_a_located_error():
    with pytest.raises(quire.CompilationError) as e:
        xor_float.warmup(FakeCudaArray((16,), "<f4"),
                         FakeCudaArray((16,), "<f4"), grid=(1,), sm=90)
    assert "tl.xor_sum needs integers, got tl.float32" in str(e.value)
    line = helpers.marker_line(os.path.abspath(__file__), "xor")
    assert f"test_frontend_xor_swizzle.py:{line}:" in str(e.value)


def test_xor_sum_compiles_to_xor_and_shuffles():
    ptx = xor_kernel.warmup(FakeCudaArray((128,), "<i4"),
                            FakeCudaArray((32,), "<i4"), R=8, C=16,
                            grid=(1,), sm=90).asm["ptx"]
    assert "xor.b32" in ptx and "shfl.sync.bfly" in ptx


@quire.jit
def swizzle_kernel(out_i, out_j, M, N, G: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i, j = tl.swizzle2d(pid // N, pid % N, M, N, G)
    tl.store(out_i + pid, i)
    tl.store(out_j + pid, j)
    # The same on tensors, once per program.
    offs = tl.arange(0, BLOCK)
    ti, tj = tl.swizzle2d(offs // N, offs % N, M, N, G)
    tl.store(out_i + BLOCK + offs, ti, mask=(offs < M * N) & (pid == 0))
    tl.store(out_j + BLOCK + offs, tj, mask=(offs < M * N) & (pid == 0))


def swizzle_reference(M, N, G):
    out = []
    for p in range(M * N):
        i, j = divmod(p, N)
        out.append(tl.swizzle2d(i, j, M, N, G))
    return out


def test_swizzle2d_at_compile_time():
    # Groups of 2 rows of a 5 x 3 grid, walked column by column; the last
    # group has one row.
    assert swizzle_reference(5, 3, 2) == [
        (0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2),
        (2, 0), (3, 0), (2, 1), (3, 1), (2, 2), (3, 2),
        (4, 0), (4, 1), (4, 2)]


@pytest.mark.parametrize("M, N, G", [(5, 3, 2), (8, 8, 4), (7, 5, 3),
                                     (4, 6, 8)])
def test_swizzle2d_in_the_interpreter(monkeypatch, M, N, G):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    oi = np.full(128, -1, np.int32)
    oj = np.full(128, -1, np.int32)
    swizzle_kernel[(M * N,)](oi, oj, M, N, G=G, BLOCK=64)
    ref = swizzle_reference(M, N, G)
    assert list(zip(oi[:M * N], oj[:M * N])) == ref
    assert list(zip(oi[64:64 + M * N], oj[64:64 + M * N])) == ref
    assert sorted(ref) == [(a, b) for a in range(M) for b in range(N)]


@pytest.mark.gpu
def test_gpu_xor_sum_and_swizzle2d():
    torch = helpers.torch_cuda()
    x = random_words((8, 16), 2)
    out = torch.full((26,), -1, dtype=torch.int32, device="cuda")
    xor_kernel[(1,)](torch.from_numpy(x).cuda(), out, R=8, C=16)
    assert np.array_equal(out.cpu().numpy(), xor_reference(x))
    M, N, G = 7, 5, 3
    oi = torch.full((128,), -1, dtype=torch.int32, device="cuda")
    oj = torch.full((128,), -1, dtype=torch.int32, device="cuda")
    swizzle_kernel[(M * N,)](oi, oj, M, N, G=G, BLOCK=64)
    ref = swizzle_reference(M, N, G)
    assert list(zip(oi[:M * N].tolist(), oj[:M * N].tolist())) == ref
