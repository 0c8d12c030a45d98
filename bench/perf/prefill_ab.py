"""The prefill op timed from two builds of Quire in one call: what a compiler change is worth on the paged_prefill rows.

Each build is a folder holding an installed `quire` package (`python3 -m pip
install --no-deps --target DIR quire-*.whl`; the GPU machine's
tools/scripts/device-unpack.sh installs the carried wheel into
.device/site). The builds run in turn, each in a process of its own
(QUIRE_PYTHONPATH=DIR, this target with --worker), in the order --order
gives (default aba: the first build again last, so a drift of the
machine's clock shows as a difference between its two runs). Every
process first checks each column against float64 (checks/prefill_check's
cases with those columns at head dim 128), then times each row and column
as the minimum of two do_bench medians. Columns: the op's default and any of lib/prefill.ABLATION's.
Prints each run's table and, per row and column, the mean of B's runs
against the mean of A's. With --clocks, nvidia-smi samples the SM clock,
the board's power and the throttle reasons every 100 ms while each run
times (perf/prefill_clocks.Sampler): each run's table says their range, a
second table gives each timing's TFLOP/s per GHz of the clock in its window,
and the end the same ratios per GHz (a build that is faster per clock but
draws more power can still measure slower under the board's power limit:
the first ratios are what it is worth, the second why). Exits 1 if a check
failed.

    bench/run.py prefill_ab --a DIR [--b DIR] [--rows 1,4,9]
        [--columns "default,s3,ws overlap"] [--order aba] [--clocks]
"""

import argparse
import datetime
import json
import math
import os
import shutil
import subprocess
import sys

from lib.env import BENCH, parser, print_header, require_torch
from perf.prefill_clocks import Sampler, per_ghz, window


def row_numbers(spec, p):
    """paged_prefill's row numbers in `spec` (1-based; all when empty),
    else a parser error."""
    from perf.paged_prefill import ROWS
    if not spec:
        return list(range(1, len(ROWS) + 1))
    try:
        picked = [int(x) for x in spec.split(",")]
    except ValueError:
        p.error(f"--rows: expected numbers like 1,3, got {spec!r}")
    bad = [i for i in picked if not 1 <= i <= len(ROWS)]
    if bad:
        p.error(f"--rows: row {bad[0]} is not in 1..{len(ROWS)}")
    return picked


def column_names(spec, p, option="--columns"):
    """The column names in `spec` (default and lib/prefill.ABLATION's;
    default when empty), else a parser error naming `option`."""
    # lib/prefill imports torch: the names are read from its source here so
    # that argument errors need no GPU.
    import ast
    path = os.path.join(BENCH, "lib", "prefill.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    known = ["default"]
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "ABLATION" for t in node.targets):
            known += [e.elts[0].value for e in node.value.elts]
    names = [n.strip() for n in spec.split(",")] if spec else ["default"]
    bad = [n for n in names if n not in known]
    if bad:
        p.error(f"{option}: {bad[0]!r} is not one of {', '.join(known)}")
    return names


def check_builds(builds, p):
    """A parser error unless each of `builds` ({side: folder}) holds an
    installed quire package."""
    for side, path in builds.items():
        if not os.path.isdir(os.path.join(path, "quire")):
            p.error(f"--{side}: no quire package in {path}")


def build_env(path):
    """The environment of a process that imports the build in `path`."""
    return dict(os.environ, QUIRE_PYTHONPATH=path, PYTHONPATH=path)


def worker(rows, columns):
    """One build's checks (prefill_check's lines) and times (one JSON object
    a row) on stdout."""
    torch = require_torch()
    from checks.prefill_check import check
    from lib import prefill
    from lib.timing import us
    from perf.paged_prefill import ROWS, row_lengths
    forms = prefill.forms()
    gen = torch.Generator(device="cuda").manual_seed(7)
    ok = check(torch, gen, [forms[n] for n in columns])
    print(json.dumps({"failed": not ok}), flush=True)
    scale = 1 / math.sqrt(prefill.D)
    for i in rows:
        label, page, ctx, ql = row_lengths(torch, ROWS[i - 1])
        inp = prefill.make_inputs(ctx, ql, page, gen)
        out = torch.empty_like(inp["q"])
        fl = prefill.flops(ctx, ql)
        tflops, windows = {}, {}
        for name in columns:
            cfg, options = forms[name]
            start = datetime.datetime.now()
            t = min(us(lambda: prefill.run_quire(inp, scale, out, cfg,
                                                 **options), rep=150)
                    for _ in range(2))
            windows[name] = [start.isoformat(),
                             datetime.datetime.now().isoformat()]
            tflops[name] = fl / t / 1e6
        print(json.dumps({"row": label, "tflops": tflops,
                          "windows": windows}), flush=True)
    return 0 if ok else 1


class Clocks:
    """prefill_clocks.Sampler over one run: stop() returns a line summing up
    the SM clock (MHz) and power (W) over the samples drawing more than BUSY
    watts (the idle ones before the first launch and after the last left
    out); per_ghz() then gives a row's TFLOP/s per GHz at the clock of each
    column's timing window."""

    BUSY = 150

    def start(self):
        self.sampler = Sampler().start()

    def stop(self):
        self.samples, _ = self.sampler.stop()
        busy = [x for x in self.samples if x[2] > self.BUSY] or self.samples
        if not busy:
            return "clocks: no nvidia-smi samples"
        mhz = sorted(x[1] for x in busy)
        return (f"clocks: SM {mhz[0]:.0f}-{mhz[-1]:.0f} MHz (median "
                f"{mhz[len(mhz) // 2]:.0f}), at most "
                f"{max(x[2] for x in busy):.0f} W, {len(busy)} samples over "
                f"{self.BUSY} W of {len(self.samples)}")

    def per_ghz(self, tflops, windows):
        """{column: TFLOP/s per GHz} of one row's worker output."""
        out = {}
        for name, t in tflops.items():
            start, end = (datetime.datetime.fromisoformat(x)
                          for x in windows[name])
            out[name] = per_ghz(t, window(self.samples, start, end))
        return out


def _table(prefix, what, columns, rows):
    print(f"\n{prefix}{what} | row | " + " | ".join(columns) + " |")
    for row, t in rows.items():
        print(f"{prefix}| {row} | " + " | ".join(f"{t[c]:.1f}" for c in columns)
              + " |")


def ratios(what, columns, runs):
    """Prints, per row and column, the mean of b's runs over the mean of
    a's; `runs`: [(side, {row: {column: value}})], nan values (a timing
    without a clock sample) left out of a mean."""
    def mean(side, row, c):
        got = [r[row][c] for x, r in runs
               if x == side and r[row][c] == r[row][c]]
        return sum(got) / len(got) if got else math.nan
    print(f"\n{what} | row | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for row in runs[0][1]:
        print(f"| {row} | " + " | ".join(
            f"{mean('b', row, c) / mean('a', row, c):.3f}"
            for c in columns) + " |")


def main(argv=None):
    p = parser("prefill_ab", __doc__)
    p.add_argument("--a", help="folder with the first build's installed quire")
    p.add_argument("--b", help="folder with the second build's installed quire "
                   "(default: $QUIRE_PYTHONPATH, else the source tree's)")
    p.add_argument("--rows", help="paged_prefill's row numbers (1-based; "
                   "default all)")
    p.add_argument("--columns", help="comma-separated: default and "
                   "lib/prefill.ABLATION's names (default: default)")
    p.add_argument("--order", default="aba", help="runs in turn, a and b "
                   "(default aba)")
    p.add_argument("--clocks", action="store_true", help="sample the SM "
                   "clock and power with nvidia-smi during each run")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    rows = row_numbers(args.rows, p)
    columns = column_names(args.columns, p)
    if args.worker:
        return worker(rows, columns)
    if not args.a:
        p.error("--a: the first build's folder is needed")
    if not args.order or set(args.order) - {"a", "b"}:
        p.error(f"--order: a sequence of a and b, got {args.order!r}")
    b_path = args.b or os.environ.get("QUIRE_PYTHONPATH") or \
        os.path.join(os.path.dirname(BENCH), "python")
    builds = {"a": os.path.abspath(args.a), "b": os.path.abspath(b_path)}
    check_builds(builds, p)
    if args.clocks and shutil.which("nvidia-smi") is None:
        p.error("--clocks: nvidia-smi is not on PATH")
    require_torch()
    print_header("prefill_ab")
    for side, path in builds.items():
        print(f"{side}: {path}")
    runs, failed = [], False
    for k, side in enumerate(args.order):
        env = build_env(builds[side])
        cmd = [sys.executable, os.path.join(BENCH, "run.py"), "prefill_ab",
               "--worker", "--rows", ",".join(map(str, rows)),
               "--columns", ",".join(columns)]
        clocks = Clocks() if args.clocks else None
        if clocks:
            clocks.start()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        clock_line = clocks.stop() if clocks else None
        results, per_ghz = {}, {}
        for line in proc.stdout.splitlines():
            if line.startswith("FAIL"):
                print(f"[{side}{k}] {line}")
            elif line.startswith("{"):
                item = json.loads(line)
                if "failed" in item:
                    failed |= item["failed"]
                else:
                    results[item["row"]] = item["tflops"]
                    if clocks:
                        per_ghz[item["row"]] = clocks.per_ghz(
                            item["tflops"], item["windows"])
        if proc.returncode not in (0, 1) or not results:
            print(f"[{side}{k}] the run failed (exit {proc.returncode}):\n"
                  + proc.stderr[-2000:])
            return 1
        runs.append((side, results, per_ghz))
        _table(f"[{side}{k}] ", "TFLOP/s", columns, results)
        if clocks:
            print(f"[{side}{k}] {clock_line}")
            _table(f"[{side}{k}] ", "TFLOP/s per GHz (each timing's clock)",
                   columns, per_ghz)
    if {"a", "b"} <= set(args.order):
        ratios("mean(b) / mean(a)", columns, [(x, r) for x, r, _ in runs])
        if args.clocks:
            ratios("per GHz: mean(b) / mean(a)", columns,
                   [(x, g) for x, _, g in runs])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
