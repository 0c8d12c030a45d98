"""
Fused softmax
=============

Triton's second tutorial ported to Quire: a row-wise softmax that reads each
row once, keeps it in registers and writes it once; programs step over rows
with `tl.range`.

    python3 python/tutorials/02-fused-softmax.py
"""

import quire as triton
import quire.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride,
                   n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   num_stages: tl.constexpr):
    # Programs start at rows 0..P-1 and step by P.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        # BLOCK_SIZE is the next power of two >= n_cols: one block per row.
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        # Subtract the maximum for numerical stability.
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def _stride0(t):
    return t.stride(0) if callable(getattr(t, "stride", None)) else \
        t.strides[0] // t.itemsize


_kernels = {}


def softmax(x, y=None, num_programs=None):
    """Row softmax of a 2-D torch tensor (numpy under QUIRE_INTERPRET=1).
    As Triton's tutorial: the kernel is compiled first, and the grid is as
    many programs as the GPU keeps resident (from its registers and shared
    memory), each stepping over rows."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 2048 else 4
    num_stages = 4 if BLOCK_SIZE <= 4096 else 2
    if y is None:
        import torch
        y = torch.empty_like(x)
    if num_programs is None:
        key = (BLOCK_SIZE, num_warps, num_stages, str(x.dtype))
        occupancy = _kernels.get(key)
        if occupancy is None:
            kernel = softmax_kernel.warmup(y, x, _stride0(x), _stride0(y),
                                           n_rows, n_cols,
                                           BLOCK_SIZE=BLOCK_SIZE,
                                           num_stages=num_stages,
                                           num_warps=num_warps, grid=(1, ))
            kernel._init_handles()
            props = triton.runtime.driver.active.utils.get_device_properties(
                x.device.index)
            n_regs = max(kernel.n_regs, 1)
            size_smem = kernel.metadata.shared
            occupancy = props["max_num_regs"] // (
                n_regs * props["warpSize"] * num_warps)
            if size_smem > 0:
                occupancy = min(occupancy, props["max_shared_mem"] // size_smem)
            occupancy = max(occupancy, 1) * props["multiprocessor_count"]
            _kernels[key] = occupancy
        num_programs = min(occupancy, n_rows)
    softmax_kernel[(num_programs, 1, 1)](y, x, _stride0(x), _stride0(y),
                                         n_rows, n_cols,
                                         BLOCK_SIZE=BLOCK_SIZE,
                                         num_stages=num_stages,
                                         num_warps=num_warps)
    return y


if __name__ == "__main__":
    import os
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    if gpu:
        x = torch.randn(1823, 781, device="cuda")
        y = softmax(x)
        print("max |quire - torch| =",
              (y - torch.softmax(x, axis=1)).abs().max().item())
    else:
        import numpy as np
        os.environ["QUIRE_INTERPRET"] = "1"
        x = np.random.randn(37, 781).astype(np.float32)
        y = softmax(x, np.empty_like(x), num_programs=8)
        ref = np.exp(x - x.max(1, keepdims=True))
        print("interpreter: max |quire - numpy| =",
              np.abs(y - ref / ref.sum(1, keepdims=True)).max())
