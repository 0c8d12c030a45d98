"""The hand-written examples against their frontend twins: the frontend costs nothing.

Each example of examples/*.mlir (compiled with quire.compile) and its twin
written in the frontend (lib/frontend_examples.py: the same tiles, the same
ops) run on the same inputs in this process: outputs must agree bit for bit,
then both are timed as CUDA-graph replays (lib.timing.graph_us), each
alternately three times, and the table gives the medians and the ratio
(twin / example; within 2% is no cost).

    bench/run.py frontend_parity [--out DIR]
"""

import statistics

from lib.env import parser, print_header, require_torch


def main(argv=None):
    p = parser("frontend_parity", __doc__)
    p.add_argument("--out", help="unused (no plot); accepted for symmetry")
    p.parse_args(argv)
    torch = require_torch()
    import quire
    from lib import frontend_examples as fe
    from lib.env import ROOT
    from lib.timing import graph_us
    print_header("frontend_parity")
    torch.manual_seed(0)
    dev = "cuda"
    example = lambda n: f"{ROOT}/examples/{n}"  # noqa: E731

    def f32(*shape):
        return torch.randn(*shape, device=dev)

    def f16(*shape):
        return torch.randn(*shape, device=dev, dtype=torch.float16)

    cases = []
    n = 1 << 26
    x, y = f32(n), f32(n)
    cases.append(("vector_add.mlir", f"n={n}", ((n + 1023) // 1024,),
                  lambda: (x, y, torch.full_like(x, float("nan")), n), 2))
    rows, cols = 65536, 1000
    sx = f32(rows, 1024)
    cases.append(("softmax.mlir", f"{rows}x{cols}", (rows,),
                  lambda: (sx, torch.full_like(sx, float("nan")), 1024, cols),
                  1))
    M = N = K = 4096
    a, b = f16(M, K), f16(K, N)
    cases.append(("matmul.mlir", f"{M}^3", (M // 64, N // 64),
                  lambda: (a, b, torch.full((M, N), float("nan"), device=dev,
                                            dtype=torch.float16),
                           M, N, K, K, N, N), 2))
    seqs, kvh, page, length = 64, 8, 16, 4096
    pages = seqs * length // page
    kc = f16(pages, page, kvh, 128)
    vc = f16(pages, page, kvh, 128)
    q = f16(seqs, 4 * kvh, 128)
    bt = torch.randperm(pages, device=dev, dtype=torch.int32).view(seqs, -1)
    lens = torch.full((seqs,), length, device=dev, dtype=torch.int32)
    st = (page * kvh * 128, kvh * 128, 128)
    cases.append(("paged_decode_attention.mlir", f"{seqs}x{length} GQA 4",
                  (seqs, kvh),
                  lambda: (torch.full_like(q, float("nan")), q, kc, vc, bt,
                           lens, 0.088, 4 * kvh, bt.shape[1], *st), 0))

    failed = False
    table = []
    for name, shape, grid, make, out_index in cases:
        hand = quire.compile(example(name))
        fn, consts = fe.EXAMPLES[name]
        args_h, args_t = make(), make()
        hand[grid](*args_h)
        twin = fn[grid](*args_t, **consts)
        torch.cuda.synchronize()
        # Bit patterns, so unwritten (NaN-poisoned) elements compare equal.
        oh, ot = args_h[out_index], args_t[out_index]
        bits = torch.int16 if oh.element_size() == 2 else torch.int32
        same = torch.equal(oh.view(bits), ot.view(bits))
        if not same:
            failed = True
            print(f"{name}: the twin's output differs from the example's")
        th, tt = [], []
        for _ in range(3):
            th.append(graph_us(lambda: hand[grid](*args_h)))
            tt.append(graph_us(lambda: fn[grid](*args_t, **consts)))
        mh, mt = statistics.median(th), statistics.median(tt)
        table.append((name, shape, mh, mt, mt / mh, same, twin.n_regs))
    print()
    print(f"{'example':30s} {'shape':18s} {'hand us':>9s} {'twin us':>9s} "
          f"{'twin/hand':>9s} {'same':>5s} {'regs':>5s}")
    for name, shape, mh, mt, r, same, regs in table:
        print(f"{name:30s} {shape:18s} {mh:9.1f} {mt:9.1f} {r:9.3f} "
              f"{'yes' if same else 'NO':>5s} {regs!s:>5s}")
    return 1 if failed else 0
