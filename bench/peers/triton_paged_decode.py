"""The Triton peer: a paged decode attention kernel written as a competent
Triton user would (vLLM's layout): one program per (sequence, KV head,
split), the GQA group's query heads packed into one tl.dot (padded to 16
rows), block-table entries and offsets computed in registers, split-KV with a
log-sum-exp combine kernel."""

import torch
import triton
import triton.language as tl


@triton.jit
def _decode_split(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, part_o, part_ml,
                  scale, num_q_heads, max_pages, page_stride, token_stride,
                  head_stride, tokens_per_split,
                  GROUP: tl.constexpr, GROUP_PAD: tl.constexpr,
                  D: tl.constexpr, PAGE: tl.constexpr, BLOCK_N: tl.constexpr,
                  NUM_SPLITS: tl.constexpr):
    seq = tl.program_id(0)
    kvh = tl.program_id(1)
    split = tl.program_id(2)
    seq_len = tl.load(lens_ptr + seq)
    start = split * tokens_per_split
    end = tl.minimum(start + tokens_per_split, seq_len)
    g = tl.arange(0, GROUP_PAD)
    d = tl.arange(0, D)
    gmask = g < GROUP
    qh = kvh * GROUP + g
    q = tl.load(q_ptr + (seq * num_q_heads + qh)[:, None] * D + d[None, :],
                mask=gmask[:, None], other=0.0)
    m = tl.full([GROUP_PAD], float("-inf"), tl.float32)
    l = tl.zeros([GROUP_PAD], tl.float32)
    acc = tl.zeros([GROUP_PAD, D], tl.float32)
    n = tl.arange(0, BLOCK_N)
    for t0 in range(start, end, BLOCK_N):
        tok = t0 + n
        valid = tok < end
        page = tl.load(bt_ptr + seq * max_pages + tok // PAGE, mask=valid, other=0)
        row = page.to(tl.int64) * page_stride + (tok % PAGE) * token_stride + kvh * head_stride
        k = tl.load(k_ptr + row[:, None] + d[None, :], mask=valid[:, None], other=0.0)
        v = tl.load(v_ptr + row[:, None] + d[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    base = (seq * num_q_heads + qh) * NUM_SPLITS + split
    tl.store(part_o + base[:, None] * D + d[None, :], acc, mask=gmask[:, None])
    tl.store(part_ml + base * 2, m, mask=gmask)
    tl.store(part_ml + base * 2 + 1, l, mask=gmask)


@triton.jit
def _combine(part_o, part_ml, out_ptr, NUM_SPLITS: tl.constexpr,
             SPLITS_PAD: tl.constexpr, D: tl.constexpr):
    row = tl.program_id(0)  # seq * num_q_heads + head
    s = tl.arange(0, SPLITS_PAD)
    smask = s < NUM_SPLITS
    m = tl.load(part_ml + (row * NUM_SPLITS + s) * 2, mask=smask, other=float("-inf"))
    l = tl.load(part_ml + (row * NUM_SPLITS + s) * 2 + 1, mask=smask, other=0.0)
    m_all = tl.max(m, 0)
    w = tl.where(m > float("-inf"), tl.exp(m - m_all), 0.0)
    denom = tl.sum(w * l, 0)
    d = tl.arange(0, D)
    o = tl.load(part_o + (row * NUM_SPLITS + s)[:, None] * D + d[None, :],
                mask=smask[:, None], other=0.0)
    o = tl.sum(o * w[:, None], 0) / tl.where(denom > 0, denom, 1.0)
    tl.store(out_ptr + row * D + d, o.to(out_ptr.dtype.element_ty))


def triton_paged_decode(q, k_cache, v_cache, block_tables, seq_lens, scale,
                        max_seq_len, num_splits=None, block_n=64,
                        num_warps=4, num_stages=2, out=None):
    S, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    if num_splits is None:
        sms = torch.cuda.get_device_properties(q.device).multi_processor_count
        num_splits = max(1, min(triton.cdiv(max_seq_len, 512),
                                triton.cdiv(4 * sms, S * Hkv)))
    tokens_per_split = triton.cdiv(triton.cdiv(max_seq_len, num_splits), block_n) * block_n
    part_o = torch.empty(S * Hq * num_splits, D, device=q.device, dtype=torch.float32)
    part_ml = torch.empty(S * Hq * num_splits, 2, device=q.device, dtype=torch.float32)
    if out is None:
        out = torch.empty_like(q)
    _decode_split[(S, Hkv, num_splits)](
        q, k_cache, v_cache, block_tables, seq_lens, part_o, part_ml, scale,
        Hq, block_tables.shape[1], k_cache.stride(0), k_cache.stride(1),
        k_cache.stride(2), tokens_per_split, GROUP=group,
        GROUP_PAD=max(16, triton.next_power_of_2(group)), D=D, PAGE=P,
        BLOCK_N=block_n, NUM_SPLITS=num_splits, num_warps=num_warps,
        num_stages=num_stages)
    _combine[(S * Hq,)](part_o, part_ml, out, NUM_SPLITS=num_splits,
                        SPLITS_PAD=triton.next_power_of_2(num_splits), D=D)
    return out
