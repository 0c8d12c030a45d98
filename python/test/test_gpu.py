"""Kernels launched on the GPU against torch float64 references: fresh
random inputs every run, poisoned outputs (NaN) so unwritten elements show,
ragged sizes. Skipped without torch and a CUDA GPU."""

import math

import pytest

import quire
from conftest import example

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def torch():
    import torch
    return torch


@pytest.fixture
def gen(torch):
    g = torch.Generator(device="cuda")
    g.seed()  # fresh inputs each run; the seed is in the failure message
    return g


def rel_err(torch, out, ref):
    out, ref = out.double(), ref.double()
    if torch.isnan(out).any():
        return float("nan")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def poisoned(torch, *shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


@pytest.mark.parametrize("n", [1, 1000, 1024, 1_000_003])
def test_vector_add(torch, gen, n):
    k = quire.compile(example("vector_add.mlir"))
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(torch, n + 7, dtype=torch.float32)
    k[((n + 1023) // 1024,)](x, y, out, n)
    torch.cuda.synchronize()
    assert rel_err(torch, out[:n], x.double() + y.double()) < 1e-6, gen.initial_seed()
    assert torch.isnan(out[n:]).all()


def test_launch_on_a_side_stream(torch, gen):
    k = quire.compile(example("vector_add.mlir"))
    n = 1 << 20
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(torch, n, dtype=torch.float32)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k[(n // 1024,)](x, x, out, n)           # current stream: s
    k[(n // 1024,)](x, x, out, n, stream=s)     # explicit
    s.synchronize()
    assert torch.equal(out, 2 * x)


@pytest.mark.parametrize("rows, cols", [(3, 1), (37, 1000), (512, 1024)])
def test_softmax(torch, gen, rows, cols):
    k = quire.compile(example("softmax.mlir"))
    x = torch.randn(rows, cols, device="cuda", generator=gen) * 3
    out = poisoned(torch, rows, cols, dtype=torch.float32)
    k[(rows,)](x, out, cols, cols)
    torch.cuda.synchronize()
    assert rel_err(torch, out, torch.softmax(x.double(), -1)) < 1e-5


@pytest.mark.parametrize("M, N, K", [(64, 64, 32), (100, 72, 50), (513, 257, 129)])
def test_matmul(torch, gen, M, N, K):
    k = quire.compile(example("matmul.mlir"))
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = poisoned(torch, M, N, dtype=torch.half)
    k[((M + 63) // 64, (N + 63) // 64)](a, b, c, M, N, K, K, N, N)
    torch.cuda.synchronize()
    assert rel_err(torch, c, a.double() @ b.double()) < 2e-3


def test_gpu_matches_the_interpreter(torch, gen):
    np = pytest.importorskip("numpy")
    k = quire.compile(example("softmax.mlir"))
    x = torch.randn(8, 1000, device="cuda", generator=gen)
    out = poisoned(torch, 8, 1000, dtype=torch.float32)
    k[(8,)](x, out, 1000, 1000)
    host = np.full((8, 1000), np.nan, np.float32)
    quire.interpret(k, 8, x.cpu().numpy(), host, 1000, 1000)
    torch.cuda.synchronize()
    assert np.abs(out.cpu().numpy() - host).max() < 1e-6


def paged_ref(torch, q, k_cache, v_cache, block_table, seq_lens, scale):
    S, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    out = torch.zeros(S, Hq, D, dtype=torch.float64, device=q.device)
    for s in range(S):
        L = int(seq_lens[s])
        if L == 0:
            continue
        t = torch.arange(L, device=q.device)
        blocks = block_table[s, t // P].long()
        kk = k_cache[blocks, t % P].double().repeat_interleave(group, dim=1)
        vv = v_cache[blocks, t % P].double().repeat_interleave(group, dim=1)
        p = torch.softmax(torch.einsum("hd,lhd->hl", q[s].double(), kk) * scale, -1)
        out[s] = torch.einsum("hl,lhd->hd", p, vv)
    return out


def make_cache(torch, gen, S, Hkv, D, P, lens, dtype, spare=5):
    max_blocks = max(1, max((l + P - 1) // P for l in lens))
    NB = S * max_blocks + spare
    # One [2, ...] buffer like vLLM's: the caches are views with equal strides.
    kv = torch.randn(2, NB, P, Hkv, D, device="cuda", generator=gen).to(dtype)
    perm = torch.randperm(NB, device="cuda", generator=gen)[: S * max_blocks]
    bt = perm.view(S, max_blocks).to(torch.int32).contiguous()
    return kv[0], kv[1], bt


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("S, Hkv, G, D, P, lens", [
    (4, 2, 4, 128, 16, [0, 1, 17, 300]),
    (3, 8, 4, 128, 16, None),            # random lengths, Llama-3-8B heads
    (2, 4, 1, 64, 16, [64, 129]),         # MHA
    (2, 2, 8, 128, 32, [1000, 33]),
    (2, 1, 16, 64, 8, [77, 256]),
    (2, 2, 2, 256, 16, [90, 5]),
])
def test_paged_decode_attention(torch, gen, dtype, S, Hkv, G, D, P, lens):
    dtype = getattr(torch, dtype)
    if lens is None:
        lens = torch.randint(1, 2000, (S,), generator=gen, device="cuda").tolist()
    kc, vc, bt = make_cache(torch, gen, S, Hkv, D, P, lens, dtype)
    q = torch.randn(S, Hkv * G, D, device="cuda", generator=gen).to(dtype)
    seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out = poisoned(torch, S, Hkv * G, D, dtype=dtype)
    assert quire.ops.paged_decode_attention(q, kc, vc, bt, seq_lens, out=out) is out
    torch.cuda.synchronize()
    ref = paged_ref(torch, q, kc, vc, bt, seq_lens, 1 / math.sqrt(D))
    tol = 2e-3 if dtype == torch.float16 else 1.6e-2
    assert rel_err(torch, out, ref) < tol, (lens, gen.initial_seed())


def test_paged_decode_strided_and_unaligned(torch, gen):
    S, Hkv, G, D, P, lens = 3, 2, 4, 128, 16, [5, 400, 64]
    kc, vc, bt = make_cache(torch, gen, S, Hkv, D + 8, P, lens, torch.half)
    kc, vc = kc[..., :D], vc[..., :D]                  # strides % 16 != 0
    qkv = torch.randn(S, Hkv * G + 2 * Hkv, D, device="cuda",
                      generator=gen).half()
    q = qkv[:, : Hkv * G]                                # fused-QKV view
    bt_wide = torch.zeros(S, bt.shape[1] + 3, dtype=torch.int32, device="cuda")
    bt_wide[:, : bt.shape[1]] = bt
    seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out = quire.ops.paged_decode_attention(q, kc, vc, bt_wide[:, : bt.shape[1]],
                                           seq_lens)
    torch.cuda.synchronize()
    ref = paged_ref(torch, q, kc, vc, bt, seq_lens, 1 / math.sqrt(D))
    assert rel_err(torch, out, ref) < 2e-3


def test_paged_decode_in_a_cuda_graph(torch, gen):
    S, Hkv, G, D, P = 4, 2, 4, 128, 16
    lens = [100, 1, 0, 513]
    kc, vc, bt = make_cache(torch, gen, S, Hkv, D, P, lens, torch.half)
    q = torch.randn(S, Hkv * G, D, device="cuda", generator=gen).half()
    seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):                         # warm up: load module
        quire.ops.paged_decode_attention(q, kc, vc, bt, seq_lens, out=out)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        quire.ops.paged_decode_attention(q, kc, vc, bt, seq_lens, out=out)
    q.copy_(torch.randn(S, Hkv * G, D, device="cuda", generator=gen).half())
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    ref = paged_ref(torch, q, kc, vc, bt, seq_lens, 1 / math.sqrt(D))
    assert rel_err(torch, out, ref) < 2e-3


def prefill_case(torch, gen, ctx, qlens, P, Hq, Hkv, D, dtype):
    """A paged cache holding each sequence's context and then its chunk, the
    chunk's K/V also as separate tensors, and the float64 reference."""
    S = len(ctx)
    lens = [c + n for c, n in zip(ctx, qlens)]
    kc, vc, bt = make_cache(torch, gen, S, Hkv, D, P, lens, dtype)
    starts = [0]
    for n in qlens:
        starts.append(starts[-1] + n)
    T = starts[-1]
    q = torch.randn(T, Hq, D, device="cuda", generator=gen).to(dtype)
    kn = torch.empty(T, Hkv, D, device="cuda", dtype=dtype)
    vn = torch.empty_like(kn)
    ref = torch.empty(T, Hq, D, device="cuda", dtype=torch.float64)
    G = Hq // Hkv
    for s in range(S):
        t = torch.arange(lens[s], device="cuda")
        k = kc[bt[s, t // P].long(), t % P]
        v = vc[bt[s, t // P].long(), t % P]
        a, b = starts[s], starts[s + 1]
        kn[a:b], vn[a:b] = k[ctx[s]:], v[ctx[s]:]
        if a == b:
            continue
        kk = k.double().repeat_interleave(G, 1)
        vv = v.double().repeat_interleave(G, 1)
        sc = torch.einsum("qhd,khd->hqk", q[a:b].double(), kk) / math.sqrt(D)
        allowed = (torch.arange(lens[s], device="cuda")[None, :] <=
                   ctx[s] + torch.arange(b - a, device="cuda")[:, None])
        sc = sc.masked_fill(~allowed, float("-inf"))
        ref[a:b] = torch.einsum("hqk,khd->qhd", torch.softmax(sc, -1), vv)
    args = (q, kc, vc, bt, torch.tensor(starts, dtype=torch.int32, device="cuda"),
            torch.tensor(lens, dtype=torch.int32, device="cuda"))
    return args, kn, vn, ref


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("ctx, qlens, P, Hq, Hkv, D", [
    ([0, 1, 17, 300], [1, 64, 65, 130], 16, 8, 2, 128),   # ragged, crossing pages
    ([500, 0], [257, 3], 128, 32, 8, 128),                # Llama-3-8B heads
    ([40, 129], [100, 7], 16, 4, 4, 64),
    ([70, 5], [33, 90], 32, 4, 1, 256),
    ([31], [77], 16, 6, 2, 80),                           # padded head dim
])
def test_paged_prefill_attention(torch, gen, dtype, ctx, qlens, P, Hq, Hkv, D):
    dtype = getattr(torch, dtype)
    args, kn, vn, ref = prefill_case(torch, gen, ctx, qlens, P, Hq, Hkv, D, dtype)
    tol = 2e-3 if dtype == torch.float16 else 1.6e-2
    for kw in (dict(key=kn, value=vn), {}):
        out = poisoned(torch, *args[0].shape, dtype=dtype)
        assert quire.ops.paged_prefill_attention(*args, out=out, **kw) is out
        torch.cuda.synchronize()
        assert rel_err(torch, out, ref) < tol, (sorted(kw), gen.initial_seed())


@pytest.mark.parametrize("options", [
    dict(warp_specialize=True),
    dict(warp_specialize=True, num_stages=3),
    dict(warp_specialize=True, pingpong=True),
    dict(warp_specialize=True, pingpong=True, num_stages=3),
    dict(warp_specialize=True, producer_warpgroup=True),
    dict(warp_specialize=True, producer_warpgroup=True, pingpong=True),
    dict(warp_specialize=True, producer_warpgroup=True, early_dots=True,
         num_stages=3),
    dict(warp_specialize=True, producer_warpgroup=True, early_dots=True,
         num_stages=3, block_n=64),
    dict(warp_specialize=True, producer_warpgroup=True, overlap_softmax=True),
    dict(warp_specialize=True, producer_warpgroup=True, overlap_softmax=True,
         num_stages=3),
    dict(warp_specialize=True, overlap_softmax=True, block_n=64),
    dict(warp_specialize=True, producer_warpgroup=True, overlap_softmax=True,
         num_stages=3, pingpong=True),
    dict(warp_specialize=True, overlap_softmax=True, pingpong=True,
         block_n=64),
    dict(last_first=False),
])
@pytest.mark.parametrize("ctx, qlens, P, Hq, Hkv", [
    ([0, 1, 17, 300], [1, 64, 65, 130], 16, 8, 2),     # ragged, crossing pages
    ([500, 0, 1000], [257, 3, 77], 128, 32, 8),
])
def test_paged_prefill_warp_specialized(torch, gen, options, ctx, qlens, P,
                                        Hq, Hkv):
    # Producer warps for the cp.async copies (quire-warp-specialize), with
    # the consumer warpgroups in turns (pingpong), the next scores issued
    # early (early_dots) or the previous P V issued after the scores
    # (overlap_softmax; with pingpong the turns take both dots); the default kernel with each chunk's query blocks
    # in order (last_first=False): both loops, the chunk's K/V separate and
    # from the cache.
    args, kn, vn, ref = prefill_case(torch, gen, ctx, qlens, P, Hq, Hkv, 128,
                                     torch.half)
    for kw in (dict(key=kn, value=vn), {}):
        out = poisoned(torch, *args[0].shape, dtype=torch.half)
        quire.ops._paged_prefill(*args, None, out, kw.get("key"),
                                 kw.get("value"), None, **options)
        torch.cuda.synchronize()
        assert rel_err(torch, out, ref) < 2e-3, (sorted(kw), options,
                                                gen.initial_seed())


@pytest.mark.parametrize("ctx, qlens, P", [
    ([300, 0, 1000, 5], [200, 3, 777, 130], 16),      # 896 tiles, ragged
    ([129, 2000], [900, 64], 128),                     # TMA pages
])
def test_paged_prefill_persistent(torch, gen, ctx, qlens, P):
    # A program per SM taking the tiles in turn (persistent): more tiles
    # than SMs, so the producer fills a program's next tiles while its
    # consumers finish the last; ragged chunks, idle tiles, the chunk's K/V
    # separate and from the cache.
    args, kn, vn, ref = prefill_case(torch, gen, ctx, qlens, P, 32, 8, 128,
                                     torch.half)
    for kw in (dict(key=kn, value=vn), {}):
        out = poisoned(torch, *args[0].shape, dtype=torch.half)
        quire.ops._paged_prefill(*args, None, out, kw.get("key"),
                                 kw.get("value"), max(qlens), persistent=True)
        torch.cuda.synchronize()
        assert rel_err(torch, out, ref) < 2e-3, (sorted(kw),
                                                gen.initial_seed())


def test_paged_prefill_in_a_cuda_graph(torch, gen):
    args, kn, vn, ref = prefill_case(torch, gen, [100, 0], [70, 5], 16, 8, 2,
                                     128, torch.half)
    out = torch.empty_like(args[0])
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):                         # warm up: load module
        quire.ops.paged_prefill_attention(*args, out=out, max_query_len=70)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        quire.ops.paged_prefill_attention(*args, out=out, max_query_len=70)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert rel_err(torch, out, ref) < 2e-3


def test_paged_decode_validation_on_gpu(torch):
    q = torch.zeros(2, 8, 128, device="cuda", dtype=torch.half)
    kc = torch.zeros(4, 16, 2, 128, device="cuda", dtype=torch.half)
    bt = torch.zeros(2, 2, device="cuda", dtype=torch.int32)
    lens = torch.zeros(2, device="cuda", dtype=torch.int32)
    with pytest.raises(TypeError, match="key_cache: expected float16"):
        quire.ops.paged_decode_attention(q, kc.bfloat16(), kc, bt, lens)
    with pytest.raises(ValueError, match="seq_lens: on the CPU"):
        quire.ops.paged_decode_attention(q, kc, kc, bt, lens.cpu())
    with pytest.raises(TypeError, match="block_table: expected int32"):
        quire.ops.paged_decode_attention(q, kc, kc, bt.long(), lens)
    out = quire.ops.paged_decode_attention(q, kc, kc, bt, lens)
    torch.cuda.synchronize()
    assert (out == 0).all()                              # empty sequences


def test_argument_errors_with_real_tensors(torch):
    k = quire.compile(example("vector_add.mlir"))
    x = torch.zeros(1024, device="cuda")
    with pytest.raises(TypeError, match="expected float32 data, got float16"):
        k[(1,)](x.half(), x, x, 1024)
    with pytest.raises(ValueError, match="got one on the CPU"):
        k[(1,)](x.cpu(), x, x, 1024)
    with pytest.raises(ValueError, match="not aligned to 16 bytes"):
        k[(1,)](x[1:], x, x, 1023)


def test_sm_detected_from_the_device(torch):
    major, minor = torch.cuda.get_device_capability()
    k = quire.compile(example("vector_add.mlir"))
    assert k.sm == major * 10 + minor
