"""wgmma (tile.warpgroup_dot) on the GPU: the matmul at several tile shapes.

The matmul of lib/kernels.py with wgmma on, against float64 on ragged sizes
with poisoned outputs; on a mismatch, where the wrong values came from
(A @ I and I @ B show how A and B were read). Each shape runs in its own
process, so a launch failure (illegal instruction, misaligned shared
address) is reported and the other shapes still run.

    bench/run.py wgmma_check               every shape
    bench/run.py wgmma_check BM BN BK WARPS  one shape, in this process
"""

import math
import os
import subprocess
import sys

from lib.env import BENCH, parser, print_header, require_torch

SHAPES = [(64, 64, 32, 4), (128, 128, 32, 4), (128, 128, 64, 4),
          (128, 256, 32, 8), (256, 128, 32, 8), (64, 256, 64, 4)]


def where_from(bad, out, src, n=4):
    """For the first n wrong outputs, the source positions holding the
    value they got (sources are integers below 2048, exact in f16)."""
    notes = []
    flat = src.flatten()
    for m, c in bad.nonzero()[:n].tolist():
        got = out[m, c].item()
        hits = (flat == got).nonzero().flatten()[:3].tolist()
        notes.append(f"({m},{c}) got {got:g} from "
                     + ",".join(str(divmod(h, src.shape[1])) for h in hits))
    return "; ".join(notes)


def one(BM, BN, BK, W):
    torch = require_torch()
    import quire
    from lib.kernels import matmul_mlir
    from lib.reference import rel_err
    k = quire.compile(matmul_mlir(BM, BN, BK, aligned=True), num_warps=W)
    wg = "wgmma.mma_async" in k.ptx
    gen = torch.Generator(device="cuda").manual_seed(1)
    worst = 0.0
    for m, n, kk in ((BM, BN, BK), (300, 272, 208), (1000, 1024, 4000)):
        a = torch.randn(m, kk, device="cuda", generator=gen).half()
        b = torch.randn(kk, n, device="cuda", generator=gen).half()
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.half)
        k[(math.ceil(m / BM), math.ceil(n / BN))](a, b, c, m, n, kk, kk, n, n)
        torch.cuda.synchronize()
        e = rel_err(c, a.double() @ b.double())
        worst = max(worst, e) if e == e else float("nan")
    line = f"{BM}x{BN}x{BK} {W} warps wgmma={wg}: max rel err {worst:.2e}"
    if not worst < 2e-3:
        # A @ I = A (integers, exact in f16): which A element each output got.
        a = (torch.arange(BM * BK, device="cuda") % 2048).view(BM, BK).half()
        eye = torch.eye(BK, BN, device="cuda").half()
        c = torch.full((BM, BN), float("nan"), device="cuda", dtype=torch.half)
        k[(1, 1)](a, eye, c, BM, BN, BK, BK, BN, BN)
        torch.cuda.synchronize()
        want = a.float() @ eye.float()
        bad = (c.float() != want)
        line += f"\n  A@I: {bad.sum().item()} of {bad.numel()} wrong; " + \
            where_from(bad, c.float(), a.float())
        # I @ B = B.
        eye = torch.eye(BM, BK, device="cuda").half()
        b = (torch.arange(BK * BN, device="cuda") % 2048).view(BK, BN).half()
        k[(1, 1)](eye, b, c, BM, BN, BK, BK, BN, BN)
        torch.cuda.synchronize()
        want = eye.float() @ b.float()
        bad = (c.float() != want)
        line += f"\n  I@B: {bad.sum().item()} of {bad.numel()} wrong; " + \
            where_from(bad, c.float(), b.float())
        line += "\n  FAIL"
    print(line, flush=True)
    return 0 if worst < 2e-3 else 1


def main(argv=None):
    p = parser("wgmma_check", __doc__)
    p.add_argument("shape", nargs="*", type=int, metavar="BM BN BK WARPS",
                   help="one tile shape and warp count (default: every shape)")
    args = p.parse_args(argv)
    if args.shape:
        if len(args.shape) != 4:
            p.error("a shape is four numbers: BM BN BK WARPS")
        return one(*args.shape)
    require_torch()
    print_header("wgmma_check")
    rc = 0
    for s in SHAPES:
        proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "wgmma_check",
                               *map(str, s)], capture_output=True, text=True, timeout=300)
        out = (proc.stdout + proc.stderr).strip()
        print(out if proc.returncode in (0, 1) else
              f"{s}: process failed ({proc.returncode}):\n{out[-1500:]}", flush=True)
        rc |= proc.returncode != 0
    return rc


if __name__ == "__main__":
    sys.exit(main())
