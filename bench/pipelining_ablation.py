"""How loads are pipelined, on the paged kernels: the paged lowering's own
prefetch of block-table entries (--paged-prefetch) versus
quire-pipeline-loads taking the entries and the rows
(--paged-prefetch=false, register budgets), in one run. Checks every variant
against float64 first. Usage: python3 bench/pipelining_ablation.py"""

import math

from common import bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire_decode
import paged_prefill as pf
from variants import compile_with

VARIANTS = [
    ("paged prefetch, pipeline 32 regs (default)", ["--paged-prefetch=true", "--pipeline-max-registers=32"]),
    ("paged prefetch, no pipelining", ["--paged-prefetch=true", "--pipeline-max-registers=0"]),
    ("pipeline entries+rows, 32 regs", ["--paged-prefetch=false", "--pipeline-max-registers=32"]),
    ("pipeline entries+rows, 64 regs", ["--paged-prefetch=false", "--pipeline-max-registers=64"]),
    ("pipeline entries+rows, 128 regs", ["--paged-prefetch=false", "--pipeline-max-registers=128"]),
]

gen = torch.Generator(device="cuda").manual_seed(5)

print("== paged decode (split-KV), Llama-3-8B 64 x 4096, page 16, best of 1/2/4 warps")
S, Hkv, L = 64, 8, 4096
kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, [L] * S, torch.half, gen)
q = torch.randn(S, 32, 128, device="cuda", generator=gen).half()
lens = torch.tensor([L] * S, dtype=torch.int32, device="cuda")
rl = [0, 1, 17, 300, 1000, 2049]
kcr, vcr, btr = make_paged_kv(len(rl), Hkv, 128, 16, rl, torch.half, gen)
qr = torch.randn(len(rl), 32, 128, device="cuda", generator=gen).half()
lr = torch.tensor(rl, dtype=torch.int32, device="cuda")
ref = paged_attention_ref(qr, kcr, vcr, btr, lr, 1 / math.sqrt(128))
src = quire_decode.source(4, 16)
kv_bytes = 2 * S * L * Hkv * 128 * 2
for label, flags in VARIANTS:
    best = None
    for nw in (1, 2, 4):
        split = compile_with(src, "paged_decode_split", flags, nw)
        comb = compile_with(src, "paged_decode_combine", flags, 4)
        quire_decode._cache[(4, 16, nw)] = (split, comb)
        out = torch.full_like(qr, float("nan"))
        quire_decode.paged_decode(qr, kcr, vcr, btr, lr, 1 / math.sqrt(128), max(rl), num_warps=nw, out=out)
        torch.cuda.synchronize()
        e = rel_err(out, ref)
        o = torch.empty_like(q)
        t = bench(lambda: quire_decode.paged_decode(q, kc, vc, bt, lens, 1 / math.sqrt(128), L, num_warps=nw, out=o))
        if best is None or t < best[0]:
            best = (t, nw, e)
    quire_decode._cache.clear()
    print(f"  {label:45} {best[0]:7.0f} us {kv_bytes / best[0] / 1e6:5.2f} TB/s "
          f"(warps {best[1]}, rel err {best[2]:.1e})")

print("== paged prefill, 4 x ctx 4096 + 512, page 16, 4 warps")
inp = pf.make_inputs([4096] * 4, [512] * 4, 16, gen)
small = pf.make_inputs([0, 40, 300], [70, 3, 200], 16, gen)
sref = pf.reference(small, 1 / math.sqrt(128))
src = open(pf.EXAMPLE).read()
fl = pf.flops([4096] * 4, [512] * 4)
for label, flags in VARIANTS:
    for nw in (4, 8):
        k = compile_with(src, "paged_prefill_attention", flags, nw)
        out = torch.full_like(small["q"], float("nan"))
        pf.run_example(k, small, 1 / math.sqrt(128), out)
        torch.cuda.synchronize()
        e = rel_err(out, sref)
        o = torch.empty_like(inp["q"])
        t = bench(lambda: pf.run_example(k, inp, 1 / math.sqrt(128), o))
        print(f"  {label:45} warps {nw}: {t:7.0f} us {fl / t / 1e6:6.1f} TFLOP/s (rel err {e:.1e})")
