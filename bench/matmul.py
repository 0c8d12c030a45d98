"""f16 matmul (f32 accumulation) on tensor cores: Quire tile shapes vs torch.

For each tile configuration, with the dots on wgmma (sm_90, the default
there) and on mma.sync: correctness against float64 on ragged sizes
(poisoned outputs), then the median time of 4096^3 against torch.matmul
(cuBLAS) in the same process. Prints a table, writes bench/out/matmul.png.
Usage: python3 bench/matmul.py [--quick]
"""

import math
import os
import sys

from common import bench, rel_err, save_plot, HERE
import torch

import quire
from matmul_kernel import matmul_mlir

CONFIGS = [  # BM, BN, BK, num_warps
    (64, 64, 32, 4),
    (128, 64, 32, 4),
    (128, 128, 32, 8),
    (128, 128, 64, 8),
    (128, 256, 32, 8),
    (256, 128, 32, 8),
    (128, 128, 32, 4),
    (128, 128, 64, 4),
    (128, 256, 64, 8),
    (256, 128, 64, 8),
]


def main():
    quick = "--quick" in sys.argv
    gen = torch.Generator(device="cuda").manual_seed(7)
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.empty(M, N, device="cuda", dtype=torch.half)
    fl = 2 * M * N * K
    t_torch = bench(lambda: torch.matmul(a, b), rep=50)
    print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"quire {quire.compiler_version()}")
    print(f"torch.matmul 4096^3 f16: {t_torch:.0f} us, {fl / t_torch / 1e6:.1f} TFLOP/s")
    print(f"{'BMxBNxBK':>12} {'warps':>5} {'dot':>8} {'max rel err':>11} {'us':>8} "
          f"{'TFLOP/s':>8} {'of torch':>8}")
    rows = []
    for BM, BN, BK, w in CONFIGS[:2] if quick else CONFIGS:
        for wg in (True, False):
            kern = quire.compile(matmul_mlir(BM, BN, BK, aligned=True), num_warps=w,
                                 wgmma=wg)
            ragged = quire.compile(matmul_mlir(BM, BN, BK), num_warps=w, wgmma=wg)
            dot = "wgmma" if "wgmma.mma_async" in kern.ptx else "mma.sync"
            if not wg and dot == "mma.sync" and rows and rows[-1][2] == "mma.sync" \
                    and rows[-1][0] == f"{BM}x{BN}x{BK}" and rows[-1][1] == w:
                continue  # wgmma did not apply: the same kernel
            worst = 0.0
            for kn, m, n, k in ((ragged, 100, 72, 50), (ragged, 513, 257, 129),
                                (kern, BM, BN, BK), (kern, 100, 80, 48),
                                (kern, 1000, 1024, 4000)):
                x = torch.randn(m, k, device="cuda", generator=gen).half()
                y = torch.randn(k, n, device="cuda", generator=gen).half()
                z = torch.full((m, n), float("nan"), device="cuda", dtype=torch.half)
                kn[(math.ceil(m / BM), math.ceil(n / BN))](x, y, z, m, n, k, k, n, n)
                torch.cuda.synchronize()
                e = rel_err(z, x.double() @ y.double())
                worst = max(worst, e) if e == e else float("nan")
            t = bench(lambda: kern[(M // BM, N // BN)](a, b, c, M, N, K, K, N, N), rep=50)
            tf = fl / t / 1e6
            rows.append((f"{BM}x{BN}x{BK}", w, dot, worst, t, tf, t_torch / t))
            print(f"{rows[-1][0]:>12} {w:>5} {dot:>8} {worst:>11.2e} {t:>8.0f} {tf:>8.1f} "
                  f"{t_torch / t:>8.3f}", flush=True)
    ok = all(r[3] < 2e-3 for r in rows)
    print("correct:", "yes" if ok else "NO")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(11, 4))
        names = [f"{r[0]}/{r[1]}w {r[2]}" for r in rows] + ["torch"]
        vals = [r[5] for r in rows] + [fl / t_torch / 1e6]
        ax.bar(names, vals, color=["tab:green" if r[2] == "wgmma" else "tab:blue"
                                   for r in rows] + ["tab:gray"])
        ax.set_ylabel("TFLOP/s (f16, 4096^3)")
        ax.set_title("Quire matmul (wgmma, mma.sync) vs torch.matmul, " + torch.cuda.get_device_name())
        plt.xticks(rotation=30, fontsize=6)
        plt.tight_layout()
        save_plot(fig, "matmul.png")
    except ImportError:
        print("plot: matplotlib not available")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
