"""enable_fp_fusion (Triton's launch option, default True; quirec
--fp-fusion; quire.compile and the C API): multiplies and adds contract into
fma unless it is False. The PTX shows it, the option is validated and part
of the caches' keys, the interpreter accepts it, and on the GPU the fused
kernel rounds x * a + y once, the unfused one twice."""

import re

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@quire.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * a + y, mask=mask)


def _warmup(**options):
    n = 4096
    args = (FakeCudaArray((n,)), FakeCudaArray((n,)), FakeCudaArray((n,)),
            1.5, n)
    return axpy_kernel.warmup(*args, grid=(1,), sm=90, BLOCK=1024, **options)


def test_fused_by_default():
    ptx = _warmup().asm["ptx"]
    assert re.search(r"fma\.rn\.f32", ptx)
    assert not re.search(r"mul\.rn\.f32", ptx)


def test_unfused_when_disabled():
    ptx = _warmup(enable_fp_fusion=False).asm["ptx"]
    assert not re.search(r"fma\.rn\.f32", ptx)
    assert re.search(r"mul\.rn\.f32", ptx)
    assert re.search(r"add\.rn\.f32", ptx)


def test_option_is_validated_and_keyed():
    assert _warmup(enable_fp_fusion=True) is not \
        _warmup(enable_fp_fusion=False)
    with pytest.raises(TypeError, match="enable_fp_fusion must be True or "
                                        "False, got int"):
        _warmup(enable_fp_fusion=1)
    src = "func.func @k() attributes {tile.kernel} { return }"
    with pytest.raises(TypeError, match="enable_fp_fusion must be True or "
                                        "False"):
        quire.compile(src, sm=90, enable_fp_fusion="yes")
    on = quire.compile(src, sm=90)
    off = quire.compile(src, sm=90, enable_fp_fusion=False)
    assert on is not off and not off.enable_fp_fusion


def test_interpreter_accepts_the_option(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    rng = np.random.default_rng(5)
    n = 1000
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    out = np.full(n, np.nan, np.float32)
    axpy_kernel[(1,)](x, y, out, 1.5, n, BLOCK=1024, enable_fp_fusion=False)
    np.testing.assert_allclose(out, x.astype(np.float64) * 1.5 + y,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
def test_rounding_on_the_gpu():
    import torch
    n = 1 << 16
    gen = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    a = 1.0 / 3.0
    outs = {}
    for fused in (True, False):
        out = torch.full((n,), float("nan"), device="cuda")
        axpy_kernel[(n // 1024,)](x, y, out, a, n, BLOCK=1024,
                                  enable_fp_fusion=fused)
        outs[fused] = out.cpu().numpy()
    xs, ys = x.cpu().numpy(), y.cpu().numpy()
    a32 = np.float32(a)
    once = (xs.astype(np.float64) * np.float64(a32) + ys).astype(np.float32)
    twice = (xs * a32).astype(np.float32) + ys
    # One rounding of the exact x * a + y against two: they differ on a
    # good share of the elements, and each kernel matches its own.
    assert np.mean(once != twice) > 0.01
    assert np.mean(outs[True] == once) > 0.999
    assert np.array_equal(outs[False], twice)
