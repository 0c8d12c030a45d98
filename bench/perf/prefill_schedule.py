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
count a chunk's blocks from its last. --kv-heads K adds a third order, K
KV heads' programs together (grid (num_seqs * GROUP * K, blocks,
num_kv_heads / K): the op's kv_heads_together=K hook, the ablation's cache
kv2 at K = 2). Prints, per row and order, the schedule's efficiency (the
work over the SMs' total time, 1 = no tail) and the K/V bytes the first
--sms programs read (the cache they share while they run; the H100's and
H200's L2 holds 50 MB).

    bench/run.py prefill_schedule [--sms 132] [--fixed 3.9] [--kv-heads K]
"""

import heapq
import sys

from lib.env import parser

D, HQ, HKV = 128, 32, 8  # Llama-3-8B heads, as lib/prefill
BLOCK_M = BLOCK_N = 128  # the op's sm_90 tiles


def programs(ctx, ql, order, kv_heads=1):
    """[(tile-steps, (seq, kv_head), keys read)] of the rectangular grid in
    the launch order of `order`: "head", or "kv" with `kv_heads` KV heads'
    programs together."""
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
    return [one(s, kv * group + g, b) for kv0 in range(0, HKV, kv_heads)
            for b in blocks for kv in range(kv0, kv0 + kv_heads)
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
    p.add_argument("--kv-heads", type=int, metavar="K",
                   help=f"also K KV heads' programs together (K divides "
                   f"{HKV})")
    args = p.parse_args(argv)
    if args.kv_heads is not None and (
            args.kv_heads < 1 or HKV % args.kv_heads):
        p.error(f"--kv-heads: must divide {HKV}, got {args.kv_heads}")
    if args.sms < 1:
        p.error(f"--sms: must be >= 1, got {args.sms}")
    if not args.fixed >= 0:
        p.error(f"--fixed: must be >= 0, got {args.fixed}")
    from perf.paged_prefill import ROWS
    orders = [("by head", "head", 1), ("by KV head", "kv", 1)]
    if args.kv_heads:
        orders.append((f"by {args.kv_heads} KV heads", "kv", args.kv_heads))
    given = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"# bench/run.py prefill_schedule{' ' + given if given else ''}: "
          f"a model, no GPU (--sms {args.sms}, --fixed {args.fixed})")
    print(f"{'case':>30}" +
          "".join(f" {name:>15} {'MB':>6}" for name, _, _ in orders))
    for label, _, ctx, ql in ROWS:
        if ctx is None:
            continue  # the ragged row takes the flat grid
        line = f"{label:>30}"
        for _, order, k in orders:
            progs = programs(ctx, ql, order, k)
            line += (f" {schedule(progs, args.sms, args.fixed):>15.3f}"
                     f" {footprint(progs, args.sms) / 2**20:>6.1f}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
