"""Paged prefill (prefix / chunked prefill): Quire vs Triton vs SDPA.

quire.ops.paged_prefill_attention against a Triton kernel written as vLLM's
prefix_prefill is (best of 12 configurations per row) and torch SDPA
(flash, lower-right causal) on the same K/V stored contiguously, for
Llama-3-8B heads (32 q / 8 kv, head dim 128, f16). Runs prefill_check
first. Prints median time and TFLOP/s (causal-adjusted: the chunk's part
counts half) per row, then Quire's TFLOP/s with each step of the ablation
of lib/prefill.ABLATION (the scale not folded into the exponent, gathered
rows, a third stage, without the producer warps or with one per consumer
warp, the consumer warpgroups' dots in turn, 64 keys a step, the two
warpgroups in ping-pong, early dots), writes paged_prefill.png into the
output folder.

    bench/run.py paged_prefill [--tune] [--rows 1,3] [--no-peers]
        [--ablation s3,pingpong] [--out DIR]

--rows times only those rows (1-based, in table order); --no-peers skips the
Triton peer's tuning and SDPA (their columns print as nan), and --ablation
times only the named columns, for a quick ablation.
"""

import math
import sys

from lib.env import parser, print_header, require_torch

ROWS = [  # label, page, contexts, chunks (None: ragged, drawn from a seed)
    ("8 x ctx 1024 + 512", 16, [1024] * 8, [512] * 8),
    ("4 x ctx 4096 + 512", 16, [4096] * 4, [512] * 4),
    ("2 x ctx 8192 + 1024", 16, [8192] * 2, [1024] * 2),
    ("1 x ctx 16384 + 2048", 16, [16384], [2048]),
    ("16 x ctx 2048 + 128", 16, [2048] * 16, [128] * 16),
    ("ragged 8, ctx<=8192, +<=1024", 16, None, None),
    ("page 128: 4 x ctx 4096 + 512", 128, [4096] * 4, [512] * 4),
    ("2 x ctx 16384 + 2048", 16, [16384] * 2, [2048] * 2),
    ("1 x ctx 8192 + 8192", 16, [8192], [8192]),
]


def row_lengths(torch, row):
    """A row's (label, page, contexts, chunks), the ragged row's lengths
    drawn from its fixed seed."""
    label, page, ctx, ql = row
    if ctx is None:
        g = torch.Generator().manual_seed(5)
        ctx = torch.randint(0, 8193, (8,), generator=g).tolist()
        ql = torch.randint(1, 1025, (8,), generator=g).tolist()
    return label, page, ctx, ql


def sdpa_us(torch, ctx, ql, gen, d, hq):
    """SDPA with lower-right causal masking on the same amount of K/V stored
    contiguously, one call per distinct (context, chunk) shape, summed."""
    import torch.nn.functional as F
    from torch.nn.attention.bias import causal_lower_right
    from lib.timing import us
    total = 0.0
    shapes = {}
    for c, n in zip(ctx, ql):
        shapes[(c, n)] = shapes.get((c, n), 0) + 1
    for (c, n), b in shapes.items():
        q = torch.randn(b, hq, n, d, device="cuda", generator=gen).half()
        k = torch.randn(b, hq, c + n, d, device="cuda", generator=gen).half()
        v = torch.randn(b, hq, c + n, d, device="cuda", generator=gen).half()
        mask = causal_lower_right(n, c + n)
        total += us(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    return total


def main(argv=None):
    p = parser("paged_prefill", __doc__)
    p.add_argument("--tune", action="store_true",
                   help="also time every tile configuration of lib/prefill.CONFIGS")
    p.add_argument("--rows", help="comma-separated row numbers (1-based) to time")
    p.add_argument("--no-peers", action="store_true",
                   help="time Quire and its ablation only")
    p.add_argument("--ablation", help="comma-separated ablation columns to time "
                   "(lib/prefill.ABLATION's names; default all)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="time Quire's forms (the default and the ablation's "
                   "columns) N times in turn and report each one's fastest: "
                   "a difference of a few percent between two forms in one "
                   "pass can be the machine's (default 1)")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error(f"--repeat: must be >= 1, got {args.repeat}")
    rows = ROWS
    if args.rows:
        try:
            picked = [int(x) for x in args.rows.split(",")]
        except ValueError:
            p.error(f"--rows: expected numbers like 1,3, got {args.rows!r}")
        bad = [i for i in picked if not 1 <= i <= len(ROWS)]
        if bad:
            p.error(f"--rows: row {bad[0]} is not in 1..{len(ROWS)}")
        rows = [ROWS[i - 1] for i in picked]
    torch = require_torch()
    from quire import ops
    from checks.prefill_check import check
    from lib import prefill
    ablation_cols = prefill.ABLATION
    if args.ablation:
        names = [n.strip() for n in args.ablation.split(",")]
        known = [n for n, _, _ in prefill.ABLATION]
        bad = [n for n in names if n not in known]
        if bad:
            p.error(f"--ablation: {bad[0]!r} is not one of {', '.join(known)}")
        ablation_cols = [a for a in prefill.ABLATION if a[0] in names]
    from lib.plot import bars
    from lib.timing import us

    print_header("paged_prefill")
    major, minor = torch.cuda.get_device_capability()
    print("default (block_m, block_n, warps) "
          f"{ops.prefill_config(prefill.D, 10 * major + minor)}")
    gen = torch.Generator(device="cuda").manual_seed(11)
    # What it times: the default, the ablation's columns, the tunes.
    forms = [(prefill.DEFAULT, {})] + [(c, o) for _, c, o in ablation_cols]
    if args.tune:
        forms += [(c, {}) for c in prefill.configs(torch)]
    ok = check(torch, gen, forms)
    scale = 1.0 / math.sqrt(prefill.D)
    hdr = (f"{'case':>30} {'quire us':>9} {'TFLOP/s':>8} {'triton us':>9} {'TFLOP/s':>8} "
           f"{'x triton':>8} {'sdpa us':>8} {'TFLOP/s':>8}"
           + "".join(f" {name:>9}" for name, _, _ in ablation_cols))
    if args.tune:
        hdr += "".join(f" {'%dx%dx%dw%s' % (*c[:3], '' if c[3] else '-mma'):>12}"
                       for c in prefill.configs(torch))
    print(hdr)
    table = []
    for row in rows:
        label, page, ctx, ql = row_lengths(torch, row)
        inp = prefill.make_inputs(ctx, ql, page, gen)
        out = torch.empty_like(inp["q"])
        timed = [lambda: prefill.run_quire(inp, scale, out)] + \
            [lambda c=c, o=o: prefill.run_quire(inp, scale, out, c, **o)
             for _, c, o in ablation_cols]
        times = [float("inf")] * len(timed)
        for _ in range(args.repeat):
            times = [min(t, us(fn)) for t, fn in zip(times, timed)]
        tq, ablation = times[0], times[1:]
        tunes = [us(lambda: prefill.run_quire(inp, scale, out, c))
                 for c in prefill.configs(torch)] if args.tune else []
        best = None
        for bn in (() if args.no_peers else (32, 64)):
            for nw in (4, 8):
                for st in (1, 2, 3):
                    try:
                        t = us(lambda: prefill.run_triton(inp, scale, out, block_n=bn,
                                                          num_warps=nw, num_stages=st))
                    except Exception:  # a config Triton cannot build
                        continue
                    if best is None or t < best[0]:
                        best = (t, bn, nw, st)
        if best is None:  # --no-peers (or no Triton configuration built)
            best = (float("nan"), None, None, None)
        ts = float("nan") if args.no_peers else \
            sdpa_us(torch, ctx, ql, gen, prefill.D, prefill.HQ)
        fl = prefill.flops(ctx, ql)
        tf = lambda t: fl / t / 1e6
        table.append((label, tf(tq), tf(best[0]), tf(ts)))
        print(f"{label:>30} {tq:>9.0f} {tf(tq):>8.1f} {best[0]:>9.0f} {tf(best[0]):>8.1f} "
              f"{best[0] / tq:>8.2f} {ts:>8.0f} {tf(ts):>8.1f}"
              + "".join(f" {tf(t):>9.1f}" for t in ablation)
              + "".join(f" {tf(t):>12.1f}" for t in tunes)
              + f"  (triton BN,warps,stages={best[1:]})", flush=True)
    bars("paged_prefill.png",
         f"Paged prefill, Llama-3-8B heads, f16, {torch.cuda.get_device_name()}",
         "TFLOP/s (causal-adjusted)", [r[0] for r in table],
         [("Quire", [r[1] for r in table]),
          ("Triton (prefix_prefill style)", [r[2] for r in table]),
          ("SDPA, contiguous KV", [r[3] for r in table])], out=args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
