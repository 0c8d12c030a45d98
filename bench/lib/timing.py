"""The one timing method of bench/: quire.testing.do_bench, which has
triton.testing.do_bench's semantics (warmup and rep in ms, the L2 cache
flushed before each timed call, CUDA events on the launch stream, the median
in ms by default, `quantiles` and `return_mode` as Triton has them), plus the
two ways the decode benchmark also times a call: replayed from a CUDA graph,
and host time per call. `clean_l2()` is a flush for do_bench's `flush=`
that leaves the L2 clean (a read), for rows short enough that the memset
flush's write-back weighs on them (docs/performance.md, "The timer's
flush")."""

import time

from quire.testing import do_bench


def us(fn, warmup=25, rep=100, flush=None):
    """Median time of one call of `fn` in microseconds (`flush`: do_bench's,
    None for its memset)."""
    return do_bench(fn, warmup=warmup, rep=rep, flush=flush) * 1e3


def clean_l2(nbytes=256 * 1024 * 1024):
    """A flush that evicts the L2 cache by reading `nbytes` (a torch sum
    over a buffer written once), leaving clean lines: unlike the memset,
    it leaves nothing to write back during the timed call."""
    import torch
    buf = torch.ones(nbytes // 4, device="cuda")
    return lambda: buf.sum()


def graph_us(fn, flush=None):
    """Median time of `fn` replayed from a CUDA graph (how serving engines
    run decode: no Python or launch overhead between kernels), in us."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # loads the modules outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return us(graph.replay, flush=flush)


def host_us(fn, n=1000, batch=100):
    """Host time per call in us over `n` calls: the Python and launch
    overhead alone. The calls run in batches of `batch` with the device
    synchronized between them, outside the timing, so the launch queue
    never fills and a kernel longer than the host path does not turn this
    into GPU time."""
    import torch
    total = 0.0
    for _ in range(max(1, n // batch)):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        total += time.perf_counter() - t0
    torch.cuda.synchronize()
    return total / (max(1, n // batch) * batch) * 1e6


__all__ = ["clean_l2", "do_bench", "graph_us", "host_us", "us"]
