"""
Vector addition
===============

Triton's first tutorial, ported to Quire by changing the two imports: a
kernel that adds two vectors, one block of BLOCK_SIZE elements per program.

    python3 python/tutorials/01-vector-add.py     # GPU (torch) or, without
                                                  # one, the interpreter
"""

import quire as triton
import quire.language as tl


@triton.jit
def add_kernel(x_ptr,  # pointer to the first input
               y_ptr,  # pointer to the second input
               output_ptr,  # pointer to the output
               n_elements,  # size of the vectors
               BLOCK_SIZE: tl.constexpr,  # elements each program processes
               ):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # Guard the last block, which may run past the end.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y, output=None):
    """x + y for two equally shaped torch tensors (or numpy arrays under
    QUIRE_INTERPRET=1)."""
    if output is None:
        import torch
        output = torch.empty_like(x)
    n_elements = output.numel() if hasattr(output, "numel") and \
        callable(output.numel) else output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    import os
    try:
        import torch
        gpu = torch.cuda.is_available() and not os.environ.get("QUIRE_INTERPRET")
    except ImportError:
        gpu = False
    if gpu:
        x = torch.rand(98432, device="cuda")
        y = torch.rand(98432, device="cuda")
        out = add(x, y)
        print("max |quire - torch| =", (out - (x + y)).abs().max().item())
    else:
        import numpy as np
        os.environ["QUIRE_INTERPRET"] = "1"
        x = np.random.rand(9843).astype(np.float32)
        y = np.random.rand(9843).astype(np.float32)
        out = add(x, y, np.empty_like(x))
        print("interpreter: max |quire - numpy| =", np.abs(out - (x + y)).max())
