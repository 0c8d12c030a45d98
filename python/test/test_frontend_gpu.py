"""@quire.jit kernels on the GPU: the tutorials against float64 torch
references on fresh random inputs with NaN-poisoned outputs, and the launch
path (streams, devices, argument checks, compiled-kernel attributes).
Skipped, with the reason, without torch and a CUDA GPU."""

import importlib.util
import os

import pytest

import quire
import quire.language as tl

pytestmark = pytest.mark.gpu

TUTORIALS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tutorials")


def load(name):
    spec = importlib.util.spec_from_file_location(
        "gpu_tutorial_" + name.replace("-", "_"),
        os.path.join(TUTORIALS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def torch():
    import torch
    torch.manual_seed(0)
    return torch


def rel(torch, out, ref):
    assert not torch.isnan(out).any(), "unwritten (NaN) outputs"
    return ((out.double() - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("n", [1, 98432, 1 << 22])
def test_vector_add(torch, n):
    m = load("01-vector-add")
    x, y = torch.randn(2, n, device="cuda")
    out = torch.full_like(x, float("nan"))
    m.add(x, y, out)
    assert torch.equal(out, x + y)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1823, 781), (256, 4096)])
def test_fused_softmax(torch, rows, cols):
    m = load("02-fused-softmax")
    x = torch.randn(rows, cols, device="cuda") * 3
    y = torch.full_like(x, float("nan"))
    m.softmax(x, y)
    assert rel(torch, y, torch.softmax(x.double(), 1)) < 1e-5


@pytest.mark.parametrize("M, N, K", [(512, 512, 512), (1000, 333, 517)])
def test_matmul(torch, M, N, K):
    m = load("03-matrix-multiplication")
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    m.matmul(a, b, c, config=dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
                                  BLOCK_SIZE_K=64, GROUP_SIZE_M=8))
    assert rel(torch, c, a.double() @ b.double()) < 2e-3


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_fused_attention(torch, causal, head_dim):
    m = load("06-fused-attention")
    Z, H, N = 2, 3, 512
    q, k, v = (torch.randn(Z, H, N, head_dim, device="cuda",
                           dtype=torch.float16) for _ in range(3))
    o = torch.full_like(q, float("nan"))
    lse = torch.full((Z, H, N), float("nan"), device="cuda")
    m.attention(q, k, v, causal, 0.2, o, lse)
    s = q.double() @ k.double().transpose(-1, -2) * 0.2
    if causal:
        s = s.masked_fill(~torch.ones(N, N, dtype=torch.bool,
                                      device="cuda").tril(), float("-inf"))
    ref = torch.softmax(s, -1) @ v.double()
    assert rel(torch, o, ref) < 5e-3
    assert torch.allclose(lse.double(), torch.logsumexp(s, -1) / 0.6931471805599453,
                          atol=1e-2)


@pytest.mark.parametrize("options", [
    dict(warp_specialize=True),
    dict(warp_specialize=True, producer_warpgroup=True),
    dict(warp_specialize=True, producer_warpgroup=True, num_stages=3),
    dict(warp_specialize=True, producer_warpgroup=True, overlap_softmax=True),
    dict(warp_specialize=True, producer_warpgroup=True, overlap_softmax=True,
         pingpong=True, num_stages=3),
    dict(warp_specialize=True, producer_warpgroup=True, early_dots=True),
    dict(warp_specialize=True, pingpong=True),
])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D, dtype", [(128, "float16"), (64, "float16"),
                                      (128, "bfloat16")])
def test_fused_attention_warp_specialized(torch, causal, options, D, dtype):
    # The tutorial's kernel with 128-row tiles (BLOCK_N = the head dim) and
    # producer warps: the consumers' loops wait on mbarriers, and the query
    # (a loop-invariant wgmma A) is read from shared memory, not registers
    # (docs/passes.md, "Loop-invariant A operands of wgmma loops"). Eight
    # or more key tiles a row block.
    m = load("06-fused-attention")
    Z, H, N = 1, 3, 1024
    q, k, v = (torch.randn(Z, H, N, D, device="cuda",
                           dtype=getattr(torch, dtype)) for _ in range(3))
    o = torch.full_like(q, float("nan"))
    lse = torch.full((Z, H, N), float("nan"), device="cuda")
    options = dict(options)
    stages = options.pop("num_stages", 3 if options.get("early_dots") else 2)
    m.attention(q, k, v, causal, 0.09, o, lse, BLOCK_M=128, BLOCK_N=D,
                num_stages=stages, **options)
    s = q.double() @ k.double().transpose(-1, -2) * 0.09
    if causal:
        s = s.masked_fill(~torch.ones(N, N, dtype=torch.bool,
                                      device="cuda").tril(), float("-inf"))
    ref = torch.softmax(s, -1) @ v.double()
    assert rel(torch, o, ref) < (5e-3 if dtype == "float16" else 2e-2), \
        options


@pytest.mark.parametrize("heads, kv_heads, page, dim", [
    (32, 8, 16, 128), (32, 32, 16, 64), (64, 8, 128, 128), (28, 4, 32, 128)])
def test_paged_attention_decode(torch, heads, kv_heads, page, dim):
    import numpy as np
    m = load("paged-attention")
    rng = np.random.default_rng(heads * page + dim)
    q, kc, vc, bt, lens = m.make_inputs(np, rng, 12, heads, kv_heads, dim,
                                        page, 700, np.float16)
    ref = torch.from_numpy(m.reference(np, q, kc, vc, bt, lens, dim ** -0.5))
    t = [torch.from_numpy(a).cuda() for a in (q, kc, vc, bt, lens)]
    out = torch.full_like(t[0], float("nan"))
    m.paged_attention(*t, dim ** -0.5, out)
    err = (out.double().cpu() - ref).abs().max().item()
    assert err < 3e-3 and not torch.isnan(out).any()


@pytest.mark.parametrize("heads, kv_heads, page, dim", [
    (32, 8, 16, 128), (32, 32, 16, 64), (28, 4, 32, 128)])
@pytest.mark.parametrize("forward", [True, False])
def test_paged_attention_decode_scratch(torch, heads, kv_heads, page, dim,
                                        forward):
    import numpy as np
    m = load("paged-attention-scratch")
    natural = load("paged-attention")
    rng = np.random.default_rng(heads * page + dim + 1)
    q, kc, vc, bt, lens = natural.make_inputs(np, rng, 12, heads, kv_heads,
                                              dim, page, 700, np.float16)
    ref = torch.from_numpy(natural.reference(np, q, kc, vc, bt, lens,
                                             dim ** -0.5))
    t = [torch.from_numpy(a).cuda() for a in (q, kc, vc, bt, lens)]
    out = torch.full_like(t[0], float("nan"))
    m.paged_attention_scratch(*t, dim ** -0.5, out, forward_stores=forward)
    err = (out.double().cpu() - ref).abs().max().item()
    assert err < 3e-3 and not torch.isnan(out).any()


@quire.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_launch_on_a_side_stream(torch):
    x = torch.randn(1 << 20, device="cuda")
    y = torch.full_like(x, float("nan"))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        _copy[(1024,)](x, y, x.numel(), BLOCK=1024)
    s.synchronize()
    assert torch.equal(x, y)
    z = torch.full_like(x, float("nan"))
    _copy[(1024,)](x, z, x.numel(), BLOCK=1024, stream=s.cuda_stream)
    s.synchronize()
    assert torch.equal(x, z)


def test_cpu_tensor_is_refused(torch):
    with pytest.raises(ValueError, match="CPU tensor"):
        _copy[(1,)](torch.zeros(4), torch.zeros(4, device="cuda"), 4, BLOCK=4)


def test_compiled_kernel_reports_registers(torch):
    x = torch.randn(4096, device="cuda")
    k = _copy[(4,)](x, torch.empty_like(x), 4096, BLOCK=1024)
    assert isinstance(k.n_regs, int) and k.n_regs > 0
    assert k.n_spills == 0
    assert k.metadata["threads"] == 128


def test_cuda_graph_capture(torch):
    x = torch.randn(1 << 16, device="cuda")
    y = torch.full_like(x, float("nan"))
    _copy[(64,)](x, y, x.numel(), BLOCK=1024)  # compile outside the capture
    y.fill_(float("nan"))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        _copy[(64,)](x, y, x.numel(), BLOCK=1024)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(x, y)


def test_interpreter_copies_cuda_tensors_back(torch, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = torch.randn(3000, device="cuda")
    y = torch.full_like(x, float("nan"))
    _copy[(3,)](x, y, 3000, BLOCK=1024)
    assert torch.equal(x, y)


def test_environment_is_read_on_every_launch(torch, monkeypatch):
    # The cached launch path reads QUIRE_INTERPRET and QUIRE_DEBUG from
    # os.environ's own dict: a change made after a launch takes effect at
    # the next one.
    import numpy as np
    x = torch.randn(3000, device="cuda")
    y = torch.empty_like(x)
    plain = _copy[(3,)](x, y, 3000, BLOCK=1024)
    assert _copy[(3,)](x, y, 3000, BLOCK=1024) is plain
    monkeypatch.setenv("QUIRE_DEBUG", "1")
    debug = _copy[(3,)](x, y, 3000, BLOCK=1024)
    assert debug is not plain
    monkeypatch.delenv("QUIRE_DEBUG")
    assert _copy[(3,)](x, y, 3000, BLOCK=1024) is plain
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    a = np.arange(3000, dtype=np.float32)
    b = np.zeros_like(a)
    _copy[(3,)](a, b, 3000, BLOCK=1024)  # host arrays: the interpreter
    assert np.array_equal(a, b)
