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


def softmax(x, y=None, num_programs=None):
    """Row softmax of a 2-D torch tensor (numpy under QUIRE_INTERPRET=1)."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 2048 else 4
    num_stages = 4 if BLOCK_SIZE <= 4096 else 2
    if y is None:
        import torch
        y = torch.empty_like(x)
    if num_programs is None:
        # Enough programs to fill the GPU a few times over.
        num_programs = min(n_rows, 132 * 8)
    stride = x.stride(0) if callable(getattr(x, "stride", None)) else \
        x.strides[0] // x.itemsize
    out_stride = y.stride(0) if callable(getattr(y, "stride", None)) else \
        y.strides[0] // y.itemsize
    softmax_kernel[(num_programs, 1, 1)](y, x, stride, out_stride, n_rows,
                                         n_cols, BLOCK_SIZE=BLOCK_SIZE,
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
