"""Host time of a decode call, piece by piece.

The host path of quire.ops.paged_decode_attention on a batch-1 Llama-3-8B
decode (32/8 heads, head dim 128, 4096 tokens, fp16): the plain call, a
plan's run(), and what they are made of (the layout checks, the workspace
allocation, the driver calls), next to the same machine's floor for each
piece (an empty Python call, torch.empty, torch's current stream, a bare
cuLaunchKernel through ctypes, the plan's launches through libquire's
quireLaunchKernels in one call) and the Triton peer's call. Each row is the
mean host time per call over 1000 calls (bench/lib/timing.host_us), so the
table says where the microseconds go on this machine. A cProfile of plan.run
follows. A plan with fused_combine=True (the splits merged in the split
kernel: one launch) is timed beside a plan of the two kernels.

    bench/run.py host_path
"""

import cProfile
import io
import math
import pstats
import sys

from lib.env import parser, print_header, require_torch


def main(argv=None):
    p = parser("host_path", __doc__)
    p.parse_args(argv)
    torch = require_torch()
    import quire
    from quire import _cuda
    from quire.ops import plan as plans
    from lib.reference import make_paged_kv
    from lib.timing import host_us
    from peers.triton_paged_decode import triton_paged_decode

    print_header("host_path")
    gen = torch.Generator(device="cuda").manual_seed(7)
    S, Hq, Hkv, D, L = 1, 32, 8, 128, 4096
    kc, vc, bt = make_paged_kv(S, Hkv, D, 16, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, D, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    cu = torch.arange(S + 1, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    scale = 1 / math.sqrt(D)
    pda = quire.ops.paged_decode_attention
    # The split kernel and the combine (a plan's default at 32 splits).
    plan = quire.ops.plan_attention(q, kc, vc, out, cu, 1, sl, L, scale, True,
                                    (-1, -1), bt, 0.0, None, None, None,
                                    fused_combine=False)
    given = plans._bind(plan.roles, (q, kc, vc, out, cu, sl, bt), {}, "x")
    plan.run(q, kc, vc, out, cu, sl, bt)  # the buffers hold these addresses
    first = plan._launches[0]
    stream = _cuda.ctypes.c_void_p(_cuda.stream_handle(None, 0))
    launch = _cuda._driver().cuLaunchKernel

    def bare_launch():
        # The buffer as the last run filled it.
        g = first.grid
        launch(first.function, g[0], g[1], g[2], first.threads, 1, 1,
               first.shared, stream, first.arg_ptrs, None)

    native = plan._native_launch

    def native_launches():
        # What plan.run does once its addresses are known (Plan._run).
        native.fill(every)
        for i in range(len(plan._groups)):
            plan._launch_group(i, every, stream.value)

    ptrs = plan._addresses(given)
    every = dict(ptrs, **{r: x if isinstance(x, int) else x.data_ptr()
                          for r, x in plan._workspace.items()})
    # The same plan with the splits merged in the split kernel (one launch).
    fused = quire.ops.plan_attention(q, kc, vc, out, cu, 1, sl, L, scale, True,
                                     (-1, -1), bt, 0.0, None, None, None,
                                     fused_combine=True)
    print(f"launches per run: plan {len(plan._launches)}, fused-combine plan "
          f"{len(fused._launches)}")

    rows = [
        ("empty Python call", lambda: None),
        ("torch.empty (workspace)", lambda: torch.empty(4096, device="cuda")),
        ("torch current raw stream", lambda: torch._C._cuda_getCurrentRawStream(0)),
        ("cuCtxSetCurrent (make_current)", lambda: _cuda.make_current(0)),
        ("one tensor's layout (_sig)", lambda: plans._sig(kc, False)),
        ("bare cuLaunchKernel (ctypes, packed buffer)", bare_launch),
    ] + ([] if native is None else [
        (f"the plan's {len(plan._launches)} launches through "
         "quireLaunchKernels", native_launches)]) + [
        ("plan: layout checks and addresses", lambda: plan._addresses(given)),
        ("plan: launches, no checks", lambda: plan._run(dict(given), plan._workspace,
                                                        dict(ptrs))),
        ("plan.run", lambda: plan.run(q, kc, vc, out, cu, sl, bt)),
        ("plan.run, fused combine", lambda: fused.run(q, kc, vc, out, cu, sl, bt)),
        ("plain call (cached plan)", lambda: pda(q, kc, vc, bt, sl, scale, out=out,
                                                  max_seq_len=L)),
        ("Triton peer call", lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, L,
                                                         out=out)),
    ]
    print("| piece | host us per call |")
    print("|---|---|")
    for name, fn in rows:
        fn()
        print(f"| {name} | {host_us(fn):.1f} |", flush=True)

    prof = cProfile.Profile()
    torch.cuda.synchronize()
    prof.enable()
    for _ in range(200):
        plan.run(q, kc, vc, out, cu, sl, bt)
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14)
    print(s.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
