"""float64 references shared by the interpreter and GPU tests."""

import math


def paged_attention_ref(np, q, k_cache, v_cache, block_table, seq_lens,
                        scale=None):
    """out[s, h] = softmax(scale * q[s, h] . K^T) V over the sequence's
    tokens gathered through the block table, in float64 (numpy)."""
    S, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    out = np.zeros((S, Hq, D))
    for s in range(S):
        L = int(seq_lens[s])
        if L == 0:
            continue
        t = np.arange(L)
        blocks = block_table[s, t // P].astype(np.int64)
        k = k_cache[blocks, t % P].astype(np.float64)  # [L, Hkv, D]
        v = v_cache[blocks, t % P].astype(np.float64)
        for h in range(Hq):
            scores = k[:, h // group, :] @ q[s, h].astype(np.float64) * scale
            p = np.exp(scores - scores.max())
            p /= p.sum()
            out[s, h] = p @ v[:, h // group, :]
    return out


def make_paged_kv(np, rng, num_seqs, num_kv_heads, head_dim, page, lens,
                  dtype, spare_blocks=3):
    """A vLLM-layout cache [num_blocks, page, heads, dim] and block tables
    naming the blocks in random order."""
    max_blocks = max(1, max((l + page - 1) // page for l in lens))
    num_blocks = num_seqs * max_blocks + spare_blocks
    k = rng.standard_normal((num_blocks, page, num_kv_heads, head_dim)).astype(dtype)
    v = rng.standard_normal((num_blocks, page, num_kv_heads, head_dim)).astype(dtype)
    perm = rng.permutation(num_blocks)[: num_seqs * max_blocks]
    block_table = perm.reshape(num_seqs, max_blocks).astype(np.int32)
    return k, v, block_table


def rel_err(np, out, ref):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if np.isnan(out).any():
        return float("nan")
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))
