"""The prefill op's cost per program against its cost per tile-step: the rate over the context's length at a fixed grid.

Rows: SEQS sequences, each a chunk of CHUNK tokens over a context of each of
--ctx tokens (Llama-3-8B heads, 32 q / 8 kv, head dim 128, f16, page
--page), the chunk's K/V in the cache (vLLM's case, the op's cache form).
Every row launches the same programs (SEQS x 32 heads x CHUNK / 128 query
blocks); what grows is the tile-steps (128 keys) each program runs. The op
is checked against float64 on the first row first (NaN in the caches past
each sequence's tokens, a NaN-poisoned output), then each row is timed with
torch SDPA (flash, lower-right causal) on the same K/V stored contiguously.
A least-squares fit of the op's times, time = (programs / SMs) x (a x steps
+ b), gives a, the time of a tile-step, and b, the fixed cost of a program
(its prologue, masked tile and epilogue), printed in tile-steps: what a
persistent schedule could hide. A step costs more as the contexts outgrow
the L2 cache, which the fit over every row would take for a smaller fixed
cost: each row also prints the marginal time of a step from the row before,
and the fit runs over the first three rows as well. Writes
prefill_programs.png (TFLOP/s per row, causal part counted half).

    bench/run.py prefill_programs [--ctx 0,512,1024,2048,4096,8192]
        [--seqs 8] [--chunk 512] [--page 16] [--out DIR]
"""

import math
import sys

from lib.env import parser, print_header, require_torch

BLOCK = 128


def _ints(text, name, p, least):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        p.error(f"{name}: expected numbers like 0,1024, got {text!r}")
    bad = [v for v in values if v < least or v % BLOCK]
    if bad:
        p.error(f"{name}: {bad[0]} is not a multiple of {BLOCK} of at least "
                f"{least}")
    return values


def fit(rows, sms):
    """(a, b) of time = (programs / sms) x (a x steps + b) by least squares
    over rows [(programs, steps, us)]."""
    xs = [(p / sms * n, p / sms) for p, n, _ in rows]
    sxx = sum(x * x for x, _ in xs)
    sxy = sum(x * y for x, y in xs)
    syy = sum(y * y for _, y in xs)
    sxt = sum(x * t for (x, _), (_, _, t) in zip(xs, rows))
    syt = sum(y * t for (_, y), (_, _, t) in zip(xs, rows))
    det = sxx * syy - sxy * sxy
    if det == 0:
        return float("nan"), float("nan")
    return (sxt * syy - syt * sxy) / det, (syt * sxx - sxt * sxy) / det


def main(argv=None):
    p = parser("prefill_programs", __doc__)
    p.add_argument("--ctx", default="0,512,1024,2048,4096,8192",
                   help="comma-separated context lengths (multiples of 128)")
    p.add_argument("--seqs", type=int, default=8, help="sequences a row")
    p.add_argument("--chunk", default="512",
                   help="chunk tokens a sequence (a multiple of 128)")
    p.add_argument("--page", type=int, default=16, help="tokens a page")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    contexts = _ints(args.ctx, "--ctx", p, 0)
    chunks = _ints(args.chunk, "--chunk", p, BLOCK)
    if len(chunks) != 1:
        p.error(f"--chunk: one length, got {args.chunk!r}")
    chunk = chunks[0]
    if args.seqs < 1:
        p.error(f"--seqs: at least 1, got {args.seqs}")
    if args.page < 1 or args.page & (args.page - 1):
        p.error(f"--page: a power of two, got {args.page}")
    torch = require_torch()
    from quire import ops
    from lib import prefill
    from lib.plot import bars
    from lib.timing import us
    from perf.paged_prefill import sdpa_us

    print_header("prefill_programs")
    gen = torch.Generator(device="cuda").manual_seed(13)
    scale = 1.0 / math.sqrt(prefill.D)
    seqs, blocks = args.seqs, chunk // BLOCK
    programs = seqs * prefill.HQ * blocks
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # (The steps count 128 keys: the op's tiles on sm_90, 128 x 128.)
    major, minor = torch.cuda.get_device_capability()
    tiles = ops.prefill_config(prefill.D, 10 * major + minor)
    if tuple(tiles[:2]) != (BLOCK, BLOCK):
        print(f"prefill_programs: the op's tiles here are {tiles[:2]}, not "
              f"{BLOCK} x {BLOCK} (sm_90's), which the step count assumes",
              file=sys.stderr)
        return 1

    inp = prefill.make_inputs([contexts[0]] * seqs, [chunk] * seqs, args.page,
                              gen, poison=True)
    out = torch.full_like(inp["q"], float("nan"))
    prefill.run_quire(inp, scale, out, separate=False)
    ref = prefill.reference(inp, scale)
    err = ((out.double() - ref).norm() / ref.norm()).item()
    ok = err < 2e-3
    print(f"{'PASS' if ok else 'FAIL'} ctx {contexts[0]} x {seqs} + {chunk}, "
          f"page {args.page}: rel err {err:.2e}")
    if not ok:
        return 1

    print(f"{programs} programs on {sms} SMs a row")
    print(f"{'ctx':>6} {'steps/program':>13} {'quire us':>9} {'TFLOP/s':>8} "
          f"{'us/step':>8} {'sdpa us':>8} {'TFLOP/s':>8} {'x sdpa':>7}")
    timed, labels, rq, rs = [], [], [], []
    for c in contexts:
        inp = prefill.make_inputs([c] * seqs, [chunk] * seqs, args.page, gen)
        out = torch.empty_like(inp["q"])
        tq = us(lambda: prefill.run_quire(inp, scale, out, separate=False))
        ts = sdpa_us(torch, [c] * seqs, [chunk] * seqs, gen, prefill.D,
                     prefill.HQ)
        flops = prefill.flops([c] * seqs, [chunk] * seqs)
        # Block i of a chunk reads the context and the chunk's first i + 1
        # blocks.
        steps = c / BLOCK + (blocks + 1) / 2
        # (The marginal time of a step per program from the row before.)
        step_us = float("nan")
        if timed and steps > timed[-1][1]:
            step_us = (tq - timed[-1][2]) / (programs / sms) / \
                (steps - timed[-1][1])
        timed.append((programs, steps, tq))
        labels.append(f"ctx {c}")
        rq.append(flops / tq / 1e6)
        rs.append(flops / ts / 1e6)
        print(f"{c:>6} {steps:>13.1f} {tq:>9.1f} {rq[-1]:>8.1f} "
              f"{step_us:>8.3f} {ts:>8.1f} {rs[-1]:>8.1f} {ts / tq:>7.2f}",
              flush=True)
    for name, rows in (("every row", timed), ("first three rows", timed[:3])):
        if len(rows) < 2:
            continue
        a, b = fit(rows, sms)
        print(f"fit over {name}: {a:.3f} us a tile-step, {b:.3f} us a "
              f"program ({b / a:.1f} tile-steps)" if a > 0 else
              f"fit over {name}: a = {a:.3f}, b = {b:.3f} us (no positive "
              "tile-step time)")
    bars("prefill_programs.png",
         f"prefill, {seqs} x (ctx + {chunk}), page {args.page}: TFLOP/s at "
         f"{programs} programs", "TFLOP/s", labels,
         [("Quire (cache form)", rq), ("SDPA contiguous", rs)], out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
