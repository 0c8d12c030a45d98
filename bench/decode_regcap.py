"""Register cap experiment for the decode split kernel: Nsight Compute shows
it at 210 registers per thread (1-warp programs: 12.5% occupancy) where the
Triton peer runs 64 at 50%. Each variant is the op's kernel compiled with
max_registers=N (PTX .maxnreg); checked against float64, timed with
do_bench next to the Triton peer on three decode rows.
Usage: python3 bench/decode_regcap.py"""

import math

from common import bench, make_paged_kv, paged_attention_ref, rel_err
import torch

import quire
from quire import ops
from triton_paged_decode import triton_paged_decode

gen = torch.Generator(device="cuda").manual_seed(5)
SMS = torch.cuda.get_device_properties(0).multi_processor_count


for name, S, Hq, Hkv, L in (("8B 64x4096", 64, 32, 8, 4096),
                            ("70B 32x8192", 32, 64, 8, 8192),
                            ("MHA 64x2048", 64, 32, 32, 2048)):
    kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    ref = paged_attention_ref(q[:4], kc, vc, bt[:4], sl[:4], scale)
    kv = 2 * S * L * Hkv * 128 * 2
    tt = bench(lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, L, block_n=32,
                                           num_warps=4, num_stages=2))
    print(f"{name}: triton {tt:.0f} us {kv / tt / 1e6:.2f} TB/s", flush=True)
    bn, nw = ops.decode_config(128, Hq // Hkv)
    splits = ops.num_splits_for(S, Hkv, L, bn, SMS)
    tps = -(-(-(-L // splits)) // bn) * bn
    src = ops.paged_decode_source("f16", Hq // Hkv, 128, 16, bn, True, True, splits > 1)
    name_k = "paged_decode_split" if splits > 1 else "paged_decode_attention"
    comb = quire.compile(src, num_warps=4, kernel="paged_decode_combine") if splits > 1 else None
    for cap in (None, 168, 152, 128):
        k = quire.compile(src, num_warps=nw, kernel=name_k, max_registers=cap or 0)
        out = torch.full_like(q, float("nan"))
        st = (q.stride(0), q.stride(1), bt.stride(0), *kc.stride()[:3], *vc.stride()[:3])
        po = torch.empty(S * Hq * splits, 128, device="cuda")
        pml = torch.empty(S * Hq * splits, 2, device="cuda")

        def run():
            if comb is not None:
                k[(S, Hkv, splits)](po, pml, q, kc, vc, bt, sl, scale, tps, *st)
                comb[(S, Hq, 1)](out, po, pml, out.stride(0), out.stride(1), splits)
            else:
                k[(S, Hkv, 1)](out, q, kc, vc, bt, sl, scale, tps, *st,
                               out.stride(0), out.stride(1))
        run()
        torch.cuda.synchronize()
        e = rel_err(out[:4], ref)
        t = bench(run)
        print(f"  maxnreg {str(cap):>4}: {t:6.0f} us {kv / t / 1e6:.2f} TB/s "
              f"x{tt / t:.2f} vs triton, rel err {e:.1e}", flush=True)
