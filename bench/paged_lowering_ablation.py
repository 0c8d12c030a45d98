"""Each step of quire-lower-paged-loads switched off in turn, on the split-KV
paged decode kernel (Llama-3-8B shape, batch 64 x 4096, and page 128 for the
one-entry-per-tile case), in one run; plus the seed case on the GPU.

    PYTHONPATH=python QUIRE_QUIREC=build/bin/quirec python3 bench/paged_lowering_ablation.py
"""

import json
import math
import os
import subprocess
import tempfile

from common import ROOT, bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire
from quire.jit import Kernel, _find_quirec
import quire_decode

gen = torch.Generator(device="cuda").manual_seed(99)


def compile_with(src, kernel, flags, num_warps):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.mlir")
        open(path, "w").write(src)
        meta = os.path.join(tmp, "meta.json")
        ptx = subprocess.run([_find_quirec(), path, "--sm=90", f"--num-warps={num_warps}",
                              f"--meta-out={meta}", *flags], check=True,
                             capture_output=True, text=True).stdout
        kernels = json.load(open(meta))["kernels"]
    return Kernel(ptx, [k for k in kernels if k["name"] == kernel][0], 90), ptx


# The seed case: block table [40, 30], page 8, cache row r holds r.
seed_src = open(os.path.join(ROOT, "test", "Interpreter", "paged-load-seed-block-table.mlir")).read()
seed, _ = compile_with(seed_src, "seed", [], 4)
cache = torch.arange(328, device="cuda", dtype=torch.float32)[:, None].repeat(1, 4).contiguous()
bt = torch.tensor([40, 30], dtype=torch.int32, device="cuda")
out = torch.full((16, 4), float("nan"), device="cuda")
seed[(1,)](cache, bt, 0, 16, 4, 4, out)
torch.cuda.synchronize()
rows = out[:, 0].int().tolist()
ok = rows == list(range(40, 48)) + list(range(30, 38)) and bool((out == out[:, :1]).all())
print(f"{'PASS' if ok else 'FAIL'} seed case on the GPU: rows {rows}")
out.fill_(float("nan"))
seed[(1,)](cache, bt, 0, 13, 4, 4, out)
torch.cuda.synchronize()
rows = out[:, 0].tolist()
ok2 = rows[:13] == [float(r) for r in list(range(40, 48)) + list(range(30, 35))] and rows[13:] == [0.0] * 3
print(f"{'PASS' if ok2 else 'FAIL'} seed case, seq_len 13: rows past seq_len read 0: {rows}")

variants = [
    ("all steps", []),
    ("no prefetch", ["--paged-prefetch=false"]),
    ("divisions, not shifts", ["--paged-shifts=false"]),
    ("no prefetch, divisions", ["--paged-prefetch=false", "--paged-shifts=false"]),
    ("no stride divisibility (scalar loads)", None),
]
print("| page | variant | us | TB/s | rel err | ld.global.v4 in PTX |")
print("|---|---|---|---|---|---|")
for page, extra in ((16, []), (128, [("one entry per tile off", ["--paged-single-page=false"])])):
    S, Hq, Hkv, L = 64, 32, 8, 4096
    kc, vc, btab = make_paged_kv(S, Hkv, 128, page, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    lr = [0, 1, 17, 300, 129, 64, 65, 1000]
    kc2, vc2, bt2 = make_paged_kv(8, Hkv, 128, page, lr, torch.half, gen)
    q2 = torch.randn(8, Hq, 128, device="cuda", generator=gen).half()
    sl2 = torch.tensor(lr, dtype=torch.int32, device="cuda")
    ref2 = paged_attention_ref(q2, kc2, vc2, bt2, sl2, 1 / math.sqrt(128))
    kv_bytes = 2 * S * L * Hkv * 128 * 2
    for name, flags in variants + extra:
        src = quire_decode.source(4, page)
        if flags is None:
            src = src.replace(" {tile.divisibility = 16 : i32},\n    %token_stride", ",\n    %token_stride")
            src = src.replace("%page_stride: i64 {tile.divisibility = 16 : i32}", "%page_stride: i64")
            src = src.replace("%token_stride: i64 {tile.divisibility = 16 : i32}", "%token_stride: i64")
            src = src.replace("%head_stride: i64 {tile.divisibility = 16 : i32}", "%head_stride: i64")
            flags = []
        split_k, ptx = compile_with(src, "paged_decode_split", flags, 2)
        combine_k, _ = compile_with(src, "paged_decode_combine", [], 4)
        quire_decode._cache[(4, page, 2)] = (split_k, combine_k)
        o2 = torch.full_like(q2, float("nan"))
        quire_decode.paged_decode(q2, kc2, vc2, bt2, sl2, 1 / math.sqrt(128), max(lr), out=o2)
        torch.cuda.synchronize()
        err = rel_err(o2, ref2)
        t = bench(lambda: quire_decode.paged_decode(q, kc, vc, btab, sl, 1 / math.sqrt(128), L))
        print(f"| {page} | {name} | {t:.0f} | {kv_bytes / t / 1e6:.2f} | {err:.1e} | {ptx.count('ld.global.v4')} |", flush=True)
    del kc, vc
