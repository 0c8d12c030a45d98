"""fp32 division forms in a one-row-per-program softmax, Quire and Triton.

The row softmax of examples/softmax.mlir written in the language (one
program per row of 1000 floats, a 1024-wide block, 4 warps; 65536 rows with a
row stride of 1024), the normalisation written three ways: `e / s` (Triton's
approximate fp32 division; Quire multiplies by one reciprocal of the row sum),
`tl.math.div_rn(e, s)` (correctly rounded) and `e * (1.0 / s)`. The same
source runs under Quire and, with its two imports replaced, under Triton, in
one process; each output is checked against float64 on NaN-poisoned memory,
then timed as CUDA-graph replays (median of 3). Prints the table, writes
softmax_division.png.

    bench/run.py softmax_division
"""

import os
import statistics
import sys
import tempfile

from lib.env import parser, print_header, require_torch

SOURCE = '''
import quire as triton
import quire.language as tl


@triton.jit
def row_softmax(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr,
                FORM: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    s = tl.sum(e, axis=0)
    if FORM == 0:
        y = e / s
    elif FORM == 1:
        y = tl.math.div_rn(e, s)
    else:
        y = e * (1.0 / s)
    tl.store(out_ptr + row * stride + cols, y, mask=mask)
'''
FORMS = ("e / s", "tl.math.div_rn(e, s)", "e * (1.0 / s)")
ROWS, COLS, STRIDE = 65536, 1000, 1024


def main(argv=None):
    p = parser("softmax_division", __doc__)
    p.parse_args(argv)
    torch = require_torch()
    from lib.plot import bars
    from lib.reference import poison
    from lib.timing import graph_us
    from perf.frontend import load_module, triton_source

    print_header("softmax_division")
    x = torch.randn(ROWS, STRIDE, device="cuda")
    ref = torch.softmax(x[:, :COLS].double(), 1)
    y = torch.empty_like(x)
    times, failed = {}, False
    with tempfile.TemporaryDirectory(prefix="quire-division-") as tmp:
        for side in ("Quire", "Triton"):
            text = SOURCE if side == "Quire" else triton_source(SOURCE, "<bench>")
            path = os.path.join(tmp, f"row_softmax_{side.lower()}.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            kernel = load_module(f"division_{side.lower()}", path).row_softmax
            for form, label in enumerate(FORMS):
                def fn(form=form):
                    kernel[(ROWS,)](x, y, STRIDE, COLS, BLOCK=1024, FORM=form,
                                    num_warps=4)
                poison(y)
                fn()
                torch.cuda.synchronize()
                out = y[:, :COLS].double()
                err = ((out - ref).norm() / ref.norm()).item()
                ok = err < 1e-5 and not torch.isnan(out).any().item()
                failed |= not ok
                t = statistics.median(graph_us(fn) for _ in range(3))
                times[side, label] = t
                print(f"  {side:6s} {label:22s} {t:7.1f} us  err {err:.1e}"
                      f"{'' if ok else '  WRONG'}", flush=True)
    gbs = 2 * ROWS * COLS * 4 / 1e3
    print("\n| division | Quire us | Triton us | Triton / Quire | Quire GB/s |")
    print("|---|---|---|---|---|")
    for label in FORMS:
        q, t = times[("Quire", label)], times[("Triton", label)]
        print(f"| `{label}` | {q:.1f} | {t:.1f} | {t / q:.2f} | {gbs / q:.0f} |")
    bars("softmax_division.png", f"row softmax {ROWS}x{COLS} fp32: division forms",
         "us (CUDA graph)", list(FORMS),
         [(side, [times[(side, f)] for f in FORMS]) for side in ("Quire", "Triton")])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
