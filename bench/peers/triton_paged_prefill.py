"""The Triton peer for paged prefill, written the way vLLM's prefix_prefill
kernel is (_fwd_kernel): one program per (sequence, query head, block of
BLOCK_M query tokens); the cached context is gathered through the block
table with offsets in registers and tl.dot on tensor cores, then the chunk's
own keys/values (separate tensors) causally. Cache layout is vLLM's current
[num_blocks, page, num_kv_heads, head_dim]."""

import triton
import triton.language as tl


@triton.jit
def _prefill_kernel(q_ptr, k_new_ptr, v_new_ptr, k_cache, v_cache, bt_ptr,
                    qstart_ptr, ctx_ptr, out_ptr, scale, num_q_heads,
                    num_kv_heads, max_pages, page_stride, token_stride,
                    head_stride, D: tl.constexpr, PAGE: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    mblk = tl.program_id(2)
    q_begin = tl.load(qstart_ptr + seq)
    q_len = tl.load(qstart_ptr + seq + 1) - q_begin
    ctx_len = tl.load(ctx_ptr + seq)
    if mblk * BLOCK_M >= q_len:
        return
    kvh = head // (num_q_heads // num_kv_heads)
    rows = mblk * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < q_len
    d = tl.arange(0, D)
    q_offs = ((q_begin + rows) * num_q_heads + head)[:, None] * D + d[None, :]
    q = tl.load(q_ptr + q_offs, mask=row_ok[:, None], other=0.0)
    qk_scale = scale * 1.44269504088896340736
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    n = tl.arange(0, BLOCK_N)
    for start in range(0, ctx_len, BLOCK_N):
        tok = start + n
        ok = tok < ctx_len
        page = tl.load(bt_ptr + seq * max_pages + tok // PAGE, mask=ok, other=0)
        row = page.to(tl.int64) * page_stride + (tok % PAGE) * token_stride + kvh * head_stride
        k = tl.load(k_cache + row[None, :] + d[:, None], mask=ok[None, :], other=0.0)
        s = tl.dot(q, k) * qk_scale
        s = tl.where(ok[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        v = tl.load(v_cache + row[:, None] + d[None, :], mask=ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    end = tl.minimum((mblk + 1) * BLOCK_M, q_len)
    for start in range(0, end, BLOCK_N):
        j = start + n
        ok = j < q_len
        kv_offs = ((q_begin + j) * num_kv_heads + kvh) * D
        k = tl.load(k_new_ptr + kv_offs[None, :] + d[:, None], mask=ok[None, :], other=0.0)
        s = tl.dot(q, k) * qk_scale
        s = tl.where(j[None, :] <= rows[:, None], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        v = tl.load(v_new_ptr + kv_offs[:, None] + d[None, :], mask=ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    acc = acc / l[:, None]
    tl.store(out_ptr + q_offs, acc.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])


def triton_paged_prefill(q, k_new, v_new, k_cache, v_cache, block_tables,
                         query_start, ctx_lens, scale, max_q_len, out,
                         block_m=64, block_n=64, num_warps=4, num_stages=2):
    T, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    S = ctx_lens.shape[0]
    grid = (S, Hq, triton.cdiv(max_q_len, block_m))
    _prefill_kernel[grid](q, k_new, v_new, k_cache, v_cache, block_tables,
                          query_start, ctx_lens, out, scale, Hq, Hkv,
                          block_tables.shape[1], k_cache.stride(0),
                          k_cache.stride(1), k_cache.stride(2), D=D, PAGE=P,
                          BLOCK_M=block_m, BLOCK_N=block_n,
                          num_warps=num_warps, num_stages=num_stages)
    return out
