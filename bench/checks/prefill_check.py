"""quire.ops.paged_prefill_attention on the GPU against float64.

Ragged batches (empty contexts, one-token chunks, tiles crossing pages),
pages 16, 32 and 128, f16 and bf16, head dims 64, 80 (padded), 128 and 256,
GQA groups 1..4 and MHA, the chunk's K/V from separate tensors and from the
cache, NaN-poisoned outputs and cache slots past each sequence's tokens;
at head dim 128 every tile configuration the benchmark times (wgmma and
mma.sync), and the Triton peer on the f16 cases.
Exits non-zero on any failure.

    bench/run.py prefill_check
"""

import math
import sys

from lib.env import parser, print_header, require_torch

CASES = [  # page, contexts, chunks, q heads, kv heads, dtype, head dim
    (16, [0, 1, 17, 40, 100], [1, 5, 64, 65, 130], 8, 2, "half", 128),
    (16, [300, 0, 1000], [200, 3, 77], 32, 8, "half", 128),
    (128, [0, 129, 500, 1000], [64, 1, 100, 257], 32, 8, "half", 128),
    (128, [255, 256, 257], [63, 64, 65], 4, 4, "half", 128),
    (16, [70, 0, 300], [129, 40, 1], 8, 2, "bfloat16", 128),
    (32, [33, 200], [70, 17], 4, 1, "half", 64),
    (16, [100, 0], [80, 33], 4, 2, "bfloat16", 256),
    (16, [50, 7], [90, 3], 6, 2, "half", 80),
]


def check(torch, gen, forms=None):
    """Runs every case; True when all pass. `forms`: the (tile config,
    launch options) pairs to check at head dim 128 (default: the op's
    default, every tile configuration and every ablation column); the
    other head dims check the default."""
    from lib import prefill
    from lib.reference import rel_err
    ok = True
    for page, ctx, ql, hq, hkv, dtype, d in CASES:
        dtype = getattr(torch, dtype)
        inp = prefill.make_inputs(ctx, ql, page, gen, hq, hkv, dtype, d,
                                  poison=True)
        scale = 1.0 / math.sqrt(d)
        ref = prefill.reference(inp, scale)
        worst = 0.0
        if d != prefill.D:
            cfgs = [(prefill.DEFAULT, {})]
        elif forms is not None:
            cfgs = list(forms)
        else:
            cfgs = [(prefill.DEFAULT, {})] + \
                [(c, {}) for c in prefill.configs(torch)] + \
                [(c, o) for _, c, o in prefill.ABLATION]
        # (A grid round of K KV heads needs a case whose KV heads K
        # divides.)
        cfgs = [(c, o) for c, o in cfgs
                if hkv % o.get("kv_heads_together", 1) == 0]
        case = (f"page {page} ctx {ctx} chunks {ql} heads {hq}/{hkv} "
                f"{str(dtype)[6:]} d {d}")
        if not cfgs:
            print(f"SKIP {case}: no form runs on {hkv} KV heads", flush=True)
            continue
        for cfg, options in cfgs:
            options = dict(options)
            kv = options.pop("separate", None)
            for separate in (True, False) if kv is None else (kv,):
                out = torch.full_like(inp["q"], float("nan"))
                prefill.run_quire(inp, scale, out, cfg, separate, **options)
                torch.cuda.synchronize()
                e = rel_err(out, ref)
                worst = max(worst, e) if e == e else float("nan")
        tol = 2e-3 if dtype == torch.half else 1e-2
        good = worst < tol
        ok &= good
        peer = ""
        if d == prefill.D and dtype == torch.half:
            out_t = torch.full_like(inp["q"], float("nan"))
            prefill.run_triton(inp, scale, out_t)
            torch.cuda.synchronize()
            peer = f", triton {rel_err(out_t, ref):.2e}"
        print(f"{'PASS' if good else 'FAIL'} {case}: quire rel err {worst:.2e} "
              f"({len(cfgs)} configs x k/v separate and in the cache){peer}", flush=True)
    return ok


def main(argv=None):
    parser("prefill_check", __doc__).parse_args(argv)
    torch = require_torch()
    print_header("prefill_check")
    return 0 if check(torch, torch.Generator(device="cuda").manual_seed(11)) else 1


if __name__ == "__main__":
    sys.exit(main())
