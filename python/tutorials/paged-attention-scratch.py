"""
Paged attention (decode) through a scratch buffer
==================================================

The first way many Triton users write PagedAttention: for each page of a
tile of BLOCK_N tokens (or the one page a tile shorter than a page lies
in), load the page's block-table entry, compute the cache
row of each of its tokens, store those offsets into a global
scratch buffer (one slot of BLOCK_N per program), synchronize with
`tl.debug_barrier()`, read the tile's BLOCK_N offsets back, and load K and V
through them (and synchronize again before the next tile overwrites them). Under Triton the round trip through memory, the barrier and
the 2-byte loads through offsets whose alignment it cannot see cost 3-10x
against offsets kept in registers (`paged-attention.py`).

Quire sees that the offsets read back are the ones the program just stored
(quire-forward-stores), rebuilds them in registers, drops the barrier, and
recognizes the natural paged gather (quire-raise-paged-loads): this kernel
compiles to the code of `paged-attention.py` plus one store of the tile's
offsets into the scratch buffer, which stays (the buffer is an argument;
someone may read it) as a single store of what the per-page stores wrote.

Same layout as paged-attention.py: k_cache, v_cache [num_blocks, BLOCK_SIZE,
num_kv_heads, HEAD_DIM] with equal strides; block_tables [num_seqs,
max_blocks] int32; seq_lens [num_seqs] int32; q and out [num_seqs,
num_heads, HEAD_DIM]; scratch int64 with num_seqs * num_kv_heads * BLOCK_N
elements.

    python3 python/tutorials/paged-attention-scratch.py
"""

import importlib.util
import os

import quire as triton
import quire.language as tl


@triton.jit
def paged_attention_decode_scratch(
        out_ptr, q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr,
        seq_lens_ptr, scratch_ptr, scale,
        stride_qs, stride_qh, stride_os, stride_oh,
        stride_kb, stride_kt, stride_kh, stride_bt,
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
    # This program's slot of the scratch buffer: BLOCK_N row offsets.
    scratch = scratch_ptr + (seq * tl.num_programs(1) + kv_head) * BLOCK_N
    slots = tl.arange(0, BLOCK_SIZE)
    for start in range(0, seq_len, BLOCK_N):
        # Every thread has read the previous tile's offsets before they
        # are overwritten.
        tl.debug_barrier()
        if BLOCK_N >= BLOCK_SIZE:
            # The cache row of every token of the tile, one page at a time.
            for p in range(BLOCK_N // BLOCK_SIZE):
                page = start // BLOCK_SIZE + p
                block = tl.load(block_table + page,
                                mask=page * BLOCK_SIZE < seq_len, other=0)
                tl.store(scratch + p * BLOCK_SIZE + slots,
                         block.to(tl.int64) * stride_kb + slots * stride_kt,
                         mask=page * BLOCK_SIZE + slots < seq_len)
        else:
            # The tile lies within one page: its entry, and the tile's
            # slots in it.
            tile_slots = start % BLOCK_SIZE + tl.arange(0, BLOCK_N)
            block = tl.load(block_table + start // BLOCK_SIZE)
            tl.store(scratch + tl.arange(0, BLOCK_N),
                     block.to(tl.int64) * stride_kb + tile_slots * stride_kt,
                     mask=start + tl.arange(0, BLOCK_N) < seq_len)
        tl.debug_barrier()
        offs_n = start + tl.arange(0, BLOCK_N)
        tok_mask = offs_n < seq_len
        rows = tl.load(scratch + tl.arange(0, BLOCK_N), mask=tok_mask,
                       other=0)
        kv_offs = rows[:, None] + kv_head * stride_kh + offs_d[None, :]
        k = tl.load(k_cache_ptr + kv_offs, mask=tok_mask[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(tok_mask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_cache_ptr + kv_offs, mask=tok_mask[:, None], other=0.0)
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


def paged_attention_scratch(q, k_cache, v_cache, block_tables, seq_lens,
                            scale, out=None, scratch=None, BLOCK_N=64,
                            num_warps=4, num_stages=2, **options):
    """Decode attention of q [num_seqs, num_heads, D] over the paged cache
    (torch on the GPU, numpy under QUIRE_INTERPRET=1), through a scratch
    buffer of row offsets."""
    num_seqs, num_heads, head_dim = q.shape
    num_kv_heads, block_size = k_cache.shape[2], k_cache.shape[1]
    group = num_heads // num_kv_heads
    if BLOCK_N % block_size and block_size % BLOCK_N:
        raise ValueError(f"BLOCK_N ({BLOCK_N}) must be a multiple or a "
                         f"divisor of the page size ({block_size}): a tile "
                         f"is whole pages, or lies within one")
    if out is None:
        import torch
        out = torch.empty_like(q)
    if scratch is None:
        import torch
        scratch = torch.empty(num_seqs * num_kv_heads * BLOCK_N,
                              dtype=torch.int64, device=q.device)
    sq, so = _strides(q), _strides(out)
    sk, sv = _strides(k_cache), _strides(v_cache)
    assert tuple(sk) == tuple(sv), "K and V share the offsets: equal strides"
    assert sk[3] == 1 and sq[2] == 1 and so[2] == 1
    paged_attention_decode_scratch[(num_seqs, num_kv_heads)](
        out, q, k_cache, v_cache, block_tables, seq_lens, scratch, scale,
        sq[0], sq[1], so[0], so[1], sk[0], sk[1], sk[2],
        _strides(block_tables)[0],
        QUERIES_PER_KV=group, GROUP_PAD=max(16, triton.next_power_of_2(group)),
        HEAD_DIM=head_dim, BLOCK_SIZE=block_size, BLOCK_N=BLOCK_N,
        num_warps=num_warps, num_stages=num_stages, **options)
    return out


def _natural():
    """paged-attention.py (the inputs and the float64 reference)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "paged-attention.py")
    spec = importlib.util.spec_from_file_location("paged_attention", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    import numpy as np
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    natural = _natural()
    rng = np.random.default_rng(0)
    q, k, v, bt, lens = natural.make_inputs(np, rng, 8, 32, 8, 128, 16, 300,
                                            np.float16)
    ref = natural.reference(np, q, k, v, bt, lens, 128 ** -0.5)
    if gpu:
        t = [torch.from_numpy(x).cuda() for x in (q, k, v, bt, lens)]
        out = paged_attention_scratch(*t, 128 ** -0.5).cpu().numpy()
        print("max |quire - float64| =", np.abs(out - ref).max())
    else:
        os.environ["QUIRE_INTERPRET"] = "1"
        out = np.empty_like(q)
        scratch = np.empty(8 * 8 * 64, np.int64)
        paged_attention_scratch(q, k, v, bt, lens, 128 ** -0.5, out, scratch)
        print("interpreter: max |quire - float64| =", np.abs(out - ref).max())
