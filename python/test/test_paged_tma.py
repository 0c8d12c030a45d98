"""Paged loads through a tensor descriptor of the cache (tl.paged_load with
a 4-D [num_blocks, page_size, heads, D] descriptor): the same values as
through pointers and strides in the interpreter (rows past the bound zero,
whatever the cache holds there), the descriptor's rules as located errors;
compiled for sm_90 with producer warps, the producer copies the pages with
TMA (tile.tma_copy_pages) and the consumers clear the rows past the bound
(tile.tma_zero_rows); on the GPU an attention loop over NaN-poisoned
caches against float64."""

import math

import pytest

import quire
import quire.language as tl
from quire import _args
from conftest import FakeCudaArray
from quire.tools.tensor_descriptor import TensorDescriptor

np = pytest.importorskip("numpy")


@pytest.fixture
def rng():
    return np.random.default_rng(23)


@quire.jit
def paged_attention(out, q, k_cache, v_cache, block_table, seq_len, scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    D: tl.constexpr, PAGE: tl.constexpr):
    """out[h] = softmax(scale * q[h] K^T) V over the seq_len tokens of one
    sequence, K and V of head h (program h) paged through block_table."""
    head = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    cols = tl.arange(0, BLOCK_N)
    offs = (head * BLOCK_M + rows[:, None]) * D + d[None, :]
    qv = tl.load(q + offs)
    m = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, D), tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        k = tl.paged_load(k_cache, block_table, start, head, (BLOCK_N, D),
                          PAGE, None, seq_len)
        s = tl.dot(qv, tl.trans(k)) * scale
        s = tl.where((start + cols < seq_len)[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.paged_load(v_cache, block_table, start, head, (BLOCK_N, D),
                          PAGE, None, seq_len)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m = m_new
    tl.store(out + offs, (acc / l[:, None]).to(tl.float16))


def _inputs(xp, seq_len, page, heads, d, block_m, rng):
    """q [heads * block_m, d], caches [blocks, page, heads, d] with NaN in
    every slot past seq_len, a shuffled block table."""
    pages = -(-seq_len // page) + 1
    blocks = pages + 3
    k = rng.standard_normal((blocks, page, heads, d)).astype(np.float16)
    v = rng.standard_normal((blocks, page, heads, d)).astype(np.float16)
    table = rng.permutation(blocks)[:pages].astype(np.int32)
    for t in range(seq_len, pages * page):
        k[table[t // page], t % page] = np.nan
        v[table[t // page], t % page] = np.nan
    q = rng.standard_normal((heads * block_m, d)).astype(np.float16)
    return q, k, v, table


def _reference(q, k, v, table, seq_len, page, heads, block_m, scale):
    t = np.arange(seq_len)
    kk = k[table[t // page], t % page].astype(np.float64)  # [n, heads, d]
    vv = v[table[t // page], t % page].astype(np.float64)
    out = np.empty(q.shape)
    for h in range(heads):
        qh = q[h * block_m:(h + 1) * block_m].astype(np.float64)
        s = qh @ kk[:, h].T * scale
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[h * block_m:(h + 1) * block_m] = (p / p.sum(1, keepdims=True)) \
            @ vv[:, h]
    return out


def _desc(cache, block_n):
    """A descriptor of all of `cache` (numpy, torch or a CUDA array) whose
    block is one page's box of min(page, block_n) tokens."""
    _, page, _, d = _args.view(cache, "cache").shape
    return TensorDescriptor.from_tensor(cache, [1, min(page, block_n), 1, d])


@pytest.mark.parametrize("seq_len,page,block_n", [
    (100, 16, 32), (64, 16, 64), (33, 64, 32), (1, 8, 16)])
def test_paged_load_through_a_descriptor_in_the_interpreter(
        seq_len, page, block_n, rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    heads, d, block_m = 2, 32, 16
    q, k, v, table = _inputs(np, seq_len, page, heads, d, block_m, rng)
    out = np.full(q.shape, np.nan, np.float16)
    scale = 1 / math.sqrt(d)
    paged_attention[(heads,)](out, q, _desc(k, block_n), _desc(v, block_n),
                              table, seq_len, scale, BLOCK_M=block_m,
                              BLOCK_N=block_n, D=d, PAGE=page)
    ref = _reference(q, k, v, table, seq_len, page, heads, block_m, scale)
    assert np.abs(out - ref).max() < 2e-2


@quire.jit
def one_tile(out, cache, block_table, bound, STRIDES: tl.constexpr,
             BLOCK_N: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr):
    r = tl.arange(0, BLOCK_N)
    d = tl.arange(0, D)
    if STRIDES:
        t = tl.paged_load(cache, block_table, 0, 0, (BLOCK_N, D), PAGE,
                          (1, 1, 1), bound)
    else:
        t = tl.paged_load(cache, block_table, 0, 0, (BLOCK_N, D), PAGE, None,
                          bound)
    tl.store(out + r[:, None] * D + d[None, :], t)


@pytest.mark.parametrize("block,strides,message", [
    ([1, 16, 1, 32], True, "the strides of a cache passed as a tensor "
     "descriptor are the descriptor's; pass strides=None"),
    ([1, 8, 1, 32], False, "needs block_shape [1, 16, 1, 32], got "
     "[1, 8, 1, 32]"),
    ([16, 32], False, "a cache descriptor must be 4-D"),
])
def test_descriptor_rules_are_located_errors(block, strides, message,
                                             monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    cache = np.zeros((4, 16, 1, 32), np.float16)
    shape = list(cache.shape) if len(block) == 4 else [64, 32]
    desc = TensorDescriptor(cache, shape, [512, 32, 32, 1][-len(shape):],
                            block)
    out = np.zeros((16, 32), np.float16)
    with pytest.raises(quire.CompilationError) as e:
        one_tile[(1,)](out, desc, np.zeros(1, np.int32), 16, STRIDES=strides,
                       BLOCK_N=16, D=32, PAGE=16)
    assert message in str(e.value)
    assert "test_paged_tma.py" in str(e.value)


def _warm(page=16, block_n=128, d=128, **options):
    heads, block_m = 8, 128
    blocks = 64
    k = FakeCudaArray((blocks, page, heads, d), "<f2")
    v = FakeCudaArray((blocks, page, heads, d), "<f2")
    args = (FakeCudaArray((heads * block_m, d), "<f2"),
            FakeCudaArray((heads * block_m, d), "<f2"),
            _desc(k, block_n), _desc(v, block_n),
            FakeCudaArray((blocks,), "<i4"), 1000, 0.1)
    return paged_attention.warmup(*args, grid=(heads,), sm=90, num_warps=8,
                                  BLOCK_M=block_m, BLOCK_N=block_n, D=d,
                                  PAGE=page, **options)


def test_producer_copies_pages_with_tma():
    """A producer warpgroup: one thread copies each tile's pages with TMA
    (8 pages of 16 tokens x 2 columns of 128 bytes, K and V: 32 copies a
    fill), keeps 24 registers; the consumers clear the rows past the bound
    after each wait (two clears, each in a branch)."""
    k = _warm(producer_warpgroup=True)
    tile, ptx = k.asm["tile"], k.asm["ptx"]
    assert tile.count("tile.tma_copy_pages") == 4  # prologue and loop
    assert tile.count("tile.tma_zero_rows") == 2
    assert "tile.async_copy " not in tile
    assert ptx.count("cp.async.bulk.tensor.4d") == 64
    assert "setmaxnreg.dec.sync.aligned.u32 24;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 240;" in ptx
    assert "cp.async.cg" not in ptx
    # Page 128 > 128 keys: one box of 128 tokens a tile and column.
    k = _warm(page=128, producer_warpgroup=True)
    assert k.asm["ptx"].count("cp.async.bulk.tensor.4d") == 8


def test_pages_stay_cp_async_where_tma_cannot_copy_them():
    """Without producer warps, and where a box of tokens would not fill the
    swizzle's 1024-byte period (pages of 4 tokens), the pages are copied
    with cp.async as through pointers."""
    ptx = _warm(warp_specialize=False).asm["ptx"]
    assert "cp.async.bulk.tensor" not in ptx and "cp.async.cg" in ptx
    ptx = _warm(page=4, producer_warpgroup=True).asm["ptx"]
    assert "cp.async.bulk.tensor" not in ptx and "cp.async.cg" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("seq_len,page,block_n,d", [
    (1000, 16, 128, 128), (777, 32, 128, 128), (300, 128, 128, 128),
    (129, 16, 64, 64), (1000, 16, 128, 64)])
@pytest.mark.parametrize("producer", ["warpgroup", "warps"])
def test_paged_attention_with_tma_on_the_gpu(seq_len, page, block_n, d,
                                             producer):
    torch = pytest.importorskip("torch")
    heads, block_m = 4, 128
    rng = np.random.default_rng(seq_len + page)
    q, k, v, table = _inputs(np, seq_len, page, heads, d, block_m, rng)
    scale = 1 / math.sqrt(d)
    ref = _reference(q, k, v, table, seq_len, page, heads, block_m, scale)
    tq, tk, tv = (torch.from_numpy(x).cuda() for x in (q, k, v))
    out = torch.full_like(tq, float("nan"))
    options = dict(producer_warpgroup=True) if producer == "warpgroup" \
        else dict(warp_specialize=True)
    paged_attention[(heads,)](out, tq, _desc(tk, block_n), _desc(tv, block_n),
                              torch.from_numpy(table).cuda(), seq_len, scale,
                              BLOCK_M=block_m, BLOCK_N=block_n, D=d, PAGE=page,
                              num_warps=8, **options)
    torch.cuda.synchronize()
    assert "cp.async.bulk.tensor.4d" in paged_attention.warmup(
        out, tq, _desc(tk, block_n), _desc(tv, block_n),
        torch.from_numpy(table).cuda(), seq_len, scale, grid=(heads,),
        BLOCK_M=block_m, BLOCK_N=block_n, D=d, PAGE=page, num_warps=8,
        **options).asm["ptx"]
    err = np.abs(out.cpu().numpy().astype(np.float64) - ref).max()
    assert err < 2e-2, err
