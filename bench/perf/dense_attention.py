"""Dense attention through pointers (cp.async) and tensor descriptors (TMA), Quire and Triton: the attention loop without the paging.

One kernel source, non-causal attention over contiguous K/V (head dim 128,
fp16, 128 x 128 tiles, 8 warps: the paged prefill kernel's loop, the block
table taken away), read two ways: K/V tiles through pointer arithmetic
(Quire stages them with cp.async) and through host tensor descriptors
(TMA under both). Quire runs each form as it is and with a producer
warpgroup (quire-warp-specialize) at 2 and 3 stages, the pointer form also
with the softmax overlap (quire-overlap-softmax takes cp.async loops);
Triton runs the same source with its two imports replaced (and its own
TensorDescriptor) at 2 and 3 stages, best reported; torch SDPA (flash)
beside. Each output is checked against float64 (NaN-poisoned, three
heads sampled), then timed (median of do_bench, L2 flushed). TFLOP/s =
4 B N^2 D. Prints a table, writes dense_attention.png.

    bench/run.py dense_attention [--rows 16x8192,32x4096] [--out DIR]
"""

import math
import os
import sys
import tempfile

from lib.env import parser, print_header, require_torch

SOURCE = '''
import quire as triton
import quire.language as tl


@triton.jit
def _query(q, N, D: tl.constexpr, BM: tl.constexpr):
    # This program's query rows (BM of head program_id(1)) and their offset.
    r = tl.arange(0, BM)
    d = tl.arange(0, D)
    base = (tl.program_id(1) * N + tl.program_id(0) * BM).to(tl.int64) * D
    return base, tl.load(q + base + r[:, None] * D + d[None, :])


@triton.jit
def _softmax(s, m, l, sl2):
    # One online-softmax step in base 2 over the scores s.
    m_new = tl.maximum(m, tl.max(s, axis=1) * sl2)
    p = tl.exp2(s * sl2 - m_new[:, None])
    alpha = tl.exp2(m - m_new)
    return m_new, p, alpha, l * alpha + tl.sum(p, axis=1)


@triton.jit
def _store(out, base, acc, l, D: tl.constexpr, BM: tl.constexpr):
    r = tl.arange(0, BM)
    d = tl.arange(0, D)
    o = acc / l[:, None]
    tl.store(out + base + r[:, None] * D + d[None, :], o.to(tl.float16))


@triton.jit
def attn_pointers(q, out, k, v, N, sl2, D: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr):
    base, qv = _query(q, N, D, BM)
    m = tl.full((BM,), float("-inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    c = tl.arange(0, BN)
    d = tl.arange(0, D)
    kb = k + (tl.program_id(1) * N).to(tl.int64) * D
    vb = v + (tl.program_id(1) * N).to(tl.int64) * D
    for start in range(0, N, BN):
        kt = tl.load(kb + (start + c[:, None]) * D + d[None, :])
        s = tl.dot(qv, tl.trans(kt))
        m_new, p, alpha, l = _softmax(s, m, l, sl2)
        vt = tl.load(vb + (start + c[:, None]) * D + d[None, :])
        acc = tl.dot(p.to(tl.float16), vt, acc * alpha[:, None])
        m = m_new
    _store(out, base, acc, l, D, BM)


@triton.jit
def attn_descriptors(q, out, k_desc, v_desc, N, sl2, D: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
    base, qv = _query(q, N, D, BM)
    m = tl.full((BM,), float("-inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    row0 = tl.program_id(1) * N
    for start in range(0, N, BN):
        kt = k_desc.load([row0 + start, 0])
        s = tl.dot(qv, tl.trans(kt))
        m_new, p, alpha, l = _softmax(s, m, l, sl2)
        vt = v_desc.load([row0 + start, 0])
        acc = tl.dot(p.to(tl.float16), vt, acc * alpha[:, None])
        m = m_new
    _store(out, base, acc, l, D, BM)
'''
D, BM, BN, WARPS = 128, 128, 128, 8
PRODUCERS = {"warp_specialize": True, "producer_warpgroup": True}
# (label, launch options) per side; Quire's producer forms at 2 and 3
# stages, Triton's pipeline at 2 and 3 (best of each row).
QUIRE_FORMS = [("", [{"num_stages": 2}, {"num_stages": 3}]),
               ("producer warpgroup", [dict(PRODUCERS, num_stages=s)
                                       for s in (2, 3)]),
               ("producer warpgroup overlap",
                [dict(PRODUCERS, num_stages=s, overlap_softmax=True)
                 for s in (2, 3)])]
TRITON_FORMS = [("", [{"num_stages": 2}, {"num_stages": 3}])]


def main(argv=None):
    p = parser("dense_attention", __doc__)
    p.add_argument("--rows", default="16x8192,32x4096",
                   help="heads x tokens per row, comma-separated")
    p.add_argument("--out", default=None, help="folder for the PNG")
    args = p.parse_args(argv)
    rows = [tuple(int(x) for x in r.split("x")) for r in args.rows.split(",")]
    torch = require_torch()
    from lib.plot import bars
    from lib.timing import us
    from perf.frontend import load_module, triton_source

    print_header("dense_attention")
    gen = torch.Generator(device="cuda").manual_seed(5)
    sides = {}
    tmp = tempfile.mkdtemp(prefix="quire-dense-attention-")
    for side in ("Quire", "Triton"):
        text = SOURCE if side == "Quire" else triton_source(SOURCE, "<bench>")
        path = os.path.join(tmp, f"dense_attention_{side.lower()}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            mod = load_module(f"dense_attention_{side.lower()}", path)
            if side == "Quire":
                from quire.tools.tensor_descriptor import TensorDescriptor
            else:
                from triton.tools.tensor_descriptor import TensorDescriptor
        except ImportError as e:
            print(f"{side}: not available ({e})")
            continue
        sides[side] = (mod, TensorDescriptor)

    table, failed = [], False
    for heads, n in rows:
        q, k, v = (torch.randn(heads * n, D, device="cuda", generator=gen,
                               dtype=torch.float16) for _ in range(3))
        scale = 1 / math.sqrt(D)
        sl2 = scale * 1.4426950408889634
        sample = [0, heads // 2, heads - 1]
        ref = torch.stack([
            torch.softmax(q.view(heads, n, D)[h].double() @
                          k.view(heads, n, D)[h].double().T * scale, -1) @
            v.view(heads, n, D)[h].double() for h in sample])
        out = torch.empty_like(q)
        flops = 4 * heads * n * n * D
        label = f"{heads} x {n}"
        qs, ks, vs = (x.view(1, heads, n, D) for x in (q, k, v))
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            t = us(lambda: torch.nn.functional.scaled_dot_product_attention(
                qs, ks, vs, scale=scale))
        table.append((label, "torch SDPA (flash)", flops / t / 1e6, ""))
        print(f"{label}: torch SDPA (flash) {t:.0f} us "
              f"{flops / t / 1e6:.0f} TFLOP/s", flush=True)
        for side, (mod, Desc) in sides.items():
            kd = Desc.from_tensor(k, [BN, D])
            vd = Desc.from_tensor(v, [BN, D])
            for form, kernel, kk, vv in (
                    ("pointers", mod.attn_pointers, k, v),
                    ("descriptors", mod.attn_descriptors, kd, vd)):
                for name, configs in (QUIRE_FORMS if side == "Quire"
                                      else TRITON_FORMS):
                    if form == "descriptors" and "overlap" in name:
                        continue  # cp.async consumer loops only
                    best = None
                    for opts in configs:
                        def run(kernel=kernel, kk=kk, vv=vv, opts=opts):
                            kernel[(n // BM, heads)](
                                q, out, kk, vv, n, sl2, D=D, BM=BM, BN=BN,
                                num_warps=WARPS, **opts)
                        what = f"{label}: {side} {form} {name} {opts}"
                        try:
                            out.fill_(float("nan"))
                            run()
                            torch.cuda.synchronize()
                        except Exception as e:  # a form this side cannot build
                            print(f"{what}: {type(e).__name__}: "
                                  f"{str(e).splitlines()[0][:160]}")
                            continue
                        got = out.view(heads, n, D)[sample].double()
                        err = ((got - ref).norm() / ref.norm()).item()
                        if not err < 5e-3:
                            failed = True
                            print(f"{what}: WRONG (rel err {err:.1e})")
                            continue
                        t = us(run)
                        print(f"{what}: {t:.0f} us {flops / t / 1e6:.0f} "
                              f"TFLOP/s (err {err:.1e})", flush=True)
                        if best is None or t < best[0]:
                            best = (t, opts.get("num_stages"))
                    if best:
                        table.append((label, f"{side} {form}" +
                                      (f" {name}" if name else ""),
                                      flops / best[0] / 1e6,
                                      f"s{best[1]}"))
    print("\n| row | kernel | TFLOP/s | best stages |")
    print("|---|---|---|---|")
    for row in table:
        print(f"| {row[0]} | {row[1]} | {row[2]:.0f} | {row[3]} |")
    labels = [f"{heads} x {n}" for heads, n in rows]
    kernels = list(dict.fromkeys(k for _, k, _, _ in table))
    series = [(kname, [next((v for lab, kk, v, _ in table
                             if lab == row and kk == kname), 0.0)
                       for row in labels]) for kname in kernels]
    bars("dense_attention.png",
         f"dense attention d{D} fp16, {BM}x{BN} tiles: TFLOP/s", "TFLOP/s",
         labels, series, out=args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
