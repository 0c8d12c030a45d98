"""Every example kernel on the GPU against float64 torch, with first timings.

Fresh random inputs, NaN-poisoned outputs, ragged sizes: vector add,
softmax, matmul, the single-pass paged decode example and the Triton decode
peer (with its config sweep). Exits non-zero on any failure.

    bench/run.py gpu_check
"""

import math
import os
import sys

from lib.env import EXAMPLES, parser, print_header, require_torch


def main(argv=None):
    parser("gpu_check", __doc__).parse_args(argv)
    torch = require_torch()
    import quire
    from lib.reference import make_paged_kv, paged_attention_ref, poison, rel_err
    from lib.timing import us
    from peers.triton_paged_decode import triton_paged_decode

    print_header("gpu_check")
    gen = torch.Generator(device="cuda").manual_seed(1234)
    results = []

    def record(name, err, tol):
        ok = err == err and err < tol
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}: rel err {err:.2e} (tol {tol:.0e})",
              flush=True)

    bw = lambda t, nbytes: nbytes / (t * 1e-6) / 1e12

    # Vector add, n not a multiple of the block, then a big aligned one.
    vadd = quire.compile(os.path.join(EXAMPLES, "vector_add.mlir"))
    for n in (1, 1000, 1_000_003):
        x = torch.randn(n, device="cuda", generator=gen)
        y = torch.randn(n, device="cuda", generator=gen)
        out = poison(torch.empty_like(x))
        vadd[((n + 1023) // 1024,)](x, y, out, n)
        torch.cuda.synchronize()
        record(f"vector_add n={n}", rel_err(out, x.double() + y.double()), 1e-6)
    with open(os.path.join(EXAMPLES, "vector_add.mlir")) as f:
        src16 = f.read().replace("%n: i32)", "%n: i32 {tile.divisibility = 16 : i32})")
    vadd16 = quire.compile(src16)
    n = 1 << 28
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poison(torch.empty_like(x))
    vadd16[(n // 1024,)](x, y, out, n)
    torch.cuda.synchronize()
    record("vector_add n=2^28 (divisible)", rel_err(out, x.double() + y.double()), 1e-6)
    t_q = us(lambda: vadd16[(n // 1024,)](x, y, out, n))
    t_copy = us(lambda: out.copy_(x))
    t_torch = us(lambda: torch.add(x, y, out=out))
    print(f"vector_add 2^28 f32: quire {t_q:.1f} us {bw(t_q, 12 * n):.2f} TB/s | "
          f"torch.add {t_torch:.1f} us {bw(t_torch, 12 * n):.2f} TB/s | "
          f"copy {bw(t_copy, 8 * n):.2f} TB/s")

    # Row softmax, ragged row lengths.
    softmax = quire.compile(os.path.join(EXAMPLES, "softmax.mlir"))
    for rows, cols in ((3, 1), (37, 1000), (4096, 1024)):
        x = torch.randn(rows, cols, device="cuda", generator=gen) * 3
        out = poison(torch.empty_like(x))
        softmax[(rows,)](x, out, cols, cols)
        torch.cuda.synchronize()
        record(f"softmax {rows}x{cols}", rel_err(out, torch.softmax(x.double(), -1)), 1e-5)
    rows, cols = 65536, 1024
    x = torch.randn(rows, cols, device="cuda", generator=gen)
    out = torch.empty_like(x)
    t_q = us(lambda: softmax[(rows,)](x, out, cols, cols))
    t_torch = us(lambda: torch.softmax(x, -1))
    print(f"softmax 65536x1024 f32: quire {t_q:.1f} us {bw(t_q, 8 * rows * cols):.2f} TB/s | "
          f"torch {t_torch:.1f} us {bw(t_torch, 8 * rows * cols):.2f} TB/s")

    # Matmul with ragged edges.
    mm = quire.compile(os.path.join(EXAMPLES, "matmul.mlir"))
    for M, N, K in ((64, 64, 32), (100, 72, 50), (513, 257, 129)):
        a = torch.randn(M, K, device="cuda", generator=gen).half()
        b = torch.randn(K, N, device="cuda", generator=gen).half()
        c = poison(torch.empty(M, N, device="cuda", dtype=torch.half))
        mm[((M + 63) // 64, (N + 63) // 64)](a, b, c, M, N, K, K, N, N)
        torch.cuda.synchronize()
        record(f"matmul {M}x{N}x{K}", rel_err(c, a.double() @ b.double()), 2e-3)
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.empty(M, N, device="cuda", dtype=torch.half)
    t_q = us(lambda: mm[(M // 64, N // 64)](a, b, c, M, N, K, K, N, N), rep=50)
    t_torch = us(lambda: torch.matmul(a, b), rep=50)
    fl = 2 * M * N * K
    print(f"matmul 4096^3 f16 (examples/matmul.mlir, 64x64x32): quire {t_q:.0f} us "
          f"{fl / t_q / 1e6:.1f} TFLOP/s | torch {t_torch:.0f} us "
          f"{fl / t_torch / 1e6:.1f} TFLOP/s | ratio {t_torch / t_q:.3f}")

    # The single-pass paged decode example: GQA 4, D 128, page 16, ragged
    # lengths with 0 and 1.
    pd = quire.compile(os.path.join(EXAMPLES, "paged_decode_attention.mlir"))

    def run_pd(q, kc, vc, bt, lens, out):
        S, Hq, D = q.shape
        pd[(S, kc.shape[2])](out, q, kc, vc, bt, lens, 1.0 / math.sqrt(D), Hq,
                             bt.shape[1], kc.stride(0), kc.stride(1), kc.stride(2))

    for S, Hkv, lens in ((4, 2, [0, 1, 17, 300]), (16, 8, None)):
        if lens is None:
            lens = torch.randint(1, 2000, (S,), generator=gen, device="cuda").tolist()
        kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, lens, torch.half, gen)
        q = torch.randn(S, 4 * Hkv, 128, device="cuda", generator=gen).half()
        seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
        out = poison(torch.empty_like(q))
        run_pd(q, kc, vc, bt, seq_lens, out)
        torch.cuda.synchronize()
        ref = paged_attention_ref(q, kc, vc, bt, seq_lens, 1.0 / math.sqrt(128))
        record(f"paged_decode S={S} Hkv={Hkv} lens={lens if S <= 4 else 'random'}",
               rel_err(out, ref), 2e-3)
    S, Hkv, L = 64, 8, 4096
    lens = [L] * S
    kc, vc, bt = make_paged_kv(S, Hkv, 128, 16, lens, torch.half, gen)
    q = torch.randn(S, 32, 128, device="cuda", generator=gen).half()
    seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    kv_bytes = 2 * S * L * Hkv * 128 * 2
    t_q = us(lambda: run_pd(q, kc, vc, bt, seq_lens, out))
    print(f"paged_decode 64x4096 Llama-3-8B (single-pass example): quire {t_q:.0f} us "
          f"{kv_bytes / t_q / 1e6:.2f} TB/s")

    # The Triton peer: correct on a ragged batch, then its config sweep.
    lens_r = torch.randint(1, 3000, (8,), generator=gen, device="cuda").tolist()
    kc2, vc2, bt2 = make_paged_kv(8, 8, 128, 16, lens_r, torch.half, gen)
    q2 = torch.randn(8, 32, 128, device="cuda", generator=gen).half()
    sl2 = torch.tensor(lens_r, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    o2 = triton_paged_decode(q2, kc2, vc2, bt2, sl2, scale, max(lens_r))
    record("triton peer ragged",
           rel_err(o2, paged_attention_ref(q2, kc2, vc2, bt2, sl2, scale)), 2e-3)
    best = None
    for nw in (4, 8):
        for bn in (32, 64):
            for ns in (1, 2, 3):
                try:
                    t = us(lambda: triton_paged_decode(q, kc, vc, bt, seq_lens, scale, L,
                                                       block_n=bn, num_warps=nw,
                                                       num_stages=ns))
                except Exception as e:  # a config Triton cannot compile
                    print("triton config", nw, bn, ns, "failed:", type(e).__name__)
                    continue
                print(f"  triton nw={nw} bn={bn} stages={ns}: {t:.0f} us "
                      f"{kv_bytes / t / 1e6:.2f} TB/s")
                if best is None or t < best[0]:
                    best = (t, nw, bn, ns)
    print(f"paged_decode 64x4096 Llama-3-8B: triton best {best[0]:.0f} us "
          f"{kv_bytes / best[0] / 1e6:.2f} TB/s {best[1:]}")

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
