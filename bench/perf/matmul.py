"""Matmul (f32 accumulation) on tensor cores: Quire tile shapes vs torch.

Part 1, the ablation (f16, 4096^3): every tile configuration compiled seven
ways — mma.sync, wgmma waiting for each iteration's dots at 3 and 4 stages,
wgmma with the groups kept in flight (async_wgmma) at 2, 3, 4 and 5 stages
(a variant needing more than 227 KiB of shared memory is skipped) — each checked
against float64 on ragged and aligned sizes (NaN-poisoned outputs), then
timed against torch.matmul (cuBLAS) in the same process.

Part 2, the rows of docs/performance.md: the fastest configuration of part
1 in f16 and bf16 at 4096^3 and 8192^3, in the grid's tile order and grouped
8 tile rows at a time (Triton's tutorial 03 order), checked and timed
against torch.matmul of the same dtype.

Part 3, TMA: the tensor-descriptor matmul (bench/lib/desc_matmul.py, host
TensorDescriptors, grouped tile order), its operands staged five ways:
cp.async; TMA (tma=True: cp.async.bulk.tensor issued by one thread, mbarrier
waits); TMA with the stages released through mbarriers instead of a CTA
barrier per iteration (tma_release=True); a producer warp issuing the
copies (warp_specialize=True); and a producer warpgroup that gives its
registers to the consumers with setmaxnreg (producer_warpgroup=True). Every
staging at two tile shapes, 3 and 4
stages, synchronous and async wgmma (f16, 4096^3), then each staging's
fastest configuration in f16 and bf16 at 4096^3 and 8192^3; each variant
checked against float64 (NaN-poisoned outputs, a ragged size too) and timed
against torch.matmul.

Prints the tables, writes matmul.png into the output folder.

    bench/run.py matmul [--quick] [--descriptors] [--out DIR]
"""

import math
import sys

from lib.env import parser, print_header, require_torch

CONFIGS = [  # BM, BN, BK, num_warps
    (64, 64, 32, 4), (128, 64, 32, 4), (128, 128, 32, 8), (128, 128, 64, 8),
    (128, 256, 32, 8), (256, 128, 32, 8), (128, 128, 32, 4), (128, 128, 64, 4),
    (128, 256, 64, 8), (256, 128, 64, 8),
]

# name -> quire.compile options (the ablation's columns). Copies run
# stages - 1 iterations ahead of both synchronous and async dots (the async
# loop refills a stage after the wait that retires its readers), so wgmma3 /
# async3 and wgmma4 / async4 prefetch equally far.
VARIANTS = [
    ("mma.sync", dict(wgmma=False, num_stages=3)),
    ("wgmma3", dict(num_stages=3)),
    ("wgmma4", dict(num_stages=4)),
    ("async2", dict(num_stages=2, async_wgmma=True)),
    ("async3", dict(num_stages=3, async_wgmma=True)),
    ("async4", dict(num_stages=4, async_wgmma=True)),
    ("async5", dict(num_stages=5, async_wgmma=True)),
]
# A variant that needs more shared memory than a CTA may have (227 KiB on
# the H200, read from the device) is left out of its row.


def main(argv=None):
    p = parser("matmul", __doc__)
    p.add_argument("--quick", action="store_true",
                   help="the first two configurations only, no 8192^3")
    p.add_argument("--descriptors", action="store_true",
                   help="part 3 only (the descriptor matmul, cp.async vs TMA)")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    torch = require_torch()
    import quire
    from lib.kernels import matmul_mlir
    from lib.plot import bars
    from lib.reference import rel_err
    from lib.timing import us

    print_header("matmul")
    shared_limit = quire.runtime.driver.active.utils.get_device_properties()[
        "max_shared_mem"]
    gen = torch.Generator(device="cuda").manual_seed(7)
    torch_dt = {"f16": torch.half, "bf16": torch.bfloat16}
    if args.descriptors:
        ok = descriptor_part(torch, gen, torch_dt, args.quick, us, rel_err)
        print("correct:", "yes" if ok else "NO")
        return 0 if ok else 1

    def compile_pair(cfg, dtype, opts, group_m=0):
        BM, BN, BK, w = cfg
        kern = quire.compile(matmul_mlir(BM, BN, BK, aligned=True, dtype=dtype,
                                         group_m=group_m),
                             num_warps=w, **opts)
        ragged = quire.compile(matmul_mlir(BM, BN, BK, dtype=dtype,
                                           group_m=group_m),
                               num_warps=w, **opts)
        return kern, ragged

    def grid(cfg, m, n, group_m):
        gm, gn = math.ceil(m / cfg[0]), math.ceil(n / cfg[1])
        return (gm * gn, 1) if group_m else (gm, gn)

    def check(cfg, dtype, kern, ragged, group_m=0):
        BM, BN = cfg[0], cfg[1]
        worst = 0.0
        for kn, m, n, k in ((ragged, 100, 72, 50), (ragged, 513, 257, 129),
                            (kern, BM, BN, cfg[2]), (kern, 100, 80, 48),
                            (kern, 1000, 1024, 4000)):
            x = torch.randn(m, k, device="cuda", generator=gen).to(torch_dt[dtype])
            y = torch.randn(k, n, device="cuda", generator=gen).to(torch_dt[dtype])
            z = torch.full((m, n), float("nan"), device="cuda", dtype=torch_dt[dtype])
            kn[grid(cfg, m, n, group_m)](x, y, z, m, n, k, k, n, n)
            torch.cuda.synchronize()
            e = rel_err(z, x.double() @ y.double())
            worst = max(worst, e) if e == e else float("nan")
        return worst

    def inputs(size, dtype):
        a = torch.randn(size, size, device="cuda", generator=gen).to(torch_dt[dtype])
        b = torch.randn(size, size, device="cuda", generator=gen).to(torch_dt[dtype])
        return a, b, torch.empty(size, size, device="cuda", dtype=torch_dt[dtype])

    def time_quire(kern, cfg, a, b, c, group_m=0):
        n = a.shape[0]
        g = grid(cfg, n, n, group_m)
        return us(lambda: kern[g](a, b, c, n, n, n, n, n, n),
                  rep=50 if n <= 4096 else 20)

    # Part 1: the ablation.
    size = 4096
    fl = 2 * size ** 3
    a, b, c = inputs(size, "f16")
    t_torch = us(lambda: torch.matmul(a, b), rep=50)
    print(f"torch.matmul {size}^3 f16: {t_torch:.0f} us, {fl / t_torch / 1e6:.1f} TFLOP/s")
    names = [v[0] for v in VARIANTS]
    print(f"{'BMxBNxBK':>12} {'warps':>5} " + " ".join(f"{n:>9}" for n in names)
          + "   TFLOP/s; max rel err of all")
    table, errs, best = [], [], None
    for cfg in CONFIGS[:2] if args.quick else CONFIGS:
        tflops, worst = [], 0.0
        for name, opts in VARIANTS:
            kern, ragged = compile_pair(cfg, "f16", opts)
            if (name != "mma.sync" and "wgmma.mma_async" not in kern.ptx) or \
                    max(kern.shared_bytes, ragged.shared_bytes) > shared_limit:
                tflops.append(float("nan"))  # wgmma did not apply, or too big
                continue
            e = check(cfg, "f16", kern, ragged)
            worst = max(worst, e) if e == e else float("nan")
            t = time_quire(kern, cfg, a, b, c)
            tflops.append(fl / t / 1e6)
            if e < 2e-3 and (best is None or tflops[-1] > best[0]):
                best = (tflops[-1], cfg, name, opts)
        table.append((f"{cfg[0]}x{cfg[1]}x{cfg[2]}", cfg[3], tflops))
        errs.append(worst)
        print(f"{table[-1][0]:>12} {cfg[3]:>5} " + " ".join(f"{x:>9.1f}" for x in tflops)
              + f"   {worst:.2e}", flush=True)
    ok = all(e < 2e-3 for e in errs)
    if best is None:
        print("no configuration compiled and checked")
        return 1
    print(f"fastest: {best[2]} {best[1]} at {best[0]:.1f} TFLOP/s "
          f"({best[0] / (fl / t_torch / 1e6):.3f} of torch)")

    # Part 2: the fastest configuration in f16 and bf16, 4096^3 and 8192^3,
    # in the grid's order and in groups of 8 tile rows (GROUP_M, as Triton's
    # tutorial 03 walks the tiles); "of torch" takes the faster order.
    _, cfg, name, opts = best
    print(f"\n{cfg} {name}")
    print(f"{'dtype':>5} {'size':>6} {'max rel err':>11} {'quire us':>9} "
          f"{'TFLOP/s':>8} {'grouped us':>10} {'TFLOP/s':>8} {'torch us':>9} "
          f"{'TFLOP/s':>8} {'of torch':>8}")
    for dtype in ("f16", "bf16"):
        kern, ragged = compile_pair(cfg, dtype, opts)
        gkern, gragged = compile_pair(cfg, dtype, opts, group_m=8)
        es = (check(cfg, dtype, kern, ragged),
              check(cfg, dtype, gkern, gragged, group_m=8))
        e = max(es) if all(x == x for x in es) else float("nan")
        ok = ok and e < (2e-3 if dtype == "f16" else 1e-2)
        for n in (4096,) if args.quick else (4096, 8192):
            a, b, c = inputs(n, dtype)
            t = time_quire(kern, cfg, a, b, c)
            tg = time_quire(gkern, cfg, a, b, c, group_m=8)
            tt = us(lambda: torch.matmul(a, b), rep=50 if n <= 4096 else 20)
            f = 2 * n ** 3
            print(f"{dtype:>5} {n:>6} {e:>11.2e} {t:>9.0f} {f / t / 1e6:>8.1f} "
                  f"{tg:>10.0f} {f / tg / 1e6:>8.1f} "
                  f"{tt:>9.0f} {f / tt / 1e6:>8.1f} {tt / min(t, tg):>8.3f}",
                  flush=True)
    ok = descriptor_part(torch, gen, torch_dt, args.quick, us, rel_err) and ok
    print("correct:", "yes" if ok else "NO")
    bars("matmul.png", f"Quire matmul vs torch.matmul, {torch.cuda.get_device_name()}",
         "TFLOP/s (f16, 4096^3)", [f"{s}/{w}w" for s, w, _ in table],
         [(name, [row[2][i] if row[2][i] == row[2][i] else 0.0 for row in table])
          for i, name in enumerate(names)],
         lines=[(f"torch.matmul {fl / t_torch / 1e6:.0f} TFLOP/s", fl / t_torch / 1e6)],
         out=args.out)
    return 0 if ok else 1


# Part 3's configurations: (BM, BN, BK, warps) x (num_stages, async_wgmma).
DESC_CONFIGS = [(128, 128, 64, 8), (128, 256, 64, 8)]
DESC_SCHEDULES = [(3, False), (4, False), (3, True), (4, True)]
# The ways of staging the operands: launch options.
DESC_STAGING = {"cp.async": {"tma": False}, "tma": {"tma": True},
                "tma_release": {"tma": True, "tma_release": True},
                "producer warp": {"tma": True, "tma_release": True,
                                  "warp_specialize": True},
                "producer warpgroup": {"producer_warpgroup": True}}


def descriptor_part(torch, gen, torch_dt, quick, us, rel_err):
    """Part 3: the descriptor matmul, cp.async against TMA. First every
    staging at every configuration (f16, 4096^3), then each staging's
    fastest configuration in f16 and bf16 at 4096^3 and 8192^3. Returns
    whether every variant matched float64 (an aligned and a ragged size)."""
    from lib.desc_matmul import launcher
    ok = True

    def operands(dtype, n):
        dt = torch_dt[dtype]
        a = torch.randn(n, n, device="cuda", generator=gen).to(dt)
        b = torch.randn(n, n, device="cuda", generator=gen).to(dt)
        return a, b, torch.empty(n, n, device="cuda", dtype=dt)

    def check(dtype, cfg, opts, a, b):
        # The size timed and a ragged one: partial tiles at every edge,
        # zero fill past them.
        dt = torch_dt[dtype]
        ra = torch.randn(1000, 4000, device="cuda", generator=gen).to(dt)
        rb = torch.randn(4000, 1032, device="cuda", generator=gen).to(dt)
        worst = 0.0
        for x, y in ((a, b), (ra, rb)):
            z = torch.full((x.shape[0], y.shape[1]), float("nan"),
                           device="cuda", dtype=dt)
            launcher(x, y, z, cfg, **opts)()
            torch.cuda.synchronize()
            e = rel_err(z, x.double() @ y.double())
            worst = max(worst, e) if e == e else float("nan")
        return worst

    print("\ntensor-descriptor matmul, f16 4096^3: TFLOP/s of each staging "
          "(ratio to torch.matmul)")
    n = 4096
    a, b, c = operands("f16", n)
    fl = 2 * n ** 3
    tt = fl / us(lambda: torch.matmul(a, b), rep=50) / 1e6
    print(f"torch.matmul: {tt:.1f} TFLOP/s")
    print(f"{'BMxBNxBK/w':>14} {'stages':>6} {'async':>5} "
          + " ".join(f"{k:>16}" for k in DESC_STAGING) + f" {'max rel err':>11}")
    best = {}
    for cfg in DESC_CONFIGS[:1] if quick else DESC_CONFIGS:
        for stages, aw in DESC_SCHEDULES:
            tf, worst = {}, 0.0
            for staging, extra in DESC_STAGING.items():
                opts = dict(num_stages=stages, async_wgmma=aw, **extra)
                e = check("f16", cfg, opts, a, b)
                worst = max(worst, e) if e == e else float("nan")
                tf[staging] = fl / us(launcher(a, b, c, cfg, **opts),
                                      rep=50) / 1e6
                if e < 2e-3 and tf[staging] > best.get(staging, (0,))[0]:
                    best[staging] = (tf[staging], cfg, opts)
            ok = ok and worst < 2e-3
            name = f"{cfg[0]}x{cfg[1]}x{cfg[2]}/{cfg[3]}"
            print(f"{name:>14} {stages:>6} {'yes' if aw else 'no':>5} "
                  + " ".join(f"{tf[k]:>8.1f} ({tf[k] / tt:.3f})"
                             for k in DESC_STAGING)
                  + f" {worst:>11.2e}", flush=True)
    print("\neach staging's fastest configuration (TFLOP/s, ratio to "
          "torch.matmul of the same dtype and size)")
    print(f"{'dtype':>5} {'size':>5} " + " ".join(
        f"{k:>16}" for k in DESC_STAGING) + f" {'torch':>6} {'max rel err':>11}")
    for dtype in ("f16", "bf16"):
        tol = 2e-3 if dtype == "f16" else 1e-2
        for n in (4096,) if quick else (4096, 8192):
            a, b, c = operands(dtype, n)
            rep = 50 if n <= 4096 else 20
            fl = 2 * n ** 3
            tt = fl / us(lambda: torch.matmul(a, b), rep=rep) / 1e6
            cells, worst = [], 0.0
            for staging in DESC_STAGING:
                if staging not in best:
                    cells.append(f"{'-':>16}")
                    continue
                _, cfg, opts = best[staging]
                e = check(dtype, cfg, opts, a, b)
                worst = max(worst, e) if e == e else float("nan")
                t = fl / us(launcher(a, b, c, cfg, **opts), rep=rep) / 1e6
                cells.append(f"{t:>8.1f} ({t / tt:.3f})")
            ok = ok and worst < tol
            print(f"{dtype:>5} {n:>5} " + " ".join(cells)
                  + f" {tt:>6.1f} {worst:>11.2e}", flush=True)
    for staging, (t, cfg, opts) in best.items():
        print(f"best {staging}: {cfg} {opts}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
