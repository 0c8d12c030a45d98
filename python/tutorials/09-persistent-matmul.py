"""
Persistent matrix multiplication with tensor descriptors
========================================================

The Hopper form of Triton's matmul (its tutorial 09): C = A @ B in fp16 with
fp32 accumulation, where A, B and C are read and written through tensor
descriptors and a fixed grid of NUM_SMS programs walks the output tiles
(tile_id = pid, pid + NUM_SMS, ...), in grouped order for L2 reuse.

Both ways of making descriptors are shown: `matmul_host_descriptors` passes
`TensorDescriptor`s made on the host (the edges of A, B and C need no masks:
blocks read zero outside the tensor and store nothing there), and
`matmul_device_descriptors` makes them in the kernel with
`tl.make_tensor_descriptor` (Triton asks for a scratch allocator first;
Quire needs none, and accepts one).

    python3 python/tutorials/09-persistent-matmul.py
"""

import quire as triton
import quire.language as tl
from quire.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """The (row, column) of output tile `tile_id` in grouped order: groups
    of GROUP_SIZE_M tile rows are walked column by column."""
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr,
           BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
           GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n,
                                    GROUP_SIZE_M)
        offs_m = pid_m * BLOCK_SIZE_M
        offs_n = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N),
                               dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_m, offs_k])
            b = b_desc.load([offs_k, offs_n])
            accumulator = tl.dot(a, b, accumulator)
        c_desc.store([offs_m, offs_n], accumulator.to(tl.float16))


@triton.jit
def matmul_kernel_host_descriptors(a_desc, b_desc, c_desc, M, N, K,
                                   BLOCK_SIZE_M: tl.constexpr,
                                   BLOCK_SIZE_N: tl.constexpr,
                                   BLOCK_SIZE_K: tl.constexpr,
                                   GROUP_SIZE_M: tl.constexpr,
                                   NUM_SMS: tl.constexpr):
    _tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M, BLOCK_SIZE_N,
           BLOCK_SIZE_K, GROUP_SIZE_M, NUM_SMS)


@triton.jit
def matmul_kernel_device_descriptors(a_ptr, b_ptr, c_ptr, M, N, K,
                                     stride_am, stride_bk, stride_cm,
                                     BLOCK_SIZE_M: tl.constexpr,
                                     BLOCK_SIZE_N: tl.constexpr,
                                     BLOCK_SIZE_K: tl.constexpr,
                                     GROUP_SIZE_M: tl.constexpr,
                                     NUM_SMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K],
                                       strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M,
                                                    BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N],
                                       strides=[stride_bk, 1],
                                       block_shape=[BLOCK_SIZE_K,
                                                    BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N],
                                       strides=[stride_cm, 1],
                                       block_shape=[BLOCK_SIZE_M,
                                                    BLOCK_SIZE_N])
    _tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M, BLOCK_SIZE_N,
           BLOCK_SIZE_K, GROUP_SIZE_M, NUM_SMS)


DEFAULT = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
               GROUP_SIZE_M=8, num_warps=8, num_stages=3)


def _num_sms(a):
    if hasattr(a, "device") and getattr(a.device, "type", "cpu") == "cuda":
        props = triton.runtime.driver.active.utils.get_device_properties(
            a.device.index)
        return props["multiprocessor_count"]
    return 4  # the interpreter: a few programs, each with several tiles


def _launch(kernel, args, M, N, config, num_sms):
    cfg = dict(DEFAULT if config is None else config)
    bm, bn = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"]
    num_sms = num_sms or _num_sms(args[0] if not isinstance(
        args[0], TensorDescriptor) else args[0].base)
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    grid = (max(1, min(num_sms, tiles)),)
    kernel[grid](*args, NUM_SMS=grid[0], **cfg)


def matmul_host_descriptors(a, b, c, config=None, num_sms=None):
    """c = a @ b (fp16, row-major, 16-byte aligned rows) through host
    TensorDescriptors."""
    M, K = a.shape
    N = b.shape[1]
    cfg = DEFAULT if config is None else config
    bm, bn, bk = (cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"],
                  cfg["BLOCK_SIZE_K"])
    descs = (TensorDescriptor.from_tensor(a, [bm, bk]),
             TensorDescriptor.from_tensor(b, [bk, bn]),
             TensorDescriptor.from_tensor(c, [bm, bn]))
    _launch(matmul_kernel_host_descriptors, descs + (M, N, K), M, N, config,
            num_sms)
    return c


def matmul_device_descriptors(a, b, c, config=None, num_sms=None):
    """c = a @ b with the descriptors made in the kernel."""
    M, K = a.shape
    N = b.shape[1]
    triton.set_allocator(_scratch)
    args = (a, b, c, M, N, K, _row_stride(a), _row_stride(b), _row_stride(c))
    _launch(matmul_kernel_device_descriptors, args, M, N, config, num_sms)
    return c


def _scratch(size, alignment, stream):
    """The global scratch Triton's kernels write their descriptors to
    (Quire's never call it)."""
    import torch
    return torch.empty(size, device="cuda", dtype=torch.int8)


def _row_stride(t):
    if callable(getattr(t, "stride", None)):
        return t.stride(0)
    return t.strides[0] // t.itemsize


if __name__ == "__main__":
    import os
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    if gpu:
        a = torch.randn((1000, 776), device="cuda", dtype=torch.float16)
        b = torch.randn((776, 1032), device="cuda", dtype=torch.float16)
        ref = torch.matmul(a, b)
        for fn in (matmul_host_descriptors, matmul_device_descriptors):
            c = fn(a, b, torch.empty((1000, 1032), device="cuda",
                                     dtype=torch.float16))
            print(fn.__name__, "max |quire - torch| =",
                  (c - ref).abs().max().item())
    else:
        import numpy as np
        os.environ["QUIRE_INTERPRET"] = "1"
        a = np.random.randn(70, 40).astype(np.float16)
        b = np.random.randn(40, 56).astype(np.float16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        small = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16,
                     GROUP_SIZE_M=2)
        for fn in (matmul_host_descriptors, matmul_device_descriptors):
            c = fn(a, b, np.empty((70, 56), np.float16), config=small)
            print(f"interpreter, {fn.__name__}: max relative error =",
                  np.abs(c - ref).max() / np.abs(ref).max())
