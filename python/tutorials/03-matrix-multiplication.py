"""
Matrix multiplication
=====================

Triton's third tutorial ported to Quire: C = A @ B in fp16 with fp32
accumulation, blocked, with grouped program ordering for L2 reuse and
autotuned tile shapes.

    python3 python/tutorials/03-matrix-multiplication.py
"""

import quire as triton
import quire.language as tl


def get_autotune_config():
    return [
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8},
                      num_stages=3, num_warps=8),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=8),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8},
                      num_stages=3, num_warps=8),
    ]


@triton.jit
def matmul_kernel(
        # Pointers to matrices
        a_ptr, b_ptr, c_ptr,
        # Matrix dimensions
        M, N, K,
        # The stride variables: how far the pointer moves to step one
        # element along a dimension.
        stride_am, stride_ak,
        stride_bk, stride_bn,
        stride_cm, stride_cn,
        # Meta-parameters
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr,
        ACTIVATION: tl.constexpr,
):
    """C = A x B; A is (M, K), B is (K, N), C is (M, N)."""
    # Program id -> the block of C it computes, grouped so that programs
    # running together share rows of A and columns of B in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Pointers to the first blocks of A and B; they advance along K.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # The last block along K may be partial: mask it, reading zeros.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


matmul_kernel_autotuned = triton.autotune(configs=get_autotune_config(),
                                          key=['M', 'N', 'K'])(matmul_kernel)


def _strides(t):
    if callable(getattr(t, "stride", None)):
        return t.stride(0), t.stride(1)
    return t.strides[0] // t.itemsize, t.strides[1] // t.itemsize


def matmul(a, b, c=None, activation="", config=None):
    """a @ b for fp16 matrices (torch on the GPU, numpy under
    QUIRE_INTERPRET=1). `config`: fixed constexprs instead of autotuning."""
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    if c is None:
        import torch
        c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )  # noqa: E731
    args = (a, b, c, M, N, K, *_strides(a), *_strides(b), *_strides(c))
    if config is None:
        matmul_kernel_autotuned[grid](*args, ACTIVATION=activation)
    else:
        matmul_kernel[grid](*args, ACTIVATION=activation, **config)
    return c


if __name__ == "__main__":
    import os
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    if gpu:
        a = torch.randn((512, 512), device="cuda", dtype=torch.float16)
        b = torch.randn((512, 512), device="cuda", dtype=torch.float16)
        c = matmul(a, b)
        print("max |quire - torch| =", (c - torch.matmul(a, b)).abs().max().item())
    else:
        import numpy as np
        os.environ["QUIRE_INTERPRET"] = "1"
        a = np.random.randn(70, 90).astype(np.float16)
        b = np.random.randn(90, 50).astype(np.float16)
        c = matmul(a, b, np.empty((70, 50), np.float16),
                   config=dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                               BLOCK_SIZE_K=32, GROUP_SIZE_M=4))
        ref = a.astype(np.float64) @ b.astype(np.float64)
        print("interpreter: max relative error =",
              np.abs(c - ref).max() / np.abs(ref).max())
