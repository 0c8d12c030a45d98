"""Quire's hello world: a Triton-style vector add, run on the CPU in the
reference interpreter, then on the GPU when there is one.

    tools/run.sh && python3 examples/hello.py     # from a fresh clone
    python3 examples/hello.py                     # with the wheel installed

The kernel is written as for Triton (`@triton.jit`, `triton.language`): only
the two imports name Quire.
"""

import os
import sys

try:
    import quire
except ImportError:  # the build tree of a clone (tools/run.sh builds it)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "python"))
    import quire
import quire.language as tl


@quire.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y, out):
    n = x.shape[0]
    add_kernel[(quire.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def main():
    import numpy as np
    n = 98432
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    os.environ["QUIRE_INTERPRET"] = "1"  # numpy arrays: the interpreter
    add(x, y, out)
    del os.environ["QUIRE_INTERPRET"]
    assert np.array_equal(out, x + y)
    print(f"quire {quire.__version__}: interpreter, {n} elements: correct")
    try:
        import torch
        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        print("no GPU (or no torch with CUDA): skipped the GPU launch")
        return 0
    xg, yg = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    outg = torch.full_like(xg, float("nan"))
    add(xg, yg, outg)
    torch.cuda.synchronize()
    assert torch.equal(outg, xg + yg)
    print(f"GPU ({torch.cuda.get_device_name()}), {n} elements: correct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
