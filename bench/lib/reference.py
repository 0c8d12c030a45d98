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


def decode_lengths(num_seqs, lens, gen, edges=(0, 1)):
    """The sequence lengths of a decode row: `lens` tokens each, or for
    "ragged:MAX" uniform in 1..MAX drawn with `gen`, the first sequences
    set to `edges` and then MAX (the short and the longest sequences every
    ragged row has)."""
    if not isinstance(lens, str):
        return [lens] * num_seqs
    top = int(lens.split(":")[1])
    L = torch.randint(1, top + 1, (num_seqs,), generator=gen,
                      device="cuda").tolist()
    L[:len(edges) + 1] = list(edges) + [top]
    return L


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


def unified_ref(q, k_cache, v_cache, block_tables, cu_seqlens_q, seq_lens,
                scale, causal=True, window_left=-1, softcap=0.0,
                alibi_slopes=None, sinks=None, q_descale=None, k_descale=None,
                v_descale=None):
    """(out, lse) of quire.ops.unified_attention in float64: chunk token i
    of sequence s sits at position ctx + i (ctx = seq_lens[s] - chunk
    length) and sees the keys at positions <= its own (all without
    causal) and >= its own - window_left (-1: no limit). Scores are scale *
    q_descale * k_descale * (q . k), soft-capped, then + slope * (key
    position - query position); a sink is one more logit with no value.
    lse [num_heads, num_tokens], natural log, -inf where nothing is seen.
    Descales: one element or [num_seqs, num_kv_heads]."""
    T, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    dev = q.device
    out = torch.zeros(T, Hq, D, dtype=torch.float64, device=dev)
    lse = torch.full((Hq, T), float("-inf"), dtype=torch.float64, device=dev)
    cu = cu_seqlens_q.tolist()
    lens = seq_lens.tolist()

    def factor(x, s):
        if x is None:
            return torch.ones(Hkv, dtype=torch.float64, device=dev)
        x = x.double()
        return x.reshape(-1)[0].expand(Hkv) if x.numel() == 1 else x[s]

    for s, L in enumerate(lens):
        a, b = cu[s], cu[s + 1]
        n = b - a
        if n == 0:
            continue
        t = torch.arange(L, device=dev)
        blocks = block_tables[s, t // P].long()
        kk = k_cache[blocks, t % P].double()          # [L, Hkv, D]
        vv = v_cache[blocks, t % P].double()
        qpos = L - n + torch.arange(n, device=dev)
        seen = torch.ones(n, L, dtype=torch.bool, device=dev)
        if causal:
            seen &= t[None, :] <= qpos[:, None]
        if window_left >= 0:
            seen &= t[None, :] >= qpos[:, None] - window_left
        f = (factor(q_descale, s) * factor(k_descale, s)).repeat_interleave(group)
        sc = torch.einsum("nhd,lhd->hnl", q[a:b].double(),
                          kk.repeat_interleave(group, 1)) * scale * f[:, None, None]
        if softcap:
            sc = softcap * torch.tanh(sc / softcap)
        if alibi_slopes is not None:
            sc = sc + alibi_slopes.double()[:, None, None] * \
                (t[None, :] - qpos[:, None]).double()
        sc = sc.masked_fill(~seen, float("-inf"))
        if sinks is not None:
            sc = torch.cat([sc, sinks.double()[:, None, None].expand(Hq, n, 1)], -1)
        lse[:, a:b] = torch.logsumexp(sc, -1)
        m = sc.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(sc - m)
        tot = e.sum(-1, keepdim=True)
        p = e[..., :L] / torch.where(tot > 0, tot, torch.ones_like(tot))
        fv = factor(v_descale, s).repeat_interleave(group)
        out[a:b] = torch.einsum("hnl,lhd->nhd", p, vv.repeat_interleave(group, 1)) * \
            fv[None, :, None]
    return out, lse
