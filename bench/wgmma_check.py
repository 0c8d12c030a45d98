"""wgmma (tile.warpgroup_dot) on the GPU: the matmul of bench/matmul_kernel.py
at several tile shapes with wgmma on, against float64 on ragged sizes with
poisoned outputs; on a mismatch, where the wrong values came from (A @ I
and I @ B show how A and B were read). Each shape runs in its own process,
so a launch failure (illegal instruction, misaligned shared address) is
reported and the others still run.
Usage: python3 bench/wgmma_check.py [BM BN BK WARPS]"""

import math
import subprocess
import sys

from common import rel_err  # noqa: F401  (sets sys.path)
import torch

import quire
from matmul_kernel import matmul_mlir

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


def main():
    if len(sys.argv) == 5:
        return one(*map(int, sys.argv[1:]))
    rc = 0
    for s in SHAPES:
        p = subprocess.run([sys.executable, __file__, *map(str, s)],
                           capture_output=True, text=True, timeout=300)
        out = (p.stdout + p.stderr).strip()
        print(out if p.returncode in (0, 1) else
              f"{s}: process failed ({p.returncode}):\n{out[-1500:]}", flush=True)
        rc |= p.returncode != 0
    return rc


if __name__ == "__main__":
    sys.exit(main())
