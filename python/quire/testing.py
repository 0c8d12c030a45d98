"""Benchmarking helpers with Triton's semantics (triton.testing.do_bench).

Timing uses CUDA events through the driver API on the stream kernels launch
on by default (torch's current stream when torch is in use), so it needs
neither torch nor triton.
"""

import math

from . import _cuda

_RETURN_MODES = ("min", "max", "mean", "median", "all")
_flush = None


def _quantile(sorted_times, q):
    """Linear interpolation between closest ranks (torch.quantile's)."""
    pos = q * (len(sorted_times) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_times) - 1)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (pos - lo)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
             return_mode="median", flush=None):
    """Runs `fn` for about `warmup` ms, then times about `rep` ms of calls,
    each after flushing the L2 cache (a 256 MB memset), and returns the time
    of one call in milliseconds: the median (default), "min", "max", "mean",
    or "all" (the list). With `quantiles` (a list of numbers in [0, 1]) it
    returns those quantiles instead (one float for a single quantile), as
    Triton does. `grad_to_none`: tensors whose .grad is reset before each
    call.

    `flush` (not in Triton's): a callable run instead of the memset before
    each timed call, on the stream `fn` launches on. The memset leaves the
    L2 full of dirty lines, whose write-back to DRAM then shares the timed
    call's bandwidth (about 50 MB, 10 us on an H100: docs/performance.md,
    "The timer's flush"); a flush that reads a buffer larger than the L2
    leaves it clean, so the time is the call's alone."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if flush is not None and not callable(flush):
        raise TypeError(f"flush must be callable or None, got "
                        f"{type(flush).__name__}")
    for name, value in (("warmup", warmup), ("rep", rep)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not value >= 0 or math.isinf(value):
            raise ValueError(f"{name} must be a non-negative number of ms, "
                             f"got {value!r}")
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(_RETURN_MODES)}"
                         f", got {return_mode!r}")
    if quantiles is not None:
        quantiles = list(quantiles)
        if not all(isinstance(q, (int, float)) and 0 <= q <= 1
                   for q in quantiles):
            raise ValueError(f"quantiles must be numbers in [0, 1], got "
                             f"{quantiles!r}")

    global _flush
    device = _cuda.current_device()
    _cuda.make_current(device)
    stream = _cuda.stream_handle(None, device)
    if flush is None:
        if _flush is None:
            _flush = _cuda.DeviceBuffer(256 * 1024 * 1024)
        memset = _flush.zero

        def flush():
            memset(stream)

    fn()
    _cuda.synchronize()

    start, end = _cuda.Event(), _cuda.Event()
    start.record(stream)
    for _ in range(5):
        flush()
        fn()
    end.record(stream)
    end.synchronize()
    estimate_ms = max(start.elapsed_ms(end) / 5, 1e-4)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))

    starts = [_cuda.Event() for _ in range(n_repeat)]
    ends = [_cuda.Event() for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        flush()
        starts[i].record(stream)
        fn()
        ends[i].record(stream)
    _cuda.synchronize()
    times = [s.elapsed_ms(e) for s, e in zip(starts, ends)]

    if quantiles is not None:
        ordered = sorted(times)
        result = [_quantile(ordered, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "mean":
        return sum(times) / len(times)
    return _quantile(sorted(times), 0.5)
