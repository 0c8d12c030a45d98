"""torch.ops.quire.*: the attention ops registered as torch custom operators
(quire/ops/torch_ops.py). Their schemas (the write to `out` declared), the
ops on CPU tensors (run by the interpreter) and on the GPU against float64,
torch.library.opcheck, argument errors as RuntimeErrors, and a toy decoder
layer under torch.compile(fullgraph=True) matching eager and replayed from
a CUDA graph. Needs torch; skipped with the reason where it is missing."""

import math
import re

import pytest

torch = pytest.importorskip(
    "torch", reason="torch.ops.quire needs torch (not installed)")
np = pytest.importorskip("numpy")

import quire  # noqa: E402
import quire.ops.torch_ops  # noqa: E402,F401
from helpers import attention_ref, rel_err  # noqa: E402

ops = torch.ops.quire
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _case(device, ctx, qlens, page=16, hq=4, hkv=2, d=32, dtype=None,
          seed=None):
    """A paged batch: q [T, hq, d], a [2, blocks, page, hkv, d] cache with
    its blocks in random order, cu_seqlens_q, seqused_k, maxima."""
    g = torch.Generator()
    g.manual_seed(torch.seed() if seed is None else seed)  # fresh by default
    dtype = dtype or torch.float16
    lens = [c + n for c, n in zip(ctx, qlens)]
    mb = max(1, max(-(-n // page) for n in lens))
    nb = len(lens) * mb + 3
    kv = torch.randn(2, nb, page, hkv, d, generator=g).to(dtype)
    bt = torch.randperm(nb, generator=g)[:len(lens) * mb]
    bt = bt.view(len(lens), mb).int()
    cu = torch.tensor([0] + list(np.cumsum(qlens)), dtype=torch.int32)
    q = torch.randn(int(cu[-1]), hq, d, generator=g).to(dtype)
    sl = torch.tensor(lens, dtype=torch.int32)
    to = lambda x: x.to(device)
    return (to(q), to(kv[0]), to(kv[1]), to(bt), to(cu), to(sl), max(qlens),
            max(lens))


def _ref(q, k, v, bt, cu, sl, scale, **kw):
    f = lambda x: x.double().cpu().numpy()
    kw = {n: (f(x) if hasattr(x, "cpu") else x) for n, x in kw.items()}
    return attention_ref(np, f(q), f(k), f(v), bt.cpu().numpy(),
                         cu.cpu().numpy(), sl.cpu().numpy(), scale, **kw)


def _close(out, ref, tol=2e-3):
    assert not torch.isnan(out).any()
    assert rel_err(np, out.double().cpu().numpy(), ref) < tol


def test_schemas_declare_what_they_write():
    writes_out = re.compile(r"Tensor\(a\d*!\) out,")
    s = str(ops.unified_attention.default._schema)
    assert writes_out.search(s) and s.endswith("-> ()"), s
    s = str(ops.unified_attention_lse.default._schema)
    assert writes_out.search(s) and s.endswith("-> Tensor"), s
    for name in ("paged_decode_attention", "paged_prefill_attention"):
        s = str(getattr(ops, name).default._schema)
        assert "!" not in s and s.endswith("-> Tensor"), s
    assert set(quire.ops.torch_ops.OPS) <= set(dir(ops))


@pytest.mark.parametrize("device", DEVICES)
def test_unified_ops_match_float64(device):
    q, k, v, bt, cu, sl, mq, mk = _case(device, [40, 0, 70, 3], [1, 20, 1, 9])
    hq = q.shape[1]
    slopes = torch.rand(hq).to(device) / 4
    sinks = torch.randn(hq).to(device)
    out = torch.full_like(q, float("nan"))
    r = ops.unified_attention(q, k, v, out, cu, mq, sl, mk, 0.2, True,
                              [16, 0], bt, 20.0, None, None, None,
                              alibi_slopes=slopes, sinks=sinks)
    assert r is None
    ref, ref_lse = _ref(q, k, v, bt, cu, sl, 0.2, window_left=16,
                        softcap=20.0, alibi_slopes=slopes, sinks=sinks)
    _close(out, ref)
    out2 = torch.full_like(q, float("nan"))
    lse = ops.unified_attention_lse(q, k, v, out2, cu, mq, sl, mk, 0.2, True,
                                    [16, 0], bt, 20.0, None, None, None,
                                    alibi_slopes=slopes, sinks=sinks)
    _close(out2, ref)
    assert lse.shape == (hq, q.shape[0]) and lse.dtype == torch.float32
    np.testing.assert_allclose(lse.cpu().numpy(), ref_lse, rtol=1e-3,
                               atol=1e-2)


@pytest.mark.parametrize("device", DEVICES)
def test_functional_ops_match_float64(device):
    # Decode: one token per sequence.
    q, k, v, bt, cu, sl, mq, mk = _case(device, [50, 1, 200], [1, 1, 1])
    out = ops.paged_decode_attention(q, k, v, bt, sl, scale=0.3,
                                     max_seq_len=mk)
    assert out.shape == q.shape and out.dtype == q.dtype
    _close(out, _ref(q, k, v, bt, cu, sl, 0.3)[0])
    out = ops.paged_decode_attention(q, k, v, bt, sl, window_size=[32, 0],
                                     softcap=10.0)
    _close(out, _ref(q, k, v, bt, cu, sl, 1 / math.sqrt(q.shape[2]),
                     window_left=32, softcap=10.0)[0])
    # Prefill chunks over a cached context.
    q, k, v, bt, cu, sl, mq, mk = _case(device, [0, 33], [24, 17])
    out = ops.paged_prefill_attention(q, k, v, bt, cu, sl, scale=0.25,
                                      max_query_len=mq)
    _close(out, _ref(q, k, v, bt, cu, sl, 0.25)[0])
    out = ops.paged_prefill_attention(q, k, v, bt, cu, sl, causal=False)
    _close(out, _ref(q, k, v, bt, cu, sl, 1 / math.sqrt(q.shape[2]),
                     causal=False)[0])


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    q, k, v, bt, cu, sl, mq, mk = _case(device, [20, 0, 9], [1, 12, 1],
                                        seed=1)
    out = torch.empty_like(q)
    common = (cu, mq, sl, mk, 0.2, True, [-1, -1], bt, 0.0, None, None, None)
    for op in (ops.unified_attention, ops.unified_attention_lse):
        torch.library.opcheck(op, (q, k, v, out) + common)
    torch.library.opcheck(ops.paged_prefill_attention, (q, k, v, bt, cu, sl),
                          {"scale": 0.2, "max_query_len": mq})
    q, k, v, bt, cu, sl, mq, mk = _case(device, [20, 5], [1, 1], seed=2)
    torch.library.opcheck(ops.paged_decode_attention, (q, k, v, bt, sl),
                          {"max_seq_len": mk, "window_size": [8, 0]})


def test_argument_errors_are_runtime_errors():
    q, k, v, bt, cu, sl, mq, mk = _case("cpu", [5, 5], [1, 1], seed=3)
    with pytest.raises(RuntimeError, match=r"block_table: 1 rows for 2 "
                       "sequences") as e:
        ops.paged_decode_attention(q, k, v, bt[:1], sl)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, quire.ops.ArgumentError)
    with pytest.raises(RuntimeError, match="seq_lens: expected int32, got "
                       "int64") as e:
        ops.paged_decode_attention(q, k, v, bt, sl.long())
    assert isinstance(e.value, TypeError)
    assert isinstance(e.value, quire.ops.ArgumentTypeError)
    with pytest.raises(quire.ops.ArgumentError,
                       match=r"window_size: expected \[left, right\]"):
        ops.paged_decode_attention(q, k, v, bt, sl, window_size=[3])
    with pytest.raises(NotImplementedError, match="head_dim 264"):
        big = torch.zeros(2, 4, 264, dtype=torch.float16)
        kc = torch.zeros(4, 16, 2, 264, dtype=torch.float16)
        ops.paged_decode_attention(big, kc, kc, bt, sl)
    # Called directly, the op raises the plain subclasses.
    with pytest.raises(ValueError, match="block_table: 1 rows"):
        quire.ops.paged_decode_attention(q, k, v, bt[:1], sl)


class DecoderLayer(torch.nn.Module):
    """A toy attention layer as a serving engine writes one: QKV projection,
    the new keys and values written into the paged cache at their slots,
    torch.ops.quire.unified_attention over the cache, output projection and
    residual."""

    def __init__(self, hidden, hq, hkv, d):
        super().__init__()
        self.hq, self.hkv, self.d = hq, hkv, d
        self.qkv = torch.nn.Linear(hidden, (hq + 2 * hkv) * d, bias=False)
        self.o = torch.nn.Linear(hq * d, hidden, bias=False)

    def forward(self, x, k_cache, v_cache, slots, block_table, cu, seqused,
                max_q: int, max_k: int):
        T = x.shape[0]
        q, k, v = self.qkv(x).split(
            [self.hq * self.d, self.hkv * self.d, self.hkv * self.d], dim=1)
        q = q.reshape(T, self.hq, self.d)
        flat = (-1, self.hkv, self.d)
        k_cache.view(flat).index_copy_(0, slots, k.reshape(flat))
        v_cache.view(flat).index_copy_(0, slots, v.reshape(flat))
        out = torch.empty_like(q)
        ops.unified_attention(q, k_cache, v_cache, out, cu, max_q, seqused,
                              max_k, 1 / math.sqrt(self.d), True, [-1, -1],
                              block_table, 0.0, None, None, None)
        return x + self.o(out.reshape(T, self.hq * self.d))


@pytest.mark.gpu
def test_torch_compile_fullgraph_and_cuda_graph():
    torch.manual_seed(torch.seed())
    hidden, hq, hkv, d, page = 256, 8, 2, 64, 16
    layer = DecoderLayer(hidden, hq, hkv, d).cuda().half().requires_grad_(False)
    # A mixed batch: two decode tokens and two prefill chunks, the cache
    # already holding each sequence's context.
    ctx, qlens = [100, 0, 37, 5], [1, 24, 1, 9]
    _, kc, vc, bt, cu, sl, mq, mk = _case("cuda", ctx, qlens, page, hq, hkv,
                                          d)
    T = sum(qlens)
    pos = torch.cat([torch.arange(c, c + n) for c, n in zip(ctx, qlens)])
    seq = torch.cat([torch.full((n,), s) for s, n in enumerate(qlens)])
    slots = (bt.cpu()[seq, pos // page].long() * page + pos % page).cuda()
    x = torch.randn(T, hidden, device="cuda", dtype=torch.half)
    args = lambda kc, vc, x: (x, kc, vc, slots, bt, cu, sl, mq, mk)

    eager_k, eager_v = kc.clone(), vc.clone()
    want = layer(*args(eager_k, eager_v, x))
    # The attention in the layer against float64 over the cache it wrote.
    q = layer.qkv(x)[:, :hq * d].reshape(T, hq, d)
    att, _ = _ref(q, eager_k, eager_v, bt, cu, sl, 1 / math.sqrt(d))
    att = torch.from_numpy(att).cuda()
    ref = x.double() + att.reshape(T, -1) @ layer.o.weight.double().T
    assert rel_err(np, want.double().cpu().numpy(), ref.cpu().numpy()) < 3e-3

    compiled = torch.compile(layer, fullgraph=True)
    got_k, got_v = kc.clone(), vc.clone()
    got = compiled(*args(got_k, got_v, x))
    torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    assert torch.equal(got_k, eager_k) and torch.equal(got_v, eager_v)

    # The compiled layer captured in a CUDA graph, replayed on new inputs.
    sx = x.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        compiled(*args(got_k, got_v, sx))
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        sy = compiled(*args(got_k, got_v, sx))
    x2 = torch.randn(T, hidden, device="cuda", dtype=torch.half)
    sx.copy_(x2)
    sy.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    want2 = layer(*args(eager_k, eager_v, x2))
    torch.testing.assert_close(sy, want2, rtol=2e-3, atol=2e-3)
    assert torch.equal(got_k, eager_k) and torch.equal(got_v, eager_v)


def test_plan_on_cpu_tensors():
    # A plan made on CPU torch tensors runs through the interpreter, with
    # new values each run.
    q, k, v, bt, cu, sl, mq, mk = _case("cpu", [40, 0, 70, 3], [1, 20, 1, 9])
    plan = quire.ops.plan_attention(q, k, v, None, cu, mq, sl, mk, 0.2, True,
                                    (-1, -1), bt, 0.0, None, None, None)
    q2 = torch.randn(q.shape).half()
    out = plan.run(q2, k, v, None, cu, sl, bt)
    assert out.shape == q.shape and out.dtype == q.dtype
    _close(out, _ref(q2, k, v, bt, cu, sl, 0.2)[0])
    with pytest.raises(ValueError, match="q: dtype"):
        plan.run(q2.float(), k, v, None, cu, sl, bt)
