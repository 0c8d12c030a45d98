"""What each step of quire-lower-paged-loads is worth, on the GPU.

First the seed case on the GPU (block table [40, 30], page 8: rows 40..47,
30..37; rows past seq_len read 0). Then the op's split-KV decode kernel
(64-token tiles, 2 warps, the row form; Llama-3-8B heads, 64 x 4096, pages
16 and 128) compiled by quirec with one step of the paged lowering switched
off at a time, each variant checked against float64 on a ragged batch and
timed, with the count of 16-byte loads in its PTX. The steps are measured
without cp.async staging (--async-stages=0), where the kernel's loads are
the paged lowering's own; the last row of each page size is the default
pipeline. Needs quirec ($QUIRE_QUIREC or build/bin/quirec).

    bench/run.py paged_lowering
"""

import math
import sys

from lib.env import parser, print_header, require_torch

# The seed case of test/Interpreter/: a 16x4 tile of a cache whose row r
# holds r, through a block table with page size 8.
SEED = """
func.func @seed(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %first: i32,
                %len: i32, %page_stride: i64, %token_stride: i64,
                %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %r = tile.range 0, 16 : tensor<16xi32>
  %c4 = arith.constant dense<4> : tensor<16xi32>
  %roff = arith.muli %r, %c4 : tensor<16xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<16x1xi32> -> tensor<16x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<16x4xi32>
  %offs = arith.addi %roffb, %cb : tensor<16x4xi32>
  %t = tile.paged_load %cache[%table, %first, %c0] {page_size = 8 : i32}
         strides(%page_stride, %token_stride, %c0_i64)
         bound %len : tensor<16x4xf32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<16x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<16x4x!tile.ptr<f32>>, tensor<16x4xi32>
  tile.store %ptrs, %t : tensor<16x4x!tile.ptr<f32>>
  return
}
"""

REGS = ["--async-stages=0"]
VARIANTS = [  # name, quirec flags, strides declared divisible by 16
    ("all steps", REGS, True),
    ("no prefetch", REGS + ["--paged-prefetch=false"], True),
    ("divisions, not shifts", REGS + ["--paged-shifts=false"], True),
    ("no prefetch, divisions", REGS + ["--paged-prefetch=false", "--paged-shifts=false"], True),
    ("no stride divisibility (scalar loads)", REGS, False),
]
PAGE_128_ONLY = [("one entry per tile off", REGS + ["--paged-single-page=false"], True)]
DEFAULT = [("default pipeline (cp.async staging)", [], True)]
BLOCK_N, WARPS, GROUP = 64, 2, 4


def seed_case(torch, quire):
    seed = quire.compile(SEED)
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
    want = [float(r) for r in list(range(40, 48)) + list(range(30, 35))] + [0.0] * 3
    ok2 = rows == want
    print(f"{'PASS' if ok2 else 'FAIL'} seed case, seq_len 13: rows past seq_len read 0: {rows}")
    return ok and ok2


def main(argv=None):
    parser("paged_lowering", __doc__).parse_args(argv)
    torch = require_torch()
    import quire
    from quire import ops
    from lib.kernels import compile_with, decode_split
    from lib.reference import make_paged_kv, paged_attention_ref, rel_err
    from lib.timing import us

    print_header("paged_lowering")
    gen = torch.Generator(device="cuda").manual_seed(99)
    ok = seed_case(torch, quire)
    print("| page | variant | us | TB/s | rel err | ld.global.v4 in PTX |")
    print("|---|---|---|---|---|---|")
    S, Hq, Hkv, L, D = 64, 32, 8, 4096, 128
    scale = 1 / math.sqrt(D)
    for page in (16, 128):
        kc, vc, bt = make_paged_kv(S, Hkv, D, page, [L] * S, torch.half, gen)
        q = torch.randn(S, Hq, D, device="cuda", generator=gen).half()
        sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
        lr = [0, 1, 17, 300, 129, 64, 65, 1000]
        kc2, vc2, bt2 = make_paged_kv(len(lr), Hkv, D, page, lr, torch.half, gen)
        q2 = torch.randn(len(lr), Hq, D, device="cuda", generator=gen).half()
        sl2 = torch.tensor(lr, dtype=torch.int32, device="cuda")
        ref2 = paged_attention_ref(q2, kc2, vc2, bt2, sl2, scale)
        kv_bytes = 2 * S * L * Hkv * D * 2
        splits = max(2, ops.num_splits_for(S, Hkv, L, BLOCK_N))
        extra = PAGE_128_ONLY if page == 128 else []
        for name, flags, aligned in VARIANTS + extra + DEFAULT:
            src = ops.paged_decode_source("f16", GROUP, D, page, BLOCK_N, True, aligned,
                                          True, False)
            split_k, ptx = compile_with(src, "paged_decode_split", flags, WARPS)
            combine_k, _ = compile_with(src, "paged_decode_combine", [], 4)
            o2 = torch.full_like(q2, float("nan"))
            decode_split(split_k, combine_k, q2, kc2, vc2, bt2, sl2, scale, max(lr), splits,
                         BLOCK_N, o2)
            torch.cuda.synchronize()
            err = rel_err(o2, ref2)
            ok &= err < 2e-3
            o = torch.empty_like(q)
            t = us(lambda: decode_split(split_k, combine_k, q, kc, vc, bt, sl, scale, L,
                                        splits, BLOCK_N, o))
            print(f"| {page} | {name} | {t:.0f} | {kv_bytes / t / 1e6:.2f} | {err:.1e} | "
                  f"{ptx.count('ld.global.v4')} |", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
