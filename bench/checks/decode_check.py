"""quire.ops.paged_decode_attention on the GPU over the supported space.

fp16 and bf16, head dims 64..256 (with 80, 96, 112, 192), pages 8..256,
GQA groups 1..16, ragged lengths with 0 and 1, split counts 1..32, both
kernel forms (the op's choice), against a float64 reference with
NaN-poisoned outputs and fresh random inputs per case. One line per case;
exits non-zero on any failure.

    bench/run.py decode_check
"""

import math
import random
import sys

from lib.env import parser, print_header, require_torch

DIMS = [64, 80, 96, 112, 128, 192, 256]
PAGES = [8, 16, 32, 64, 128, 256]
GROUPS = [1, 2, 3, 4, 6, 8, 16]


def cases(rnd, torch):
    out = []
    for d in DIMS:
        for dt in (torch.float16, torch.bfloat16):
            out.append((dt, d, rnd.choice(PAGES), rnd.choice(GROUPS), None))
    for p in PAGES:
        out.append((rnd.choice([torch.float16, torch.bfloat16]), rnd.choice(DIMS), p,
                    rnd.choice(GROUPS), None))
    for g in GROUPS:
        out.append((torch.float16, 128, 16, g, None))
    for ns in (1, 2, 5, 32):
        out.append((torch.bfloat16, 128, 16, 4, ns))
    return out


def main(argv=None):
    parser("decode_check", __doc__).parse_args(argv)
    torch = require_torch()
    import quire
    from lib.reference import make_paged_kv, paged_attention_ref, rel_err

    print_header("decode_check")
    rnd = random.Random(2026)
    gen = torch.Generator(device="cuda").manual_seed(2026)
    todo = cases(rnd, torch)
    fails = 0
    for dt, D, P, G, ns in todo:
        S = rnd.choice([3, 5, 8])
        Hkv = rnd.choice([1, 2, 4])
        top = rnd.choice([300, 1500, 5000])
        L = [rnd.randint(2, top) for _ in range(S)]
        L[0], L[1] = 0, 1
        kc, vc, bt = make_paged_kv(S, Hkv, D, P, L, dt, gen)
        q = torch.randn(S, Hkv * G, D, device="cuda", generator=gen).to(dt)
        sl = torch.tensor(L, dtype=torch.int32, device="cuda")
        scale = rnd.choice([1 / math.sqrt(D), 0.05, 0.3])
        out = torch.full_like(q, float("nan"))
        quire.ops.paged_decode_attention(q, kc, vc, bt, sl, scale, out=out, num_splits=ns)
        torch.cuda.synchronize()
        err = rel_err(out, paged_attention_ref(q, kc, vc, bt, sl, scale))
        tol = 2e-3 if dt == torch.float16 else 1e-2
        ok = err < tol and not torch.isnan(out).any() and (out[0] == 0).all()
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {str(dt)[6:]:8s} D {D:3d} page {P:3d} G {G:2d} "
              f"S {S} Hkv {Hkv} splits {ns} max_len {max(L):5d} scale {scale:.3f} "
              f"rel err {err:.1e} (tol {tol:.0e})", flush=True)
    print(f"{len(todo) - fails}/{len(todo)} cases pass")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
