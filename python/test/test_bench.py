"""bench/run.py, the one entry point of the benchmarks: it lists every
target, bench/README.md lists the same ones, and each target answers --help
without torch or a GPU (targets parse their arguments before importing
torch)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

RUN = os.path.join(ROOT, "bench", "run.py")


def _run(*args):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True,
                          text=True, timeout=120)


def _targets():
    listing = _run("--list")
    assert listing.returncode == 0, listing.stderr
    return [line.split()[0] for line in listing.stdout.splitlines()]


def test_list_names_every_target_with_a_summary():
    lines = _run("--list").stdout.splitlines()
    assert lines and all(len(line.split(None, 1)) == 2 for line in lines)
    groups = {t.split("/")[0] for t in _targets()}
    assert groups == {"checks", "perf"}


def test_readme_lists_every_target():
    with open(os.path.join(ROOT, "bench", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    missing = [t for t in _targets() if f"`{t}`" not in readme]
    assert not missing, f"bench/README.md does not list {missing}"


@pytest.mark.parametrize("target", _targets())
def test_help_needs_no_torch(target):
    name = target.split("/")[1]
    res = _run(name, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"usage: bench/run.py {name}")


def test_unknown_target_is_an_error():
    res = _run("no_such_target")
    assert res.returncode == 2
    assert "bench/run.py --list" in res.stderr


def test_decode_rows_are_checked_before_torch():
    res = _run("paged_decode", "--rows", "Llama-70B 32x8192,no such row")
    assert res.returncode == 2
    assert "--rows: no row 'no such row'" in res.stderr
    assert "'Llama-70B 32x8192'" in res.stderr


def test_frontend_decode_rows_fit_its_decode_workload(monkeypatch):
    # The rows come from perf/paged_decode, whose tuple grows with new
    # columns; the frontend benchmark must still unpack them.
    import inspect
    monkeypatch.syspath_prepend(os.path.join(ROOT, "bench"))
    from perf import frontend
    params = list(inspect.signature(frontend.Bench._decode).parameters)
    assert params[:7] == ["self", "name", "S", "Hq", "Hkv", "lens", "page"]
    for quick in (False, True):
        rows = frontend.decode_rows(quick)
        assert rows and all(len(r) == 6 for r in rows)
    assert "Llama-3-8B 64x4096" in [r[0] for r in frontend.decode_rows()]
