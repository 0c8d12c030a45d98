"""The prefill benchmarks' heads and their FLOP count, without torch:
lib/prefill (which imports torch) and perf/prefill_cycles (whose argument
checks and ncu parsing need none) share them."""

D, HQ, HKV = 128, 32, 8  # Llama-3-8B heads


def flops(ctx, ql, d=D, hq=HQ):
    """Causal-adjusted FLOPs: the chunk's part counts half."""
    return sum(4 * d * hq * (n * c + n * (n + 1) / 2) for c, n in zip(ctx, ql))
