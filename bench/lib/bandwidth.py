"""Memory-bandwidth ceilings of the GPU, measured in the calling process so
a benchmark compares against the same machine state: a device copy (read +
write), a torch reduction (read; it understates the ceiling) and, when
Triton is installed, a streaming-read kernel (the best of its tile shapes
and read orders: the read-only ceiling).

A row of a bandwidth benchmark is also held to a streaming read of its own
byte count, timed the way the row is (`row_read_us`): do_bench's L2 flush
(a memset) adds a constant of about 10 us to every timed call, which weighs
2.8% on a 1 GiB read and 1.4% on a row reading twice that, so a row's
fraction of the 1 GiB ceiling can pass 100% without reading faster
(docs/performance.md, "The timer's flush")."""

from lib.timing import us

GiB = 1 << 30


def ceilings(nbytes=GiB):
    """{"copy": TB/s read+write, "torch_read": TB/s, "triton_read": TB/s or
    None, "read_order": the streaming-read configurations' indices, fastest
    first, "read_name": the fastest one's description} over a buffer of
    `nbytes`."""
    import torch
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    tb = lambda nb, t: nb / (t * 1e-6) / 1e12
    result = {"copy": tb(2 * nbytes, us(lambda: dst.copy_(src))),
              "torch_read": tb(nbytes, us(lambda: src.view(torch.int64).sum())),
              "triton_read": None, "read_order": [], "read_name": None}
    try:
        from peers.triton_stream_read import stream_read_configs
    except ImportError:
        return result
    words = src.view(torch.int64)
    times = []
    configs = stream_read_configs(words)
    for i, (_, fn) in enumerate(configs):
        try:
            times.append((us(fn), i))
        except Exception:  # a shape this Triton cannot build
            continue
    if times:
        times.sort()
        result["triton_read"] = tb(nbytes, times[0][0])
        result["read_order"] = [i for _, i in times]
        result["read_name"] = configs[times[0][1]][0]
    return result


def row_read_us(ceil, nbytes, timer, tries=3):
    """The best time of the `tries` fastest streaming-read configurations
    of `ceil` (ceilings()) over a buffer of `nbytes`, each timed by
    `timer(fn)` (the row's own timer, e.g. graph_us); None without Triton."""
    if not ceil.get("read_order"):
        return None
    import torch
    from peers.triton_stream_read import stream_read_configs
    words = torch.empty(-(-nbytes // 8), dtype=torch.int64, device="cuda")
    configs = stream_read_configs(words)
    best = min(timer(configs[i][1]) for i in ceil["read_order"][:tries])
    del words, configs
    return best


def describe(c):
    read = f", read-only {c['triton_read']:.2f} TB/s (Triton streaming read: " \
        f"{c['read_name']})" if c.get("triton_read") else ""
    return (f"copy {c['copy']:.2f} TB/s (read+write), read {c['torch_read']:.2f} "
            f"TB/s (torch sum){read}")
