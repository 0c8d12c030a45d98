"""Tuning sweep for the split-KV paged decode kernel (one process, one GPU):
tile height, warps, split count and compiler flags on a few decode shapes,
against the Triton peer's best config. Prints one line per variant and a
summary table; every variant is checked against float64 first.

    eval "$(tools/scripts/device-unpack.sh)"; python3 bench/decode_tune.py [CASE...] [--splits]

--splits replaces the variants by the default tiles (16 and 32 tokens, one
warp) with 0.5x to 3x the split count quire.ops chooses.
"""

import math
import sys

from common import bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire
from quire import ops
from triton_paged_decode import triton_paged_decode
from variants import compile_with

gen = torch.Generator(device="cuda").manual_seed(11)
SMS = torch.cuda.get_device_properties(0).multi_processor_count
CASES = [  # name, seqs, q heads, kv heads, length, page
    ("Llama-3-8B 64x4096", 64, 32, 8, 4096, 16),
    ("Llama-3-8B 8x32768", 8, 32, 8, 32768, 16),
    ("Llama-70B 32x8192", 32, 64, 8, 8192, 16),
    ("MHA 32/32 64x2048", 64, 32, 32, 2048, 16),
]
SPLIT_SWEEP = "--splits" in sys.argv
names = [a for a in sys.argv[1:] if not a.startswith("--")]
if names:
    CASES = [c for c in CASES if any(a in c[0] for a in names)]
A0 = ("--async-stages=0",)
A3 = ("--async-stages=3",)
A4 = ("--async-stages=4",)
VARIANTS = [  # source, block_n, warps, split factor (x default), flags
    ("base", 64, 2, 1, A0), ("base", 64, 4, 1, A0),
    ("base", 64, 4, 1, ()), ("base", 64, 2, 1, ()), ("base", 32, 4, 1, ()),
    ("base", 128, 4, 1, ()), ("base", 32, 2, 1, ()), ("base", 16, 1, 1, ()),
    ("base", 32, 1, 1, ()),
    ("base", 64, 4, 1, A3), ("base", 32, 4, 1, A3), ("base", 64, 2, 1, A3),
    ("base", 16, 1, 1, A3), ("base", 32, 1, 1, A3), ("base", 128, 4, 1, A3),
    ("base", 64, 4, 1, A4), ("base", 32, 4, 1, A4),
    ("base", 64, 4, 2, ()), ("base", 32, 4, 2, A3),
]

if SPLIT_SWEEP:  # the default tiles with fewer and more splits than chosen
    VARIANTS = [("base", bn, 1, fac, ()) for bn in (16, 32)
                for fac in (0.5, 1, 1.5, 2, 3)]


def source(spec, kind):
    """The op's source, or (vearly) with the V tile loaded right after K, so
    both tiles' loads are in flight together."""
    src = ops.paged_decode_source(*spec)
    if kind == "base":
        return src
    lines = src.split("\n")
    i = next(n for n, l in enumerate(lines) if "%v = tile.paged_load" in l)
    v = lines[i:i + 3]
    del lines[i:i + 3]
    j = next(n for n, l in enumerate(lines) if "%k = tile.paged_load" in l)
    lines[j + 3:j + 3] = v
    return "\n".join(lines)


_compiled = {}


def kernels(spec, kind, warps, flags):
    key = (spec, kind, warps, flags)
    if key not in _compiled:
        src = source(spec, kind)
        name = "paged_decode_split" if spec[-1] else "paged_decode_attention"
        ks = [compile_with(src, name, list(flags), warps)]
        if spec[-1]:
            ks.append(quire.compile(src, num_warps=4, kernel="paged_decode_combine"))
        _compiled[key] = ks
    return _compiled[key]


def run(q, kc, vc, bt, sl, scale, max_len, kind, block_n, warps, splits, flags, out):
    S, Hq, D = q.shape
    P, Hkv = kc.shape[1], kc.shape[2]
    tps = -(-max(1, -(-max_len // splits)) // block_n) * block_n
    splits = max(1, min(splits, -(-max_len // tps)))
    partials = splits > 1
    spec = ("f16", Hq // Hkv, D, P, block_n, True, True, partials)
    ks = kernels(spec, kind, warps, tuple(flags))
    strides = (q.stride(0), q.stride(1), bt.stride(0), kc.stride(0), kc.stride(1),
               kc.stride(2), vc.stride(0), vc.stride(1), vc.stride(2))
    common = (q, kc, vc, bt, sl, scale, tps, *strides)
    if partials:
        dp = max(16, 1 << (D - 1).bit_length())
        po = torch.empty(S * Hq * splits, dp, device=q.device)
        pml = torch.empty(S * Hq * splits, 2, device=q.device)
        ks[0][(S, Hkv, splits)](po, pml, *common)
        ks[1][(S, Hq, 1)](out, po, pml, out.stride(0), out.stride(1), splits)
    else:
        ks[0][(S, Hkv, 1)](out, *common, out.stride(0), out.stride(1))
    return splits


rows = []
for name, S, Hq, Hkv, L, page in CASES:
    kc, vc, bt = make_paged_kv(S, Hkv, 128, page, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    kv_bytes = 2 * S * L * Hkv * 128 * 2
    sample = list(range(min(S, 4)))
    ref = paged_attention_ref(q[sample], kc, vc, bt[sample], sl[sample], scale)
    tb = lambda t: kv_bytes / (t * 1e-6) / 1e12
    best_t = None
    for nw, bn, ns in ((4, 64, 3), (4, 32, 2), (8, 64, 2), (4, 64, 1)):
        t = bench(lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, L, block_n=bn,
                                              num_warps=nw, num_stages=ns))
        if best_t is None or t < best_t[0]:
            best_t = (t, (nw, bn, ns))
    print(f"{name}: triton {best_t[0]:.0f} us {tb(best_t[0]):.2f} TB/s {best_t[1]}", flush=True)
    for kind, bn, nw, fac, flags in VARIANTS:
        base = ops.num_splits_for(S, Hkv, L, bn, SMS)
        splits = max(1, min(ops.MAX_SPLITS, int(round(base * fac))))
        out = torch.full_like(q, float("nan"))
        try:
            used = run(q, kc, vc, bt, sl, scale, L, kind, bn, nw, splits, flags, out)
            torch.cuda.synchronize()
        except Exception as e:  # a variant the backend rejects: say so, go on
            print(f"  {kind} bn {bn} w {nw} splits {splits} {' '.join(flags)}: {type(e).__name__}: {str(e)[:200]}")
            continue
        err = rel_err(out[sample], ref)
        t = bench(lambda: run(q, kc, vc, bt, sl, scale, L, kind, bn, nw, splits, flags, out))
        rows.append((name, kind, bn, nw, used, " ".join(flags), t, tb(t), best_t[0] / t, err))
        print(f"  {kind:6s} bn {bn:3d} w {nw} splits {used:2d} {' '.join(flags):28s} {t:7.0f} us "
              f"{tb(t):5.2f} TB/s  x{best_t[0] / t:.2f} vs triton  err {err:.1e}", flush=True)
    del kc, vc
    torch.cuda.empty_cache()

print("\n| case | source | BLOCK_N | warps | splits | flags | us | TB/s | speed vs Triton | err |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]:.0f} | {r[7]:.2f} | {r[8]:.2f} | {r[9]:.1e} |")
