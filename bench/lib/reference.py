"""float64 references and paged inputs on the GPU (torch)."""

import torch


def rel_err(out, ref):
    """||out - ref|| / ||ref|| in float64; NaN when `out` holds a NaN (the
    checks poison outputs with NaN, so an unwritten element shows)."""
    out = out.double()
    ref = ref.double()
    if torch.isnan(out).any():
        return float("nan")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def poison(t):
    """Fills `t` with NaN (floats) or -7 (integers) and returns it."""
    return t.fill_(float("nan")) if t.is_floating_point() else t.fill_(-7)


def make_paged_kv(num_seqs, num_kv_heads, head_dim, page, seq_lens, dtype,
                  gen, device="cuda"):
    """A vLLM-layout cache [num_blocks, page, heads, dim] (K and V) with
    block tables naming the blocks in random order, 7 blocks to spare."""
    max_pages = max(1, max((int(n) + page - 1) // page for n in seq_lens))
    num_blocks = num_seqs * max_pages + 7
    k = torch.randn(num_blocks, page, num_kv_heads, head_dim, generator=gen,
                    device=device).to(dtype)
    v = torch.randn(num_blocks, page, num_kv_heads, head_dim, generator=gen,
                    device=device).to(dtype)
    perm = torch.randperm(num_blocks, generator=gen, device=device)
    block_tables = perm[: num_seqs * max_pages].view(num_seqs, max_pages)
    return k, v, block_tables.to(torch.int32).contiguous()


def paged_attention_ref(q, k_cache, v_cache, block_tables, seq_lens, scale):
    """Decode attention in float64: q [S, Hq, D], caches [B, P, Hkv, D]."""
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
        kk = k_cache[blocks, t % P].double().repeat_interleave(group, dim=1)
        vv = v_cache[blocks, t % P].double().repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,lhd->hl", q[s].double(), kk) * scale
        out[s] = torch.einsum("hl,lhd->hd", torch.softmax(scores, dim=-1), vv)
    return out
