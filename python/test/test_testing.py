"""quire.testing.do_bench: argument checks (no GPU needed) and the
statistics it returns."""

import pytest

import quire
from quire import testing


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(fn=42), TypeError, "fn must be callable"),
    (dict(warmup=-1), ValueError, "warmup must be"),
    (dict(rep="100"), ValueError, "rep must be"),
    (dict(rep=float("nan")), ValueError, "rep must be"),
    (dict(return_mode="avg"), ValueError, "return_mode must be one of"),
    (dict(quantiles=[0.5, 2]), ValueError, "quantiles must be"),
    (dict(flush="read"), TypeError, "flush must be callable or None"),
])
def test_argument_checks(kwargs, exc, message):
    args = dict(fn=lambda: None)
    args.update(kwargs)
    with pytest.raises(exc, match=message):
        testing.do_bench(**args)


def test_quantile_interpolates_like_torch():
    assert testing._quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert testing._quantile([1.0, 2.0, 3.0, 4.0], 0.0) == 1.0
    assert testing._quantile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0
    assert testing._quantile([5.0], 0.2) == 5.0


@pytest.mark.gpu
def test_do_bench_times_a_kernel():
    import torch
    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    fn = lambda: y.copy_(x)  # noqa: E731
    median = testing.do_bench(fn, warmup=5, rep=20)
    assert 0 < median < 100
    times = testing.do_bench(fn, warmup=5, rep=20, return_mode="all")
    assert len(times) >= 1 and all(t > 0 for t in times)
    lo, hi = testing.do_bench(fn, warmup=5, rep=20, quantiles=[0.2, 0.8])
    assert 0 < lo <= hi
    assert testing.do_bench(fn, warmup=5, rep=20, return_mode="min") > 0


@pytest.mark.gpu
def test_do_bench_runs_the_given_flush_before_each_call():
    import torch
    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    order = []

    def fn():
        order.append("fn")
        y.copy_(x)

    def flush():
        order.append("flush")
        x.sum()

    testing.do_bench(fn, warmup=1, rep=5, flush=flush)
    # The first call (compiling, loading) and the warmup calls run without
    # a flush; the estimate's 5 calls and every timed call after one.
    assert order[:11] == ["fn"] + ["flush", "fn"] * 5
    rest = order[11:]
    warm = rest.index("flush")
    assert warm >= 1 and rest[:warm] == ["fn"] * warm
    timed = rest[warm:]
    assert len(timed) >= 2 and timed == ["flush", "fn"] * (len(timed) // 2)
