"""The prefill op's kernel with SM-clock timestamps at its synchronization points: where each warpgroup's iteration spends its cycles.

Nsight Compute counts where warps stall, summed over the kernel; it does
not say how long one warpgroup's iteration takes from its turn to its
scores, to its softmax's end, to its next turn, or how long the other
warpgroup waits meanwhile. This target compiles the op's kernel for one
row and column as the op does, adds a store of the SM's cycle counter
after each synchronization point of the kinds asked (lib/timeline.PROBES:
mbarrier waits, the warpgroups' turns, wgmma waits, the producer's
acquires and fills) by the first thread of each warpgroup of the first
CTAs, assembles it with quire's ptxas (else the driver's JIT loads the
PTX) and launches it on the op's arguments. It checks the output against
the op's, prints both kernels' registers, spills and times, then per
warpgroup role its iteration (the probe passed most often and the cycles
between passes) and the intervals between consecutive probes that take
the most cycles: count, median cycles and share. Each probe is named by
its kind and its line in the instrumented PTX (--out writes the PTX and
every record).

    bench/run.py prefill_timeline [--row 8] [--column "cache kv"]
        [--probes ready,turn,...] [--ctas 264] [--records 4096] [--out DIR]

The probes cost a few instructions each and three registers, and a clock
read orders ptxas's schedule around it: the cycles are the instrumented
kernel's, whose time beside the op's says how far they moved it.
"""

import json
import math
import os

from lib import timeline
from lib.env import parser, print_header, require_torch
from perf.prefill_ab import column_names, row_numbers

TOLERANCE = 2e-3  # the instrumented output against the op's (fp16)


def capture_launch(run):
    """(kernel, grid, values, device) of the one kernel launch `run()`
    makes through Kernel._launch_trusted (the op's launch path)."""
    from quire import _kernel
    seen = []
    original = _kernel.Kernel._launch_trusted

    def spy(self, grid, values, device):
        seen.append((self, grid, list(values), device))
        return original(self, grid, values, device)

    _kernel.Kernel._launch_trusted = spy
    try:
        run()
    finally:
        _kernel.Kernel._launch_trusted = original
    if len(seen) != 1:
        raise RuntimeError(f"expected the op to launch one kernel, it "
                           f"launched {len(seen)}")
    return seen[0]


def instrumented(kernel, ptx):
    """(a Kernel of `ptx`, the instrumented PTX, taking kernel's arguments
    and the records' buffer; ptxas's statistics of it, or None). Assembled
    by the ptxas that quire uses where there is one (as the op's own
    cubin), else loaded from PTX by the driver's JIT."""
    from quire import _kernel, _ptxas
    meta = dict(kernel.metadata)
    meta["args"] = list(kernel.args) + [
        {"kind": "ptr", "type": "u32", "bits": 64, "divisibility": 8}]
    cubin, stats, found = None, None, _ptxas.find()
    if found is not None:
        cubin, stats = _ptxas.assemble(ptx, found[0])
        stats = stats.get(kernel.name)
    probe = _kernel.Kernel(kernel.source, kernel.source_name, kernel.sm,
                           kernel.num_warps, ptx, meta, cubin=cubin,
                           options=kernel.options)
    return probe, stats


def main(argv=None):
    p = parser("prefill_timeline", __doc__)
    p.add_argument("--row", default="8", help="paged_prefill's row number "
                   "(1-based; default 8, 2 x ctx 16384 + 2048)")
    p.add_argument("--column", default="cache kv", help="default or one of "
                   "lib/prefill.ABLATION's names (default: cache kv)")
    p.add_argument("--probes", default=",".join(timeline.DEFAULT_KINDS),
                   help="comma-separated probe kinds: "
                   + ", ".join(timeline.PROBES))
    p.add_argument("--ctas", type=int, default=264,
                   help="CTAs that record (the first in launch order)")
    p.add_argument("--records", type=int, default=4096,
                   help="records per warpgroup")
    p.add_argument("--out", help="folder for the instrumented PTX and the "
                   "records (JSON)")
    args = p.parse_args(argv)
    if "," in args.row:
        p.error("--row: one row")
    number = row_numbers(args.row, p)[0]
    column = column_names(args.column, p, "--column")[0]
    try:
        kinds = timeline.check_kinds(args.probes.split(","))
    except ValueError as e:
        p.error(f"--probes: {e}")
    if args.ctas < 1 or args.records < 4:
        p.error("--ctas must be >= 1 and --records >= 4")
    torch = require_torch()
    from lib import prefill as pf
    from perf.paged_prefill import ROWS, row_lengths
    print_header("prefill_timeline")
    label, page, ctx, ql = row_lengths(torch, ROWS[number - 1])
    gen = torch.Generator(device="cuda").manual_seed(3)
    inp = pf.make_inputs(ctx, ql, page, gen)
    scale = 1 / math.sqrt(pf.D)
    cfg, options = pf.forms()[column]
    out = torch.full_like(inp["q"], float("nan"))
    kernel, grid, values, device = capture_launch(
        lambda: pf.run_quire(inp, scale, out, cfg, **options))
    warpgroups = max(1, kernel.threads // 128)
    ptx, tags = timeline.instrument(kernel.ptx, kinds, args.ctas,
                                    args.records, warpgroups)
    probe, stats = instrumented(kernel, ptx)
    words = args.ctas * warpgroups * args.records * 2
    buf = torch.zeros(words, dtype=torch.int32, device="cuda")
    mine = torch.full_like(out, float("nan"))
    values = list(values)
    if values.count(out.data_ptr()) != 1:
        raise RuntimeError("the op's launch does not pass the output's "
                           "pointer once")
    values[values.index(out.data_ptr())] = mine.data_ptr()
    for _ in range(2):  # the first launch loads the module
        buf.zero_()
        probe._launch_trusted(grid, values + [buf.data_ptr()], device)
    torch.cuda.synchronize()
    diff = (mine.float() - out.float()).abs().nan_to_num(float("inf")).max()
    print(f"row {number} ({label}), column {column!r}: kernel "
          f"{kernel.name}, grid {grid}, {kernel.threads} threads, "
          f"{len(tags)} probes; instrumented output vs the op's: max abs "
          f"difference {diff.item():.3g}")
    from lib.timing import us
    plain = us(lambda: kernel._launch_trusted(grid, values, device),
               warmup=3, rep=10)
    timed = us(lambda: probe._launch_trusted(
        grid, values + [buf.data_ptr()], device), warmup=3, rep=10)
    print(f"time: the op's kernel {plain:.1f} us, instrumented {timed:.1f} "
          f"us ({timed / plain:.3f}x)")
    own = {k: kernel.metadata.get(k) for k in ("registers", "spill_stores")}
    print(f"ptxas: the op's kernel {own}, instrumented "
          f"{stats if stats is not None else '(no ptxas: driver JIT)'}")
    recs = timeline.records(buf.cpu().numpy().view("uint32").tolist(),
                            args.ctas, warpgroups, args.records)
    print(f"{len(recs)} warpgroups recorded; probes (tag kind PTX-line): "
          + ", ".join(f"{t} {k} {ln}" for t, k, ln in tags))
    print(timeline.table(recs, tags))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "prefill_timeline.ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(args.out, "prefill_timeline.json"), "w") as f:
            json.dump({"row": label, "column": column, "tags": tags,
                       "records": {f"{c},{w}": v for (c, w), v in
                                   recs.items()}}, f)
    # (The driver's JIT may contract other multiply-adds than ptxas did.)
    return 0 if diff.item() <= TOLERANCE else 1
