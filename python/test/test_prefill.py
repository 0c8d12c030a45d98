"""quire.ops.paged_prefill_attention and its kernel (quire/ops/
prefill_kernel.py; examples/paged_prefill_attention.mlir is one
specialization, written by hand): compiles onto tensor cores for sm_80/sm_90, computes prefix
+ causal chunk attention exactly in the interpreter (float64 numpy
reference: ragged chunks, tiles crossing pages, empty contexts, GQA, padded
head dims, the chunk's K/V separate or in the cache, every tile shape), and
rejects bad arguments with errors that name them."""

import math
import os
import re

import pytest

import quire
from conftest import FakeCudaArray, ptxas_sm90a

np = pytest.importorskip("numpy")
ppa = quire.ops.paged_prefill_attention

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "paged_prefill_attention.mlir")


def _ptx_shape(k):
    return ({n: len(re.findall(p, k.ptx)) for n, p in (
        ("v4 loads", r"ld\.global(\.nc)?\.v4"), ("mma", r"mma\.sync"),
        ("wgmma", r"wgmma\.mma_async"), ("cp.async", r"cp\.async\.cg"),
        ("local", r"\.local"))}, k.shared_bytes)


def test_example_compiles_like_the_ops_kernel():
    # The example is the op's specialization f16, group 4, head dim 128,
    # page 16, 64x64 tiles, chunk K/V separate, written by hand.
    src = quire.ops.paged_prefill_source("f16", 4, 128, 16, 64, 64, True,
                                         True, True)
    ours = quire.compile(src, sm=90)
    hand = quire.compile(EXAMPLE, sm=90)
    assert _ptx_shape(ours) == _ptx_shape(hand)
    assert [a["type"] for a in ours.args] == [a["type"] for a in hand.args]


@pytest.mark.parametrize("sm, num_warps, wgmma, instr", [
    (80, 4, True, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    (80, 8, True, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    # One warpgroup: S = Q K^T is m64n64k16, P V m64n128k16, Q from its
    # one-stage buffer, P from registers, K and V read from the swizzled
    # staging buffers.
    (90, 4, True, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
    (90, 4, False, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    # 8 warps split 64 rows 8 ways: not a warpgroup shape, mma.sync.
    (90, 8, True, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
])
def test_compiles_onto_tensor_cores(sm, num_warps, wgmma, instr):
    k = quire.compile(EXAMPLE, sm=sm, num_warps=num_warps, wgmma=wgmma)
    assert instr in k.ptx
    assert "cp.async.cg.shared.global" in k.ptx
    assert k.metadata["threads"] == 32 * num_warps
    if "wgmma" in instr:
        assert ".target sm_90a" in k.ptx
        assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in k.ptx
        assert "fence.proxy.async.shared::cta" in k.ptx
        assert "mma.sync.aligned.m16n8k16" not in k.ptx


@pytest.mark.parametrize("spec, warps", [
    (("bf16", 8, 128, 128, 128, 32, True, True, False), 8),
    (("f16", 1, 64, 16, 64, 64, False, False, True), 4),
    (("f16", 4, 80, 16, 64, 64, True, True, False), 4),
    (("bf16", 2, 256, 32, 64, 32, True, True, True), 4),
])
def test_specializations_compile(spec, warps):
    k = quire.compile(quire.ops.paged_prefill_source(*spec), sm=90,
                      num_warps=warps)
    assert k.name == "paged_prefill_attention"
    assert len(k.args) == (25 if spec[-1] else 19)


def _case(rng, ctx, qlens, page=16, hq=4, hkv=2, d=64, dtype=np.float16):
    lens = [c + n for c, n in zip(ctx, qlens)]
    qs = np.cumsum([0] + list(qlens)).astype(np.int32)
    T = int(qs[-1])
    cap = [max(1, -(-n // page)) for n in lens]
    nb = sum(cap) + 2
    bt = np.zeros((len(ctx), max(cap)), np.int32)
    perm = rng.permutation(nb)
    o = 0
    for s, c in enumerate(cap):
        bt[s, :c] = perm[o:o + c]
        o += c
    q = rng.standard_normal((T, hq, d)).astype(dtype)
    kn = rng.standard_normal((T, hkv, d)).astype(dtype)
    vn = rng.standard_normal((T, hkv, d)).astype(dtype)
    kc = rng.standard_normal((nb, page, hkv, d)).astype(dtype)
    vc = rng.standard_normal((nb, page, hkv, d)).astype(dtype)
    for s, (c, n) in enumerate(zip(ctx, qlens)):  # the chunk, in the cache too
        t = np.arange(c, c + n)
        kc[bt[s, t // page], t % page] = kn[qs[s]:qs[s] + n]
        vc[bt[s, t // page], t % page] = vn[qs[s]:qs[s] + n]
    return dict(query=q, key_cache=kc, value_cache=vc, block_table=bt,
                query_start_loc=qs, seq_lens=np.array(lens, np.int32)), kn, vn


def reference(a, kn, vn, scale):
    q, kc, vc, bt = a["query"], a["key_cache"], a["value_cache"], a["block_table"]
    qs, lens = a["query_start_loc"], a["seq_lens"]
    out = np.zeros(q.shape)
    group = q.shape[1] // kc.shape[2]
    P = kc.shape[1]
    for s in range(len(lens)):
        b, e = qs[s], qs[s + 1]
        ctx = lens[s] - (e - b)
        t = np.arange(ctx)
        kk = np.concatenate([kc[bt[s, t // P], t % P], kn[b:e]]).astype(np.float64)
        vv = np.concatenate([vc[bt[s, t // P], t % P], vn[b:e]]).astype(np.float64)
        for i in range(e - b):
            n = ctx + i + 1
            for h in range(q.shape[1]):
                sc = kk[:n, h // group] @ q[b + i, h].astype(np.float64) * scale
                p = np.exp(sc - sc.max())
                out[b + i, h] = (p / p.sum()) @ vv[:n, h // group]
    return out


def _rel(out, ref):
    return np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref)


@pytest.mark.parametrize("ctx, qlens, page, hq, hkv, d", [
    ([40, 0, 5], [70, 3, 0], 16, 4, 2, 64),     # two query blocks; empty ones
    ([0, 17], [1, 64], 8, 2, 2, 32),            # one-token chunk, MHA
    ([129, 3], [20, 100], 128, 3, 1, 80),       # group 3, head_dim 80 (-> 128)
    ([33], [65], 24, 4, 4, 16),                 # 24-token pages, tiny head
])
@pytest.mark.parametrize("separate", [True, False])
def test_matches_float64(ctx, qlens, page, hq, hkv, d, separate):
    rng = np.random.default_rng(3)
    a, kn, vn = _case(rng, ctx, qlens, page, hq, hkv, d)
    out = np.full(a["query"].shape, np.nan, np.float16)
    kw = dict(key=kn, value=vn) if separate else {}
    assert ppa(**a, out=out, **kw) is out
    ref = reference(a, kn, vn, 1 / math.sqrt(d))
    assert _rel(out, ref) < 2e-3


@pytest.mark.parametrize("block_m, block_n, warps", [
    (128, 32, 8), (64, 32, 4), (16, 16, 1), (32, 64, 2)])
def test_tile_shapes_match_float64(block_m, block_n, warps):
    rng = np.random.default_rng(5)
    a, kn, vn = _case(rng, [50, 0, 200], [140, 9, 33], 16, 4, 2, 32)
    ref = reference(a, kn, vn, 0.2)
    for kv in ((kn, vn), (None, None)):
        out = np.full(a["query"].shape, np.nan, np.float16)
        quire.ops._paged_prefill(*a.values(), 0.2, out, *kv, None, block_m,
                                 block_n, warps)
        assert _rel(out, ref) < 2e-3


@pytest.mark.parametrize("separate", [True, False])
def test_flat_grid_matches_float64(separate):
    # One-token and empty chunks around two long ones that start mid-block:
    # the flat grid (configs.prefill_grid) has fewer programs than one row
    # per sequence, and each program finds its sequence by binary search.
    ctx = [5, 30, 0, 7, 12, 64, 3, 9, 1]
    qlens = [1, 37, 1, 0, 1, 50, 1, 1, 1]
    T = sum(qlens)
    assert quire.ops.configs.prefill_grid(T, len(ctx), max(qlens), 16) == \
        (T // 16 + len(ctx), True)
    rng = np.random.default_rng(8)
    a, kn, vn = _case(rng, ctx, qlens, 16, 4, 2, 32)
    ref = reference(a, kn, vn, 0.2)
    kv = (kn, vn) if separate else (None, None)
    out = np.full(a["query"].shape, np.nan, np.float16)
    quire.ops._paged_prefill(*a.values(), 0.2, out, *kv, max(qlens), 16, 16, 1)
    assert _rel(out, ref) < 2e-3


def test_prefill_grid_keeps_one_row_per_sequence_for_even_chunks():
    grid = quire.ops.configs.prefill_grid
    assert grid(4096, 8, 512, 128) == (32, False)        # 8 x 512
    assert grid(2048, 16, 128, 128) == (16, False)       # 16 x 128
    assert grid(60 + 2048, 64, 512, 128) == (80, True)   # 60 decodes + 4 x 512


@pytest.mark.parametrize("separate", [True, False])
@pytest.mark.parametrize("scale", [-0.3, 0.0, 1e-40])
def test_scale_of_any_sign(scale, separate):
    # Without softcap or ALiBi the kernel folds the scale into the exponent
    # (prefill_kernel._softmax_step with FOLD): q's sign flips for a
    # negative scale, and a zero or subnormal one gives every key the same
    # weight.
    rng = np.random.default_rng(7)
    a, kn, vn = _case(rng, [40, 0, 17], [33, 20, 1], 16, 4, 2, 64)
    ref = reference(a, kn, vn, scale)
    kv = dict(key=kn, value=vn) if separate else {}
    assert _rel(ppa(**a, **kv, scale=scale), ref) < 2e-3


def test_fold_scale_hook():
    # The ablation switch: without the fold the kernel multiplies every
    # score by the scale and subtracts the maximum (a multiply and a
    # subtract an element where the fold has one fma), with the same
    # result.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    rng = np.random.default_rng(9)
    a, kn, vn = _case(rng, [40, 0, 17], [33, 20, 1], 16, 4, 2, 64)
    ref = reference(a, kn, vn, -0.2)
    for fold in (True, False):
        out = np.full(a["query"].shape, np.nan, np.float16)
        quire.ops._paged_prefill(*a.values(), -0.2, out, kn, vn, None,
                                 fold_scale=fold)
        assert _rel(out, ref) < 2e-3
    with pytest.raises(TypeError, match="fold_scale: expected True or "
                                        "False, got int"):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 fold_scale=1)
    none = Features(-1, 0.0, None, None, False, {})
    counts = {}
    for fold in (True, False):
        spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                             False, True, False, none, fold_scale=fold)
        ptx = launch.compiled(spec, 90, 8).ptx
        counts[fold] = [len(re.findall(p, ptx))
                        for p in (r"fma\.rn\.f32", r"sub\.f32", r"ex2")]
    # Both loops, masked and not: 4 x 32 elements of the 128 x 128 tile a
    # thread holds.
    assert counts[True][0] - counts[False][0] == 128
    assert counts[False][1] - counts[True][1] == 128
    assert counts[True][2] == counts[False][2]
    # Softcap and ALiBi keep the scores scaled first: the hook changes
    # nothing there.
    from test_ops_ptx import _View
    feats = {"softcap": Features(-1, 30.0, None, None, False, {}),
             "alibi": Features(-1, 0.0, _View("f32"), None, False, {})}
    for name, f in feats.items():
        ptx = [launch.compiled(prefill._spec(
            "f16", 4, 128, 16, 128, 128, True, True, True, False, True, False,
            f, fold_scale=fold), 90, 8).ptx for fold in (True, False)]
        assert ptx[0] == ptx[1], name


def _hook_matches_float64(seed, **options):
    """_paged_prefill with `options` on a small ragged batch (an empty
    context, a one-token chunk) into a NaN-poisoned output, against float64;
    returns the case (inputs, k_new, v_new)."""
    rng = np.random.default_rng(seed)
    a, kn, vn = _case(rng, [40, 0, 17], [33, 20, 1], 16, 4, 2, 64)
    ref = reference(a, kn, vn, 0.3)
    out = np.full(a["query"].shape, np.nan, np.float16)
    quire.ops._paged_prefill(*a.values(), 0.3, out, kn, vn, None, **options)
    assert _rel(out, ref) < 2e-3
    return a, kn, vn


def test_pingpong_hook():
    # The ablation switch of quire-pingpong: the kernel compiled with it
    # (3 stages) splits both loops on the warpgroup; the interpreter gives
    # the same results; the option is checked.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    a, kn, vn = _hook_matches_float64(10, num_stages=3, pingpong=True)
    with pytest.raises(TypeError, match="pingpong: expected True or "
                                        "False, got str"):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 pingpong="yes")
    none = Features(-1, 0.0, None, None, False, {})
    splits = {}
    for pingpong in (True, False):
        spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                             False, True, False, none, num_stages=3,
                             pingpong=pingpong)
        kernel = launch.compiled(spec, 90, 8)
        splits[pingpong] = kernel.asm("tile").count("tile.warpgroup_id")
        # Each loop's barrier in each branch, and warpgroup 1's first
        # iteration's before each of its loops, is barrier.sync.
        assert kernel.ptx.count("barrier.sync 0;") == (6 if pingpong else 0)
    assert splits == {True: 1, False: 0}


def test_warp_specialize_hook():
    # The ablation switch of quire-warp-specialize on the prefill kernel's
    # cp.async loops: the interpreter gives the same results; compiled, the
    # kernel runs 8 producer warps beside the 8 consumer warps (512
    # threads), both loops' copies in the producer's branch, and with
    # pingpong the consumer warpgroups issue each loop's two dots in turn;
    # the option is checked.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    a, kn, vn = _hook_matches_float64(12, warp_specialize=True)
    with pytest.raises(TypeError, match="warp_specialize: expected True or "
                                        "False, got str"):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 warp_specialize="yes")
    none = Features(-1, 0.0, None, None, False, {})
    for pingpong, warpgroup in ((False, False), (True, False), (False, True)):
        spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                             False, True, False, none,
                             warp_specialize=True, pingpong=pingpong,
                             producer_warpgroup=warpgroup)
        kernel = launch.compiled(spec, 90, 8)
        tile = kernel.asm("tile")
        # A producer warpgroup issues both consumer warpgroups' copies: its
        # second set of ops for the threads 128 above.
        assert kernel.threads == (384 if warpgroup else 512)
        assert ("tile.thread_offset = 128" in tile) == warpgroup
        # K and V, in the two prologues and the two loops.
        assert tile.count("tile.async_arrive") == 8
        assert tile.count("tile.tma_wait") == 4      # K and V, two loops
        assert tile.count("tile.warpgroup_turn wait") == (4 if pingpong else 0)
        assert "cp.async.mbarrier.arrive.noinc" in kernel.ptx


def test_early_dots_with_producer_warps():
    # quire-early-dots on the consumers' loops of quire-warp-specialize: in
    # both loops the next scores dot is issued async after the mbarrier wait
    # for its stage's K (guarded: the producer fills no stage past the
    # loop), the first scores before each loop after the wait on stage 0;
    # at 128 x 64 tiles with 3 stages the consumers fit their 200 registers.
    # With 2 stages the pass leaves the loops alone.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    none = Features(-1, 0.0, None, None, False, {})
    for stages in (2, 3):
        spec = prefill._spec("f16", 4, 128, 16, 128, 64, True, True, True,
                             False, True, False, none, num_stages=stages,
                             warp_specialize=True, producer_warpgroup=True)
        tile = launch.compiled(spec, 90, 8, early_dots=True).asm("tile")
        assert ("async," in tile) == (stages == 3)
    kernel = launch.compiled(spec, 90, 8, early_dots=True)
    assert kernel.threads == 384
    assert len(re.findall(r"tile\.warpgroup_dot .*[{ ]async,", tile)) == 2
    assert tile.count("tile.warpgroup_wait") == 2
    # Per loop: the first scores' wait, K's and V's at the top, K's of the
    # next iteration.
    assert tile.count("tile.tma_wait") == 8
    report = ptxas_sm90a(kernel.ptx, "prefill_ws_early", verbose=True)
    assert "0 bytes spill stores" in report, report
    assert "C751" not in report, report


def test_producer_warps_by_default():
    # The op compiles its 128 x 128 sm_90 wgmma kernel with a producer
    # warpgroup (quire-warp-specialize) where that was timed and checked:
    # fp16/bf16 caches, unchecked, no optional feature; elsewhere not.
    from quire.ops import configs
    from quire.ops.features import Features
    plain = Features(-1, 0.0, None, None, False, {}).flags
    window = Features(8, 0.0, None, None, False, {}).flags
    assert configs.prefill_warp_specialize((128, 128, 8), 90, False, True,
                                           False, plain)
    for tiles, sm, fp8, wgmma, checked, flags in [
            ((128, 64, 8), 90, False, True, False, plain),
            ((128, 128, 8), 80, False, True, False, plain),
            ((128, 128, 8), 90, True, True, False, plain),
            ((128, 128, 8), 90, False, False, False, plain),
            ((128, 128, 8), 90, False, True, True, plain),
            ((128, 128, 8), 90, False, True, False, window)]:
        assert not configs.prefill_warp_specialize(tiles, sm, fp8, wgmma,
                                                   checked, flags)
    # Asked for, quire-pingpong and early dots keep the kernel without
    # producer warps (their loop forms are its).
    from quire.ops import prefill
    rng = np.random.default_rng(13)
    a, kn, vn = _case(rng, [40, 0], [33, 20], 16, 4, 2, 128)
    for options in ({}, dict(pingpong=True, num_stages=3),
                    dict(early_dots=True, num_stages=3)):
        prefill._plans.clear()
        quire.ops._paged_prefill(*a.values(), 0.3, None, kn, vn, None,
                                 **options)
        (spec,) = prefill._plans.values()
        assert (("warp_specialize", True) in spec.options) == (not options)


def test_gathered_rows_hook():
    # The ablation switch of quire-assign-layouts' gathered rows: with it a
    # thread's rows of a 128-key tile over 16-token pages share one page,
    # so it loads 3 block-table entries (the prologue's tile and each
    # loop's) where its rows 16 apart load 8 per tile, and the caches'
    # token strides become constants; the interpreter gives the same
    # results; the option is checked.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    a, kn, vn = _hook_matches_float64(11, gathered_rows=True)
    kts = a["key_cache"].strides[1] // a["key_cache"].itemsize
    specs = [spec for key, spec in prefill._plans.items()
             if ("k_token_stride", kts) in key[-1]]
    assert specs and all(n not in s.order for s in specs
                         for n in ("k_token_stride", "v_token_stride",
                                   "kn_token_stride", "vn_token_stride"))
    with pytest.raises(TypeError, match="gathered_rows: expected True or "
                                        "False, got int"):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 gathered_rows=1)
    none = Features(-1, 0.0, None, None, False, {})
    entries = {}
    for rows in (True, False):
        spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                             False, True, False, none, gathered_rows=rows)
        ptx = launch.compiled(spec, 90, 8).ptx
        entries[rows] = len(re.findall(r"@%p\d+ ld\.global\.b32 ", ptx))
    assert entries == {True: 3, False: 24}


def test_nan_descale_stays_nan():
    # The folded scale keeps a NaN factor NaN (the op over other features
    # and the decode kernels give NaN too), not the least normal f32.
    rng = np.random.default_rng(8)
    a, _, _ = _case(rng, [40, 0], [33, 20], 16, 4, 2, 64)
    out = ppa(**a, q_descale=np.array([np.nan], np.float32))
    assert np.isnan(out.astype(np.float64)).all()


def test_first_grid_runs_a_kv_heads_programs_together(monkeypatch):
    # The rectangular grid is (num_seqs * GROUP, blocks, kv_heads): x the
    # sequence, then the query head within its group, so the programs the
    # GPU starts together (x fastest) read one KV head's cache. Two
    # sequences, groups of 4 over 2 KV heads, chunks of up to three
    # 16-token blocks: every (sequence, head, block) is computed, against
    # float64.
    from quire.ops import prefill
    grids = []
    real = prefill.run

    def record(what, launches, *args):
        grids.extend(grid for _, grid, _, _ in launches)
        return real(what, launches, *args)

    monkeypatch.setattr(prefill, "run", record)
    rng = np.random.default_rng(21)
    a, kn, vn = _case(rng, [17, 40], [33, 48], 16, 8, 2, 16)
    ref = reference(a, kn, vn, 0.25)
    out = quire.ops._paged_prefill(*a.values(), 0.25, None, None, None, 48,
                                   block_m=16, block_n=16, num_warps=4)
    assert grids == [(2 * 4, 3, 2)]
    assert _rel(out, ref) < 2e-3
    # The benchmarks' hook: both KV heads' programs in one round.
    out = quire.ops._paged_prefill(*a.values(), 0.25, None, None, None, 48,
                                   block_m=16, block_n=16, num_warps=4,
                                   kv_heads_together=2)
    assert grids[1:] == [(2 * 8, 3, 1)]
    assert _rel(out, ref) < 2e-3
    with pytest.raises(ValueError, match="kv_heads_together: 3 does not "
                       "divide the cache's 2 KV heads"):
        quire.ops._paged_prefill(*a.values(), 0.25, None, None, None, 48,
                                 kv_heads_together=3)


def test_first_grid_x_limit(monkeypatch):
    # Grid x holds num_seqs times the group: 2^29 sequences with groups of
    # 4 pass 2^31 - 1 and are refused before anything compiles (the
    # arrays have no memory behind them).
    from quire.ops import prefill
    monkeypatch.setattr(prefill, "device_sm", lambda device: 90)
    n = 1 << 29
    f2 = lambda *shape: FakeCudaArray(shape, "<f2")
    with pytest.raises(NotImplementedError, match=r"num_seqs 536870912 "
                       r"\(grid x, num_seqs times 4 query heads, is below "
                       r"2\^31\)"):
        ppa(f2(4, 8, 16), f2(10, 16, 2, 16), f2(10, 16, 2, 16),
            FakeCudaArray((n, 1), "<i4"), FakeCudaArray((n + 1,), "<i4"),
            FakeCudaArray((n,), "<i4"), out=f2(4, 8, 16))


def test_max_query_len_sizes_the_grid():
    rng = np.random.default_rng(1)
    a, kn, vn = _case(rng, [10, 20], [30, 70], 16, 2, 1, 16)
    ref = reference(a, kn, vn, 0.25)
    out = ppa(**a, scale=0.25, max_query_len=70)
    assert _rel(out, ref) < 2e-3
    with pytest.raises(ValueError, match="max_query_len: 64, but sequence 1's "
                       "chunk has 70 tokens"):
        ppa(**a, max_query_len=64)


@pytest.mark.parametrize("change, exc, message", [
    (lambda a: dict(query=a["query"].astype(np.float32)), TypeError,
     "query: expected float16 or bfloat16, got float32"),
    (lambda a: dict(value_cache=a["value_cache"].astype(np.float32)), TypeError,
     "value_cache: expected float16 like query or float8_e4m3fn/float8_e5m2, "
     "got float32"),
    (lambda a: dict(query_start_loc=a["query_start_loc"].astype(np.int64)),
     TypeError, "query_start_loc: expected int32, got int64"),
    (lambda a: dict(query_start_loc=a["query_start_loc"][:2]), ValueError,
     "query_start_loc: 2 entries for 2 sequences"),
    (lambda a: dict(seq_lens=a["seq_lens"][:1]), ValueError,
     r"seq_lens: 1 entries for 2 sequences \(block_table rows\)"),
    (lambda a: dict(query=a["query"][:, :3]), ValueError,
     "query: num_heads 3 is not a multiple of num_kv_heads 2"),
    (lambda a: dict(query_start_loc=np.array([0, 50, 40], np.int32)),
     ValueError, "query_start_loc: must run from 0 to num_tokens 103"),
    (lambda a: dict(query_start_loc=np.array([0, 110, 103], np.int32)),
     ValueError, "query_start_loc: decreases at sequence 1"),
    (lambda a: dict(seq_lens=np.array([40, 60], np.int32)), ValueError,
     r"seq_lens\[1\]: 60 tokens, fewer than its chunk's 63"),
    (lambda a: dict(seq_lens=np.array([40, 400], np.int32)), ValueError,
     r"seq_lens\[1\]: 400 tokens, more than its block_table row holds"),
    (lambda a: dict(key=a["key_cache"][:103, 0]), ValueError,
     "value: key and value are given together or not at all"),
    (lambda a: dict(max_query_len=-1), ValueError, "max_query_len: must be >= 0"),
    (lambda a: dict(scale=float("inf")), ValueError, "scale: must be finite"),
    (lambda a: dict(out=np.zeros((103, 4, 8), np.float16)), ValueError,
     r"out: shape \[103, 4, 8\] differs from query's \[103, 4, 16\]"),
    (lambda a: dict(seq_lens=FakeCudaArray((2,), "<i4")), ValueError,
     "seq_lens: on a CUDA device but query is on the CPU"),
])
def test_validation(change, exc, message):
    rng = np.random.default_rng(2)
    a, _, _ = _case(rng, [0, 50], [40, 63], 16, 4, 2, 16)
    a.update(change(a))
    with pytest.raises(exc, match=message):
        ppa(**a)


def test_key_value_shape_validation():
    rng = np.random.default_rng(2)
    a, kn, vn = _case(rng, [0, 50], [40, 63], 16, 4, 2, 16)
    with pytest.raises(ValueError, match=r"key: expected shape \[103, 2, 16\]"):
        ppa(**a, key=kn[:, :1], value=vn)


def test_unsupported_head_dim():
    rng = np.random.default_rng(2)
    a, _, _ = _case(rng, [0], [4], 16, 1, 1, 264)
    with pytest.raises(NotImplementedError, match="head_dim 264"):
        ppa(**a)


def test_empty_batch_returns_out():
    rng = np.random.default_rng(2)
    a, _, _ = _case(rng, [3], [0], 16, 2, 1, 16)
    out = ppa(**a)
    assert out.shape == (0, 2, 16)


def test_wgmma_option_is_validated_and_keyed():
    with pytest.raises(TypeError, match="wgmma must be True or False, got str"):
        quire.compile(EXAMPLE, sm=90, wgmma="no")
    on = quire.compile(EXAMPLE, sm=90)
    off = quire.compile(EXAMPLE, sm=90, wgmma=False)
    assert on is not off and on.wgmma and not off.wgmma
    assert "wgmma" in on.asm("ptx") and "wgmma" not in off.asm("ptx")


def test_staging_depth_and_early_dots_hooks():
    # The benchmark hooks of _paged_prefill: num_stages specializes the
    # kernel's staging depth, early_dots compiles its scores dot one
    # iteration early on sm_90 (quire-early-dots needs 3 stages); the
    # interpreter runs the same kernel and matches float64.
    rng = np.random.default_rng(9)
    a, kn, vn = _case(rng, [50, 0, 200], [140, 9, 33], 16, 4, 2, 64)
    ref = reference(a, kn, vn, 0.2)
    for stages, early in ((3, False), (3, True), (4, True)):
        out = np.full(a["query"].shape, np.nan, np.float16)
        quire.ops._paged_prefill(*a.values(), 0.2, out, kn, vn, None, 64, 64,
                                 4, num_stages=stages, early_dots=early)
        assert _rel(out, ref) < 2e-3
    with pytest.raises(ValueError, match="num_stages must be None or an int "
                                         r"in \[2, 8\], got 1"):
        quire.ops._paged_prefill(*a.values(), 0.2, None, kn, vn, None,
                                 num_stages=1)
    with pytest.raises(TypeError, match="early_dots: expected True or False"):
        quire.ops._paged_prefill(*a.values(), 0.2, None, kn, vn, None,
                                 early_dots=1)
    src = quire.ops.paged_prefill_source("f16", 4, 128, 16, 64, 64)
    for stages in (3, 4):
        plain = quire.compile(src, sm=90, num_stages=stages)
        early = quire.compile(src, sm=90, num_stages=stages, early_dots=True)
        waits = re.findall(r"cp\.async\.wait_group\s+(\d+);", early.ptx)
        assert "wgmma.wait_group.sync.aligned 0;" in early.ptx
        assert waits != re.findall(r"cp\.async\.wait_group\s+(\d+);",
                                   plain.ptx)


def test_last_chunk_blocks_first():
    # Grid y counts each chunk's query blocks from its last (LAST_FIRST,
    # the default) or, with the benchmarks' hook off, from its first: both
    # match float64 where chunks span three 16-token blocks (the
    # rectangular grid), and the source reverses the block index only with
    # it; the hook is checked.
    from quire.ops import prefill
    rng = np.random.default_rng(14)
    a, kn, vn = _case(rng, [40, 7], [33, 33], 16, 4, 2, 64)
    ref = reference(a, kn, vn, 0.3)
    for last_first in (True, False):
        prefill._plans.clear()
        out = np.full(a["query"].shape, np.nan, np.float16)
        quire.ops._paged_prefill(*a.values(), 0.3, out, kn, vn, 33,
                                 block_m=16, block_n=16, num_warps=4,
                                 last_first=last_first)
        assert _rel(out, ref) < 2e-3
        (spec,) = prefill._plans.values()
        assert "tile.program_id y" in spec.source
        assert ("tile.num_programs y" in spec.source) == last_first
    with pytest.raises(TypeError, match="last_first: expected True or "
                                        "False, got int"):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 last_first=0)


def test_producer_registers_hook():
    # The benchmarks' producer_registers reaches quire.compile: the
    # producer warpgroup keeps 40 registers and the consumers get 232;
    # values setmaxnreg cannot take are refused before anything compiles.
    from quire.ops import launch, prefill
    rng = np.random.default_rng(15)
    a, kn, vn = _case(rng, [40, 0], [33, 20], 16, 4, 2, 128)
    prefill._plans.clear()
    quire.ops._paged_prefill(*a.values(), 0.3, None, kn, vn, None,
                             producer_registers=40)
    (spec,) = prefill._plans.values()
    assert ("producer_registers", 40) in spec.options
    ptx = launch.compiled(spec, 90, 8).ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in ptx
    for bad in (20, 44, 264, True):
        with pytest.raises(ValueError, match="producer_registers must be 0 "
                                             "or a multiple of 8"):
            quire.ops._paged_prefill(*a.values(), 0.3, None, kn, vn, None,
                                     producer_registers=bad)


def test_overlap_softmax_with_producer_warps():
    # quire-overlap-softmax on the op's default kernel (128 x 128 tiles, a
    # producer warpgroup): in both loops each iteration issues its scores
    # and the previous iteration's P V async, retires the scores first
    # (older, pending 1) and P V after the softmax; iteration 0's first
    # half is peeled before each loop and the last P V follows it, so each
    # loop has four scores/P V dots (peeled scores, two in the loop, the
    # last P V). The query moves to shared memory; ptxas serializes no
    # wgmma. The op's hook compiles it; the hook is checked.
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    none = Features(-1, 0.0, None, None, False, {})
    for stages in (2, 3):
        spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                             False, True, False, none, num_stages=stages,
                             warp_specialize=True, producer_warpgroup=True,
                             overlap_softmax=True)
        assert ("overlap_softmax", True) in spec.options
        kernel = launch.compiled(spec, 90, 8)
        tile = kernel.asm("tile")
        assert kernel.threads == 384
        assert tile.count("tile.warpgroup_dot") == 8
        assert len(re.findall(r"tile\.warpgroup_dot .*[{ ]async,", tile)) == 4
        assert tile.count("{older, pending = 1 : i32}") == 2
        assert tile.count("tile.local_store") == 1
        report = ptxas_sm90a(kernel.ptx, f"prefill_overlap_s{stages}",
                             verbose=True)
        assert "C751" not in report, report
    # With pingpong the two consumer warpgroups take turns at each loop's
    # dots: the peeled scores, the loop's two dots (one turn), the last
    # P V; quire-warp-specialize adds no turns of its own. One start before
    # the first loop and one end after the last: the turns carry from one
    # loop to the next.
    spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, True,
                         False, True, False, none, num_stages=3,
                         warp_specialize=True, producer_warpgroup=True,
                         overlap_softmax=True, pingpong=True)
    kernel = launch.compiled(spec, 90, 8)
    tile = kernel.asm("tile")
    assert tile.count("tile.warpgroup_dot") == 8
    for action, count in (("start", 1), ("wait", 6), ("pass", 6), ("end", 1)):
        assert tile.count(f"tile.warpgroup_turn {action}") == count, action
    report = ptxas_sm90a(kernel.ptx, "prefill_overlap_turns", verbose=True)
    assert "C751" not in report, report
    rng = np.random.default_rng(16)
    a, kn, vn = _case(rng, [40, 0], [33, 20], 16, 4, 2, 128)
    prefill._plans.clear()
    quire.ops._paged_prefill(*a.values(), 0.3, None, kn, vn, None,
                             overlap_softmax=True)
    (spec,) = prefill._plans.values()
    assert ("overlap_softmax", True) in spec.options
    with pytest.raises(TypeError, match="overlap_softmax: expected True or "
                                        "False, got str"):
        quire.ops._paged_prefill(*a.values(), 0.3, None, kn, vn, None,
                                 overlap_softmax="yes")


def _poison_tails(a):
    """NaN in every cache slot of each sequence's pages past its tokens
    (_case gives a sequence its pages' count of entries, then zeros)."""
    bt, P = a["block_table"], a["key_cache"].shape[1]
    for s, n in enumerate(a["seq_lens"]):
        t = np.arange(n, max(1, -(-n // P)) * P)
        a["key_cache"][bt[s, t // P], t % P] = np.nan
        a["value_cache"][bt[s, t // P], t % P] = np.nan


@pytest.mark.parametrize("block_m, block_n", [(64, 32), (16, 16)])
def test_one_loop_matches_float64(block_m, block_n):
    """The chunk's keys from the cache read in the context's loop
    (ONE_LOOP, the TMA form's kernel): tiles at multiples of BLOCK_N across
    the context's end, the causal mask by position; NaN in the cache past
    each sequence's tokens."""
    rng = np.random.default_rng(7)
    a, kn, vn = _case(rng, [0, 37, 100], [70, 33, 129], 16, 4, 2, 64)
    _poison_tails(a)
    ref = reference(a, kn, vn, 1 / math.sqrt(64))
    out = quire.ops._paged_prefill(*a.values(), None, None, None, None, None,
                                   block_m=block_m, block_n=block_n,
                                   num_warps=4, one_loop=True)
    assert _rel(out, ref) < 2e-3


@pytest.mark.parametrize("causal, window", [(False, (-1, -1)), (True, (40, 0)),
                                            (False, (40, -1))])
def test_one_loop_matches_two_loops(causal, window):
    """Without causal masking and with a left window, ONE_LOOP computes
    what the two loops compute."""
    rng = np.random.default_rng(8)
    a, _, _ = _case(rng, [0, 37, 100], [70, 33, 129], 16, 4, 2, 64)
    _poison_tails(a)
    outs = [quire.ops._paged_prefill(*a.values(), None, None, None, None,
                                     None, causal=causal, window_size=window,
                                     one_loop=one)
            for one in (False, True)]
    assert np.isfinite(outs[1].astype(np.float32)).all()
    assert _rel(outs[1], outs[0].astype(np.float64)) < 2e-3


def test_cache_form_takes_the_softmax_overlap():
    """The chunk's K/V from the cache with pages of 16 tokens, at the
    default 128 x 128 tiles with the producer warpgroup: the kernel
    compiles with quire-overlap-softmax at 3 stages, the consumer
    warpgroups' turns (configs.prefill_overlap_softmax) and
    quire-split-iterations (unless turned off); separate K/V, pages of
    128, the chunk in a loop of its own, the overlap turned off or 2 stages
    asked for keep 2 stages without either. The interpreter's result is the
    same."""
    from quire.ops import configs, prefill
    tiles = (128, 128, 8)
    assert configs.prefill_overlap_softmax(tiles, 90, True, False, 16)
    for args in ((tiles, 90, True, True, 16), (tiles, 90, True, False, 128),
                 (tiles, 90, False, False, 16), (tiles, 80, True, False, 16),
                 ((128, 64, 8), 90, True, False, 16)):
        assert not configs.prefill_overlap_softmax(*args)
    rng = np.random.default_rng(9)
    for page, kv, options, overlap in (
            (16, False, {}, True), (16, True, {}, False),
            (128, False, {}, False), (16, False, dict(one_loop=False), False),
            (16, False, dict(overlap_softmax=False), False),
            (16, False, dict(num_stages=2), False),
            (16, False, dict(split_iterations=False), True)):
        split = overlap and "split_iterations" not in options
        a, kn, vn = _case(rng, [0, 37, 200], [70, 33, 129], page, 4, 2, 128)
        ref = reference(a, kn, vn, 1 / math.sqrt(128))
        prefill._plans.clear()
        k, v = (kn, vn) if kv else (None, None)
        out = quire.ops._paged_prefill(*a.values(), None, None, k, v, None,
                                       **options)
        assert _rel(out, ref) < 2e-3
        specs = list(prefill._plans.values())
        assert len(specs) == 1
        options = dict(specs[0].options)
        assert options.get("overlap_softmax", False) == overlap
        assert options.get("pingpong", False) == overlap
        assert options.get("split_iterations", False) == split
        assert specs[0].num_stages == (3 if overlap else 2)


@pytest.mark.gpu
def test_cache_form_pages_through_tma_and_plans():
    """Pages of 128 tokens, the chunk's K/V from the cache: the op passes
    the caches as tensor descriptors (TMA copies whole-tile pages) and the
    call's plan keeps their tensor maps; a second call with caches of the
    same layout elsewhere (the plan's cache hit) encodes them again, the
    first caches poisoned with NaN. Against float64 each time."""
    import torch
    from quire.ops import plan, prefill
    rng = np.random.default_rng(10)
    a, kn, vn = _case(rng, [300, 129, 0], [100, 64, 200], 128, 8, 2, 128)
    ref = reference(a, kn, vn, 1 / math.sqrt(128))
    t = {k: torch.from_numpy(np.ascontiguousarray(x)).cuda()
         for k, x in a.items()}
    prefill._plans.clear()
    hits = plan.stats["hits"]
    out = quire.ops.paged_prefill_attention(**t, max_query_len=200)
    assert any(key[-3] is not None for key in prefill._plans)  # kv_desc
    assert _rel(out.cpu().numpy(), ref) < 2e-3
    k2, v2 = t["key_cache"].clone(), t["value_cache"].clone()
    t["key_cache"].fill_(float("nan"))
    t["value_cache"].fill_(float("nan"))
    t.update(key_cache=k2, value_cache=v2)
    out = quire.ops.paged_prefill_attention(**t, max_query_len=200)
    assert plan.stats["hits"] == hits + 1
    assert _rel(out.cpu().numpy(), ref) < 2e-3


@pytest.mark.parametrize("separate", [True, False])
def test_persistent_matches_float64(separate):
    """persistent: 4 programs in the interpreter (or 2, asked for) take the
    first grid's tiles in turn (several each, idle tiles of short chunks
    among them), where the flat grid would have had fewer programs;
    NaN-poisoned output and cache tails. With a left window and softcap it
    computes what the one program per tile computes."""
    from quire.ops import prefill
    ctx, qlens = [0, 37, 200, 5, 0], [70, 33, 129, 1, 0]
    rng = np.random.default_rng(11)
    a, kn, vn = _case(rng, ctx, qlens, 16, 4, 2, 64)
    _poison_tails(a)
    ref = reference(a, kn, vn, 1 / math.sqrt(64))
    kv = (kn, vn) if separate else (None, None)
    out = np.full(a["query"].shape, np.nan, np.float16)
    prefill._plans.clear()
    quire.ops._paged_prefill(*a.values(), None, out, *kv, None, 32, 16, 1,
                             persistent=True)
    assert _rel(out, ref) < 2e-3
    (key,) = prefill._plans
    assert key[-2] is True                   # persistent, not the flat grid
    feats = dict(window_size=(40, 0), softcap=15.0)
    outs = [quire.ops._paged_prefill(*a.values(), None, None, *kv, None, 32,
                                     16, 1, persistent=p, **feats)
            for p in (False, True)]
    assert np.isfinite(outs[1].astype(np.float32)).all()
    assert _rel(outs[1], outs[0].astype(np.float64)) < 2e-3
    # Two programs (a number asks for that many).
    out2 = quire.ops._paged_prefill(*a.values(), None, None, *kv, None, 32,
                                    16, 1, persistent=2)
    assert _rel(out2, ref) < 2e-3
    with pytest.raises(ValueError, match="persistent: must be >= 1, got 0"):
        quire.ops._paged_prefill(*a.values(), None, None, *kv, None,
                                 persistent=0)
    with pytest.raises(TypeError, match="persistent"):
        quire.ops._paged_prefill(*a.values(), None, None, *kv, None,
                                 persistent="yes")


def _cache_form_kernel(**options):
    """The op's default cache-form kernel on sm_90 (128 x 128 tiles, 16-token
    pages, a producer warpgroup, the softmax overlap with turns at 3 stages)
    with `options` (_spec's, or prefill.LOOP_PASSES'; split_iterations off
    unless given), compiled, and its tile IR's stripped lines."""
    from quire.ops import launch, prefill
    from quire.ops.features import Features
    none = Features(-1, 0.0, None, None, False, {})
    given = {n: options.pop(n) for n in list(options)
             if n in prefill.LOOP_PASSES}
    passes = prefill.loop_passes(dict({"split_iterations": False}, **given))
    spec = prefill._spec("f16", 4, 128, 16, 128, 128, True, True, False,
                         False, True, False, none, num_stages=3,
                         warp_specialize=True, producer_warpgroup=True,
                         overlap_softmax=True, pingpong=True, passes=passes,
                         **options)
    kernel = launch.compiled(spec, 90, 8)
    return kernel, [line.strip() for line in kernel.asm("tile").splitlines()]


def _hook_rejected(seed, match, **hook):
    """The op on a small case with the loop-pass `hook` raises TypeError
    matching `match`."""
    a, kn, vn = _case(np.random.default_rng(seed), [5], [20], 16, 4, 2, 64)
    with pytest.raises(TypeError, match=match):
        quire.ops._paged_prefill(*a.values(), None, None, kn, vn, None,
                                 **hook)


def test_persistent_kernel_is_warp_specialized():
    """The persistent cache form at the op's default tiles on sm_90: one
    producer warpgroup (384 threads) whose tile loop counts the fills
    (tile.tma_acquire in the prologue too), the consumers' tile loop with
    the softmax overlap inside and its turns around it; ptxas takes it."""
    kernel, _ = _cache_form_kernel(persistent=True)
    tile = kernel.asm("tile")
    assert kernel.threads == 384
    assert len(re.findall(r"iter_args\(%\w+ = %c0_i32\) -> \(i32\)", tile)) == 2
    # The prologue's and the loop's fills, K's and V's stage each.
    assert tile.count("tile.tma_acquire") == 4
    assert tile.count("tile.tma_init") == 2 and tile.count("tile.tma_inval") == 2
    for action, count in (("start", 1), ("wait", 3), ("pass", 3), ("end", 1)):
        assert tile.count(f"tile.warpgroup_turn {action}") == count, action
    # The turns bracket the consumers' tile loop, not each tile.
    loops = [m.start() for m in
             re.finditer(r"iter_args\(%\w+ = %c0_i32\) -> \(i32\)", tile)]
    assert tile.index("tile.warpgroup_turn start") < loops[1]
    assert tile.index("tile.warpgroup_turn end") > \
        tile.rindex("llvm.loop_annotation")
    report = ptxas_sm90a(kernel.ptx, "prefill_persistent", verbose=True)
    assert "C751" not in report, report


def test_producer_copies_follow_their_acquire():
    """The cache form's producer warpgroup (two consumer warpgroups' copies)
    loads each block-table entry both sets of rows share once (no
    tile.thread_offset clone of the loads), computes each fill's addresses
    after the acquire of its stage, keeps 88 registers a thread and leaves
    the consumers 208; ptxas takes it."""
    kernel, lines = _cache_form_kernel()
    producer = lines[lines.index("tile.setmaxnreg dec {count = 88 : i32}"):
                     lines.index("tile.setmaxnreg inc {count = 208 : i32}")]
    loads = [line for line in producer if "= tile.load " in line]
    assert loads and not any("thread_offset" in line for line in loads)
    # The loop's fill: K's acquire, K's pointers and copies (both sets),
    # V's acquire, V's pointers and copies.
    acquires = [i for i, line in enumerate(producer)
                if line.startswith("tile.tma_acquire")]
    assert len(acquires) == 2
    guard = max(j for j in range(acquires[0])
                if producer[j].startswith("scf.if"))
    assert not any("tile.addptr" in line
                   for line in producer[guard:acquires[0]])
    for i in acquires:
        after = producer[i + 1:]
        copy = next(j for j, line in enumerate(after)
                    if line.startswith("tile.async_copy"))
        assert any("tile.addptr" in line for line in after[:copy])
    report = ptxas_sm90a(kernel.ptx, "prefill_producer_acquire",
                         verbose=True)
    assert "C751" not in report, report


@pytest.mark.parametrize("early", [True, False])
def test_early_release_frees_k_when_the_scores_retire(early):
    """The cache form at the op's default tiles on sm_90: K and V have
    release mbarriers of their own, which the producer acquires before each
    operand's copies. With early_release (the default) the consumers
    release K's stage right after the scores' wait, in the loop and after
    the peeled scores; without it, beside V's at the end of the iteration.
    ptxas takes both."""
    kernel, lines = _cache_form_kernel(early_release=early)
    acquires = [line for line in lines if line.startswith("tile.tma_acquire")]
    assert [("buffer = 0" in a, "buffer = 1" in a) for a in acquires] == \
        [(True, False), (False, True)]
    k_release = [i for i, line in enumerate(lines)
                 if line.startswith("tile.tma_release")
                 and "buffer = 0" in line]
    v_release = [i for i, line in enumerate(lines)
                 if line.startswith("tile.tma_release")
                 and "buffer = 1" in line]
    assert len(k_release) == 2 and len(v_release) == 2   # peel/loop, loop/last
    scores_wait = next(i for i, line in enumerate(lines)
                       if "older, pending = 1" in line)
    if early:
        # After the peeled scores (and the turn they pass), before any
        # softmax op; in the loop right after the scores' wait.
        assert "warpgroup_dot" in lines[k_release[0] - 2]
        assert lines[k_release[0] - 1] == "tile.warpgroup_turn pass"
        assert k_release[1] == scores_wait + 1
    else:
        assert v_release[0] < k_release[1]
        assert lines[k_release[1] + 1].startswith("scf.yield")
    ptxas_sm90a(kernel.ptx, f"prefill_release_{early}")


def test_skip_unit_rescale_guards_the_rescale():
    """skip_unit_rescale on the op's default cache-form kernel (sm_90): in
    the loop, after P V's wait, the rescale of the carried output is the
    only op in a branch on tile.warp_any of its factors (not 1); the PTX
    votes once. Off (the default), no branch. ptxas takes it; the op checks
    the hook's type."""
    kernel, lines = _cache_form_kernel(skip_unit_rescale=True)
    wait = next(i for i, line in enumerate(lines)
                if "{pending = 0 : i32}" in line and "warpgroup_wait" in line)
    anys = [i for i, line in enumerate(lines) if "tile.warp_any" in line]
    assert len(anys) == 1 and anys[0] > wait
    guard = lines[anys[0] + 1]
    assert guard.startswith("%") and "scf.if" in guard
    assert "arith.mulf" in lines[anys[0] + 2]
    assert lines[anys[0] + 3].startswith("scf.yield")
    assert kernel.ptx.count("vote.sync.any.pred") == 1
    ptxas_sm90a(kernel.ptx, "prefill_skip_rescale")
    kernel, lines = _cache_form_kernel()
    assert not any("tile.warp_any" in line for line in lines)
    assert "vote.sync" not in kernel.ptx
    _hook_rejected(14, "skip_unit_rescale", skip_unit_rescale=1)


def test_ordered_release_waits_for_the_row_sums():
    """ordered_release on the op's default cache-form kernel (sm_90): in
    the loop, P V's wait takes the softmax's carried row sums as `after`
    and V's release follows it; the PTX puts a bar.warp.sync predicated on
    the sums (x > +inf, false for every float) before the wait. Off (the
    default), the wait takes nothing. ptxas takes it; the op checks the
    hook's type."""
    kernel, lines = _cache_form_kernel(ordered_release=True)
    wait = next(i for i, line in enumerate(lines)
                if "{pending = 0 : i32}" in line and "warpgroup_wait" in line)
    assert " after(%" in lines[wait]
    assert lines[wait + 1].startswith("tile.tma_release")
    sums = lines[wait].split(" after(")[1].split(" :")[0]
    assert any(line.startswith(f"{sums} = arith.addf") for line in lines)
    assert sum(" after(%" in line for line in lines) == 1
    guard = ("setp.gt.or.f32 q, %r{0}, 0f7F800000, q;\n@q bar.warp.sync -1;\n"
             "wgmma.wait_group.sync.aligned 0;")
    assert re.search(re.escape(guard).replace(r"\{0\}", r"\d+"), kernel.ptx)
    ptxas_sm90a(kernel.ptx, "prefill_ordered_release")
    kernel, lines = _cache_form_kernel()
    assert not any(" after(%" in line for line in lines)
    assert "bar.warp.sync -1;\nwgmma.wait_group" not in kernel.ptx
    _hook_rejected(16, "ordered_release", ordered_release="yes")


def test_convert_after_wait_moves_p_past_the_wait():
    """convert_after_wait on the op's default cache-form kernel (sm_90): in
    the loop, P's truncation to f16 and its dot-operand layout follow P V's
    wait, after the rescale, where off (the default) they precede it; the
    row sums still read the f32 exponentials before the wait. With
    ordered_release (which keeps that wait after the softmax) ptxas spills
    nothing, where ordered_release alone spills at the op's register split
    (the new P live beside the old). The op checks the hook's type."""
    def loop_order(lines):
        loop = next(i for i, line in enumerate(lines)
                    if " = scf.for " in line and "iter_args" in line and
                    "tensor<128x128xf16" in line)
        body = lines[loop:]
        wait = next(i for i, line in enumerate(body)
                    if "{pending = 0 : i32}" in line)
        trunc = next(i for i, line in enumerate(body) if "arith.truncf" in line)
        sums = next(i for i, line in enumerate(body) if "reduce sum" in line)
        return wait, trunc, sums

    kernel, lines = _cache_form_kernel(convert_after_wait=True,
                                       ordered_release=True)
    wait, trunc, sums = loop_order(lines)
    assert sums < wait < trunc
    report = ptxas_sm90a(kernel.ptx, "prefill_convert_after_wait", True)
    assert re.search(r"\b0 bytes spill stores", report), report
    kernel, lines = _cache_form_kernel(ordered_release=True)
    wait, trunc, sums = loop_order(lines)
    assert sums < trunc < wait
    report = ptxas_sm90a(kernel.ptx, "prefill_ordered_release_v", True)
    assert not re.search(r"\b0 bytes spill stores", report), report
    _hook_rejected(16, "convert_after_wait", convert_after_wait=2)


def _exponentials_before_p_v_wait(ptx, name):
    """In the SASS ptxas makes of the cache form's `ptx` (sm_90a): how many
    MUFU instructions (the softmax's exponentials) lie between the loop's
    wait for its scores (the kernel's one WARPGROUP.DEPBAR with count 1)
    and the next WARPGROUP.DEPBAR (count 0: P V's wait). sm_90's encoding:
    the opcode in the low 12 bits of an instruction's first 64-bit word
    (0x308 MUFU, 0x9c5 WARPGROUP.*: DEPBAR where bit 47 is set, its count
    in bits 8-10 of the second word)."""
    import struct
    from quire import _ptxas
    found = _ptxas.find()
    if found is None:
        pytest.skip("no ptxas")
    assert ".target sm_90a" in ptx
    cubin, _ = _ptxas.assemble(ptx, found[0])
    code = _ptxas.text_sections(cubin)[name]
    words = [struct.unpack_from("<QQ", code, i)
             for i in range(0, len(code), 16)]
    waits = [(i, (hi >> 8) & 7) for i, (lo, hi) in enumerate(words)
             if lo & 0xfff == 0x9c5 and lo >> 47 & 1]
    (scores,) = [i for i, count in waits if count == 1]
    p_v = next(i for i, count in waits if i > scores and count == 0)
    return sum(lo & 0xfff == 0x308 for lo, _ in words[scores:p_v])


def test_ordered_wait_overlaps_the_softmax_with_p_v():
    """ordered_release with convert_after_wait on the op's cache form
    (sm_90a SASS): every exponential of the loop's softmax (64 a thread at
    128 x 128 tiles, and the two rescale factors) is issued between the
    scores' wait and P V's, so P V runs during the softmax, without spills.
    Without the guard ptxas hoists P V's wait above the softmax: none."""
    kernel, _ = _cache_form_kernel(ordered_release=True,
                                   convert_after_wait=True)
    assert _exponentials_before_p_v_wait(kernel.ptx, kernel.name) >= 64
    kernel, _ = _cache_form_kernel(convert_after_wait=True)
    assert _exponentials_before_p_v_wait(kernel.ptx, kernel.name) == 0
    kernel, _ = _cache_form_kernel()
    assert _exponentials_before_p_v_wait(kernel.ptx, kernel.name) == 0


def test_split_iterations_takes_the_mask_out_of_the_first_loop():
    """split_iterations on the op's default cache-form kernel (sm_90): the
    consumers' loop becomes two of one pipeline, the first without the
    causal mask's branch (no -inf select), the second with it, carrying
    the first's results; ptxas takes it. Without it (the helper's default),
    one loop. The op checks the hook's type and name."""
    kernel, lines = _cache_form_kernel(split_iterations=True)

    def consumer_loops(lines):
        start = lines.index("tile.warpgroup_turn start")
        end = lines.index("tile.warpgroup_turn end")
        return [i for i in range(start, end)
                if " = scf.for " in lines[i]]

    first, second = consumer_loops(lines)
    masked = [i for i, line in enumerate(lines)
              if line.startswith("%") and "arith.select" in line and
              "128x128xi1" in line]
    # (The peeled first iteration's before the loops, the second loop's.)
    assert not any(first < i < second for i in masked)
    assert any(i > second for i in masked)
    bound = lines[first].split(" to ")[1].split(" step ")[0]
    assert lines[second].split(" = scf.for %")[1].split(" = ")[1] \
        .startswith(bound + " to ")
    results = lines[first].split(" = scf.for ")[0].split(":")[0]
    assert f"= {results}#0," in lines[second]
    ptxas_sm90a(kernel.ptx, "prefill_split_iterations")
    kernel, lines = _cache_form_kernel()
    assert len(consumer_loops(lines)) == 1
    _hook_rejected(18, "split_iterations", split_iterations=0)
    _hook_rejected(18, "unexpected keyword argument 'split_iteration'",
                   split_iteration=True)


def _loop_option_matches_float64(option, separate, seed, *also):
    """The prefill op with quire.compile's `option` (and the `also`) on, in
    the cache form
    (sm_90: the softmax overlap) or with the chunk's K/V separate, against
    float64 with a NaN-poisoned output and cache tails, ragged contexts up
    to 1500 tokens, a chunk without context and one of a single token.
    Returns the plan's compile options."""
    import torch
    from quire.ops import prefill
    rng = np.random.default_rng(seed)
    a, kn, vn = _case(rng, [1500, 0, 300, 77], [200, 129, 1, 64], 16, 8, 2,
                      128)
    _poison_tails(a)
    ref = reference(a, kn, vn, 1 / math.sqrt(128))
    t = {k: torch.from_numpy(np.ascontiguousarray(x)).cuda()
         for k, x in a.items()}
    kv = [torch.from_numpy(x).cuda() for x in (kn, vn)] if separate else \
        [None, None]
    out = torch.full_like(t["query"], float("nan"))
    prefill._plans.clear()
    quire.ops._paged_prefill(*t.values(), None, out, *kv, 200,
                             **{name: True for name in (option, *also)})
    assert _rel(out.cpu().numpy(), ref) < 2e-3
    (spec,) = prefill._plans.values()
    options = dict(spec.options)
    assert all(options[name] is True for name in (option, *also))
    assert options.get("overlap_softmax", False) == (not separate)
    return options


@pytest.mark.gpu
@pytest.mark.parametrize("separate", [False, True], ids=["cache", "kv"])
def test_ordered_release_matches_float64(separate):
    """ordered_release on the GPU (_loop_option_matches_float64)."""
    _loop_option_matches_float64("ordered_release", separate, 17)


@pytest.mark.gpu
@pytest.mark.parametrize("separate", [False, True], ids=["cache", "kv"])
def test_convert_after_wait_matches_float64(separate):
    """convert_after_wait with ordered_release on the GPU
    (_loop_option_matches_float64)."""
    _loop_option_matches_float64("convert_after_wait", separate, 23,
                                 "ordered_release")


@pytest.mark.gpu
@pytest.mark.parametrize("separate", [False, True], ids=["cache", "kv"])
def test_split_iterations_matches_float64(separate):
    """split_iterations on the GPU (_loop_option_matches_float64): the
    ragged contexts put the split anywhere from the first tile to the
    last."""
    _loop_option_matches_float64("split_iterations", separate, 19)


@pytest.mark.gpu
@pytest.mark.parametrize("separate", [False, True], ids=["cache", "kv"])
def test_skip_unit_rescale_matches_float64(separate):
    """skip_unit_rescale on the GPU (_loop_option_matches_float64): the
    longer the row, the more warps skip their rescale."""
    _loop_option_matches_float64("skip_unit_rescale", separate, 15)
