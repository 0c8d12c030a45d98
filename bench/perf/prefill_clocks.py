"""The prefill op's rows timed beside the SM clock of each timing.

What a row measures against the clock the board's power limit leaves it.
nvidia-smi samples the SM clock, the board's power draw (its one-second
average) and the active clock-throttle reasons every 100 ms while this
process checks each column against float64 (checks/prefill_check's cases
with those columns at head dim 128) and then times each row's columns in
turn, --repeat times over (each timing one do_bench median, its wall-clock
window noted). Prints a line a timing: TFLOP/s, the SM clock's median and
range over the samples in its window, the most power drawn and whether the
power cap was throttling (nvidia-smi's sw_power_cap reason); then per row
and column the median TFLOP/s, the median clock and the median of TFLOP/s
per GHz of each timing's clock, which compares two columns timed at
different clocks (a column that draws more power is slowed by the cap, so
its TFLOP/s, not its TFLOP/s per GHz, is what it is worth). Columns: the
op's default and any of lib/prefill.ABLATION's. Exits 1 if a check failed.

    bench/run.py prefill_clocks [--rows 1,8,9] [--columns "cache kv,cache kv2"]
        [--repeat 5]

The power is nvidia-smi's power.draw, an average over the last second, so
it lags the timing it is printed beside. The power cap's reason is set as
soon as the board's limit bites, well before that average reaches it. The
GPU sampled is the first of CUDA_VISIBLE_DEVICES (else nvidia-smi's 0):
torch's device 0 where the two number the GPUs alike (with several GPUs,
set CUDA_DEVICE_ORDER=PCI_BUS_ID or a UUID in CUDA_VISIBLE_DEVICES).
"""

import datetime
import math
import os
import shutil
import subprocess
import sys
import tempfile

from lib.env import parser, print_header, require_torch

# nvidia-smi's clocks_throttle_reasons.active bit for the power cap.
SW_POWER_CAP = 0x4
FIELDS = "timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active"
STAMP = "%Y/%m/%d %H:%M:%S.%f"


def parse_samples(text):
    """[(datetime, MHz, watts, reasons)] from nvidia-smi's csv lines of
    FIELDS (noheader, nounits); lines it cannot read (a field [N/A]) are
    left out."""
    samples = []
    for line in text.splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) != 4:
            continue
        try:
            samples.append((datetime.datetime.strptime(parts[0], STAMP),
                            float(parts[1]), float(parts[2]),
                            int(parts[3], 16)))
        except ValueError:
            continue
    return samples


def window(samples, start, end):
    """The samples from `start` to `end` summed up: (median MHz, lowest,
    highest, most watts, power-capped in any), or None without a sample."""
    inside = [s for s in samples if start <= s[0] <= end]
    if not inside:
        return None
    mhz = sorted(s[1] for s in inside)
    return (median(mhz), mhz[0], mhz[-1], max(s[2] for s in inside),
            any(s[3] & SW_POWER_CAP for s in inside))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarize(timings):
    """{(row, column): (median TFLOP/s, median MHz, median TFLOP/s per GHz)}
    from [(row, column, tflops, window or None)], in first-seen order; the
    clock's two are nan where no timing had a sample."""
    by = {}
    for row, col, tflops, w in timings:
        by.setdefault((row, col), []).append((tflops, w))
    out = {}
    for key, items in by.items():
        clocked = [(t, w) for t, w in items if w]
        out[key] = (median([t for t, _ in items]),
                    median([w[0] for _, w in clocked]) if clocked else math.nan,
                    median([per_ghz(t, w) for t, w in clocked])
                    if clocked else math.nan)
    return out


def _gpu_id():
    """nvidia-smi's -i for torch's device 0: CUDA_VISIBLE_DEVICES's first
    entry (an index or a UUID, which -i takes either), else 0."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return first or "0"


class Sampler:
    """nvidia-smi sampling FIELDS every 100 ms from start() to stop(), which
    returns parse_samples' list and nvidia-smi's stderr."""

    def __init__(self, smi="nvidia-smi"):
        self.smi = smi

    def start(self):
        # (Files, not pipes: a pipe read only at stop() fills in a few
        # minutes of samples and stops nvidia-smi.)
        self.log = tempfile.TemporaryFile("w+")
        self.errs = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(
            [self.smi, "-i", _gpu_id(), f"--query-gpu={FIELDS}",
             "--format=csv,noheader,nounits", "-lms", "100"],
            stdout=self.log, stderr=self.errs, text=True)
        return self

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        texts = []
        for f in (self.log, self.errs):
            f.seek(0)
            texts.append(f.read())
            f.close()
        return parse_samples(texts[0]), texts[1]


def per_ghz(tflops, w):
    """TFLOP/s per GHz of a timing at window `w`'s median clock (nan
    without one)."""
    return tflops / (w[0] / 1000) if w else math.nan


def main(argv=None):
    from perf.prefill_ab import column_names, row_numbers
    p = parser("prefill_clocks", __doc__)
    p.add_argument("--rows", help="paged_prefill's row numbers (1-based; "
                   "default all)")
    p.add_argument("--columns", help="comma-separated: default and "
                   "lib/prefill.ABLATION's names (default: default)")
    p.add_argument("--repeat", type=int, default=5, help="timings of each "
                   "row and column, in turn (default 5)")
    args = p.parse_args(argv)
    rows = row_numbers(args.rows, p)
    columns = column_names(args.columns, p)
    if args.repeat < 1:
        p.error(f"--repeat: at least 1, got {args.repeat}")
    smi = shutil.which("nvidia-smi")
    if smi is None:
        p.error("nvidia-smi is not on PATH: the clocks are read from it")
    torch = require_torch()
    from checks.prefill_check import check
    from lib import prefill
    from lib.timing import us
    from perf.paged_prefill import ROWS, row_lengths
    print_header("prefill_clocks")
    sampler = Sampler(smi).start()
    try:
        forms = prefill.forms()
        gen = torch.Generator(device="cuda").manual_seed(7)
        ok = check(torch, gen, [forms[n] for n in columns])
        scale = 1 / math.sqrt(prefill.D)
        stamped = []
        for i in rows:
            label, page, ctx, ql = row_lengths(torch, ROWS[i - 1])
            inp = prefill.make_inputs(ctx, ql, page, gen)
            out = torch.empty_like(inp["q"])
            fl = prefill.flops(ctx, ql)
            # (Each form once first, so that a window holds its timing
            # alone.)
            for name in columns:
                cfg, options = forms[name]
                prefill.run_quire(inp, scale, out, cfg, **options)
            torch.cuda.synchronize()
            for _ in range(args.repeat):
                for name in columns:
                    cfg, options = forms[name]
                    start = datetime.datetime.now()
                    t = us(lambda: prefill.run_quire(inp, scale, out, cfg,
                                                     **options), rep=150)
                    stamped.append((label, name, fl / t / 1e6, start,
                                    datetime.datetime.now()))
    finally:
        samples, err = sampler.stop()
    if not samples:
        print(f"nvidia-smi gave no samples: {err.strip()[:300]}")
    timings = []
    print(f"\n{'case':>30} {'column':>14} {'TFLOP/s':>8} {'MHz':>5} "
          f"{'range':>10} {'W':>5} capped")
    for label, name, tflops, start, end in stamped:
        w = window(samples, start, end)
        timings.append((label, name, tflops, w))
        clock = (f"{w[0]:>5.0f} {f'{w[1]:.0f}-{w[2]:.0f}':>10} {w[3]:>5.0f} "
                 f"{'yes' if w[4] else 'no'}") if w else "(no sample)"
        print(f"{label:>30} {name:>14} {tflops:>8.1f} {clock}")
    print(f"\n{'case':>30} {'column':>14} {'TFLOP/s':>8} {'MHz':>5} "
          "TFLOP/s per GHz (medians)")
    for (label, name), (tf, mhz, per) in summarize(timings).items():
        print(f"{label:>30} {name:>14} {tf:>8.1f} {mhz:>5.0f} {per:>8.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
