"""
Unified paged attention (mixed batches)
=======================================

One kernel for a batch that mixes decode tokens and prefill chunks over a
paged KV cache, written the way serving engines write theirs in Triton: the
programs walk blocks of BLOCK_Q query tokens of every sequence; a program
finds its sequence with a binary search over `query_start_loc` (a `while`
loop), returns early when its block lies past the sequence's queries, packs
the BLOCK_Q tokens times the query heads of one KV head into the BLOCK_M
rows of its dots (`offs_m // QUERIES_PER_KV`), reads the block table with
`tok // BLOCK_SIZE` and builds the K/V addresses itself, and runs a causal
online softmax, with sliding window, logit softcap and ALiBi as constexpr
flags.

Layouts (vLLM's): q and out [num_tokens, num_query_heads, HEAD_SIZE];
k_cache, v_cache [num_blocks, BLOCK_SIZE, num_kv_heads, HEAD_SIZE];
block_tables [num_seqs, max_blocks] int32; seq_lens [num_seqs] int32 (the
context plus this step's queries); query_start_loc [num_seqs + 1] int32.

    python3 python/tutorials/unified-attention.py
"""

import quire as triton
import quire.language as tl


@triton.jit
def find_seq_idx(query_start_loc_ptr, q_block, num_seqs,
                 BLOCK_Q: tl.constexpr):
    """The sequence whose query blocks include block `q_block` (sequence s
    starts at block query_start_loc[s] // BLOCK_Q + s)."""
    left = 0
    right = num_seqs
    while left < right:
        mid = (left + right) // 2
        start = tl.load(query_start_loc_ptr + mid) // BLOCK_Q + mid
        if start <= q_block:
            left = mid + 1
        else:
            right = mid
    return left - 1


@triton.jit
def apply_softcap(s, softcap):
    # softcap * tanh(s / softcap), with tanh from exp (as the engines do).
    e = tl.exp(2.0 * (s / softcap))
    return softcap * (e - 1.0) / (e + 1.0)


@triton.jit
def unified_attention_kernel(
        out_ptr, q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr,
        seq_lens_ptr, query_start_loc_ptr, alibi_slopes_ptr,
        scale, softcap, num_seqs,
        stride_q_tok, stride_q_head, stride_o_tok, stride_o_head,
        stride_k_blk, stride_k_tok, stride_k_head,
        stride_v_blk, stride_v_tok, stride_v_head,
        stride_bt,
        NUM_QUERY_HEADS: tl.constexpr, QUERIES_PER_KV: tl.constexpr,
        HEAD_SIZE: tl.constexpr, HEAD_SIZE_PADDED: tl.constexpr,
        BLOCK_SIZE: tl.constexpr, BLOCK_Q: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        SLIDING_WINDOW: tl.constexpr, USE_SOFTCAP: tl.constexpr,
        USE_ALIBI: tl.constexpr):
    q_block = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq = find_seq_idx(query_start_loc_ptr, q_block, num_seqs, BLOCK_Q)
    q_start = tl.load(query_start_loc_ptr + seq)
    q_len = tl.load(query_start_loc_ptr + seq + 1) - q_start
    q_block_local = q_block - (q_start // BLOCK_Q + seq)
    if q_block_local * BLOCK_Q >= q_len:
        return

    # Rows: BLOCK_Q query tokens x QUERIES_PER_KV heads.
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_SIZE_PADDED)
    query_pos = q_block_local * BLOCK_Q + offs_m // QUERIES_PER_KV
    head = kv_head * QUERIES_PER_KV + offs_m % QUERIES_PER_KV
    row_ok = (query_pos < q_len) & (head < NUM_QUERY_HEADS)
    dim_ok = offs_d < HEAD_SIZE
    q = tl.load(q_ptr + (q_start + query_pos)[:, None] * stride_q_tok +
                head[:, None] * stride_q_head + offs_d[None, :],
                mask=row_ok[:, None] & dim_ok[None, :], other=0.0)

    seq_len = tl.load(seq_lens_ptr + seq)
    context_len = seq_len - q_len
    # The last key any row of this block sees (causal).
    kv_end = tl.minimum(context_len + (q_block_local + 1) * BLOCK_Q, seq_len)
    kv_start = 0
    if SLIDING_WINDOW > 0:
        # Keys before the first row's window are never needed.
        first_pos = context_len + q_block_local * BLOCK_Q
        kv_start = tl.maximum(first_pos - SLIDING_WINDOW + 1, 0)
        kv_start = (kv_start // BLOCK_N) * BLOCK_N
    if USE_ALIBI:
        slope = tl.load(alibi_slopes_ptr + head, mask=head < NUM_QUERY_HEADS,
                        other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_SIZE_PADDED], tl.float32)
    bt_row = block_tables_ptr + seq * stride_bt
    for start in range(kv_start, kv_end, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv_ok = offs_n < kv_end
        block_ids = tl.load(bt_row + offs_n // BLOCK_SIZE, mask=kv_ok,
                            other=0)
        slots = offs_n % BLOCK_SIZE
        k = tl.load(k_cache_ptr + block_ids[:, None].to(tl.int64) * stride_k_blk +
                    slots[:, None] * stride_k_tok + kv_head * stride_k_head +
                    offs_d[None, :],
                    mask=kv_ok[:, None] & dim_ok[None, :], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        if USE_SOFTCAP:
            s = apply_softcap(s, softcap)
        if USE_ALIBI:
            s += slope[:, None] * (offs_n[None, :] - (context_len + query_pos)[:, None]).to(tl.float32)
        visible = offs_n[None, :] <= (context_len + query_pos)[:, None]
        if SLIDING_WINDOW > 0:
            visible = visible & ((context_len + query_pos)[:, None] - offs_n[None, :] < SLIDING_WINDOW)
        s = tl.where(visible & kv_ok[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # Rows that see no key yet keep a finite reference.
        m_ref = tl.where(m_new > float("-inf"), m_new, 0.0)
        p = tl.exp(s - m_ref[:, None])
        alpha = tl.exp(m_i - m_ref)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_cache_ptr + block_ids[:, None].to(tl.int64) * stride_v_blk +
                    slots[:, None] * stride_v_tok + kv_head * stride_v_head +
                    offs_d[None, :],
                    mask=kv_ok[:, None] & dim_ok[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / tl.where(l_i > 0.0, l_i, 1.0)[:, None]
    tl.store(out_ptr + (q_start + query_pos)[:, None] * stride_o_tok +
             head[:, None] * stride_o_head + offs_d[None, :],
             out.to(out_ptr.dtype.element_ty),
             mask=row_ok[:, None] & dim_ok[None, :])


def _strides(t):
    if callable(getattr(t, "stride", None)):
        return t.stride()
    return tuple(s // t.itemsize for s in t.strides)


def unified_attention(q, k_cache, v_cache, block_tables, seq_lens,
                      query_start_loc, num_query_blocks, scale, out=None,
                      sliding_window=0, softcap=0.0, alibi_slopes=None,
                      BLOCK_M=16, BLOCK_N=64, num_warps=4, num_stages=2):
    """Causal attention of every query token of a mixed batch over the
    paged cache. `num_query_blocks` bounds the programs along the tokens:
    num_tokens // BLOCK_Q + num_seqs (a shape-only bound, so the launch can
    be captured in a CUDA graph)."""
    num_tokens, num_heads, head_size = q.shape
    num_kv_heads, block_size = k_cache.shape[2], k_cache.shape[1]
    group = num_heads // num_kv_heads
    if out is None:
        import torch
        out = torch.empty_like(q)
    sq, so = _strides(q), _strides(out)
    sk, sv = _strides(k_cache), _strides(v_cache)
    BLOCK_Q = max(1, BLOCK_M // group)
    unified_attention_kernel[(num_query_blocks, num_kv_heads)](
        out, q, k_cache, v_cache, block_tables, seq_lens, query_start_loc,
        alibi_slopes if alibi_slopes is not None else seq_lens,
        scale, softcap if softcap else 1.0, seq_lens.shape[0],
        sq[0], sq[1], so[0], so[1], sk[0], sk[1], sk[2], sv[0], sv[1], sv[2],
        _strides(block_tables)[0],
        NUM_QUERY_HEADS=num_heads, QUERIES_PER_KV=group,
        HEAD_SIZE=head_size,
        HEAD_SIZE_PADDED=max(16, triton.next_power_of_2(head_size)),
        BLOCK_SIZE=block_size, BLOCK_Q=BLOCK_Q, BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N, SLIDING_WINDOW=sliding_window,
        USE_SOFTCAP=bool(softcap), USE_ALIBI=alibi_slopes is not None,
        num_warps=num_warps, num_stages=num_stages)
    return out


def query_blocks(num_tokens, num_seqs, BLOCK_Q):
    return num_tokens // BLOCK_Q + num_seqs


def make_batch(np, rng, query_lens, context_lens, num_heads, num_kv_heads,
               head_size, block_size, dtype):
    """A mixed batch: per sequence `query_lens[s]` new tokens after
    `context_lens[s]` cached ones (all in the paged cache)."""
    query_lens = np.asarray(query_lens)
    seq_lens = query_lens + np.asarray(context_lens)
    max_blocks = int(max(1, -(-seq_lens.max() // block_size)))
    num_seqs = len(query_lens)
    num_blocks = num_seqs * max_blocks + 2
    tables = rng.permutation(num_blocks)[:num_seqs * max_blocks]
    tables = tables.reshape(num_seqs, max_blocks).astype(np.int32)
    k = rng.standard_normal((num_blocks, block_size, num_kv_heads,
                             head_size)).astype(dtype)
    v = rng.standard_normal(k.shape).astype(dtype)
    q = rng.standard_normal((int(query_lens.sum()), num_heads,
                             head_size)).astype(dtype)
    qsl = np.concatenate([[0], np.cumsum(query_lens)]).astype(np.int32)
    return q, k, v, tables, seq_lens.astype(np.int32), qsl


def reference(np, q, k_cache, v_cache, block_tables, seq_lens,
              query_start_loc, scale, sliding_window=0, softcap=0.0,
              alibi_slopes=None):
    """float64 causal attention of each query token over its sequence."""
    num_heads, d = q.shape[1], q.shape[2]
    bs, kvh = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kvh
    out = np.zeros(q.shape, np.float64)
    for s in range(len(seq_lens)):
        n = int(seq_lens[s])
        q0, q1 = int(query_start_loc[s]), int(query_start_loc[s + 1])
        ctx = n - (q1 - q0)
        rows = np.arange(n)
        pages = block_tables[s][rows // bs]
        k = k_cache[pages, rows % bs].astype(np.float64)
        v = v_cache[pages, rows % bs].astype(np.float64)
        for t in range(q1 - q0):
            pos = ctx + t
            for h in range(num_heads):
                sc = k[:, h // group] @ q[q0 + t, h].astype(np.float64) * scale
                if softcap:
                    sc = softcap * np.tanh(sc / softcap)
                if alibi_slopes is not None:
                    sc = sc + alibi_slopes[h] * (rows - pos)
                ok = rows <= pos
                if sliding_window > 0:
                    ok &= pos - rows < sliding_window
                sc = np.where(ok, sc, -np.inf)
                p = np.exp(sc - sc.max())
                out[q0 + t, h] = p @ v[:, h // group] / p.sum()
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
    # Three decode tokens, a 40-token prefill chunk after 20 cached tokens,
    # a first chunk of 17.
    qlens, ctxs = [1, 1, 1, 40, 17], [300, 5, 120, 20, 0]
    q, k, v, bt, lens, qsl = make_batch(np, rng, qlens, ctxs, 32, 8, 128, 16,
                                        np.float16)
    ref = reference(np, q, k, v, bt, lens, qsl, 128 ** -0.5)
    nqb = query_blocks(q.shape[0], len(qlens), 4)
    if gpu:
        t = [torch.from_numpy(x).cuda() for x in (q, k, v, bt, lens, qsl)]
        out = unified_attention(*t, nqb, 128 ** -0.5).cpu().numpy()
        print("max |quire - float64| =", np.abs(out - ref).max())
    else:
        os.environ["QUIRE_INTERPRET"] = "1"
        out = np.empty_like(q)
        unified_attention(q, k, v, bt, lens, qsl, nqb, 128 ** -0.5, out)
        print("interpreter: max |quire - float64| =", np.abs(out - ref).max())
