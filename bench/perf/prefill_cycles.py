"""The prefill op's kernel at a fixed SM clock (Nsight Compute): its work per clock, from one or two builds of Quire.

On a long prefill row the board's power limit sets the SM clock
(perf/prefill_clocks), so TFLOP/s measures energy per FLOP as much as work
per clock, and a change of a few percent in either hides in the power
controller's spread. Nsight Compute fixes the clock (`--clock-control
base` by default) and counts the kernel's SM cycles. This target runs `ncu`
over `bench/run.py profile prefill` (which launches the op's kernel once
between cudaProfilerStart and cudaProfilerStop; only the kernels named
paged_prefill are profiled) for each build, row and column, and prints the
kernel's SM cycles, the clock its duration implies, TFLOP/s at that clock,
TFLOP/s per GHz (FLOPs over cycles: the work per clock at that fixed
clock; memory does not slow with the SM clock, so it can read higher than
at the power limit's clock) and the warp instructions executed; with two
builds, b's cycles and instructions over a's. It does not check results
(prefill_ab and prefill_clocks check the same forms against float64
first).

    bench/run.py prefill_cycles --a DIR [--b DIR] [--rows 8,9]
        [--columns "default,cache kv"] [--ncu PATH] [--clock-control none]

Builds are folders with an installed `quire` package, as prefill_ab's; a
row is one of paged_prefill's rows of one context and chunk length (the
ragged row has no `profile prefill --case` form).
"""

import os
import re
import shutil
import subprocess
import sys

from lib.env import BENCH, parser, print_header, require_torch
from lib.prefill_flops import flops
from perf.prefill_ab import build_env, check_builds, column_names, \
    row_numbers

METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.avg",
           "smsp__inst_executed.sum")
# The units ncu may print each metric in (base units with --print-units
# base), as multiples of the table's: microseconds, cycles, instructions.
UNITS = {METRICS[0]: {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0,
                      "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6,
                      "s": 1e6},
         METRICS[1]: {"cycle": 1.0},
         METRICS[2]: {"inst": 1.0}}
LINE = re.compile(r"^\s*(\S+)\s+(\S+)?\s+([0-9][0-9,]*(?:\.[0-9]+)?)\s*$")


def parse_metrics(text):
    """{metric: value} of METRICS in ncu's printout of one kernel: the
    duration in microseconds, cycles, instructions. A metric it does not
    print, or prints in a unit not in UNITS, is left out; one printed twice
    (a second kernel) raises ValueError."""
    found = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or m.group(1) not in METRICS:
            continue
        scale = UNITS[m.group(1)].get(m.group(2))
        if scale is None:
            continue
        if m.group(1) in found:
            raise ValueError(f"ncu printed {m.group(1)} twice: more than one "
                             "kernel was profiled")
        found[m.group(1)] = float(m.group(3).replace(",", "")) * scale
    return found


def row_case(number, p):
    """(label, page, seqs, ctx, chunk) of paged_prefill's row `number`,
    else a parser error (a row of several lengths)."""
    from perf.paged_prefill import ROWS
    label, page, ctx, chunks = ROWS[number - 1]
    if not ctx or len(set(ctx)) != 1 or len(set(chunks)) != 1:
        p.error(f"--rows: row {number} ({label}) has sequences of several "
                "lengths, which `profile prefill --case` cannot give")
    return label, page, len(ctx), ctx[0], chunks[0]


def find_ncu(given):
    """The ncu executable: `given`, else ncu on PATH, else the CUDA
    toolkit's; None if there is none."""
    if given:
        return shutil.which(given)
    return shutil.which("ncu") or shutil.which("/usr/local/cuda/bin/ncu")


def profile(ncu, clock_control, build, case, column):
    """(metrics, ncu's output) of one kernel launch of `build`."""
    label, page, seqs, ctx, chunk = case
    cmd = [ncu, "--clock-control", clock_control, "--profile-from-start",
           "off", "--kernel-name", "regex:paged_prefill", "--launch-count",
           "1", "--print-units", "base", "--metrics", ",".join(METRICS),
           sys.executable, os.path.join(BENCH, "run.py"),
           "profile", "prefill", "--case", f"{seqs},{ctx},{chunk}",
           "--page", str(page)]
    if column != "default":
        cmd += ["--ablation", column]
    proc = subprocess.run(cmd, env=build_env(build), capture_output=True,
                          text=True)
    text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        return {}, f"(ncu exited {proc.returncode})\n{text}"
    try:
        return parse_metrics(proc.stdout), text
    except ValueError as e:
        return {}, f"{e}\n{text}"


def main(argv=None):
    p = parser("prefill_cycles", __doc__)
    p.add_argument("--a", help="folder with the first build's installed quire")
    p.add_argument("--b", help="folder with a second build's installed quire")
    p.add_argument("--rows", default="8,9", help="paged_prefill's row "
                   "numbers (1-based; default 8,9, issue 20's bar rows)")
    p.add_argument("--columns", help="comma-separated: default and "
                   "lib/prefill.ABLATION's names (default: default)")
    p.add_argument("--ncu", help="the ncu executable (default: ncu on PATH, "
                   "else /usr/local/cuda/bin/ncu)")
    p.add_argument("--clock-control", default="base", choices=("base", "none"),
                   help="ncu's --clock-control (default base: the SM clock "
                   "fixed)")
    args = p.parse_args(argv)
    numbers = list(dict.fromkeys(row_numbers(args.rows, p)))
    cases = [row_case(i, p) for i in numbers]
    columns = list(dict.fromkeys(column_names(args.columns, p)))
    if not args.a:
        p.error("--a: the first build's folder is needed")
    builds = {"a": os.path.abspath(args.a)}
    if args.b:
        builds["b"] = os.path.abspath(args.b)
    check_builds(builds, p)
    ncu = find_ncu(args.ncu)
    if ncu is None:
        p.error(f"--ncu: {args.ncu or 'ncu'} not found (install Nsight "
                "Compute or name its ncu with --ncu)")
    require_torch()
    print_header("prefill_cycles")
    for side, path in builds.items():
        print(f"{side}: {path}")
    print(f"ncu: {ncu}, --clock-control {args.clock_control}\n")
    print(f"{'build':>5} {'case':>28} {'column':>14} {'Mcycles':>9} "
          f"{'GHz':>6} {'TFLOP/s':>8} {'per GHz':>8} {'Minst':>9}")
    got = {}
    for side, path in builds.items():
        for case in cases:
            seqs, ctx, chunk = case[2:]
            fl = flops([ctx] * seqs, [chunk] * seqs)
            for column in columns:
                m, text = profile(ncu, args.clock_control, path, case, column)
                if len(m) != len(METRICS):
                    print(f"{side} {case[0]} {column}: no metrics for one "
                          f"kernel from ncu:\n{text[-2000:]}")
                    return 1
                cycles, us = m["sm__cycles_elapsed.avg"], \
                    m["gpu__time_duration.sum"]
                inst = m["smsp__inst_executed.sum"]
                got[side, case[0], column] = (cycles, inst)
                print(f"{side:>5} {case[0]:>28} {column:>14} "
                      f"{cycles / 1e6:9.3f} {cycles / us / 1e3:6.3f} "
                      f"{fl / us / 1e6:8.1f} {fl / cycles / 1e3:8.1f} "
                      f"{inst / 1e6:9.1f}", flush=True)
    if "b" in builds:
        print("\nb / a:\n\n| case | column | cycles | instructions |")
        print("|---|---|---|---|")
        for case in cases:
            for column in columns:
                (ca, ia), (cb, ib) = (got[s, case[0], column] for s in "ab")
                print(f"| {case[0]} | {column} | {cb / ca:.4f} | "
                      f"{ib / ia:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
