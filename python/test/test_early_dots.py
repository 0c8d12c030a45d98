"""early_dots: in the fused-attention tutorial's loop (Triton's 06, under
Quire) the scores dot of iteration i + 1 is issued, async, while iteration
i computes its softmax (quire-early-dots). The PTX has the shape (an async
group left in flight over the softmax, retired before the back edge), ptxas
keeps it without serializing, the option is validated and part of the
caches' keys, the interpreter accepts it, and on the GPU the kernel agrees
with float64."""

import importlib.util
import os
import re

import pytest

import quire
from conftest import FakeCudaArray, ptxas_sm90a

np = pytest.importorskip("numpy")

TUTORIAL = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tutorials", "06-fused-attention.py")


def tutorial():
    spec = importlib.util.spec_from_file_location("early_dots_attention",
                                                  TUTORIAL)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def _strides(shape):
    s, out = 1, []
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


def warmup(m, stage=1, num_stages=3, D=128, block_m=128, warps=8,
           **options):
    """The tutorial compiled for sm_90 (not launched) with launch
    `options`."""
    Z, H, N = 2, 4, 1024
    shape = (Z, H, N, D)
    q, k, v, o = (FakeCudaArray(shape, "<f2") for _ in range(4))
    lse = FakeCudaArray((Z, H, N), "<f4")
    st = _strides(shape)
    return m._attn_fwd.warmup(
        q, k, v, 0.1, lse, o, *st, *st, *st, *st, Z, H, N, HEAD_DIM=D,
        BLOCK_M=block_m, BLOCK_N=64, STAGE=stage, num_warps=warps,
        num_stages=num_stages, grid=(1,), sm=90, **options)


def _warmup(m, early_dots, stage=1, num_stages=3, D=128):
    return warmup(m, stage, num_stages, D, early_dots=early_dots)


def _async_dots(tile):
    return re.findall(r"tile\.warpgroup_dot .*[{ ]async,", tile)


def _wgmma_waits(ptx):
    return re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", ptx)


@pytest.mark.parametrize("stage", [1, 3])
def test_the_next_scores_run_over_the_softmax(stage):
    m = tutorial()
    on, off = _warmup(m, True, stage), _warmup(m, False, stage)
    tile = on.asm["tile"]
    # One early dot per loop (the causal kernel has two loops), and its
    # wait before each back edge.
    loops = 2 if stage == 3 else 1
    assert len(_async_dots(tile)) == loops
    assert not _async_dots(off.asm["tile"])
    # The query, the early dots' A, is stored once into shared memory and
    # read from there by every scores dot (the prologue's and the early
    # ones), as every loop-invariant A is (docs/passes.md, "Loop-invariant
    # A operands of wgmma loops").
    assert tile.count("tile.local_store") == 1
    assert tile.count("a_stages = 1") == 2 * loops
    assert off.asm["tile"].count("tile.local_store") == 1
    assert off.asm["tile"].count("a_stages = 1") == loops
    # Each loop: the prologue's synchronous dot, the PV dot's wait and the
    # early dot's wait (pending 0: the PV wait already retired it).
    assert _wgmma_waits(on.asm["ptx"]) == ["0"] * (3 * loops)
    assert _wgmma_waits(off.asm["ptx"]) == ["0"] * (2 * loops)


def test_ptxas_keeps_the_group_in_flight():
    report = ptxas_sm90a(_warmup(tutorial(), True, 3).asm["ptx"],
                         "early_dots_attention")
    # C7515: wgmmas serialized; C7517: a wait injected before a read.
    assert "C7515" not in report
    assert "C7517" not in report


def test_needs_three_stages():
    # With 2 stages the next iteration's K is still being copied.
    k = _warmup(tutorial(), True, num_stages=2)
    assert not _async_dots(k.asm["tile"])


def check_bool_option(name, warmup):
    """The launch option `name` (warmup(m, value) compiles the tutorial with
    it) takes only True or False, in the jit and in quire.compile, and is
    part of the kernel caches' key."""
    m = tutorial()
    with pytest.raises(TypeError,
                       match=f"{name} must be True or False, got int"):
        warmup(m, 1)
    assert warmup(m, True) is not warmup(m, False)
    with pytest.raises(TypeError, match=f"{name} must be True or False"):
        quire.compile("func.func @k() attributes {tile.kernel} { return }",
                      sm=90, **{name: "yes"})


def check_interpreted(monkeypatch, seed, **option):
    """The tutorial with launch option `option` in the interpreter, against
    the float64 reference."""
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    m = tutorial()
    rng = np.random.default_rng(seed)
    Z, H, N, D = 1, 2, 128, 64
    q, k, v = (rng.standard_normal((Z, H, N, D)).astype(np.float16)
               for _ in range(3))
    o = np.full_like(q, np.nan)
    lse = np.full((Z, H, N), np.nan, np.float32)
    st = _strides((Z, H, N, D))
    m._attn_fwd[(N // 64, Z * H, 1)](
        q, k, v, 0.3, lse, o, *st, *st, *st, *st, Z, H, N, HEAD_DIM=D,
        BLOCK_M=64, BLOCK_N=32, STAGE=1, num_warps=4, num_stages=3,
        **option)
    ref = m.reference(np, q, k, v, False, 0.3)
    np.testing.assert_allclose(o.astype(np.float64), ref, rtol=2e-2,
                               atol=2e-2)


def test_option_is_validated_and_keyed():
    check_bool_option("early_dots", _warmup)


def test_interpreter_accepts_the_option(monkeypatch):
    check_interpreted(monkeypatch, 11, early_dots=True)


def check_on_the_gpu(seed, causal, D, N, block_m, block_n, warps, **option):
    """The tutorial on the GPU with launch option `option` (3 stages), on
    fresh random inputs into NaN-poisoned outputs, against float64; returns
    the kernel."""
    torch = pytest.importorskip("torch")
    m = tutorial()
    gen = torch.Generator(device="cuda").manual_seed(seed)
    Z, H = 2, 3
    q, k, v = (torch.randn((Z, H, N, D), device="cuda", generator=gen)
               .half() for _ in range(3))
    o = torch.full_like(q, float("nan"))
    lse = torch.full((Z, H, N), float("nan"), device="cuda")
    st = _strides((Z, H, N, D))
    kern = m._attn_fwd[(-(-N // block_m), Z * H, 1)](
        q, k, v, 0.2, lse, o, *st, *st, *st, *st, Z, H, N, HEAD_DIM=D,
        BLOCK_M=block_m, BLOCK_N=block_n, STAGE=3 if causal else 1,
        num_warps=warps, num_stages=3, **option)
    torch.cuda.synchronize()
    ref = torch.from_numpy(m.reference(
        np, *(x.cpu().numpy() for x in (q, k, v)), causal, 0.2)).cuda()
    err = ((o.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-2, err
    return kern


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D, block_m, block_n, warps", [
    (64, 128, 64, 8), (128, 128, 64, 8), (128, 64, 64, 4)])
def test_matches_float64_on_the_gpu(causal, D, block_m, block_n, warps):
    kern = check_on_the_gpu(D + block_m + causal, causal, D, 1024, block_m,
                            block_n, warps, early_dots=True)
    assert _async_dots(kern.asm["tile"])
