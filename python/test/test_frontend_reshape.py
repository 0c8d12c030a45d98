"""tl.reshape / tl.view / tl.ravel and x.reshape for shapes that differ only
by dimensions of size 1 (what Quire supports: no element moves between
threads), in the interpreter (QUIRE_INTERPRET, in CI), compiled for sm_90,
on the GPU (marked gpu); any other reshape is a located compilation error."""

import os

import pytest

import quire
import quire.language as tl
import helpers
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@quire.jit
def unit_dims(x_ptr, out_ptr, N: tl.constexpr):
    n = tl.arange(0, N)
    col = tl.load(x_ptr + n)[:, None]                  # [N, 1]
    a = tl.reshape(col, [N])                           # [N]
    b = tl.reshape(a, 1, N)                            # [1, N]
    c = b.reshape(N, 1)                                # [N, 1]
    d = tl.ravel(tl.view(c, [1, N, 1]))                # [N]
    tl.store(out_ptr + n, a + 1.0)
    tl.store(out_ptr + N + n[None, :], b * 2.0)
    tl.store(out_ptr + 2 * N + n[:, None], c - 1.0)
    tl.store(out_ptr + 3 * N + n, tl.where(d < 0, d, -d))


def expected(x):
    return np.concatenate([x + 1, x * 2, x - 1, np.where(x < 0, x, -x)])


def test_unit_dimension_reshapes(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    unit_dims[(1,)](x, out, N=16)
    assert np.array_equal(out, expected(x))


def test_compiles_for_sm90():
    k = unit_dims.warmup(FakeCudaArray((16,), "<f4"),
                         FakeCudaArray((64,), "<f4"), N=16, grid=(1,), sm=90)
    assert "st.global" in k.asm["ptx"]


@quire.jit
def moves_elements(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N)[:, None], tl.reshape(x, [N // 2, 2]))  # ERR:move


@quire.jit
def wrong_count(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr, tl.sum(tl.reshape(x, [N, 2])))  # ERR:count


@pytest.mark.parametrize("kernel, name, message", [
    (moves_elements, "move", "tl.reshape from [16] to [8, 2] is not "
     "supported: only dimensions of size 1 may be added or removed"),
    (wrong_count, "count", "tl.reshape: [16] has 16 elements, [16, 2] has 32"),
])
def test_other_reshapes_are_located_errors(kernel, name, message):
    with pytest.raises(quire.CompilationError) as e:
        kernel.warmup(FakeCudaArray((16,), "<f4"), N=16, grid=(1,), sm=90)
    assert message in str(e.value), str(e.value)
    line = helpers.marker_line(os.path.abspath(__file__), name)
    assert f"test_frontend_reshape.py:{line}:" in str(e.value)


@pytest.mark.gpu
def test_gpu_unit_dimension_reshapes():
    torch = helpers.torch_cuda()
    x = np.random.default_rng(1).standard_normal(16).astype(np.float32)
    out = torch.full((64,), float("nan"), device="cuda")
    unit_dims[(1,)](torch.from_numpy(x).cuda(), out, N=16)
    assert np.array_equal(out.cpu().numpy(), expected(x))
