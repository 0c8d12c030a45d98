"""Paged prefill attention (prefix / chunked prefill): Quire
(quire.ops.paged_prefill_attention) vs a Triton kernel written as vLLM's
prefix_prefill is vs torch SDPA on contiguous K/V.

1. Correctness against float64 on ragged batches (empty contexts, one-token
   chunks, tiles crossing pages), page sizes 16 and 128, poisoned outputs,
   f16 and bf16, head dims 64/128/256 and 80, the chunk's K/V from separate
   tensors and from the cache, every tile configuration timed below.
2. In one process, for Llama-3-8B heads (32 q / 8 kv, head dim 128, f16):
   median time, TFLOP/s (causal-adjusted: the new part counts half), ratio
   to Triton, and SDPA (flash, lower-right causal) on the same K/V stored
   contiguously. Quire's time is the op's default configuration; --tune adds
   a column per tile configuration. Prints the table, writes
   bench/out/paged_prefill.png.
Usage: python3 bench/paged_prefill.py [--check-only] [--tune]
"""

import math
import os
import sys

from common import bench, rel_err, save_plot, HERE, ROOT
import torch

import quire
from quire import ops
from triton_paged_prefill import triton_paged_prefill

D, HQ, HKV = 128, 32, 8
# (block_m, block_n, num_warps, wgmma) timed with --tune.
CONFIGS = [(64, 64, 4, True), (64, 64, 4, False), (64, 32, 4, True),
           (128, 32, 8, True), (128, 64, 8, True), (128, 64, 8, False)]


def make_inputs(ctx_lens, q_lens, page, gen, hq=HQ, hkv=HKV, dtype=torch.half,
                d=D):
    """Caches holding each sequence's context and then its chunk's K/V (so
    the op can read the chunk from the cache or from k_new/v_new)."""
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
    query_start = torch.tensor(starts, dtype=torch.int32, device="cuda")
    ctx = torch.tensor(ctx_lens, dtype=torch.int32, device="cuda")
    seq_lens = torch.tensor([c + n for c, n in zip(ctx_lens, q_lens)],
                            dtype=torch.int32, device="cuda")
    return dict(q=q, k_new=k_new, v_new=v_new, k_cache=k_cache, v_cache=v_cache,
                block_tables=block_tables, query_start=query_start, ctx_lens=ctx,
                seq_lens=seq_lens, max_q=max(q_lens))


def gather(cache, bt, s, n):
    P = cache.shape[1]
    t = torch.arange(n, device="cuda")
    return cache[bt[s, t // P].long(), t % P]  # [n, hkv, D]


def reference(inp, scale):
    q, out = inp["q"], torch.zeros_like(inp["q"], dtype=torch.float64)
    qs = inp["query_start"].tolist()
    group = q.shape[1] // inp["k_new"].shape[1]
    for s, c in enumerate(inp["ctx_lens"].tolist()):
        a, b = qs[s], qs[s + 1]
        if a == b:
            continue
        k = torch.cat([gather(inp["k_cache"], inp["block_tables"], s, c),
                       inp["k_new"][a:b]]).double().repeat_interleave(group, 1)
        v = torch.cat([gather(inp["v_cache"], inp["block_tables"], s, c),
                       inp["v_new"][a:b]]).double().repeat_interleave(group, 1)
        sc = torch.einsum("qhd,khd->hqk", q[a:b].double(), k) * scale
        n = b - a
        allowed = torch.ones(n, c + n, dtype=torch.bool, device="cuda")
        allowed[:, c:] = torch.tril(torch.ones(n, n, dtype=torch.bool, device="cuda"))
        sc = sc.masked_fill(~allowed, float("-inf"))
        out[a:b] = torch.einsum("hqk,khd->qhd", torch.softmax(sc, -1), v)
    return out


def run_quire(inp, scale, out, cfg=(None, None, None, True), separate=True):
    kv = (inp["k_new"], inp["v_new"]) if separate else (None, None)
    ops._paged_prefill(inp["q"], inp["k_cache"], inp["v_cache"],
                       inp["block_tables"], inp["query_start"], inp["seq_lens"],
                       scale, out, *kv, inp["max_q"], *cfg)


EXAMPLE = os.path.join(ROOT, "examples", "paged_prefill_attention.mlir")


def quire_kernel(page, num_warps=4):
    """The example (a specialization of the op's kernel: f16, head dim 128,
    GQA 4, 64x64 tiles, k_new/v_new separate) at another page size."""
    src = open(EXAMPLE).read().replace("page_size = 16 : i32", f"page_size = {page} : i32")
    return quire.compile(src, num_warps=num_warps)


def run_example(kern, inp, scale, out, block_m=64):
    """Launches a compiled example kernel (the op's argument order)."""
    S = inp["seq_lens"].shape[0]
    q, kn, vn = inp["q"], inp["k_new"], inp["v_new"]
    kc, vc, bt = inp["k_cache"], inp["v_cache"], inp["block_tables"]
    kern[(S, q.shape[1], math.ceil(inp["max_q"] / block_m))](
        out, q, kn, vn, kc, vc, bt, inp["query_start"], inp["seq_lens"], scale,
        bt.stride(0), q.stride(0), q.stride(1), out.stride(0), out.stride(1),
        kn.stride(0), kn.stride(1), vn.stride(0), vn.stride(1),
        *kc.stride()[:3], *vc.stride()[:3])


def run_triton(inp, scale, out, **kw):
    triton_paged_prefill(inp["q"], inp["k_new"], inp["v_new"], inp["k_cache"],
                         inp["v_cache"], inp["block_tables"], inp["query_start"],
                         inp["ctx_lens"], scale, inp["max_q"], out, **kw)


def check(gen, configs):
    ok = True
    cases = [  # page, ctx, chunks, heads q/kv, dtype, head dim
        (16, [0, 1, 17, 40, 100], [1, 5, 64, 65, 130], 8, 2, torch.half, 128),
        (16, [300, 0, 1000], [200, 3, 77], HQ, HKV, torch.half, 128),
        (128, [0, 129, 500, 1000], [64, 1, 100, 257], HQ, HKV, torch.half, 128),
        (128, [255, 256, 257], [63, 64, 65], 4, 4, torch.half, 128),
        (16, [70, 0, 300], [129, 40, 1], 8, 2, torch.bfloat16, 128),
        (32, [33, 200], [70, 17], 4, 1, torch.half, 64),
        (16, [100, 0], [80, 33], 4, 2, torch.bfloat16, 256),
        (16, [50, 7], [90, 3], 6, 2, torch.half, 80),
    ]
    for page, ctx, ql, hq, hkv, dtype, d in cases:
        inp = make_inputs(ctx, ql, page, gen, hq, hkv, dtype, d)
        scale = 1.0 / math.sqrt(d)
        ref = reference(inp, scale)
        worst = 0.0
        cfgs = [(None, None, None, True)] + (list(configs) if d == D else [])
        for cfg in cfgs:
            for separate in (True, False):
                out = torch.full_like(inp["q"], float("nan"))
                run_quire(inp, scale, out, cfg, separate)
                torch.cuda.synchronize()
                e = rel_err(out, ref)
                worst = max(worst, e) if e == e else float("nan")
        tol = 2e-3 if dtype == torch.half else 1e-2
        good = worst < tol
        ok &= good
        et = ""
        if d == D and dtype == torch.half:
            out_t = torch.full_like(inp["q"], float("nan"))
            run_triton(inp, scale, out_t)
            torch.cuda.synchronize()
            et = f", triton {rel_err(out_t, ref):.2e}"
        print(f"{'PASS' if good else 'FAIL'} page {page} ctx {ctx} chunks {ql} "
              f"heads {hq}/{hkv} {str(dtype)[6:]} d {d}: quire rel err "
              f"{worst:.2e} ({len(cfgs)} configs x k/v separate and in the "
              f"cache){et}")
    return ok


ROWS = [  # (label, page, ctx_lens, q_lens)
    ("8 x ctx 1024 + 512", 16, [1024] * 8, [512] * 8),
    ("4 x ctx 4096 + 512", 16, [4096] * 4, [512] * 4),
    ("2 x ctx 8192 + 1024", 16, [8192] * 2, [1024] * 2),
    ("1 x ctx 16384 + 2048", 16, [16384], [2048]),
    ("16 x ctx 2048 + 128", 16, [2048] * 16, [128] * 16),
    ("ragged 8, ctx<=8192, +<=1024", 16, None, None),
    ("page 128: 4 x ctx 4096 + 512", 128, [4096] * 4, [512] * 4),
]


def flops(ctx, ql):
    return sum(4 * D * HQ * (n * c + n * (n + 1) / 2) for c, n in zip(ctx, ql))


def sdpa_time(ctx, ql, gen):
    """SDPA (flash when available) with lower-right causal masking, on the
    same amount of K/V stored contiguously, one call per distinct shape."""
    from torch.nn.attention.bias import causal_lower_right
    import torch.nn.functional as F
    total = 0.0
    shapes = {}
    for c, n in zip(ctx, ql):
        shapes[(c, n)] = shapes.get((c, n), 0) + 1
    for (c, n), b in shapes.items():
        q = torch.randn(b, HQ, n, D, device="cuda", generator=gen).half()
        k = torch.randn(b, HQ, c + n, D, device="cuda", generator=gen).half()
        v = torch.randn(b, HQ, c + n, D, device="cuda", generator=gen).half()
        mask = causal_lower_right(n, c + n)
        total += bench(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    return total


def main():
    gen = torch.Generator(device="cuda").manual_seed(11)
    tune = "--tune" in sys.argv
    print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"quire {quire.compiler_version()['build_id'][:12]}, default "
          f"(block_m, block_n, warps) {ops.prefill_config(D)}")
    ok = check(gen, CONFIGS)
    if "--check-only" in sys.argv:
        return 0 if ok else 1
    import triton
    print(f"triton {triton.__version__}")
    scale = 1.0 / math.sqrt(D)
    hdr = f"{'case':>30} {'quire us':>9} {'TFLOP/s':>8} {'triton us':>9} {'TFLOP/s':>8} {'x triton':>8} {'sdpa us':>8} {'TFLOP/s':>8}"
    if tune:
        hdr += "".join(f" {'%dx%dx%dw%s' % (*c[:3], '' if c[3] else '-mma'):>12}" for c in CONFIGS)
    print(hdr)
    table = []
    for label, page, ctx, ql in ROWS:
        if ctx is None:
            g = torch.Generator().manual_seed(5)
            ctx = torch.randint(0, 8193, (8,), generator=g).tolist()
            ql = torch.randint(1, 1025, (8,), generator=g).tolist()
        inp = make_inputs(ctx, ql, page, gen)
        out = torch.empty_like(inp["q"])
        tq = bench(lambda: run_quire(inp, scale, out))
        tunes = [bench(lambda: run_quire(inp, scale, out, c)) for c in CONFIGS] if tune else []
        best = None
        for bn in (32, 64):
            for nw in (4, 8):
                for st in (1, 2, 3):
                    try:
                        t = bench(lambda: run_triton(inp, scale, out, block_n=bn,
                                                     num_warps=nw, num_stages=st))
                    except Exception as e:  # a config triton cannot build
                        continue
                    if best is None or t < best[0]:
                        best = (t, bn, nw, st)
        ts = sdpa_time(ctx, ql, gen)
        fl = flops(ctx, ql)
        row = (label, tq, fl / tq / 1e6, best[0], fl / best[0] / 1e6, best[0] / tq,
               ts, fl / ts / 1e6, best[1:])
        table.append(row)
        print(f"{label:>30} {tq:>9.0f} {row[2]:>8.1f} {best[0]:>9.0f} {row[4]:>8.1f} "
              f"{row[5]:>8.2f} {ts:>8.0f} {row[7]:>8.1f}"
              + "".join(f" {fl / t / 1e6:>12.1f}" for t in tunes)
              + f"  (triton BN,warps,stages={best[1:]})")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(10, 4))
        xs = range(len(table))
        w = 0.27
        ax.bar([x - w for x in xs], [r[2] for r in table], w, label="Quire")
        ax.bar(list(xs), [r[4] for r in table], w, label="Triton (prefix_prefill style)")
        ax.bar([x + w for x in xs], [r[7] for r in table], w, label="SDPA, contiguous KV")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r[0] for r in table], rotation=20, fontsize=7)
        ax.set_ylabel("TFLOP/s (causal-adjusted)")
        ax.set_title("Paged prefill, Llama-3-8B heads, f16, " + torch.cuda.get_device_name())
        ax.legend(fontsize=8)
        plt.tight_layout()
        save_plot(fig, "paged_prefill.png")
    except ImportError:
        print("plot: matplotlib not available")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
