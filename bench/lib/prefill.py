"""Paged prefill inputs, the float64 reference, and Quire's op with its
tile configuration open (quire.ops._paged_prefill), shared by the prefill
check, benchmark, sanitizer run and profile."""

import torch

from quire import ops

from lib import prefill_flops
from lib.prefill_flops import D, HQ, HKV

flops = prefill_flops.flops  # prefill.flops, as the targets call it

# (block_m, block_n, num_warps, wgmma): the configurations the check covers
# and `paged_prefill --tune` times; None, None, None is the op's default.
CONFIGS = [(64, 64, 4, True), (64, 64, 4, False), (64, 32, 4, True),
           (128, 32, 8, True), (128, 64, 8, True), (128, 64, 8, False),
           (128, 128, 8, True)]
DEFAULT = (None, None, None, True)
# Configurations only sm_90 runs: 128 x 128 tiles stage 166 KB.
SM90_ONLY = {(128, 128, 8, True)}


def configs(torch):
    """CONFIGS the current device can run."""
    sm90 = torch.cuda.get_device_capability() == (9, 0)
    return [c for c in CONFIGS if sm90 or c not in SM90_ONLY]
# The ablation of the tile and the Hopper steps (the op's _paged_prefill
# hooks): (name, configuration, options). The default (128 x 128 tiles, a
# producer warpgroup issuing the K/V copies: quire-warp-specialize) without
# the scale folded into the exponent (prefill_kernel.FOLD_SCALE); with a
# thread's rows of a paged tile consecutive, in one page (gathered_rows,
# quire-assign-layouts); with 3 stages; without the producer warps (no
# ws); with a producer warp per consumer warp instead of a warpgroup (ws
# warps); with the consumer warpgroups issuing their dots in turn (ws pp);
# with each chunk's query blocks started first to last (in order; the
# default starts the last, which read the most keys, first); with the
# producer warpgroup keeping 56 registers a thread (ws r56: the consumers
# get 224), and with early dots at 3
# stages and 40 (ws early r40: the consumers' 232 hold the second scores
# tile); with each iteration's P V issued in the next after its scores
# (quire-overlap-softmax: the softmax overlaps it) at 2 and 3 stages (ws
# overlap, ws overlap s3); with the caches passed as tensor descriptors, so
# that the producer copies the context's pages with TMA (tma pages); the
# chunk's K/V read from the cache rather than k_new/v_new, in the context's
# loop (cache kv, the op's form where no key and value are given: with
# pages of 16 tokens the same kernel as cache ov s3 pp below, with pages
# of 128 as cache kv tma), and so
# with TMA (cache kv tma: every copy TMA's, the producer keeps 24
# registers), and in a loop of their own after the context's (cache 2
# loops), and the one loop with the softmax overlap at 2 and 3 stages
# (cache ov, cache ov s3), at 3 with the consumer warpgroups' turns (cache
# ov s3 pp; ws overlap s3 pp with k_new/v_new); the cache form with K's
# stage released with V's after P V rather than once the scores retire
# (cache late release: quire-overlap-softmax early-release off); the
# output's rescale skipped in a warp whose factors are all 1, in the cache
# form and with K/V separate (cache skip rescale, skip rescale:
# quire-skip-unit-rescale); V's stage released after the softmax's row
# sums, in the cache form and with K/V separate (cache ordered release,
# ordered release: quire-overlap-softmax ordered-release); the cache form
# with the producer warpgroup keeping 88, 72 or 56 registers a thread
# (cache r88, cache r72, cache r56: the consumers get 208, 216 or 224; 88
# is the default), and ordered release at 72 (cache ordered r72); the
# softmax's P converted after P V's wait, alone and with ordered release,
# at the default split and at 72 (cache convert, cache ordered convert,
# cache ordered convert r72: quire-overlap-softmax convert-after-wait); the
# cache form with two, four or eight KV heads' programs together in the
# first grid rather than one (cache kv2, kv4, kv8; bench/run.py
# prefill_schedule --kv-heads K models them; at eight, every head's, the
# programs start in the order the grid (sequence, head, block) gave); the
# cache form without its loop split where the mask starts (cache no split:
# quire-split-iterations off), the split with K/V separate (split
# iterations); with a
# persistent program per SM taking the tiles in turn (cache persist), and
# the same kernel with a program per tile (cache persist 1: what its code
# costs without the schedule);
# at 64 keys a step with the producer warpgroup, without and with early
# dots at 3 stages (ws bn64, ws bn64 early: the next scores in flight over
# the softmax; at 128 keys they spill 2 KB a thread); 64 keys a step (the
# default below sm_90 and before 128); then steps timed against the kernel
# without producer warps: the two warpgroups in ping-pong (quire-pingpong,
# which needs 3 stages: 226 KB of shared memory at 128 keys) at 128 and at
# 64 keys, and at 64 keys with a fourth stage (its copies then run two
# iterations ahead); 64 keys at 3 stages alone; early dots
# (quire-early-dots: the next scores in flight over the softmax, the query
# read from shared memory) at 3 stages, at 128 and at 64 keys, and at 128
# keys with gathered rows (which frees registers there).
BN64 = (128, 64, 8, True)
NO_WS = dict(warp_specialize=False)
WS_EARLY = dict(warp_specialize=True, early_dots=True, num_stages=3)
ABLATION = [("no fold", DEFAULT, dict(fold_scale=False)),
            ("gathered", DEFAULT, dict(gathered_rows=True)),
            ("s3", DEFAULT, dict(num_stages=3)),
            ("no ws", DEFAULT, NO_WS),
            ("ws warps", DEFAULT, dict(producer_warpgroup=False)),
            ("ws pp", DEFAULT, dict(warp_specialize=True, pingpong=True)),
            ("in order", DEFAULT, dict(last_first=False)),
            ("ws r56", DEFAULT, dict(producer_registers=56)),
            ("ws r152", DEFAULT, dict(producer_registers=152)),
            ("ws early r40", DEFAULT, dict(WS_EARLY, producer_registers=40)),
            ("ws overlap", DEFAULT, dict(overlap_softmax=True)),
            ("ws overlap s3", DEFAULT, dict(overlap_softmax=True,
                                            num_stages=3)),
            ("tma pages", DEFAULT, dict(tma_pages=True)),
            ("cache kv", DEFAULT, dict(separate=False)),
            ("cache 2 loops", DEFAULT, dict(separate=False, one_loop=False)),
            ("cache kv tma", DEFAULT, dict(separate=False, tma_pages=True)),
            ("cache ov", DEFAULT, dict(separate=False, overlap_softmax=True)),
            ("cache ov s3", DEFAULT, dict(separate=False, overlap_softmax=True,
                                          num_stages=3)),
            ("cache ov s3 pp", DEFAULT, dict(separate=False,
                                             warp_specialize=True,
                                             overlap_softmax=True,
                                             num_stages=3, pingpong=True)),
            ("cache late release", DEFAULT, dict(separate=False,
                                                 early_release=False)),
            ("cache skip rescale", DEFAULT, dict(separate=False,
                                                 skip_unit_rescale=True)),
            ("skip rescale", DEFAULT, dict(skip_unit_rescale=True)),
            ("cache ordered release", DEFAULT, dict(separate=False,
                                                    ordered_release=True)),
            ("ordered release", DEFAULT, dict(ordered_release=True)),
            ("cache r88", DEFAULT, dict(separate=False,
                                        producer_registers=88)),
            ("cache r72", DEFAULT, dict(separate=False,
                                        producer_registers=72)),
            ("cache r56", DEFAULT, dict(separate=False,
                                        producer_registers=56)),
            ("cache ordered r72", DEFAULT, dict(separate=False,
                                                ordered_release=True,
                                                producer_registers=72)),
            ("cache convert", DEFAULT, dict(separate=False,
                                            convert_after_wait=True)),
            ("cache ordered convert", DEFAULT, dict(separate=False,
                                                    ordered_release=True,
                                                    convert_after_wait=True)),
            ("cache ordered convert r72", DEFAULT,
             dict(separate=False, ordered_release=True,
                  convert_after_wait=True, producer_registers=72)),
            ("cache no split", DEFAULT, dict(separate=False,
                                             split_iterations=False)),
            ("split iterations", DEFAULT, dict(split_iterations=True)),
            ("cache kv2", DEFAULT, dict(separate=False,
                                        kv_heads_together=2)),
            ("cache kv4", DEFAULT, dict(separate=False,
                                        kv_heads_together=4)),
            ("cache kv8", DEFAULT, dict(separate=False,
                                        kv_heads_together=8)),
            ("cache persist", DEFAULT, dict(separate=False,
                                            persistent=True)),
            ("cache persist 1", DEFAULT, dict(separate=False,
                                              persistent=1 << 30)),
            ("ws overlap s3 pp", DEFAULT, dict(warp_specialize=True,
                                               overlap_softmax=True,
                                               num_stages=3, pingpong=True)),
            ("ws bn64", BN64, dict(warp_specialize=True)),
            ("ws bn64 early", BN64, WS_EARLY),
            ("bn64", BN64, {}),
            ("bn64 s3", BN64, dict(num_stages=3)),
            ("pingpong", DEFAULT, dict(NO_WS, num_stages=3, pingpong=True)),
            ("bn64 pp", BN64, dict(num_stages=3, pingpong=True)),
            ("bn64 pp4", BN64, dict(num_stages=4, pingpong=True)),
            ("early", DEFAULT, dict(NO_WS, num_stages=3, early_dots=True)),
            ("bn64 early", BN64, dict(num_stages=3, early_dots=True)),
            ("early gath", DEFAULT, dict(NO_WS, num_stages=3, early_dots=True,
                                         gathered_rows=True))]


def forms():
    """{name: (configuration, options)}: the op's default (named default)
    and every ABLATION column, as prefill_ab and prefill_clocks name them."""
    named = {"default": (DEFAULT, {})}
    named.update({n: (c, o) for n, c, o in ABLATION})
    return named

def make_inputs(ctx_lens, q_lens, page, gen, hq=HQ, hkv=HKV, dtype=torch.half,
                d=D, poison=False):
    """Caches holding each sequence's context and then its chunk's K/V (so
    the op can read the chunk from the cache or from k_new/v_new); with
    `poison`, NaN in each sequence's cache slots past its tokens (which a
    kernel must not let into its result)."""
    S = len(ctx_lens)
    max_pages = max(1, max((c + n + page - 1) // page for c, n in zip(ctx_lens, q_lens)))
    num_blocks = S * max_pages + 3
    k_cache = torch.randn(num_blocks, page, hkv, d, device="cuda", generator=gen).to(dtype)
    v_cache = torch.randn(num_blocks, page, hkv, d, device="cuda", generator=gen).to(dtype)
    perm = torch.randperm(num_blocks, device="cuda", generator=gen)[: S * max_pages]
    block_tables = perm.view(S, max_pages).to(torch.int32).contiguous()
    T = sum(q_lens)
    q = torch.randn(T, hq, d, device="cuda", generator=gen).to(dtype)
    k_new = torch.randn(T, hkv, d, device="cuda", generator=gen).to(dtype)
    v_new = torch.randn(T, hkv, d, device="cuda", generator=gen).to(dtype)
    starts = [0]
    for n in q_lens:
        starts.append(starts[-1] + n)
    for s, (c, n) in enumerate(zip(ctx_lens, q_lens)):
        t = torch.arange(c, c + n, device="cuda")
        blocks = block_tables[s, t // page].long()
        k_cache[blocks, t % page] = k_new[starts[s]:starts[s] + n]
        v_cache[blocks, t % page] = v_new[starts[s]:starts[s] + n]
        if poison:
            t = torch.arange(c + n, max_pages * page, device="cuda")
            blocks = block_tables[s, t // page].long()
            k_cache[blocks, t % page] = float("nan")
            v_cache[blocks, t % page] = float("nan")
    i32 = dict(dtype=torch.int32, device="cuda")
    return dict(q=q, k_new=k_new, v_new=v_new, k_cache=k_cache, v_cache=v_cache,
                block_tables=block_tables, query_start=torch.tensor(starts, **i32),
                ctx_lens=torch.tensor(ctx_lens, **i32),
                seq_lens=torch.tensor([c + n for c, n in zip(ctx_lens, q_lens)], **i32),
                max_q=max(q_lens))


def _gather(cache, bt, s, n):
    P = cache.shape[1]
    t = torch.arange(n, device="cuda")
    return cache[bt[s, t // P].long(), t % P]  # [n, hkv, D]


def reference(inp, scale):
    """Each chunk over its context and, causally, itself, in float64."""
    q, out = inp["q"], torch.zeros_like(inp["q"], dtype=torch.float64)
    qs = inp["query_start"].tolist()
    group = q.shape[1] // inp["k_new"].shape[1]
    for s, c in enumerate(inp["ctx_lens"].tolist()):
        a, b = qs[s], qs[s + 1]
        if a == b:
            continue
        k = torch.cat([_gather(inp["k_cache"], inp["block_tables"], s, c),
                       inp["k_new"][a:b]]).double().repeat_interleave(group, 1)
        v = torch.cat([_gather(inp["v_cache"], inp["block_tables"], s, c),
                       inp["v_new"][a:b]]).double().repeat_interleave(group, 1)
        sc = torch.einsum("qhd,khd->hqk", q[a:b].double(), k) * scale
        n = b - a
        allowed = torch.ones(n, c + n, dtype=torch.bool, device="cuda")
        allowed[:, c:] = torch.tril(torch.ones(n, n, dtype=torch.bool, device="cuda"))
        sc = sc.masked_fill(~allowed, float("-inf"))
        out[a:b] = torch.einsum("hqk,khd->qhd", torch.softmax(sc, -1), v)
    return out


def run_quire(inp, scale, out, cfg=DEFAULT, separate=True, **options):
    """The op with tile configuration `cfg` (and `options`, the op's
    num_stages / early_dots hooks); the chunk's K/V from k_new/v_new
    (`separate`) or from the cache."""
    kv = (inp["k_new"], inp["v_new"]) if separate else (None, None)
    ops._paged_prefill(inp["q"], inp["k_cache"], inp["v_cache"],
                       inp["block_tables"], inp["query_start"], inp["seq_lens"],
                       scale, out, *kv, inp["max_q"], *cfg, **options)


def run_triton(inp, scale, out, **kw):
    """The Triton peer (peers/triton_paged_prefill.py) on the same inputs."""
    from peers.triton_paged_prefill import triton_paged_prefill
    triton_paged_prefill(inp["q"], inp["k_new"], inp["v_new"], inp["k_cache"],
                         inp["v_cache"], inp["block_tables"], inp["query_start"],
                         inp["ctx_lens"], scale, inp["max_q"], out, **kw)
