"""Summary of an Nsight Compute per-instruction profile (SASS, CSV).

Reads what `ncu --section SourceCounters --page source --csv --print-source
sass` printed for one kernel (the lines before the CSV header are skipped)
and prints, per region of the kernel, its warp stall samples, by reason and
by opcode, the instructions with the most samples, and the executions of
its mbarrier waits. The regions: with producer warps that move registers
(quire-warp-specialize's producer warpgroup), the instructions before the
consumers' `USETMAXREG.TRY_ALLOC` (the prologue and the producer) and from
it on (the consumers); otherwise the whole kernel.

A wait (`SYNCS.PHASECHK.TRANS64.TRYWAIT`) is executed once, then again in
its retry loop each time the phase is not complete (the retry loops sit at
the kernel's end, so in its last region: match them to their wait by the
mbarrier's address); a thread suspended in one is not necessarily sampled
there, so the executions show how often a wait was not yet satisfied where
the stall samples may not. For example:

    ncu --clock-control none --profile-from-start off \\
        --kernel-name regex:paged_prefill --section SourceCounters \\
        --page source --csv --print-source sass \\
        python3 bench/run.py profile prefill > prefill.csv
    bench/run.py sass_summary prefill.csv --top 12
"""

import collections
import csv
import re
import sys

from lib.env import parser

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
OPCODE = re.compile(r"\s*(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def number(text):
    """A CSV cell as a float (thousands separators dropped; not a number: 0)."""
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return 0.0


def read_rows(path):
    """The instruction rows of the CSV at `path` (dicts by column name)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith('"Address"') or line.startswith("Address")),
                 None)
    if start is None:
        raise ValueError(f"{path}: no CSV header (a line starting with "
                         "\"Address\"); was it printed with --page source "
                         "--csv --print-source sass?")
    rows = list(csv.DictReader(lines[start:]))
    for column in ("Source", SAMPLES, EXECUTED):
        if rows and column not in rows[0]:
            raise ValueError(f"{path}: no column {column!r}")
    return rows


def regions(rows):
    """[(name, first index, rows)]: split at the last USETMAXREG.TRY_ALLOC."""
    split = None
    for i, r in enumerate(rows):
        if "USETMAXREG" in r["Source"] and "TRY_ALLOC" in r["Source"]:
            split = i
    if split is None:
        return [("kernel", 0, rows)]
    return [("prologue and producer", 0, rows[:split]),
            ("consumers", split, rows[split:])]


def opcode(source):
    m = OPCODE.match(source)
    return m.group(1) if m else "?"


def summarize(rows, top=12):
    """The summary's lines."""
    stall_columns = [c for c in rows[0] if c.startswith("stall_")
                     and "Not Issued" not in c] if rows else []
    out = []
    for name, first, part in regions(rows):
        samples = sum(number(r[SAMPLES]) for r in part)
        executed = sum(number(r[EXECUTED]) for r in part)
        out.append(f"{name}: {samples:.0f} stall samples, {executed:.0f} warp "
                   "instructions executed")
        reasons = collections.Counter()
        for r in part:
            for c in stall_columns:
                reasons[c[len("stall_"):]] += number(r[c])
        out.append("  by reason: " + ", ".join(
            f"{k} {v:.0f}" for k, v in reasons.most_common(10) if v))
        ops = collections.Counter()
        for r in part:
            ops[opcode(r["Source"])] += number(r[SAMPLES])
        out.append("  by opcode: " + ", ".join(
            f"{k} {v:.0f}" for k, v in ops.most_common(12) if v))
        out.append("  top instructions (index, samples, executed, source):")
        ranked = sorted(range(len(part)), key=lambda i: -number(part[i][SAMPLES]))
        for i in ranked[:top]:
            r = part[i]
            out.append(f"    {first + i:5d} {number(r[SAMPLES]):7.0f} "
                       f"{number(r[EXECUTED]):10.0f}  {r['Source'].strip()[:72]}")
        waits = [(first + i, r) for i, r in enumerate(part)
                 if "SYNCS.PHASECHK" in r["Source"] and number(r[EXECUTED])]
        if waits:
            out.append("  mbarrier waits (index, executed, samples, source):")
            for i, r in waits:
                out.append(f"    {i:5d} {number(r[EXECUTED]):10.0f} "
                           f"{number(r[SAMPLES]):7.0f}  {r['Source'].strip()[:72]}")
    return out


def main(argv=None):
    p = parser("sass_summary", __doc__)
    p.add_argument("csv", nargs="+", help="ncu --page source --csv "
                   "--print-source sass output, one kernel each")
    p.add_argument("--top", type=int, default=12,
                   help="instructions listed per region (default 12)")
    args = p.parse_args(argv)
    if args.top < 0:
        p.error(f"--top must be >= 0, got {args.top}")
    for path in args.csv:
        try:
            rows = read_rows(path)
        except (OSError, ValueError) as e:
            print(f"sass_summary: {e}", file=sys.stderr)
            return 1
        print(f"== {path}")
        print("\n".join(summarize(rows, args.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
