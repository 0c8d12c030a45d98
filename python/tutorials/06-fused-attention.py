"""
Fused attention
===============

The forward pass of Triton's sixth tutorial (FlashAttention-2) ported to
Quire: each program takes BLOCK_M queries of one head, streams the keys and
values in BLOCK_N blocks with an online softmax in base 2, and writes the
output and the log-sum-exp. Causal attention runs the blocks below the
diagonal without masks and the diagonal block with one (STAGE 1 and 2).
Pointers are formed with arithmetic (Quire has no block pointers).

    python3 python/tutorials/06-fused-attention.py
"""

import quire as triton
import quire.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn,
                    start_m, qk_scale, offs_m, offs_n, offs_d, N_CTX,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr):
    # The key range: below the diagonal (1), on it (2), or all (3).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # The K block [BLOCK_N, HEAD_DIM], transposed for the dot (as
        # Triton's tutorial does with desc_k.load(...).T).
        k = tl.load(k_base + (start_n + offs_n)[:, None] * stride_kn + offs_d[None, :])
        qk = tl.dot(q, k.T)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # Rescale what was accumulated to the new maximum.
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_vn + offs_d[None, :])
        p = p.to(v.dtype)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vk, stride_vn,
              stride_oz, stride_oh, stride_om, stride_on,
              Z, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    # Running maximum, sum and output of the online softmax.
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): exp2 instead of exp
    q = tl.load(Q + q_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk)
    k_base = K + k_offset
    v_base = V + v_offset
    # Stage 1 (causal: off the diagonal) or 3 (not causal).
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base,
                                        stride_kn, stride_vk, start_m,
                                        qk_scale, offs_m, offs_n, offs_d,
                                        N_CTX, BLOCK_M, BLOCK_N, 4 - STAGE)
    # Stage 2: the diagonal block, masked.
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base,
                                        stride_kn, stride_vk, start_m,
                                        qk_scale, offs_m, offs_n, offs_d,
                                        N_CTX, BLOCK_M, BLOCK_N, 2)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + o_offset + offs_m[:, None] * stride_om + offs_d[None, :] * stride_on,
             acc.to(Out.type.element_ty))


def _strides(t):
    if callable(getattr(t, "stride", None)):
        return t.stride()
    return tuple(s // t.itemsize for s in t.strides)


def attention(q, k, v, causal, sm_scale, o=None, M=None, BLOCK_M=128,
              BLOCK_N=64, num_warps=8, num_stages=3, **launch_options):
    """softmax(q k^T * sm_scale) v for q, k, v of shape (Z, H, N_CTX,
    HEAD_DIM) (torch fp16 on the GPU, numpy under QUIRE_INTERPRET=1).
    N_CTX must be a multiple of BLOCK_M (and of BLOCK_N). `launch_options`
    go to the kernel's launch (under Quire, e.g. early_dots=True)."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    assert HEAD_DIM in {16, 32, 64, 128, 256}
    if o is None:
        import torch
        o = torch.empty_like(q)
        M = torch.empty((Z, H, N_CTX), device=q.device, dtype=torch.float32)
    stage = 3 if causal else 1
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z * H, 1)
    _attn_fwd[grid](q, k, v, sm_scale, M, o, *_strides(q), *_strides(k),
                    *_strides(v), *_strides(o), Z, H, N_CTX,
                    HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                    STAGE=stage, num_warps=num_warps, num_stages=num_stages,
                    **launch_options)
    return o


def reference(np, q, k, v, causal, sm_scale):
    """float64 attention on numpy arrays."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ v


if __name__ == "__main__":
    import os
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    if gpu:
        Z, H, N, D = 2, 4, 1024, 64
        q, k, v = (torch.randn((Z, H, N, D), device="cuda", dtype=torch.float16)
                   for _ in range(3))
        for causal in (False, True):
            o = attention(q, k, v, causal, 0.5)
            ref = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal, scale=0.5)
            print(f"causal={causal}: max |quire - torch| =",
                  (o - ref).abs().max().item())
    else:
        import numpy as np
        os.environ["QUIRE_INTERPRET"] = "1"
        Z, H, N, D = 1, 2, 128, 64
        q, k, v = (np.random.randn(Z, H, N, D).astype(np.float16)
                   for _ in range(3))
        for causal in (False, True):
            o = np.empty_like(q)
            M = np.empty((Z, H, N), np.float32)
            attention(q, k, v, causal, 0.5, o, M, BLOCK_M=64, BLOCK_N=32,
                      num_warps=4)
            ref = reference(np, q, k, v, causal, 0.5)
            print(f"interpreter, causal={causal}: max relative error =",
                  np.abs(o - ref).max() / np.abs(ref).max())
