"""One shared-memory buffer for every staging op (each conversion fenced by
two barriers) versus two taken in turn (consecutive conversions share
barriers), on the tensor-core kernels, in one run; every variant is checked
first. Usage: python3 bench/shared_buffers_ablation.py"""

import math

from common import bench, rel_err
import torch

import paged_prefill as pf
from matmul_kernel import matmul_mlir
from variants import compile_with

gen = torch.Generator(device="cuda").manual_seed(3)
M = N = K = 4096
a = torch.randn(M, K, device="cuda", generator=gen).half()
b = torch.randn(K, N, device="cuda", generator=gen).half()
c = torch.empty(M, N, device="cuda", dtype=torch.half)
x = torch.randn(1000, 4000, device="cuda", generator=gen).half()
y = torch.randn(4000, 1024, device="cuda", generator=gen).half()
print("== matmul f16 4096^3")
for BM, BN, BK, w in ((128, 128, 32, 4), (128, 256, 32, 8), (128, 128, 64, 8)):
    for nb in (1, 2):
        k = compile_with(matmul_mlir(BM, BN, BK, aligned=True), "matmul", [f"--shared-buffers={nb}"], w)
        z = torch.full((1000, 1024), float("nan"), device="cuda", dtype=torch.half)
        k[(math.ceil(1000 / BM), math.ceil(1024 / BN))](x, y, z, 1000, 1024, 4000, 4000, 1024, 1024)
        torch.cuda.synchronize()
        e = rel_err(z, x.double() @ y.double())
        t = bench(lambda: k[(M // BM, N // BN)](a, b, c, M, N, K, K, N, N), rep=50)
        print(f"  {BM}x{BN}x{BK} {w} warps, {nb} buffer(s): {t:6.0f} us "
              f"{2 * M * N * K / t / 1e6:6.1f} TFLOP/s (rel err {e:.1e})")
print("== paged prefill, page 16")
small = pf.make_inputs([0, 40, 300], [70, 3, 200], 16, gen)
sref = pf.reference(small, 1 / math.sqrt(128))
src = open(pf.EXAMPLE).read()
for ctx, ql in (([4096] * 4, [512] * 4), ([1024] * 8, [512] * 8)):
    inp = pf.make_inputs(ctx, ql, 16, gen)
    fl = pf.flops(ctx, ql)
    for nb in (1, 2):
        for pipe in (0, 32):
            k = compile_with(src, "paged_prefill_attention",
                             [f"--shared-buffers={nb}", f"--pipeline-max-registers={pipe}"], 4)
            out = torch.full_like(small["q"], float("nan"))
            pf.run_example(k, small, 1 / math.sqrt(128), out)
            torch.cuda.synchronize()
            e = rel_err(out, sref)
            o = torch.empty_like(inp["q"])
            t = bench(lambda: pf.run_example(k, inp, 1 / math.sqrt(128), o))
            print(f"  {len(ctx)} x ctx {ctx[0]} + {ql[0]}, {nb} buffer(s), pipeline {pipe}: "
                  f"{t:6.0f} us {fl / t / 1e6:6.1f} TFLOP/s (rel err {e:.1e})")
