"""Memory-bandwidth ceilings of the GPU.

A device copy of 1 GiB (read + write), a torch reduction over it (a read;
it understates the ceiling) and, when Triton is installed, a streaming-read
kernel at a few tile shapes (the read-only ceiling, the best of them). The
decode benchmark measures the same in its own process.

    bench/run.py ceilings [--gib N]
"""

import sys

from lib.env import parser, print_header, require_torch


def main(argv=None):
    p = parser("ceilings", __doc__)
    p.add_argument("--gib", type=int, default=1, help="buffer size in GiB (default 1)")
    args = p.parse_args(argv)
    torch = require_torch()
    from lib import bandwidth
    from lib.timing import us

    print_header("ceilings")
    nbytes = args.gib * bandwidth.GiB
    c = bandwidth.ceilings(nbytes)
    print(bandwidth.describe(c))
    try:
        from peers.triton_stream_read import stream_read_configs
    except ImportError:
        print("triton not installed: no streaming-read kernel")
        return 0
    words = torch.empty(nbytes // 8, dtype=torch.int64, device="cuda")
    for name, fn in stream_read_configs(words):
        try:
            t = us(fn)
        except Exception as e:  # a shape this Triton cannot build
            print(f"  Triton streaming read, {name}: {type(e).__name__}")
            continue
        print(f"  Triton streaming read, {name}: {t:.0f} us, "
              f"{nbytes / (t * 1e-6) / 1e12:.2f} TB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
