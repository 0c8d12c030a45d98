"""quire.ops.plan_attention: a plan made on one batch and run on others of
the same layout (new values, new lengths, new block tables) matches the
float64 reference, in the interpreter (host plans) for every batch kind and
feature set, and on the GPU, where the plain calls' cached plans are also
checked; run() rejects tensors laid out otherwise, naming them."""

import math

import pytest

import quire
from helpers import attention_ref, rel_err
from test_unified import Batch, features

np = pytest.importorskip("numpy")
plan_attention = quire.ops.plan_attention

# (contexts, chunk lengths) of a decode, a prefill and a mixed batch, and
# the contexts shuffled (same shapes, other lengths).
KINDS = {
    "decode": ([0, 37, 129, 5, 60], [1, 1, 1, 1, 1]),
    "prefill": ([0, 45], [40, 40]),
    "mixed": ([100, 3, 0, 5, 20, 0], [1, 17, 1, 0, 64, 1]),
}


def _plan(b, kw, scale, out=None):
    kw = dict(kw)
    lse = kw.pop("return_lse", False)
    return plan_attention(b.q, b.k, b.v, out, b.cu, b.max_q, b.lens, b.max_k,
                          scale, True, kw.pop("window_size"), b.bt,
                          kw.pop("softcap"), kw.pop("q_descale", None),
                          kw.pop("k_descale", None),
                          kw.pop("v_descale", None), return_lse=lse, **kw)


def _check(b, res, ref_kw, scale, lse_on):
    ref, ref_lse = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v), b.bt,
                                 b.cu, b.lens, scale, True, **ref_kw)
    out = res[0] if lse_on else res
    got = b.f64(out)
    assert not np.isnan(got).any(), "rows left unwritten"
    assert rel_err(np, got, ref) < b.tol
    if lse_on:
        fin = np.isfinite(ref_lse)
        np.testing.assert_allclose(res[1][fin], ref_lse[fin], rtol=1e-4,
                                   atol=2e-3)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("feature", [
    "none", "lse", "window24+softcap5+alibi+sinks+lse+descale"])
def test_plan_runs_other_batches_of_the_layout(kind, feature):
    ctx, qlens = KINDS[kind]
    rng = np.random.default_rng()
    b = Batch(rng, ctx, qlens)
    kw, ref_kw = features(feature, b, rng)
    scale = 1 / math.sqrt(b.d)
    plan = _plan(b, kw, scale, out=b.poisoned())
    lse_on = kw.get("return_lse", False)
    # The same shapes with other values, block tables, and the sequences
    # in another order (other lengths and start locations).
    order = rng.permutation(len(ctx))
    for c, n in ((ctx, qlens), ([ctx[i] for i in order],
                                [qlens[i] for i in order])):
        b2 = Batch(rng, c, n)
        assert b2.bt.shape == b.bt.shape
        out = b2.poisoned()
        opt = {n: kw[n] for n in ("alibi_slopes", "sinks", "q_descale",
                                  "k_descale", "v_descale") if n in kw}
        res = plan.run(b2.q, b2.k, b2.v, out, b2.cu, b2.lens, b2.bt, **opt)
        assert (res[0] if lse_on else res) is out
        _check(b2, res, ref_kw, scale, lse_on)


@pytest.mark.parametrize("kind", ["decode", "mixed"])
@pytest.mark.parametrize("feature", [
    "none", "window24+softcap5+alibi+sinks+lse+descale"])
@pytest.mark.parametrize("num_splits", [3, 6])
def test_fused_combine(kind, feature, num_splits):
    # The splits merge themselves: one decode launch, right on every run
    # (the counters are set back to zero by the kernel, not the host). The
    # last split merges MERGE_UNROLL (4) splits a step: 3 is one partial
    # step, 6 a full one and a partial one.
    ctx, qlens = KINDS[kind]
    rng = np.random.default_rng()
    b = Batch(rng, ctx, qlens)
    kw, ref_kw = features(feature, b, rng)
    scale = 1 / math.sqrt(b.d)
    plan = _plan(b, dict(kw, num_splits=num_splits, fused_combine=True),
                 scale)
    names = [L.spec.name for L in plan._launches]
    assert names[0] == "paged_decode_split_fused"
    assert "paged_decode_combine" not in names
    lse_on = kw.get("return_lse", False)
    opt = {n: kw[n] for n in ("alibi_slopes", "sinks", "q_descale",
                              "k_descale", "v_descale") if n in kw}
    counters = [x for x in plan._workspace.values() if x.dtype == np.int32]
    assert len(counters) == 1
    for _ in range(3):
        b2 = Batch(rng, ctx, qlens)
        res = plan.run(b2.q, b2.k, b2.v, b2.poisoned(), b2.cu, b2.lens,
                       b2.bt, **opt)
        _check(b2, res, ref_kw, scale, lse_on)
        assert not counters[0].any()


@pytest.mark.parametrize("num_splits,fused", [(2, True), (8, True),
                                               (16, False), (32, False)])
def test_plans_fuse_the_combine_up_to_eight_splits(num_splits, fused):
    # fused_combine=None (plan_attention's default): one launch up to
    # configs.FUSED_MAX_SPLITS splits, the combine kernel past it; the
    # plain calls' plans never fuse (their workspace is not zeroed).
    rng = np.random.default_rng()
    b = Batch(rng, [300, 2000, 5], [1, 1, 1])
    scale = 1 / math.sqrt(b.d)
    kw = dict(window_size=(-1, -1), softcap=0.0, num_splits=num_splits)
    plan = _plan(b, kw, scale)
    names = [L.spec.name for L in plan._launches]
    assert names == (["paged_decode_split_fused"] if fused else
                     ["paged_decode_split", "paged_decode_combine"])
    for _ in range(2):
        b2 = Batch(rng, [300, 2000, 5], [1, 1, 1])
        res = plan.run(b2.q, b2.k, b2.v, b2.poisoned(), b2.cu, b2.lens, b2.bt)
        _check(b2, res, {}, scale, False)
    forced = _plan(b, dict(kw, fused_combine=False), scale)
    assert "paged_decode_combine" in [L.spec.name for L in forced._launches]


def test_host_plans_run_in_order():
    rng = np.random.default_rng()
    b = Batch(rng, *KINDS["mixed"])
    plan = plan_attention(b.q, b.k, b.v, None, b.cu, b.max_q, b.lens, b.max_k,
                          0.3, True, (-1, -1), b.bt, 0.0, None, None, None)
    assert len(plan._groups) == 2 and not plan.concurrent


def test_plan_without_out_allocates_per_run():
    rng = np.random.default_rng()
    b = Batch(rng, *KINDS["mixed"])
    plan = plan_attention(b.q, b.k, b.v, None, b.cu, b.max_q, b.lens, b.max_k,
                          0.3, True, (-1, -1), b.bt, 0.0, None, None, None)
    first = plan.run(b.q, b.k, b.v, None, b.cu, b.lens, b.bt)
    second = plan.run(q=b.q, k=b.k, v=b.v, cu_seqlens_q=b.cu,
                      seqused_k=b.lens, block_table=b.bt)
    assert first is not second and first.shape == b.q.shape
    _check(b, first, {}, 0.3, False)
    np.testing.assert_array_equal(first, second)
    # An out of the planned layout may be passed too.
    out = b.poisoned()
    assert plan.run(b.q, b.k, b.v, out, b.cu, b.lens, b.bt) is out


def test_fresh_workspace_matches_the_plans_own():
    # The plain calls' cached plans run with a workspace of their own
    # (plan._run(..., None): on the host a fresh one each call); a plan's
    # own runs reuse the recorded one.
    rng = np.random.default_rng()
    b = Batch(rng, *KINDS["decode"])
    plan = plan_attention(b.q, b.k, b.v, None, b.cu, b.max_q, b.lens, b.max_k,
                          0.3, True, (-1, -1), b.bt, 0.0, None, None, None,
                          num_splits=4, fused_combine=False)
    assert [r for r, _ in plan._scratch] == ["scratch0", "scratch1"]
    args = (b.q, b.k, b.v, None, b.cu, b.lens, b.bt)
    fresh = plan._run(dict(zip(plan.roles, args + (None,) * 5)), None)
    np.testing.assert_array_equal(fresh, plan.run(*args))
    _check(b, fresh, {}, 0.3, False)


def test_plan_of_an_empty_batch():
    rng = np.random.default_rng(5)
    b = Batch(rng, [3, 20], [1, 5])
    q = b.q[:0]
    cu = np.zeros(3, np.int32)
    plan = plan_attention(q, b.k, b.v, None, cu, 0, np.zeros(2, np.int32),
                          b.max_k, 0.1, True, (-1, -1), b.bt, 0.0, None,
                          None, None)
    assert plan.run(q, b.k, b.v, None, cu, np.zeros(2, np.int32),
                    b.bt).shape == (0, 8, 32)


def _small_plan(**extra):
    rng = np.random.default_rng(3)
    b = Batch(rng, [3, 20], [1, 5])
    return b, plan_attention(b.q, b.k, b.v, b.poisoned(), b.cu, b.max_q,
                             b.lens, b.max_k, 0.1, True, (-1, -1), b.bt, 0.0,
                             None, None, None, **extra)


@pytest.mark.parametrize("change, exc, message", [
    (lambda b: dict(q=b.q[:5]), ValueError,
     r"q: shape \[5, 8, 32\] differs from the plan's \[6, 8, 32\]"),
    (lambda b: dict(q=b.q.astype(np.float32)), ValueError,
     "q: dtype f32 differs from the plan's f16"),
    (lambda b: dict(k=np.ascontiguousarray(b.k.transpose(0, 2, 1, 3))
                    .transpose(0, 2, 1, 3)), ValueError,
     r"k: strides \[.*\] differs from the plan's"),
    (lambda b: dict(block_table=np.zeros((2, 3), np.int32)), ValueError,
     r"block_table: shape \[2, 3\] differs from the plan's \[2, 2\]"),
    (lambda b: dict(out=None), ValueError,
     "out: the plan was made with a tensor here; pass one"),
    (lambda b: dict(sinks=np.zeros(8, np.float32)), ValueError,
     "sinks: the plan was made without it; make one that has it"),
    (lambda b: dict(cu_seqlens_q=[0, 1, 6]), TypeError,
     "cu_seqlens_q: expected a tensor, got list"),
])
def test_run_rejects_other_layouts(change, exc, message):
    b, plan = _small_plan()
    a = dict(q=b.q, k=b.k, v=b.v, out=b.poisoned(), cu_seqlens_q=b.cu,
             seqused_k=b.lens, block_table=b.bt)
    a.update(change(b))
    with pytest.raises(exc, match=message):
        plan.run(**a)


def test_run_arguments():
    b, plan = _small_plan(alibi_slopes=np.ones(8, np.float32))
    with pytest.raises(ValueError, match="alibi_slopes: the plan was made "
                       "with a tensor here; pass one"):
        plan.run(b.q, b.k, b.v, b.poisoned(), b.cu, b.lens, b.bt)
    with pytest.raises(TypeError, match="unexpected argument 'lens'"):
        plan.run(b.q, b.k, b.v, b.poisoned(), b.cu, lens=b.lens)
    with pytest.raises(TypeError, match="run\\(\\) got q twice"):
        plan.run(b.q, q=b.q)
    with pytest.raises(TypeError, match="takes at most 12 tensors"):
        plan.run(*([b.q] * 13))
    assert plan.roles == quire.ops.unified.ROLES


def test_plan_made_with_one_tensor_for_two():
    rng = np.random.default_rng(4)
    b = Batch(rng, [3, 20], [1, 5])
    plan = plan_attention(b.q, b.k, b.k, None, b.cu, b.max_q, b.lens,
                          b.max_k, 0.1, True, (-1, -1), b.bt, 0.0, None, None,
                          None)
    with pytest.raises(ValueError, match="v: the plan was made with the "
                       "same tensor as k; pass that one"):
        plan.run(b.q, b.k, b.k.copy(), None, b.cu, b.lens, b.bt)
    plan.run(b.q, b.k, b.k, None, b.cu, b.lens, b.bt)


def test_plan_validates_like_the_call():
    rng = np.random.default_rng(6)
    b = Batch(rng, [3, 20], [1, 5])
    with pytest.raises(ValueError, match="max_seqlen_q: 4, but sequence 1's "
                       "chunk has 5 tokens"):
        plan_attention(b.q, b.k, b.v, None, b.cu, 4, b.lens, b.max_k, 0.1,
                       True, (-1, -1), b.bt, 0.0, None, None, None)


# --- on the GPU -----------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("kind", list(KINDS))
def test_plans_on_gpu(kind):
    import torch
    from test_unified import _ref_on_cpu, _torch_case
    gen = torch.Generator(device="cuda")
    gen.seed()
    ctx, qlens = KINDS[kind]
    q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, 16, 32,
                                            8, 128, torch.half)
    slopes = torch.rand(32, device="cuda", generator=gen) / 4
    plan = plan_attention(q, kv[0], kv[1], None, cu, mq, sl, mk, 0.08, True,
                          (64, 0), bt, 0.0, None, None, None,
                          alibi_slopes=slopes, return_lse=True)
    for _ in range(2):  # new values and block tables each time
        q2, kv2, bt2, cu2, sl2, _, _ = _torch_case(torch, gen, ctx, qlens, 16,
                                                   32, 8, 128, torch.half)
        out, lse = plan.run(q2, kv2[0], kv2[1], None, cu2, sl2, bt2,
                            alibi_slopes=slopes)
        torch.cuda.synchronize()
        ref, ref_lse = _ref_on_cpu(torch, q2, kv2[0], kv2[1], bt2, cu2, sl2,
                                   0.08, window_left=64, alibi_slopes=slopes)
        assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3
        fin = np.isfinite(ref_lse)
        np.testing.assert_allclose(lse.cpu().numpy()[fin], ref_lse[fin],
                                   rtol=1e-3, atol=1e-2)
    with pytest.raises(ValueError, match="q: 16-byte alignment False"):
        flat = torch.empty(q.numel() + 1, dtype=q.dtype, device="cuda")
        plan.run(flat[1:].view(q.shape), kv[0], kv[1], None, cu, sl, bt,
                 alibi_slopes=slopes)


@pytest.mark.gpu
def test_plain_calls_reuse_their_plans():
    import torch
    from test_unified import _ref_on_cpu, _torch_case
    gen = torch.Generator(device="cuda")
    gen.seed()
    ctx, qlens = KINDS["decode"]
    hits = quire.ops.plan.stats["hits"]
    for _ in range(3):
        q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, 16,
                                                32, 8, 128, torch.half)
        out = torch.full_like(q, float("nan"))
        quire.ops.paged_decode_attention(q, kv[0], kv[1], bt, sl, 0.1, out,
                                         max_seq_len=mk)
        torch.cuda.synchronize()
        ref, _ = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.1)
        assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3
    assert quire.ops.plan.stats["hits"] >= hits + 2
    # A value the plan bakes in is part of its key: another scale runs
    # another plan, and is right.
    out2 = quire.ops.paged_decode_attention(q, kv[0], kv[1], bt, sl, 0.2,
                                            max_seq_len=mk)
    ref, _ = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.2)
    assert rel_err(np, out2.double().cpu().numpy(), ref) < 2e-3


@pytest.mark.gpu
def test_plain_calls_share_a_workspace_per_stream():
    # Split-KV plain calls take their partials from one buffer per stream,
    # grown to the largest need; calls of two layouts back to back on one
    # stream, a call on another stream and a call captured in a CUDA graph
    # (a fresh workspace from the graph's pool) are all right.
    import torch
    from test_unified import _ref_on_cpu, _torch_case
    gen = torch.Generator(device="cuda")
    gen.seed()
    bufs = quire.ops.plan._stream_buffers
    bufs.clear()
    cases = []
    for ctx, qlens in (([200, 37], [1, 1]), ([900, 5, 400, 77], [1] * 4)):
        q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, 16,
                                                32, 8, 128, torch.half)
        cases.append((q, kv, bt, cu, sl, mk))

    def call(case, splits, out):
        q, kv, bt, cu, sl, mk = case
        return quire.ops.paged_decode_attention(
            q, kv[0], kv[1], bt, sl, 0.1, out, max_seq_len=mk,
            num_splits=splits)

    def check(case, out):
        q, kv, bt, cu, sl, mk = case
        ref, _ = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.1)
        assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3

    outs = [torch.full_like(c[0], float("nan")) for c in cases * 2]
    # Small, large (the buffer grows), small, large, no synchronization.
    for i, out in enumerate(outs):
        call(cases[i % 2], 3 + i, out)
    main = (torch.cuda.current_device(),
            torch.cuda.current_stream().cuda_stream)
    assert list(bufs) == [main]
    torch.cuda.synchronize()
    for i, out in enumerate(outs):
        check(cases[i % 2], out)
    held = bufs[main]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = call(cases[0], 3, None)
    torch.cuda.current_stream().wait_stream(side)
    assert len(bufs) == 2 and bufs[main] is held
    check(cases[0], out)
    out = torch.full_like(cases[1][0], float("nan"))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call(cases[1], 4, out)
    assert len(bufs) == 2
    # Eager calls between the graph's replays write their own buffer.
    other = torch.full_like(cases[1][0], float("nan"))
    for _ in range(2):
        out.fill_(float("nan"))
        graph.replay()
        call(cases[1], 4, other)
        torch.cuda.synchronize()
        check(cases[1], out)
        check(cases[1], other)


@pytest.mark.gpu
@pytest.mark.parametrize("num_splits", [2, 7])
def test_fused_combine_on_gpu_in_a_cuda_graph(num_splits):
    import torch
    from test_unified import _ref_on_cpu, _torch_case
    gen = torch.Generator(device="cuda")
    gen.seed()
    ctx, qlens = KINDS["decode"]
    q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, 16, 32, 8,
                                            128, torch.half)
    out = torch.empty_like(q)
    plan = plan_attention(q, kv[0], kv[1], out, cu, mq, sl, mk, 0.1, True,
                          (-1, -1), bt, 0.0, None, None, None,
                          return_lse=True, num_splits=num_splits,
                          fused_combine=True)
    assert [L.spec.name for L in plan._launches] == \
        ["paged_decode_split_fused"]
    call = lambda: plan.run(q, kv[0], kv[1], out, cu, sl, bt)
    call()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        res = call()
    for _ in range(3):
        q.copy_(torch.randn(q.shape, device="cuda", generator=gen).half())
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ref, ref_lse = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.1)
        assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3
        fin = np.isfinite(ref_lse)
        np.testing.assert_allclose(res[1].cpu().numpy()[fin], ref_lse[fin],
                                   rtol=1e-3, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("concurrent", [True, False])
def test_mixed_plan_on_two_streams_in_a_cuda_graph(concurrent):
    # A mixed batch's prefill kernel runs on a side stream beside the decode
    # kernels (forked and joined with events): right eagerly, and captured
    # in a CUDA graph replayed on new inputs.
    import torch
    from test_unified import _ref_on_cpu, _torch_case
    gen = torch.Generator(device="cuda")
    gen.seed()
    ctx, qlens = KINDS["mixed"]
    q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, 16, 32, 8,
                                            128, torch.half)
    out = torch.empty_like(q)
    plan = plan_attention(q, kv[0], kv[1], out, cu, mq, sl, mk, 0.1, True,
                          (-1, -1), bt, 0.0, None, None, None,
                          concurrent=concurrent)
    assert plan.concurrent is concurrent
    call = lambda: plan.run(q, kv[0], kv[1], out, cu, sl, bt)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        call()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    for _ in range(2):
        q.copy_(torch.randn(q.shape, device="cuda", generator=gen).half())
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ref, _ = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.1)
        assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3
    out.fill_(float("nan"))
    call()
    # The caller's stream waits for both streams' kernels: a copy enqueued
    # after the run sees every row written.
    got = out.clone()
    torch.cuda.synchronize()
    assert rel_err(np, got.double().cpu().numpy(), ref) < 2e-3


@pytest.mark.parametrize("kind", ["decode", "prefill"])
def test_unified_makes_the_separate_ops_launches(kind):
    # On a decode-only or prefill-only batch unified_attention launches
    # what paged_decode_attention or paged_prefill_attention does: the same
    # specializations, grids and scalar parameters (so the benchmark's
    # baseline rows compare a kernel with itself).
    ctx, qlens = KINDS[kind]
    b = Batch(np.random.default_rng(), ctx, qlens)
    scale = 1 / math.sqrt(b.d)
    # Decode with three splits: the split kernel and the combine (a plan
    # would fuse them by default; the plain calls do not).
    splits = dict(num_splits=3) if kind == "decode" else {}
    uni = _plan(b, dict(window_size=(-1, -1), softcap=0.0,
                        fused_combine=False, **splits), scale,
                out=b.poisoned())
    if kind == "decode":
        call = lambda: quire.ops.paged_decode_attention(  # noqa: E731
            b.q, b.k, b.v, b.bt, b.lens, scale, b.poisoned(),
            max_seq_len=b.max_k, **splits)
    else:
        call = lambda: quire.ops.paged_prefill_attention(  # noqa: E731
            b.q, b.k, b.v, b.bt, b.cu, b.lens, scale, b.poisoned(),
            max_query_len=b.max_q)
    _, rec = quire.ops.plan.record(call)
    want = [(spec, grid, [values[n] for n in spec.order
                          if isinstance(values[n], (int, float))])
            for _, _, launches, _ in rec.runs
            for spec, grid, values, _ in launches]
    got = [(L.spec, L.grid, [v for j, v in enumerate(L.values)
                             if j not in {i for i, _ in L.slots}])
           for L in uni._launches]
    assert len(got) == len(want) == (2 if kind == "decode" else 1)
    for (gs, gg, gv), (ws, wg, wv) in zip(got, want):
        assert gs is ws and tuple(gg) == tuple(wg) and gv == wv
