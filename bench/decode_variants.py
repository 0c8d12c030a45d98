"""Variants of the decode split kernel on three decode rows, each checked
against float64 and timed with do_bench next to the Triton peer's best
config in the same process (session 5's investigation, docs/performance.md):
the register cap (PTX .maxnreg) with 1x..4x the split count quire.ops
chooses, the cp.async depth, the tile height, the row and the transposed
forms of the kernel (quire.ops.paged_decode_source(transposed=)), the
eager-refill schedule and swizzled vs padded staging buffers.
Usage: python3 bench/decode_variants.py [CASE...] [--eager | --swizzle]
  (default) register caps x split counts x depth x form;
  --eager   the eager-refill schedule (quirec --async-eager-refill);
  --swizzle swizzled vs padded staging (quirec --swizzle-staging)."""

import math
import sys

from common import bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire
from quire import ops
from triton_paged_decode import triton_paged_decode
from variants import compile_with

gen = torch.Generator(device="cuda").manual_seed(5)
SMS = torch.cuda.get_device_properties(0).multi_processor_count
CASES = [("8B 64x4096", 64, 32, 8, 4096),
         ("70B 32x8192", 32, 64, 8, 8192),
         ("MHA 64x2048", 64, 32, 32, 2048)]
names = [a for a in sys.argv[1:] if not a.startswith("--")]
if names:
    CASES = [c for c in CASES if any(a in c[0] for a in names)]
# kind, block_n, warps, async stages, max registers, split factor, flags. "base"
# is the row form of the op's kernel, "swap" its TRANSPOSED form (s^T = K q^T,
# acc^T = V^T p^T: the tokens and the head dim are the M of mma.sync and the
# GQA group its N, padded to 8 rather than 16).
E = ("--async-eager-refill",)
NS = ("--swizzle-staging=false",)
if "--swizzle" in sys.argv:  # swizzled vs padded staging buffers
    VARIANTS = [(k, bn, w, st, 0, fac, fl)
                for k, bn, w, st in (("base", 16, 1, 2), ("base", 16, 1, 3),
                                     ("base", 32, 1, 2), ("swap", 16, 1, 2),
                                     ("swap", 32, 2, 2))
                for fac in (1, 2) for fl in ((), NS, E, E + NS)]
elif "--eager" in sys.argv:  # the eager-refill schedule (quire-async-copies)
    VARIANTS = (
        [("base", 16, 1, 2, 0, 1, ())]
        + [("base", 16, 1, st, cap, fac, E) for st in (2, 3) for cap in (0, 232)
           for fac in (1, 2)]
        + [("base", 32, 1, 2, 0, fac, E) for fac in (1, 2)]
        + [("swap", bn, w, 2, 0, fac, E) for bn, w in ((16, 1), (32, 2), (64, 2))
           for fac in (1, 2, 4)]
        + [("swap", 16, 1, 3, 0, fac, E) for fac in (1, 2)])
else:
    VARIANTS = (
        [("base", 16, 1, st, cap, fac, ()) for st in (2, 3) for cap in (0, 168, 128)
         for fac in (1, 2, 4)]
        + [("base", 32, 1, 2, cap, fac, ()) for cap in (0, 168) for fac in (1, 2)]
        + [("swap", bn, w, st, 0, fac, ()) for bn, w in ((16, 1), (32, 1), (32, 2), (64, 2))
           for st in (2, 3) for fac in (1, 2, 4)])
_kernels = {}


def kernels(kind, group, bn, warps, split, stages, cap, extra):
    key = (kind, group, bn, warps, split, stages, cap, extra)
    if key not in _kernels:
        src = ops.paged_decode_source("f16", group, 128, 16, bn, True, True, split,
                                      transposed=False)
        name = "paged_decode_split" if split else "paged_decode_attention"
        flags = ([f"--async-stages={stages}", *extra]
                 + ([f"--max-registers={cap}"] if cap else []))
        main = (ops.paged_decode_source("f16", group, 128, 16, bn, True, True, split,
                                        transposed=True) if kind == "swap" else src)
        ks = [compile_with(main, name, flags, warps)]
        if split:
            ks.append(quire.compile(src, num_warps=4, kernel="paged_decode_combine"))
        _kernels[key] = ks
    return _kernels[key]


rows = []
for name, S, Hq, Hkv, L in CASES:
    kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    ref = paged_attention_ref(q[:4], kc, vc, bt[:4], sl[:4], scale)
    kv = 2 * S * L * Hkv * 128 * 2
    tt = min(bench(lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, L, block_n=bn,
                                               num_warps=4, num_stages=ns))
             for bn, ns in ((32, 2), (64, 2)))
    print(f"{name}: triton {tt:.0f} us {kv / tt / 1e6:.2f} TB/s", flush=True)
    st = (q.stride(0), q.stride(1), bt.stride(0), *kc.stride()[:3], *vc.stride()[:3])
    for kind, bn, warps, stages, cap, fac, extra in VARIANTS:
        splits = max(1, min(ops.MAX_SPLITS, ops.num_splits_for(S, Hkv, L, bn, SMS) * fac))
        tps = -(-(-(-L // splits)) // bn) * bn
        split = splits > 1
        tag = ("e" if E[0] in extra else " ") + ("p" if NS[0] in extra else " ")
        what = (f"{kind} bn {bn} w {warps} stages {stages}{tag} "
                f"cap {cap:3d} splits {splits:2d}")
        try:
            ks = kernels(kind, Hq // Hkv, bn, warps, split, stages, cap, extra)
        except Exception as e:  # a variant the backend rejects: say so, go on
            print(f"  {what}: "
                  f"{type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        out = torch.full_like(q, float("nan"))
        po = torch.empty(S * Hq * splits, 128, device="cuda")
        pml = torch.empty(S * Hq * splits, 2, device="cuda")

        def run():
            if split:
                ks[0][(S, Hkv, splits)](po, pml, q, kc, vc, bt, sl, scale, tps, *st)
                ks[1][(S, Hq, 1)](out, po, pml, out.stride(0), out.stride(1), splits)
            else:
                ks[0][(S, Hkv, 1)](out, q, kc, vc, bt, sl, scale, tps, *st,
                                   out.stride(0), out.stride(1))
        run()
        torch.cuda.synchronize()
        e = rel_err(out[:4], ref)
        t = bench(run)
        rows.append((name, kind, bn, warps, f"{stages}{' eager' if E[0] in extra else ''}"
                     f"{' padded' if NS[0] in extra else ''}", cap, splits, t, kv / t / 1e6, tt / t, e))
        print(f"  {what}: {t:6.0f} us "
              f"{kv / t / 1e6:.2f} TB/s x{tt / t:.2f} vs triton, rel err {e:.1e}", flush=True)
    del kc, vc
    torch.cuda.empty_cache()

print("\n| case | kernel | BLOCK_N | warps | stages | maxnreg | splits | us | TB/s | vs Triton | err |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in sorted(rows, key=lambda r: (r[0], r[7])):
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5] or '-'} | {r[6]} | {r[7]:.0f} | "
          f"{r[8]:.2f} | {r[9]:.2f} | {r[10]:.1e} |")
