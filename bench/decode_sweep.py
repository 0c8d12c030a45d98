"""Sweep the Quire paged decode example over num_warps and BLOCK_N on the
Llama-3-8B shape (batch 64 x 4096, 32 q / 8 kv heads, page 16) and check
each variant against the float64 reference on a ragged batch."""

import math
import os
import re

from common import ROOT, bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire

SRC = open(os.path.join(ROOT, "examples", "paged_decode_attention.mlir")).read()


def variant(block_n):
    s = SRC.replace("tensor<64x128xf16>", f"tensor<{block_n}x128xf16>")
    s = s.replace("tensor<128x64xf16>", f"tensor<128x{block_n}xf16>")
    s = s.replace("4x64x", f"4x{block_n}x").replace("tensor<64xi32>", f"tensor<{block_n}xi32>")
    s = s.replace("tensor<64xi1>", f"tensor<{block_n}xi1>").replace("tensor<1x64xi1>", f"tensor<1x{block_n}xi1>")
    s = s.replace("tile.range 0, 64", f"tile.range 0, {block_n}")
    s = s.replace("%c64 = arith.constant 64 : i32", f"%c64 = arith.constant {block_n} : i32")
    s = re.sub(r"tensor<4x64xf(16|32)>", lambda m: f"tensor<4x{block_n}xf{m.group(1)}>", s)
    return s


gen = torch.Generator(device="cuda").manual_seed(7)
S, Hkv, L = 64, 8, 4096
kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, [L] * S, torch.half, gen)
q = torch.randn(S, 32, 128, device="cuda", generator=gen).half()
lens = torch.full((S,), L, dtype=torch.int32, device="cuda")
out = torch.empty_like(q)
kv_bytes = 2 * S * L * Hkv * 128 * 2
lr = [0, 1, 17, 300, 1000, 63, 64, 65]
kc2, vc2, bt2 = make_paged_kv(8, 8, 128, 16, lr, torch.half, gen)
q2 = torch.randn(8, 32, 128, device="cuda", generator=gen).half()
sl2 = torch.tensor(lr, dtype=torch.int32, device="cuda")
ref2 = paged_attention_ref(q2, kc2, vc2, bt2, sl2, 1 / math.sqrt(128))
for block_n in (32, 64, 128):
    for nw in (2, 4, 8):
        try:
            k = quire.compile(variant(block_n), num_warps=nw)
        except Exception as e:
            print(f"block_n={block_n} warps={nw}: compile failed: {str(e)[:200]}")
            continue
        def run(q, kc, vc, bt, sl, o):
            k[(q.shape[0], kc.shape[2])](o, q, kc, vc, bt, sl, 1 / math.sqrt(128), q.shape[1],
                                          bt.shape[1], kc.stride(0), kc.stride(1), kc.stride(2))
        o2 = torch.full_like(q2, float("nan"))
        run(q2, kc2, vc2, bt2, sl2, o2)
        torch.cuda.synchronize()
        err = rel_err(o2, ref2)
        t = bench(lambda: run(q, kc, vc, bt, lens, out))
        print(f"block_n={block_n} warps={nw}: {t:.0f} us {kv_bytes / t / 1e6:.2f} TB/s err {err:.1e} "
              f"smem {k.shared_bytes}", flush=True)
