"""
Paged attention (decode)
========================

Single-query attention over a paged KV cache, written the way a Triton user
writes it (the kernel that started Quire): the block table is read with
`offs // BLOCK_SIZE`, and the K/V addresses are built from the entries with
plain pointer arithmetic. The query heads that share a KV head are packed
into the rows of one `tl.dot` (GQA), padded to 16.

The cache uses vLLM's layout: k_cache, v_cache [num_blocks, BLOCK_SIZE,
num_kv_heads, HEAD_DIM]; block_tables [num_seqs, max_blocks] int32;
seq_lens [num_seqs] int32; q and out [num_seqs, num_heads, HEAD_DIM].

    python3 python/tutorials/paged-attention.py
"""

import quire as triton
import quire.language as tl


@triton.jit
def paged_attention_decode(
        out_ptr, q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr,
        seq_lens_ptr, scale,
        stride_qs, stride_qh, stride_os, stride_oh,
        stride_kb, stride_kt, stride_kh,
        stride_vb, stride_vt, stride_vh,
        stride_bt,
        QUERIES_PER_KV: tl.constexpr, GROUP_PAD: tl.constexpr,
        HEAD_DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr,
        BLOCK_N: tl.constexpr):
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq)

    offs_g = tl.arange(0, GROUP_PAD)
    heads = kv_head * QUERIES_PER_KV + offs_g
    head_mask = offs_g < QUERIES_PER_KV
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + seq * stride_qs + heads[:, None] * stride_qh +
                offs_d[None, :], mask=head_mask[:, None], other=0.0)

    m_i = tl.full([GROUP_PAD], float("-inf"), tl.float32)
    l_i = tl.zeros([GROUP_PAD], tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], tl.float32)
    block_table = block_tables_ptr + seq * stride_bt
    for start in range(0, seq_len, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        tok_mask = offs_n < seq_len
        # The page of each token, then its row in the cache.
        block_ids = tl.load(block_table + offs_n // BLOCK_SIZE, mask=tok_mask,
                            other=0)
        slots = offs_n % BLOCK_SIZE
        k_offs = (block_ids[:, None].to(tl.int64) * stride_kb +
                  slots[:, None] * stride_kt + kv_head * stride_kh +
                  offs_d[None, :])
        k = tl.load(k_cache_ptr + k_offs, mask=tok_mask[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(tok_mask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_offs = (block_ids[:, None].to(tl.int64) * stride_vb +
                  slots[:, None] * stride_vt + kv_head * stride_vh +
                  offs_d[None, :])
        v = tl.load(v_cache_ptr + v_offs, mask=tok_mask[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    # An empty sequence has no keys: its output is zero.
    out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(out_ptr + seq * stride_os + heads[:, None] * stride_oh +
             offs_d[None, :], out.to(out_ptr.dtype.element_ty),
             mask=head_mask[:, None])


def _strides(t):
    if callable(getattr(t, "stride", None)):
        return t.stride()
    return tuple(s // t.itemsize for s in t.strides)


def paged_attention(q, k_cache, v_cache, block_tables, seq_lens, scale,
                    out=None, BLOCK_N=64, num_warps=4, num_stages=2):
    """Decode attention of q [num_seqs, num_heads, D] over the paged cache
    (torch on the GPU, numpy under QUIRE_INTERPRET=1)."""
    num_seqs, num_heads, head_dim = q.shape
    num_kv_heads, block_size = k_cache.shape[2], k_cache.shape[1]
    group = num_heads // num_kv_heads
    if out is None:
        import torch
        out = torch.empty_like(q)
    sq, so = _strides(q), _strides(out)
    sk, sv = _strides(k_cache), _strides(v_cache)
    assert sk[3] == 1 and sv[3] == 1 and sq[2] == 1 and so[2] == 1
    paged_attention_decode[(num_seqs, num_kv_heads)](
        out, q, k_cache, v_cache, block_tables, seq_lens, scale,
        sq[0], sq[1], so[0], so[1], sk[0], sk[1], sk[2], sv[0], sv[1], sv[2],
        _strides(block_tables)[0],
        QUERIES_PER_KV=group, GROUP_PAD=max(16, triton.next_power_of_2(group)),
        HEAD_DIM=head_dim, BLOCK_SIZE=block_size, BLOCK_N=BLOCK_N,
        num_warps=num_warps, num_stages=num_stages)
    return out


def make_inputs(np, rng, num_seqs, num_heads, num_kv_heads, head_dim,
                block_size, max_len, dtype):
    """Random paged inputs: ragged lengths (0 and 1 included when there is
    room), shuffled block tables."""
    lens = rng.integers(1, max_len + 1, num_seqs)
    if num_seqs > 2:
        lens[0], lens[1] = 0, 1
    max_blocks = (max_len + block_size - 1) // block_size
    num_blocks = num_seqs * max_blocks + 3
    tables = rng.permutation(num_blocks)[:num_seqs * max_blocks]
    tables = tables.reshape(num_seqs, max_blocks).astype(np.int32)
    k = rng.standard_normal((num_blocks, block_size, num_kv_heads,
                             head_dim)).astype(dtype)
    v = rng.standard_normal(k.shape).astype(dtype)
    q = rng.standard_normal((num_seqs, num_heads, head_dim)).astype(dtype)
    return q, k, v, tables, lens.astype(np.int32)


def reference(np, q, k_cache, v_cache, block_tables, seq_lens, scale):
    """float64 decode attention."""
    num_seqs, num_heads, d = q.shape
    bs, kvh = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kvh
    out = np.zeros(q.shape, np.float64)
    for s in range(num_seqs):
        n = int(seq_lens[s])
        if n == 0:
            continue
        rows = np.arange(n)
        pages = block_tables[s][rows // bs]
        k = k_cache[pages, rows % bs].astype(np.float64)   # [n, kvh, d]
        v = v_cache[pages, rows % bs].astype(np.float64)
        for h in range(num_heads):
            sc = k[:, h // group] @ q[s, h].astype(np.float64) * scale
            p = np.exp(sc - sc.max())
            out[s, h] = p @ v[:, h // group] / p.sum()
    return out


if __name__ == "__main__":
    import os
    import numpy as np
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    rng = np.random.default_rng(0)
    q, k, v, bt, lens = make_inputs(np, rng, 8, 32, 8, 128, 16, 300,
                                    np.float16)
    ref = reference(np, q, k, v, bt, lens, 128 ** -0.5)
    if gpu:
        t = [torch.from_numpy(x).cuda() for x in (q, k, v, bt, lens)]
        out = paged_attention(*t, 128 ** -0.5).cpu().numpy()
        print("max |quire - float64| =", np.abs(out - ref).max())
    else:
        os.environ["QUIRE_INTERPRET"] = "1"
        out = np.empty_like(q)
        paged_attention(q, k, v, bt, lens, 128 ** -0.5, out)
        print("interpreter: max |quire - float64| =", np.abs(out - ref).max())
