"""The tutorials (python/tutorials) under QUIRE_INTERPRET=1 against float64
numpy references: Triton's 01, 02, 03, 06 and 09 and the paged decode kernel,
each written as a Triton user writes it, with Quire's imports."""

import importlib.util
import os

import pytest

np = pytest.importorskip("numpy")

TUTORIALS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tutorials")


def load(name):
    path = os.path.join(TUTORIALS, name + ".py")
    spec = importlib.util.spec_from_file_location(
        "tutorial_" + name.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def test_sources_differ_from_triton_only_in_imports():
    for f in os.listdir(TUTORIALS):
        if f.endswith(".py"):
            with open(os.path.join(TUTORIALS, f)) as fh:
                text = fh.read()
            assert "import quire as triton\n" in text
            assert "import quire.language as tl\n" in text


@pytest.mark.parametrize("n", [1, 1000, 4096, 9999])
def test_vector_add(rng, n):
    m = load("01-vector-add")
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    m.add(x, y, out)
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("rows, cols", [(1, 1), (7, 781), (40, 128)])
def test_fused_softmax(rng, rows, cols):
    m = load("02-fused-softmax")
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    y = np.full_like(x, np.nan)
    m.softmax(x, y, num_programs=3)
    ref = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    assert np.abs(y - ref).max() < 1e-5


@pytest.mark.parametrize("M, N, K, act", [(70, 50, 90, ""), (64, 64, 32, ""),
                                          (33, 65, 17, "leaky_relu")])
def test_matmul(rng, M, N, K, act):
    m = load("03-matrix-multiplication")
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    m.matmul(a, b, c, activation=act,
             config=dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16,
                         GROUP_SIZE_M=4))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if act:
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 2e-3


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [32, 64])
def test_fused_attention(rng, causal, head_dim):
    m = load("06-fused-attention")
    Z, H, N = 1, 2, 128
    q, k, v = (rng.standard_normal((Z, H, N, head_dim)).astype(np.float16)
               for _ in range(3))
    o = np.full_like(q, np.nan)
    lse = np.full((Z, H, N), np.nan, np.float32)
    m.attention(q, k, v, causal, 0.3, o, lse, BLOCK_M=64, BLOCK_N=32,
                num_warps=4)
    ref = m.reference(np, q, k, v, causal, 0.3)
    assert np.abs(o - ref).max() / np.abs(ref).max() < 5e-3
    assert np.isfinite(lse).all()


@pytest.mark.parametrize("heads, kv_heads, page", [(32, 8, 16), (8, 8, 32),
                                                   (16, 1, 8)])
def test_paged_attention_decode(rng, heads, kv_heads, page):
    m = load("paged-attention")
    q, kc, vc, bt, lens = m.make_inputs(np, rng, 5, heads, kv_heads, 64, page,
                                        150, np.float16)
    out = np.full_like(q, np.nan)
    m.paged_attention(q, kc, vc, bt, lens, 0.125, out, BLOCK_N=32)
    ref = m.reference(np, q, kc, vc, bt, lens, 0.125)
    assert np.abs(out - ref).max() < 3e-3


@pytest.mark.parametrize("heads, kv_heads, page, block_n", [
    (32, 8, 16, 32), (8, 8, 32, 64), (16, 1, 8, 32),
    (8, 2, 32, 16), (32, 8, 128, 64)])  # tiles within one page
def test_paged_attention_decode_scratch(rng, heads, kv_heads, page, block_n):
    m = load("paged-attention-scratch")
    q, kc, vc, bt, lens = load("paged-attention").make_inputs(
        np, rng, 5, heads, kv_heads, 64, page, 150, np.float16)
    out = np.full_like(q, np.nan)
    scratch = np.full(5 * kv_heads * block_n, -1, np.int64)
    m.paged_attention_scratch(q, kc, vc, bt, lens, 0.125, out, scratch,
                              BLOCK_N=block_n)
    ref = load("paged-attention").reference(np, q, kc, vc, bt, lens, 0.125)
    assert np.abs(out - ref).max() < 3e-3
    # Every program wrote row offsets of its last tile into its slot.
    assert (scratch >= 0).any()


def test_paged_attention_scratch_tiles_are_whole_pages(rng):
    m = load("paged-attention-scratch")
    q, kc, vc, bt, lens = load("paged-attention").make_inputs(
        np, rng, 2, 8, 8, 64, 24, 40, np.float16)
    with pytest.raises(ValueError, match="multiple or a divisor of the page"):
        m.paged_attention_scratch(q, kc, vc, bt, lens, 0.125, np.empty_like(q),
                                  np.empty(2 * 8 * 32, np.int64), BLOCK_N=32)


@pytest.mark.parametrize("qlens, ctxs", [
    ([1, 1, 1, 1], [0, 1, 37, 90]),          # decode only, lengths 1..91
    ([33, 9], [0, 20]),                       # prefill only (a chunk after 20)
    ([1, 40, 1, 17], [300, 20, 5, 0]),        # mixed
])
@pytest.mark.parametrize("window, softcap, alibi", [
    (0, 0.0, False), (16, 0.0, False), (0, 30.0, False), (0, 0.0, True),
    (24, 50.0, True)])
def test_unified_attention(rng, qlens, ctxs, window, softcap, alibi):
    m = load("unified-attention")
    q, kc, vc, bt, lens, qsl = m.make_batch(np, rng, qlens, ctxs, 8, 2, 64,
                                            16, np.float16)
    slopes = (rng.uniform(0.01, 0.2, 8).astype(np.float32) if alibi else None)
    out = np.full_like(q, np.nan)
    nqb = m.query_blocks(q.shape[0], len(qlens), 16 // 4)
    m.unified_attention(q, kc, vc, bt, lens, qsl, nqb, 0.125, out,
                        sliding_window=window, softcap=softcap,
                        alibi_slopes=slopes, BLOCK_N=32)
    ref = m.reference(np, q, kc, vc, bt, lens, qsl, 0.125, window, softcap,
                      slopes)
    assert np.abs(out - ref).max() < 4e-3


@pytest.mark.parametrize("variant", ["matmul_host_descriptors",
                                     "matmul_device_descriptors"])
@pytest.mark.parametrize("M, N, K, num_sms", [(70, 56, 40, 4), (33, 16, 80, 2),
                                              (96, 48, 16, 64)])
def test_persistent_matmul(rng, variant, M, N, K, num_sms):
    # Fewer programs than tiles (each walks several), and more; edges of
    # A, B and C inside a block (read as zero, never written).
    m = load("09-persistent-matmul")
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    getattr(m, variant)(a, b, c, num_sms=num_sms,
                        config=dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=16,
                                    BLOCK_SIZE_K=16, GROUP_SIZE_M=2))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 2e-3


def test_persistent_matmul_compiles_to_staged_wgmma(monkeypatch):
    # The descriptor loads of the inner K loop are staged with 16-byte
    # cp.async and read by wgmma, kept in flight with async_wgmma.
    import re
    from conftest import FakeCudaArray
    monkeypatch.delenv("QUIRE_INTERPRET")
    m = load("09-persistent-matmul")
    M = N = K = 4096
    args = (FakeCudaArray((M, K), "<f2"), FakeCudaArray((K, N), "<f2"),
            FakeCudaArray((M, N), "<f2"), M, N, K, K, N, N)
    k = m.matmul_kernel_device_descriptors.warmup(
        *args, grid=(132,), sm=90, NUM_SMS=132, async_wgmma=True,
        **m.DEFAULT)
    ptx = k.asm["ptx"]
    assert "ld.global" not in ptx
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], "
                     r"\[%rd\d+(\+\d+)?\], 16", ptx)
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx


@pytest.mark.gpu
def test_persistent_matmul_on_the_gpu(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("QUIRE_INTERPRET")
    m = load("09-persistent-matmul")
    gen = torch.Generator(device="cuda").manual_seed(4)
    for M, N, K in ((1000, 1032, 776), (128, 128, 64), (4096, 4096, 4096)):
        a = torch.randn(M, K, device="cuda", generator=gen).half()
        b = torch.randn(K, N, device="cuda", generator=gen).half()
        ref = a.double() @ b.double()
        for fn in (m.matmul_host_descriptors, m.matmul_device_descriptors):
            c = torch.full((M, N), float("nan"), device="cuda",
                           dtype=torch.half)
            fn(a, b, c)
            torch.cuda.synchronize()
            err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            assert err < 2e-3, (fn.__name__, M, N, K, err)
