"""examples/hello.py, the newcomer's first program, runs as the README says:
with the package on the path, and from a clone's build tree by itself."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

HELLO = os.path.join(ROOT, "examples", "hello.py")


def _run(env, cwd):
    return subprocess.run([sys.executable, HELLO], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_hello_runs(tmp_path):
    env = dict(os.environ, QUIRE_CACHE_DIR=str(tmp_path / "cache"))
    res = _run(env, str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "interpreter, 98432 elements: correct" in res.stdout


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, "build", "python",
                                                   "quire")),
                    reason="no build/python (a build elsewhere than build/)")
def test_hello_finds_the_build_tree_by_itself(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["QUIRE_CACHE_DIR"] = str(tmp_path / "cache")
    res = _run(env, str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "correct" in res.stdout
