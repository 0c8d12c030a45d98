"""The prefill grid's program orders on a model of the GPU: tail and cache.

No GPU: for each row of paged_prefill (the ragged row, which takes the flat
grid, aside) the programs of the rectangular grid in two orders are
scheduled greedily, in index order, over --sms SMs of one program each (a
program holds its SM alone: 224 KB of shared memory). A program costs its
tile-steps (the keys it reads, BLOCK_N a step: the context and, causally,
its chunk up to its last row) plus a fixed cost (--fixed, in tile-steps;
bench/run.py prefill_programs fits it). "by head" is the grid before
d0387cb, (num_seqs, num_q_heads, blocks): the programs running at once are a
few blocks of every head; "by KV head" the op's, (num_seqs * GROUP, blocks,
num_kv_heads): x the sequence, then the query head within its group. Both
count a chunk's blocks from its last. Prints, per row and order, the
schedule's efficiency (the work over the SMs' total time, 1 = no tail) and
the K/V bytes the first --sms programs read (the cache they share while
they run; the H100's and H200's L2 holds 50 MB).

    bench/run.py prefill_schedule [--sms 132] [--fixed 3.9]
"""

import heapq
import sys

from lib.env import parser

D, HQ, HKV = 128, 32, 8  # Llama-3-8B heads, as lib/prefill
BLOCK_M = BLOCK_N = 128  # the op's sm_90 tiles


def programs(ctx, ql, order):
    """[(tile-steps, (seq, kv_head), keys read)] of the rectangular grid in
    the launch order of `order` ("head" or "kv")."""
    group = HQ // HKV
    nblk = max(-(-n // BLOCK_M) for n in ql)

    def one(s, h, b):
        m0 = b * BLOCK_M
        if m0 >= ql[s]:
            return 0, (s, h // group), 0
        keys = ctx[s] + min(m0 + BLOCK_M, ql[s])
        return -(-keys // BLOCK_N), (s, h // group), keys

    blocks = range(nblk - 1, -1, -1)  # last first
    seqs = range(len(ctx))
    if order == "head":
        return [one(s, h, b) for b in blocks for h in range(HQ)
                for s in seqs]
    return [one(s, kv * group + g, b) for kv in range(HKV) for b in blocks
            for g in range(group) for s in seqs]


def schedule(progs, sms, fixed):
    """Efficiency of the greedy schedule: total cost / (sms x makespan)."""
    free = [0.0] * sms
    total = 0.0
    for steps, _, _ in progs:
        cost = steps + fixed if steps else 0.1 * fixed
        total += cost
        heapq.heappush(free, heapq.heappop(free) + cost)
    return total / (sms * max(free))


def footprint(progs, sms):
    """K and V bytes of the (sequence, KV head) pairs the first `sms`
    programs read, each up to the most keys one of them reads."""
    keys = {}
    for _, pair, n in progs[:sms]:
        keys[pair] = max(keys.get(pair, 0), n)
    return sum(keys.values()) * D * 2 * 2


def main(argv=None):
    p = parser("prefill_schedule", __doc__)
    p.add_argument("--sms", type=int, default=132,
                   help="SMs, one program each (default 132)")
    p.add_argument("--fixed", type=float, default=3.9,
                   help="a program's fixed cost in tile-steps (default 3.9)")
    args = p.parse_args(argv)
    if args.sms < 1:
        p.error(f"--sms: must be >= 1, got {args.sms}")
    if not args.fixed >= 0:
        p.error(f"--fixed: must be >= 0, got {args.fixed}")
    from perf.paged_prefill import ROWS
    print(f"# bench/run.py prefill_schedule --sms {args.sms} --fixed "
          f"{args.fixed}: a model, no GPU")
    print(f"{'case':>30} {'by head':>8} {'MB':>6} {'by KV head':>11} "
          f"{'MB':>6}")
    for label, _, ctx, ql in ROWS:
        if ctx is None:
            continue  # the ragged row takes the flat grid
        cells = []
        for order in ("head", "kv"):
            progs = programs(ctx, ql, order)
            cells.append((schedule(progs, args.sms, args.fixed),
                          footprint(progs, args.sms) / 2**20))
        (e0, f0), (e1, f1) = cells
        print(f"{label:>30} {e0:>8.3f} {f0:>6.1f} {e1:>11.3f} {f1:>6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
