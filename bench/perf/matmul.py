"""f16 matmul (f32 accumulation) on tensor cores: Quire tile shapes vs torch.

For each tile configuration, with the dots on wgmma (sm_90's default) and
on mma.sync: correctness against float64 on ragged and aligned sizes
(poisoned outputs), then the median time of 4096^3 against torch.matmul
(cuBLAS) in the same process. Prints a table, writes matmul.png into the
output folder.

    bench/run.py matmul [--quick] [--out DIR]
"""

import math
import sys

from lib.env import parser, print_header, require_torch

CONFIGS = [  # BM, BN, BK, num_warps
    (64, 64, 32, 4), (128, 64, 32, 4), (128, 128, 32, 8), (128, 128, 64, 8),
    (128, 256, 32, 8), (256, 128, 32, 8), (128, 128, 32, 4), (128, 128, 64, 4),
    (128, 256, 64, 8), (256, 128, 64, 8),
]


def main(argv=None):
    p = parser("matmul", __doc__)
    p.add_argument("--quick", action="store_true", help="the first two configurations only")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    torch = require_torch()
    import quire
    from lib.kernels import matmul_mlir
    from lib.plot import bars
    from lib.reference import rel_err
    from lib.timing import us

    print_header("matmul")
    gen = torch.Generator(device="cuda").manual_seed(7)
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.empty(M, N, device="cuda", dtype=torch.half)
    fl = 2 * M * N * K
    t_torch = us(lambda: torch.matmul(a, b), rep=50)
    print(f"torch.matmul 4096^3 f16: {t_torch:.0f} us, {fl / t_torch / 1e6:.1f} TFLOP/s")
    print(f"{'BMxBNxBK':>12} {'warps':>5} {'dot':>8} {'max rel err':>11} {'us':>8} "
          f"{'TFLOP/s':>8} {'of torch':>8}")
    rows = []
    for BM, BN, BK, w in CONFIGS[:2] if args.quick else CONFIGS:
        for wg in (True, False):
            kern = quire.compile(matmul_mlir(BM, BN, BK, aligned=True), num_warps=w,
                                 wgmma=wg)
            ragged = quire.compile(matmul_mlir(BM, BN, BK), num_warps=w, wgmma=wg)
            dot = "wgmma" if "wgmma.mma_async" in kern.ptx else "mma.sync"
            if not wg and rows and rows[-1][:3] == (f"{BM}x{BN}x{BK}", w, "mma.sync"):
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
            t = us(lambda: kern[(M // BM, N // BN)](a, b, c, M, N, K, K, N, N), rep=50)
            rows.append((f"{BM}x{BN}x{BK}", w, dot, worst, t, fl / t / 1e6, t_torch / t))
            print(f"{rows[-1][0]:>12} {w:>5} {dot:>8} {worst:>11.2e} {t:>8.0f} "
                  f"{rows[-1][5]:>8.1f} {t_torch / t:>8.3f}", flush=True)
    ok = all(r[3] < 2e-3 for r in rows)
    print("correct:", "yes" if ok else "NO")
    shapes = list(dict.fromkeys((r[0], r[1]) for r in rows))
    tflops = {(r[0], r[1], r[2]): r[5] for r in rows}
    bars("matmul.png", f"Quire matmul vs torch.matmul, {torch.cuda.get_device_name()}",
         "TFLOP/s (f16, 4096^3)", [f"{s}/{w}w" for s, w in shapes],
         [(dot, [tflops.get((s, w, dot), 0.0) for s, w in shapes])
          for dot in ("wgmma", "mma.sync") if any(r[2] == dot for r in rows)],
         lines=[(f"torch.matmul {fl / t_torch / 1e6:.0f} TFLOP/s", fl / t_torch / 1e6)],
         out=args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
