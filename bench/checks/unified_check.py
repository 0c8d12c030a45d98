"""quire.ops.unified_attention on the GPU over its feature grid, against float64.

Every feature alone and together (sliding window 0/128/4096, softcap
0/30/50, ALiBi on/off, sinks on/off, the log-sum-exp, descale factors,
non-causal) on decode-only, prefill-only and mixed batches with ragged
lengths including 0 and 1, fp16 and bf16 queries over caches of the same
dtype or of fp8 (e4m3fn, e5m2: every feature on every batch kind, and the
shapes), head dims 64/80/96/128/192/256, pages 16/32/128, GQA groups
1/4/8/16, forced split counts; NaN-poisoned outputs and fresh random inputs
per case (the case's seed is printed). The reference reads an fp8 cache's
values, exact in float32. One line per case; exits non-zero on any failure.

    bench/run.py unified_check [--quick]
"""

import math
import random
import sys

from lib.env import parser, print_header, require_torch

BATCHES = {  # contexts, chunk lengths
    "decode": ([0, 1000, 37, 4500, 2000, 129], [1] * 6),
    "decode-varlen": ([0, 300, 2999, 50], [1, 0, 1, 1]),
    "prefill": ([0, 700, 3000], [512, 512, 512]),
    "mixed": ([4000, 0, 20, 1500, 0, 3000, 7], [1, 257, 1, 0, 1, 64, 130]),
}
FEATURES = ["none", "window0", "window128", "window4096", "softcap30",
            "softcap50", "alibi", "sinks", "lse", "descale",
            "window128+softcap30+alibi+sinks+lse+descale",
            "window4096+softcap50+sinks+lse"]
SHORT = {"float16": "fp16", "bfloat16": "bf16"}
FP8 = ("e4m3fn", "e5m2")
SHAPES = [  # head dim, page, q heads, kv heads
    (64, 16, 8, 2), (80, 16, 8, 2), (96, 32, 8, 2), (128, 16, 32, 8),
    (192, 16, 8, 4), (256, 16, 4, 2), (128, 32, 16, 16), (128, 128, 32, 4),
    (64, 16, 32, 4), (128, 16, 64, 4), (128, 16, 16, 1)]


def make(torch, gen, ctx, qlens, page, hq, hkv, d, dtype, fp8=None):
    """A [2, num_blocks, ...] cache (vLLM's) holding each sequence's
    context and chunk, its queries and metadata; `fp8` a format for the
    cache (its values rounded to it), else the queries' dtype."""
    lens = [c + n for c, n in zip(ctx, qlens)]
    mb = max(1, max(-(-n // page) for n in lens))
    nb = len(lens) * mb + 5
    kv = torch.randn(2, nb, page, hkv, d, device="cuda", generator=gen).to(
        getattr(torch, "float8_" + fp8) if fp8 else dtype)
    bt = torch.randperm(nb, device="cuda", generator=gen)[:len(lens) * mb]
    starts = [0]
    for n in qlens:
        starts.append(starts[-1] + n)
    i32 = dict(dtype=torch.int32, device="cuda")
    q = torch.randn(starts[-1], hq, d, device="cuda", generator=gen).to(dtype)
    return dict(q=q, k=kv[0], v=kv[1], bt=bt.view(len(lens), mb).int().contiguous(),
                cu=torch.tensor(starts, **i32), lens=torch.tensor(lens, **i32),
                max_q=max(qlens), max_k=max(lens))


def features(torch, gen, name, hq, num_seqs, hkv):
    kw, ref = dict(window_size=(-1, -1), softcap=0.0), {}
    for part in name.split("+"):
        if part.startswith("window"):
            w = int(part[len("window"):])
            kw["window_size"], ref["window_left"] = (w, 0), w
        elif part.startswith("softcap"):
            kw["softcap"] = ref["softcap"] = float(part[len("softcap"):])
        elif part == "alibi":
            kw["alibi_slopes"] = ref["alibi_slopes"] = \
                2.0 ** (-8.0 * torch.arange(1, hq + 1, device="cuda") / hq)
        elif part == "sinks":
            kw["sinks"] = ref["sinks"] = 2 * torch.randn(hq, device="cuda", generator=gen)
        elif part == "lse":
            kw["return_lse"] = True
        elif part == "descale":
            kw["q_descale"] = ref["q_descale"] = torch.tensor([0.8], device="cuda")
            kw["k_descale"] = ref["k_descale"] = \
                0.5 + torch.rand(num_seqs, hkv, device="cuda", generator=gen)
            kw["v_descale"] = ref["v_descale"] = \
                torch.tensor([1.25], device="cuda").expand(num_seqs, hkv)
    return kw, ref


def check(torch, quire, inp, name, causal=True, num_splits=None, seed=0):
    """(ok, line) of one case."""
    from lib.reference import rel_err, unified_ref
    q = inp["q"]
    hq, hkv, d = q.shape[1], inp["k"].shape[2], q.shape[2]
    gen = torch.Generator(device="cuda").manual_seed(seed)
    kw, ref_kw = features(torch, gen, name, hq, len(inp["lens"]), hkv)
    if not causal and "window_left" in ref_kw:
        kw["window_size"] = (ref_kw["window_left"], -1)
    scale = 1 / math.sqrt(d)
    out = torch.full_like(q, float("nan"))
    lse_on = kw.pop("return_lse", False)
    res = quire.ops.unified_attention(
        q, inp["k"], inp["v"], out, inp["cu"], inp["max_q"], inp["lens"], inp["max_k"],
        scale, causal, kw.pop("window_size"), inp["bt"], kw.pop("softcap"),
        kw.pop("q_descale", None), kw.pop("k_descale", None), kw.pop("v_descale", None),
        return_lse=lse_on, num_splits=num_splits, **kw)
    torch.cuda.synchronize()
    # An fp8 cache's values are exact in float32.
    k, v = (x.float() if x.element_size() == 1 else x for x in (inp["k"], inp["v"]))
    ref, ref_lse = unified_ref(q, k, v, inp["bt"], inp["cu"], inp["lens"],
                               scale, causal, **ref_kw)
    err = rel_err(out, ref)
    tol = 2e-3 if q.dtype == torch.float16 else 1.6e-2
    ok = err < tol and not torch.isnan(out).any().item()
    lse_err = 0.0
    if lse_on:
        lse = res[1]
        fin = torch.isfinite(ref_lse)
        same_inf = bool((torch.isinf(lse) == torch.isinf(ref_lse)).all())
        lse_err = ((lse.double() - ref_lse)[fin].abs().max().item()
                   if fin.any() else 0.0)
        ok &= same_inf and lse_err < 2e-2
    line = (f"rel err {err:.1e} (tol {tol:.0e})"
            + (f", lse max abs err {lse_err:.1e}" if lse_on else ""))
    return ok, line


def main(argv=None):
    p = parser("unified_check", __doc__)
    p.add_argument("--quick", action="store_true",
                   help="the feature grid on one batch kind per dtype only")
    args = p.parse_args(argv)
    torch = require_torch()
    import quire

    print_header("unified_check")
    rnd = random.Random()
    # (batch kind, dtype, fp8 cache format or None, shape, feature, causal,
    # splits)
    todo = []
    for kind in BATCHES:
        for dtype in ("float16", "bfloat16"):
            if args.quick and kind != ("mixed" if dtype == "float16" else "decode"):
                continue
            for feat in FEATURES:
                todo.append((kind, dtype, None, (128, 16, 32, 8), feat, True, None))
        for kv in FP8:
            if args.quick and kind != "mixed":
                continue
            for feat in FEATURES:
                todo.append((kind, rnd.choice(["float16", "bfloat16"]), kv,
                             (128, 16, 32, 8), feat, True, None))
    if not args.quick:
        for shape in SHAPES:
            for feat in ("none", FEATURES[-2]):
                todo.append(("mixed", rnd.choice(["float16", "bfloat16"]), None, shape,
                             feat, True, None))
                todo.append(("mixed", rnd.choice(["float16", "bfloat16"]),
                             rnd.choice(FP8), shape, feat, True, None))
        for kind in ("prefill", "mixed"):
            for feat in ("none", "window128+alibi+sinks+lse"):
                todo.append((kind, "float16", None, (128, 16, 32, 8), feat, False,
                             None))
        for ns in (1, 3, 32):
            for kind in ("decode", "mixed"):
                todo.append((kind, "bfloat16", None, (128, 16, 32, 8), FEATURES[-2],
                             True, ns))
                todo.append((kind, "float16", "e4m3fn", (128, 16, 32, 8),
                             FEATURES[-2], True, ns))
    fails = 0
    for kind, dtype, kv, (d, page, hq, hkv), feat, causal, ns in todo:
        seed = rnd.randrange(2 ** 31)
        gen = torch.Generator(device="cuda").manual_seed(seed)
        ctx, qlens = BATCHES[kind]
        inp = make(torch, gen, ctx, qlens, page, hq, hkv, d, getattr(torch, dtype),
                   kv)
        try:
            ok, line = check(torch, quire, inp, feat, causal, ns, seed)
        except Exception as e:  # report and go on
            ok, line = False, f"{type(e).__name__}: {e}"
        fails += not ok
        plan = quire.ops.unified_plan(inp["q"].shape[0], len(ctx), inp["max_q"])
        cache = f"/{kv:6s}" if kv else " " * 7
        print(f"{'ok  ' if ok else 'FAIL'} {kind:13s} ({plan}) {SHORT[dtype]:4s}{cache} "
              f"D {d:3d} "
              f"page {page:3d} heads {hq}/{hkv} {feat}{'' if causal else ' non-causal'}"
              f"{'' if ns is None else f' splits {ns}'} seed {seed}: {line}", flush=True)
    print(f"{len(todo) - fails}/{len(todo)} cases pass")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
