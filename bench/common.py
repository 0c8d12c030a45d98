"""Helpers shared by the GPU checks and benchmarks: references and timing."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.environ.get("QUIRE_PYTHONPATH", os.path.join(ROOT, "python")))

import torch  # noqa: E402


def rel_err(out, ref):
    out = out.double()
    ref = ref.double()
    if torch.isnan(out).any():
        return float("nan")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def bench(fn, warmup=25, rep=100):
    """Median time in microseconds (triton.testing.do_bench when present)."""
    try:
        import triton.testing
        return triton.testing.do_bench(fn, warmup=warmup, rep=rep,
                                       return_mode="median") * 1e3
    except ImportError:
        start, end = torch.cuda.Event(True), torch.cuda.Event(True)
        for _ in range(10):
            fn()
        times = []
        for _ in range(50):
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        times.sort()
        return times[len(times) // 2]


def make_paged_kv(num_seqs, num_kv_heads, head_dim, page, seq_lens, dtype,
                  gen, device="cuda"):
    """A vLLM-layout cache [num_blocks, page, heads, dim] with block tables in
    random order, and the float64 reference gather of each sequence."""
    max_pages = max(1, max((int(l) + page - 1) // page for l in seq_lens))
    num_blocks = num_seqs * max_pages + 7
    k = torch.randn(num_blocks, page, num_kv_heads, head_dim, generator=gen,
                    device=device).to(dtype)
    v = torch.randn(num_blocks, page, num_kv_heads, head_dim, generator=gen,
                    device=device).to(dtype)
    perm = torch.randperm(num_blocks, generator=gen, device=device)
    block_tables = perm[: num_seqs * max_pages].view(num_seqs, max_pages)
    block_tables = block_tables.to(torch.int32).contiguous()
    return k, v, block_tables


def paged_attention_ref(q, k_cache, v_cache, block_tables, seq_lens, scale):
    """float64 reference: q [S, Hq, D], caches [B, P, Hkv, D]."""
    S, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    out = torch.zeros(S, Hq, D, dtype=torch.float64, device=q.device)
    for s in range(S):
        L = int(seq_lens[s])
        if L == 0:
            continue
        t = torch.arange(L, device=q.device)
        blocks = block_tables[s, t // P].long()
        kk = k_cache[blocks, t % P].double()  # [L, Hkv, D]
        vv = v_cache[blocks, t % P].double()
        kk = kk.repeat_interleave(group, dim=1)  # [L, Hq, D]
        vv = vv.repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,lhd->hl", q[s].double(), kk) * scale
        p = torch.softmax(scores, dim=-1)
        out[s] = torch.einsum("hl,lhd->hd", p, vv)
    return out


def save_plot(fig, name):
    """Writes `fig` as $BENCH_OUT/<name> (default bench/out) and says where."""
    path = os.path.join(os.environ.get("BENCH_OUT", os.path.join(HERE, "out")), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=120)
    print("plot:", path)
