"""Memory-bandwidth ceilings of the GPU, measured in the calling process so
a benchmark compares against the same machine state: a device copy (read +
write), a torch reduction (read; it understates the ceiling) and, when
Triton is installed, a streaming-read kernel (the best of a few tile
shapes: the read-only ceiling)."""

from lib.timing import us

GiB = 1 << 30


def ceilings(nbytes=GiB):
    """{"copy": TB/s read+write, "torch_read": TB/s, "triton_read": TB/s or
    None} over a buffer of `nbytes`."""
    import torch
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    tb = lambda nb, t: nb / (t * 1e-6) / 1e12
    result = {"copy": tb(2 * nbytes, us(lambda: dst.copy_(src))),
              "torch_read": tb(nbytes, us(lambda: src.view(torch.int64).sum()))}
    try:
        from peers.triton_stream_read import stream_read_configs
    except ImportError:
        result["triton_read"] = None
    else:
        words = src.view(torch.int64)
        best = None
        for _, fn in stream_read_configs(words):
            try:
                t = us(fn)
            except Exception:  # a shape this Triton cannot build
                continue
            best = max(best or 0.0, tb(nbytes, t))
        result["triton_read"] = best
    return result


def describe(c):
    read = f", read-only {c['triton_read']:.2f} TB/s (Triton streaming read)" \
        if c.get("triton_read") else ""
    return (f"copy {c['copy']:.2f} TB/s (read+write), read {c['torch_read']:.2f} "
            f"TB/s (torch sum){read}")
